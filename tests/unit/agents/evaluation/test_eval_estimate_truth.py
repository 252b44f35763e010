"""Dry-run estimates price what will run (#42 item 9): with --runs nothing is generated and no graph is built;
a method's prompt is priced with the topic background it will carry; a local model's speed timed on a busy
machine is not reused, and every timing says the load it was taken under."""

from __future__ import annotations

import json

from motivgraph.agents.evaluation import speed
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.estimate import estimate_eval
from motivgraph.agents.evaluation.topics import EvalTopic, TopicPaper


def _topic() -> EvalTopic:
    bg = [TopicPaper.model_validate({"paper_id": f"b{i}", "title": f"Sparse kernels {i}",
                                "abstract": "Block sparse attention kernels for long documents. " * 40})
          for i in range(4)]
    return EvalTopic(topic_id="T0", topic="sparse attention kernels", background=bg)


def test_runs_price_no_generation_and_no_graph(settings):
    settings.llm.model = "openai:gpt-4o-mini"
    settings.llm.api_key = "sk-test-000000"
    cfg = EvalConfig(methods=["stateless"], run_ids={"stateless": ["r1"]}, graph="corpus", n_ideas=1)
    est = estimate_eval(settings, cfg, [_topic()])
    scopes = [ln.scope for ln in est.lines]
    assert not any(s.startswith("generation") or s.startswith("graphs") for s in scopes), scopes
    assert any("no graph is built and nothing is generated" in n for n in est.notes)


def test_generation_is_priced_with_the_topics_background(settings):
    settings.llm.model = "openai:gpt-4o-mini"
    settings.llm.api_key = "sk-test-000000"
    cfg = EvalConfig(methods=["setlevel"], graph="file", n_ideas=3)
    with_bg = estimate_eval(settings, cfg, [_topic()])
    bare = estimate_eval(settings, cfg, [EvalTopic(topic_id="T0", topic="sparse attention kernels")])
    gen = {e: next(ln for ln in x.lines if ln.scope == "generation: setlevel") for e, x in
           (("bg", with_bg), ("bare", bare))}
    assert gen["bg"].input_tokens > gen["bare"].input_tokens + 500  # the documents the prompt carries


def test_a_busy_timing_is_measured_again_and_says_its_load(settings):
    path = settings.cache_dir / "llm-speed.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    row = {"s_per_input_token": 0.001, "s_per_output_token": 0.05, "measured_at": "2026-01-01T00:00:00Z"}
    path.write_text(json.dumps({"local:busy": {**row, "model": "local:busy", "load_per_core": 2.4},
                                "local:idle": {**row, "model": "local:idle", "load_per_core": 0.1},
                                "local:old": {**row, "model": "local:old"}}))
    busy, idle, old = (speed.recorded(settings, m) for m in ("local:busy", "local:idle", "local:old"))
    assert busy is not None and "load 2.40 per core" in busy.source and speed.usable(busy) is None
    assert idle is not None and speed.usable(idle) is idle and "load 0.10 per core" in idle.source
    assert old is not None and speed.usable(old) is None  # how it was measured is unknown: time it again
    assert speed.load_per_core() >= 0.0
