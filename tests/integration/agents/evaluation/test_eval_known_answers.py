"""Known answers through the whole evaluation pipeline (judge prompts -> verdicts -> votes -> win rates ->
MOScore): the scripted reference judge votes differently per writer, per dimension and per presentation
order (eval_support.KNOWN_REFERENCE_VOTES), so a slot/side mix-up in turning verdicts into votes, a wrong
dimension set or a wrong MOScore mean changes a figure. Explicit config: no protocol default is relied on."""

from __future__ import annotations

from pathlib import Path

import pytest
from eval_support import known_answer_judge_reply, one_topic_file, registered_writers, world_model

from motivgraph.agents.core import PlatformLLMClient
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.harness import Evaluation, create_eval
from motivgraph.agents.evaluation.judges import Judge
from motivgraph.agents.evaluation.metrics.reference import DIMENSIONS
from motivgraph.agents.evaluation.topics import load_topics_file
from motivgraph.llm import ScriptedChatModel


@pytest.fixture
def writers():
    with registered_writers({"k_low": 1, "k_high": 3}) as names:
        yield names


async def test_reference_win_rates_and_moscores_by_hand(settings, embedder, tmp_path: Path, writers) -> None:
    topics = load_topics_file(one_topic_file(tmp_path))
    cfg = EvalConfig(methods=writers, n_ideas=2, graph="file", n_boot=20, metrics=["reference"],
                     w_pd=(2.0, 1.0, 1.0), w_ps=(1.0, 1.0, 2.0))
    run = create_eval(settings, cfg, topics, source="test")
    judge = ScriptedChatModel(default=known_answer_judge_reply, model_name="known-answer")
    ev = Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings, model=world_model("gen")),
                    judges=[Judge("known", PlatformLLMClient(settings, model=judge))], embed=embedder.embed)
    res = await ev.execute()
    wr = {m: {d: res.estimates[m][f"wr_{d}"].value for d in DIMENSIONS} for m in writers}
    # one reference, one judge, two orders: two votes per dimension and idea (both ideas of a writer alike).
    # QUALITY 3 writer, (idea shown first, reference shown first):
    #   problem_novelty (idea, idea) 1; significance (idea, reference) 1/2; timeliness (tie, tie) 1/2;
    #   technical_novelty (idea, tie) 3/4; effectiveness (reference, idea) 1/2; feasibility (reference, tie) 1/4
    assert wr["k_high"] == {"problem_novelty": 1.0, "significance": 0.5, "timeliness": 0.5,
                            "technical_novelty": 0.75, "effectiveness": 0.5, "feasibility": 0.25}
    # QUALITY 1 writer: every verdict reversed -> 1 - each rate
    assert wr["k_low"] == {"problem_novelty": 0.0, "significance": 0.5, "timeliness": 0.5,
                           "technical_novelty": 0.25, "effectiveness": 0.5, "feasibility": 0.75}
    mo = {m: (res.estimates[m]["moscore_pd"].value, res.estimates[m]["moscore_ps"].value) for m in writers}
    # k_high PD: s (1, .5, .5), w (2, 1, 1): arith 3/4, geo (.25)^(1/4) = .707107 -> .728553
    #        PS: s (.75, .5, .25), w (1, 1, 2): arith 1.75/4 = .4375, geo (.0234375)^(1/4) = .391271 -> .414386
    assert mo["k_high"] == (pytest.approx(0.728553, abs=1e-6), pytest.approx(0.414386, abs=1e-6))
    # k_low PD: s (0, .5, .5): geo 0 (a zero score with weight > 0), arith 1/4 -> .125
    #       PS: s (.25, .5, .75), w (1, 1, 2): arith 2.25/4 = .5625, geo (.0703125)^(1/4) = .514942 -> .538721
    assert mo["k_low"] == (pytest.approx(0.125, abs=1e-6), pytest.approx(0.538721, abs=1e-6))
