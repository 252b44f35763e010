"""The evaluation's protocol defaults (the papers' numbers), the judge panel, the shared-model warning,
order consistency, the dry run's time arithmetic and the truthful progress line."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from motivgraph.agents.core.method import CostLine
from motivgraph.agents.evaluation.cli import accepted_line
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.estimate import EvalEstimate
from motivgraph.agents.evaluation.metrics.agreement import OrderPair, order_consistency
from motivgraph.agents.evaluation.protocol import panel_seats, protocol_rows, shared_model_warnings
from motivgraph.agents.evaluation.speed import Speed, is_local, time_lines
from motivgraph.settings import Settings


def _settings(tmp_path: Path, model: str = "openai:gpt-4o-mini") -> Settings:
    s = Settings(data_dir=tmp_path / "data")
    return s.model_copy(update={"llm": s.llm.model_copy(update={"model": model})})


def test_defaults_are_the_papers() -> None:
    c = EvalConfig(methods=["stateless"])
    assert c.panel_size == 3  # MindFlow 5.2: three judges, both orders
    assert (c.gate_k, c.gate_l, c.gate_m, c.tau, c.gate_k_alt) == (7, 7, 6, 7, 6)  # IDEAgent main table
    assert c.n_ideas == 10 and c.max_runs >= 5  # IDEAgent's set of 10 per topic
    assert c.elo_rounds == 5 and c.cu_gamma == 0.9


def test_one_named_judge_is_filled_to_three_seeded_samples_and_said(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    seats = panel_seats(s, EvalConfig(methods=["stateless"]))
    assert [x.name for x in seats] == ["openai:gpt-4o-mini", "openai:gpt-4o-mini#s1", "openai:gpt-4o-mini#s2"]
    assert seats[0].sample is None and len({x.sample for x in seats}) == 3  # each seat its own sample
    two = panel_seats(s, EvalConfig(methods=["stateless"], judges=["openai:a", "openai:b"]))
    assert [x.name for x in two] == ["openai:a", "openai:b", "openai:a#s1"]
    four = panel_seats(s, EvalConfig(methods=["stateless"], judges=["openai:a", "openai:b", "openai:c", "openai:d"]))
    assert len(four) == 4 and all(x.sample is None for x in four)
    rows = dict(protocol_rows(s, EvalConfig(methods=["stateless"]), 2))
    assert "2 independent seeded sample(s)" in rows["panel fill"]


def test_a_judge_sharing_the_generators_model_is_warned_about(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    shared = shared_model_warnings(s, EvalConfig(methods=["stateless"]))
    assert len(shared) == 1 and "openai:gpt-4o-mini also generates the ideas of stateless" in shared[0]
    assert shared_model_warnings(s, EvalConfig(methods=["stateless"], judges=["openai:gpt-4o"])) == []
    assert any(k == "warning" for k, _ in protocol_rows(s, EvalConfig(methods=["stateless"]), 1))


def test_order_consistency_counts_flips_as_no_signal_and_flags_a_one_slot_judge() -> None:
    fair = [OrderPair("pairwise", "novelty", "fair", "A", "B"), OrderPair("pairwise", "novelty", "fair", "B", "A"),
            OrderPair("pairwise", "novelty", "fair", "tie", "tie"), OrderPair("pairwise", "novelty", "fair", "A", "A")]
    one_slot = [OrderPair("pairwise", "novelty", "slot", "A", "A") for _ in range(3)]
    rows = {r["judge"]: r for r in order_consistency(fair + one_slot, bias_share=0.9, bias_min=6)}
    assert (rows["fair"]["pairs"], rows["fair"]["consistent"], rows["fair"]["flipped"]) == (4, 3, 1)
    assert rows["fair"]["consistency"] == 0.75 and rows["fair"]["slot_a_share"] == pytest.approx(4 / 6)
    assert not rows["fair"]["order_biased"]
    assert rows["slot"]["consistency"] == 0.0 and rows["slot"]["order_biased"]  # 6 of 6 decisive verdicts in A
    few = order_consistency(one_slot[:2], bias_share=0.9, bias_min=6)
    assert few[0]["order_biased"] is False  # 4 verdicts: too few to tell
    rel = order_consistency([OrderPair("diversity", "target", "j", "same", "same", slotted=False),
                             OrderPair("diversity", "target", "j", "same", "variant", slotted=False)])
    assert rel[0]["consistency"] == 0.5 and rel[0]["order_biased"] is None


def test_dry_run_time_from_a_local_speed_and_a_hosted_basis(tmp_path: Path) -> None:
    assert is_local("local:smollm2", None) and is_local("openai:qwen", "http://127.0.0.1:8080/v1")
    assert not is_local("openai:gpt-4o-mini", None) and not is_local("openai:x", "https://api.example.com/v1")
    est = EvalEstimate([CostLine("eval.score", "smollm2", 10, 10_000, 1_000)])
    sp = Speed("local:smollm2", 0.001, 0.05, "2026-01-01T00:00:00Z")
    seconds, basis = time_lines(_settings(tmp_path, "local:smollm2"), est, {"local:smollm2": sp})
    assert seconds == pytest.approx(10_000 * 0.001 + 1_000 * 0.05)
    with_calls = Speed("local:smollm2", 0.001, 0.05, "2026-01-01T00:00:00Z", s_per_call=0.5)
    assert time_lines(_settings(tmp_path, "local:smollm2"), est, {"local:smollm2": with_calls})[0] == \
        pytest.approx(seconds + 10 * 0.5)
    assert "1000 prompt tokens/s" in basis[0] and "20.0 reply tokens/s" in basis[0]
    hosted, why = time_lines(_settings(tmp_path), EvalEstimate([CostLine("x", "gpt-4o-mini", 1, 2000, 60)]), {})
    assert math.isfinite(hosted) and hosted > 0 and "not measured" in why[0]


def test_progress_says_what_was_accepted() -> None:
    assert accepted_line({"method": "stateless", "topic_id": "T1", "ideas": 0, "requested": 1}) == \
        "stateless T1: 0 ideas accepted (of 1 requested)"
    one = accepted_line({"method": "m", "topic_id": "T", "ideas": 1, "requested": 2})
    assert one == "m T: 1 idea accepted (of 2 requested)"


def test_every_protocol_choice_names_its_source_the_papers_ours_or_a_substitute(tmp_path: Path) -> None:
    """#43 item 7: the protocol table says, for every choice, whether it is a source paper's, ours, or a
    substitute for something we cannot run; the invented numbers are named as ours."""
    from motivgraph.agents.evaluation.protocol import as_dict, source_of

    s = _settings(tmp_path)
    cfg = EvalConfig(methods=["soiq", "ideagent", "sequential_memory", "setlevel", "mindflow"], graph="corpus")
    rows = protocol_rows(s, cfg, 2, "corpus")
    choices = [k for k, _ in rows if k != "warning"]
    assert all(source_of(k).split(":")[0] in ("paper", "ours", "substitute") for k in choices), [
        (k, source_of(k)) for k in choices if not source_of(k)]
    got = dict(rows)
    assert source_of("quality judge").startswith("substitute") and "Fast-Reviewer" in source_of("quality judge")
    assert "one named model is filled to three with seeded samples" in source_of("judges")
    for ours in ("runs per method and topic", "intervals", "graph grounding", "cutoff T1"):
        assert source_of(ours).startswith("ours"), ours
    assert "5-round minimum" in source_of("ELO") and "per-method" in source_of("ELO")
    assert got["literature search"].startswith("20 results") and "top 20" in source_of("literature search")
    assert got["set-level sets"].startswith("sets of K = 3")
    assert got["parents"].startswith("every evaluation graph gets parent nodes, judged by the parent_judge model "
                                     "openai:gpt-4o-mini; rule paper")
    assert "no second hold-out" in got["MindFlow training"]
    # what each method's top-up run carries over, or that it carries nothing
    memory = got["top-up memory"]
    assert "soiq: its attempts" in memory and "ideagent: its archives" in memory
    assert "sequential_memory: its memory" in memory and "setlevel: starts from nothing" in memory
    assert all("source" in r for r in as_dict(rows))
