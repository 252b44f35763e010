"""The evaluation's protocol in a whole run: an order-biased judge is flagged (its flipped verdicts are ties,
no signal), and every figure of the report recomputes from the judgments recorded in judgments.jsonl."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from eval_support import judge_reply, one_topic_file, registered_writers, world_model, world_reply

from motivgraph.agents.core import PlatformLLMClient
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.harness import Evaluation, create_eval
from motivgraph.agents.evaluation.judges import SYS, Judge
from motivgraph.agents.evaluation.metrics.reference import DIMENSIONS
from motivgraph.agents.evaluation.report_check import check_report, order_bias_warnings
from motivgraph.agents.evaluation.topics import load_topics_file
from motivgraph.llm import ScriptedChatModel
from motivgraph.llm.tokens import content_text

LIGHT = ["scores", "elo", "reference", "gates", "yield"]


@pytest.fixture
def writers():
    with registered_writers({"p_low": 1, "p_high": 3}) as names:
        yield names


def _first_slot_judge(messages: list[Any]) -> str:
    """Always the first-shown idea, on every pairwise and reference question (a position-biased judge)."""
    system = content_text(messages[0].content)
    if system.startswith(SYS["pairwise"]):
        return json.dumps({"winner": "A"})
    if system.startswith(SYS["reference"]):
        return json.dumps({d: "A" for d in DIMENSIONS})
    return judge_reply(messages)


async def _run(settings, embedder, tmp_path: Path, methods: list[str], judges: list[tuple[str, Any]]):
    topics = load_topics_file(one_topic_file(tmp_path))
    run = create_eval(settings, EvalConfig(methods=methods, n_ideas=2, graph="file", n_boot=20, elo_rounds=2,
                                           metrics=LIGHT), topics, source="test")
    gen = world_model("scripted-gen")
    panel = [Judge(name, PlatformLLMClient(settings, model=model)) for name, model in judges]
    ev = Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings, model=gen), judges=panel,
                    embed=embedder.embed)
    return run, await ev.execute()


async def test_a_judge_that_always_picks_the_first_slot_is_flagged_and_carries_no_signal(
        settings, embedder, tmp_path: Path, writers) -> None:
    biased = ScriptedChatModel(default=_first_slot_judge, model_name="first-slot")
    run, res = await _run(settings, embedder, tmp_path, writers, [("first-slot", biased)])
    rows = [r for r in res.order if r["kind"] in ("pairwise", "reference")]
    assert rows and all(r["order_biased"] and r["consistency"] == 0.0 and r["flipped"] == r["pairs"]
                        and r["slot_a_share"] == 1.0 for r in rows)
    # every verdict flipped with the order: ties, the same for the better and the worse writer
    for m in writers:
        assert {d: res.estimates[m][f"wr_{d}"].value for d in DIMENSIONS} == {d: 0.5 for d in DIMENSIONS}
    elo = {m: res.estimates[m]["elo_overall"].value for m in writers}
    assert elo["p_high"] == pytest.approx(elo["p_low"])
    assert any(n.startswith("WARNING order bias: judge first-slot") for n in res.notes)
    html = (run.path / "report.html").read_text()
    assert "WARNING order bias" in html and "id='order-consistency'" in html
    assert check_report(run.path) == []  # the report is whole; the bias is a finding it states
    assert order_bias_warnings(run.path)


async def test_a_judge_free_of_position_bias_is_not_flagged(settings, embedder, tmp_path: Path, writers) -> None:
    _, res = await _run(settings, embedder, tmp_path, writers, [("fair", world_model("fair"))])
    assert res.order and not any(r["order_biased"] for r in res.order)
    assert not any("order bias" in n for n in res.notes)


def _read(path: Path) -> list[dict[str, str]]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


async def test_every_report_figure_recomputes_from_the_recorded_judgments(settings, embedder, tmp_path: Path,
                                                                           writers) -> None:
    """Two judges (one position-biased), both orders: the per-idea direct scores and reference win rates,
    the order-consistency table and the replies table, recomputed from judgments.jsonl alone."""
    biased = ScriptedChatModel(default=_first_slot_judge, model_name="first-slot")
    fair = ScriptedChatModel(default=lambda m: world_reply(m), model_name="fair")
    run, res = await _run(settings, embedder, tmp_path, writers, [("fair", fair), ("first-slot", biased)])
    recs = [json.loads(x) for x in (run.path / "judgments.jsonl").read_text().splitlines()]
    ideas = {r["idea_id"]: r for r in _read(run.path / "ideas.csv")}
    assert ideas
    for idea, row in ideas.items():
        scores = [r["result"]["novelty"] for r in recs if r["kind"] == "score" and r["idea"] == idea]
        assert float(row["score_novelty"]) == pytest.approx(sum(scores) / len(scores), abs=1e-4)  # 4 decimals
        for d in DIMENSIONS:
            vals = []
            for r in recs:
                if r["kind"] != "reference" or r["idea"] != idea:
                    continue
                w = r["result"][d]
                vals.append(0.5 if w == "tie" else float((w == "A") == r["idea_first"]))
            assert float(row[f"wr_{d}"]) == pytest.approx(sum(vals) / len(vals), abs=1e-4), (idea, d)
    # order consistency of the ELO matches: pair each record with its swapped twin
    by = {(r["judge"], r["dimension"], r["round"], r["first"], r["second"]): r["result"]["winner"]
          for r in recs if r["kind"] == "pairwise"}
    expect: dict[tuple[str, str], list[int]] = {}
    for (j, d, rnd, a, b), w1 in by.items():
        if a < b:
            w2 = by[(j, d, rnd, b, a)]
            cell = expect.setdefault((j, d), [0, 0, 0])
            cell[0] += 1
            cell[1] += (w1, w2) in (("A", "B"), ("B", "A"), ("tie", "tie"))
            cell[2] += w1 == w2 and w1 != "tie"
    table = {(r["judge"], r["dimension"]): [int(r["pairs"]), int(r["consistent"]), int(r["flipped"])]
             for r in _read(run.path / "tables" / "order-consistency.csv") if r["kind"] == "pairwise"}
    assert table == expect and table
    # the replies table counts exactly the recorded judgments
    counted: dict[tuple[str, str], int] = {}
    for r in recs:
        counted[(r["kind"], r["judge"])] = counted.get((r["kind"], r["judge"]), 0) + 1
    replies = {(r["kind"], r["judge"]): int(r["asked"]) for r in _read(run.path / "tables" / "replies.csv")}
    assert replies == counted
    # ELO matches played, per method: each match recorded once per judge and order
    for m in writers:
        played = {(r["dimension"], r["round"], *sorted((r["first"], r["second"]))) for r in recs
                  if r["kind"] == "pairwise" and (r["first"].startswith(m + ":") or r["second"].startswith(m + ":"))}
        assert res.estimates[m]["elo_matches"].value == len(played)
    protocol = {r["item"]: r["value"] for r in _read(run.path / "tables" / "protocol.csv")}
    played = {(r["dimension"], r["round"], *sorted((r["first"], r["second"]))) for r in recs if r["kind"] == "pairwise"}
    per_dim = {d: sum(1 for x in played if x[0] == d) for d in ("novelty", "motivation", "experiment")}
    assert protocol["ELO matches played"].startswith(", ".join(f"{d} {n}" for d, n in per_dim.items()))
    assert protocol["judges"].startswith("2: fair, first-slot")
    assert any(r["item"] == "warning" and "fewer than the protocol's 3" in r["value"]
               for r in _read(run.path / "tables" / "protocol.csv"))
