"""The `setlevel` method through the platform runner: one call, K cards in order, sources resolved."""

import json
from pathlib import Path

import pytest

from motivgraph.agents.core import PlatformLLMClient, RunSpec, create_run, dry_run, get_method, run_method
from motivgraph.agents.setlevel.method import SetlevelExtra
from motivgraph.agents.setlevel.reward import IMPACT_SYSTEM, SIMILARITY_SYSTEM
from motivgraph.llm import ScriptedChatModel


def _background(tmp_path: Path) -> Path:
    f = tmp_path / "papers.jsonl"
    rows = [{"paper_id": f"p{i}", "title": f"Paper number {i} on sparse rewards",
             "abstract": f"Abstract {i} about reward shaping."} for i in range(1, 4)]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return f


def _card(i: int, **over: object) -> dict[str, object]:
    return {"title": f"Shaping bridge {i}",
            "problem_gap": f"[Bridge Opportunity] Gap {i}: nobody links shaping and curricula.",
            "core_claim": f"We claim variant {i} learns sparse tasks faster than either alone.",
            "method": f"[Method Combination] Method {i}: combine the two schedules and compare them.",
            "inspiration": f"Document {i} leaves X open and Document 9 does not exist.",
            "documents": [f"Document {i}", 2]} | over


def _cards(k: int, **over: object) -> str:
    return json.dumps({"cards": [_card(i, **over) for i in range(1, k + 1)]})


async def test_setlevel_writes_k_cards_in_one_call(settings, tmp_path: Path) -> None:
    assert get_method("setlevel").name == "setlevel"
    model = ScriptedChatModel([_cards(3)])
    spec = RunSpec(method="setlevel", topic="sparse rewards in RL", config={"ideas": 3},
                   background_file=str(_background(tmp_path)))
    run = create_run(settings.runs_dir, spec)
    out = await run_method(settings, run, llm=PlatformLLMClient(settings, model=model), tool_client=None)
    assert out.status == "completed" and len(out.ideas) == 3
    assert len(model.calls) == 1  # one call for the whole set
    prompt = model.calls[0][-1].content
    assert "Document 1: Paper number 1" in prompt and "exactly 3 idea cards" in prompt
    first = out.ideas[0]
    extra = first.extra_as(SetlevelExtra)
    assert extra.rank == 1 and [s["document"] for s in extra.sources] == [1, 2]
    assert first.motivation.startswith("Gap 1") and first.method.startswith("Method 1")
    assert "Paper number 1 on sparse rewards" in first.related_work  # Document 1 named as its paper
    assert "Document 9" in first.related_work  # an unknown document is left as written, not invented
    assert [i.extra_as(SetlevelExtra).rank for i in out.ideas] == [1, 2, 3]
    assert out.usage["setlevel.writer"]["calls"] == 1


async def test_setlevel_resume_does_not_call_again(settings, tmp_path: Path) -> None:
    spec = RunSpec(method="setlevel", topic="sparse rewards in RL", config={"ideas": 2},
                   background_file=str(_background(tmp_path)))
    run = create_run(settings.runs_dir, spec)
    # a first segment that fails after the cards were checkpointed
    model = ScriptedChatModel([_cards(2)])
    client = PlatformLLMClient(settings, model=model)
    from motivgraph.agents.setlevel import method as m

    real = m.SetlevelMethod.run
    calls = {"n": 0}

    async def flaky(self, ctx):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 1:
            st = m.SetlevelState(cards=m.IdeaCards.model_validate_json(_cards(2)).cards)
            ctx.save_checkpoint(st)
            raise RuntimeError("crash after checkpoint")
        return await real(self, ctx)

    m.SetlevelMethod.run = flaky  # type: ignore[method-assign]
    try:
        with pytest.raises(RuntimeError):
            await run_method(settings, run, llm=client, tool_client=None)
        out = await run_method(settings, run, llm=client, tool_client=None)
    finally:
        m.SetlevelMethod.run = real  # type: ignore[method-assign]
    assert out.status == "completed" and len(out.ideas) == 2 and len(model.calls) == 0


def test_setlevel_dry_run_prices_one_call_per_set(settings, tmp_path: Path) -> None:
    spec = RunSpec(method="setlevel", topic="sparse rewards in RL", config={"ideas": 3},
                   background_file=str(_background(tmp_path)))
    plan = dry_run(settings, spec, None)
    assert plan.roles["setlevel.writer"].calls == 1 and plan.roles["setlevel.writer"].output_tokens == 3 * 440
    assert "setlevel.judge" not in plan.roles or plan.roles["setlevel.judge"].calls == 0  # one set: not judged
    # 5 ideas at K = 3: two sets of 3, each written by its own call and scored by R_set
    spec = RunSpec(method="setlevel", topic="sparse rewards in RL", config={"ideas": 5},
                   background_file=str(_background(tmp_path)))
    plan = dry_run(settings, spec, None)
    assert plan.roles["setlevel.writer"].calls == 2 and plan.roles["setlevel.writer"].output_tokens == 2 * 3 * 440
    assert plan.roles["setlevel.judge"].calls == 2 * (6 + 3)
    spec = RunSpec(method="setlevel", topic="sparse rewards in RL", config={"ideas": 3, "sets": 2},
                   background_file=str(_background(tmp_path)))
    plan = dry_run(settings, spec, None)
    # per set: 1 writer call; 2 impact calls per card (both orders) + 1 similarity call per pair
    assert plan.roles["setlevel.writer"].calls == 2 and plan.roles["setlevel.judge"].calls == 2 * (6 + 3)


def _judge(messages: list) -> str:  # type: ignore[type-arg]
    """Impact: the card always beats the anchor (q = 1). Similarity: cards titled 'Dup' are paraphrases."""
    text = messages[-1].content
    if messages[0].content.startswith(IMPACT_SYSTEM):
        a = text.split("=== Idea B ===")[0]
        return json.dumps({"winner": "A" if "problem_gap:" in a else "B"})
    assert messages[0].content.startswith(SIMILARITY_SYSTEM)
    s = 5 if text.count("title: Dup") == 2 else 1
    return json.dumps({"problem_gap": s, "core_claim": s, "method": s})


async def test_setlevel_keeps_the_best_of_n_sets_by_r_set(settings, tmp_path: Path) -> None:
    dup = json.dumps({"cards": [_card(i, title="Dup") for i in (1, 2, 3)]})  # valid but one idea thrice
    echo = _cards(3, core_claim="Core Claim")  # label echoes: schema-invalid
    model = ScriptedChatModel(rules=[("Independent draw 1 of 3", dup), ("Independent draw 2 of 3", echo),
                                     ("Independent draw 3 of 3", _cards(3)), ("=== Idea A ===", _judge)])
    spec = RunSpec(method="setlevel", topic="sparse rewards in RL", config={"ideas": 3, "sets": 3},
                   background_file=str(_background(tmp_path)))
    run = create_run(settings.runs_dir, spec)
    out = await run_method(settings, run, llm=PlatformLLMClient(settings, model=model), tool_client=None)
    assert out.status == "completed" and [i.status for i in out.ideas] == ["accepted"] * 3, [
        i.rejection for i in out.ideas]
    sets = json.loads((run.path / "sets.json").read_text())
    r = [s["r_set"] for s in sets["sets"]]
    # set 1: 1 + 1*0 + 1*0 + 0.05; set 2: invalid -> 0, no judge asked; set 3: 1 + 1 + 1 + 0.05
    assert r == pytest.approx([1.05, 0.0, 3.05])
    assert sets["chosen"] == [3] and sets["sets"][1]["reason"].startswith("schema_invalid: 3 of 3 card(s) invalid")
    assert sets["sets"][1]["quality"] == [] and sets["anchor"].startswith("Document 1: Paper number 1")
    x = out.ideas[0].extra_as(SetlevelExtra)
    assert (x.set_index, x.r_set, x.opportunity_pattern, x.method_paradigm) == (
        3, pytest.approx(3.05), "Bridge Opportunity", "Method Combination")
    judged = [c for c in model.calls if "=== Idea A ===" in c[-1].content]
    assert len(judged) == 2 * (6 + 3)  # the invalid set cost no judge call
    assert "R_set 3.050" in (run.path / "summary.md").read_text()


async def test_setlevel_with_no_valid_set_rejects_its_cards_and_says_why(settings, tmp_path: Path) -> None:
    model = ScriptedChatModel([_cards(3, core_claim="Core Claim"), _cards(2)])
    spec = RunSpec(method="setlevel", topic="sparse rewards in RL", config={"ideas": 3},
                   background_file=str(_background(tmp_path)))
    run = create_run(settings.runs_dir, spec)
    out = await run_method(settings, run, llm=PlatformLLMClient(settings, model=model), tool_client=None)
    assert out.status == "completed" and [i.status for i in out.ideas] == ["rejected"] * 3
    assert out.ideas[1].extra_as(SetlevelExtra).rejection == "core_claim only echoes field labels ('Core Claim')"
    reason = json.loads((run.path / "status.json").read_text())["reason"]
    assert reason.startswith("no_valid_idea: no schema-valid set of 3 cards in 1 draw(s): set 1: schema_invalid:")
    assert len(model.calls) == 1  # one set, not scored: no judge call


def test_ideate_cli_takes_sets_and_keeps_the_best_set(tmp_path: Path) -> None:
    """`motivgraph ideate --method setlevel --sets 3` as a user types it: the flag reaches the method's config."""
    from typer.testing import CliRunner

    from motivgraph.cli import app

    dup = json.dumps({"cards": [_card(i, title="Dup") for i in (1, 2, 3)]})
    impact_first = {"when": "Topic: .*=== Idea A ===\ntitle: ", "reply": json.dumps({"winner": "A"})}  # card first
    impact_second = {"when": "Topic: ", "reply": json.dumps({"winner": "B"})}  # anchor first: the card wins
    sim_dup = {"when": "=== Idea A ===\ntitle: Dup.*title: Dup", "reply": json.dumps(
        {"problem_gap": 5, "core_claim": 5, "method": 5})}
    sim = {"when": "=== Idea A ===", "reply": json.dumps({"problem_gap": 1, "core_claim": 1, "method": 1})}
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"rules": [
        {"when": "Independent draw 1 of 3", "reply": _cards(3)},
        {"when": "Independent draw 2 of 3", "reply": dup},
        {"when": "Independent draw 3 of 3", "reply": _cards(3, core_claim="Core Claim")},
        impact_first, impact_second, sim_dup, sim]}))
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "d"), "MOTIVGRAPH_LLM_MODEL": f"scripted:{script}", "COLUMNS": "200"}
    res = CliRunner().invoke(app, ["ideate", "sparse rewards in RL", "--method", "setlevel", "--sets", "3",
                                   "--background", str(_background(tmp_path))], env=env)
    assert res.exit_code == 0, res.output
    runs = [p for p in (tmp_path / "d" / "runs").iterdir() if (p / "sets.json").is_file()]
    assert len(runs) == 1
    sets = json.loads((runs[0] / "sets.json").read_text())
    # set 1: 1 + 1 + 1 + 0.05; set 2 (one idea thrice): 1 + 0 + 0 + 0.05; set 3: label echoes -> 0
    assert [s["r_set"] for s in sets["sets"]] == pytest.approx([3.05, 1.05, 0.0]) and sets["chosen"] == [1]


async def test_more_ideas_than_k_draw_sets_of_k_each_gated_and_scored(settings, tmp_path: Path) -> None:
    """The evaluation asks for --ideas cards: at the seed's K = 3 that is several sets of 3, each written in
    its own call (told the earlier sets' titles), gated and scored by R_set; the cards beyond --ideas are cut."""
    def on_topic(i: int, title: str) -> dict[str, object]:  # clearly on the topic: no other gate may reject it
        return _card(i, title=title, core_claim=f"We claim shaping variant {i} learns faster under sparse rewards "
                     "in reinforcement learning than curricula alone.")

    first = json.dumps({"cards": [on_topic(i, f"Alpha {i}") for i in (1, 2, 3)]})
    second = json.dumps({"cards": [on_topic(i, f"Beta {i}") for i in (1, 2, 3, 4)]})  # 4 > K: invalid
    model = ScriptedChatModel(rules=[("Set 1 of 2", first), ("Set 2 of 2", second), ("=== Idea A ===", _judge)])
    spec = RunSpec(method="setlevel", topic="sparse rewards in RL", config={"ideas": 5},
                   background_file=str(_background(tmp_path)))
    run = create_run(settings.runs_dir, spec)
    out = await run_method(settings, run, llm=PlatformLLMClient(settings, model=model), tool_client=None)
    writes = [c for c in model.calls if "idea cards as JSON" in c[-1].content]
    assert len(writes) == 2 and all("exactly 3 idea cards" in c[-1].content for c in writes)
    assert "Alpha 1" not in writes[0][-1].content and "- Alpha 1" in writes[1][-1].content
    assert [i.title for i in out.ideas] == ["Alpha 1", "Alpha 2", "Alpha 3", "Beta 1", "Beta 2"]
    # the set gate's verdicts (the shared validity gate may reject more, for its own reasons)
    why = [i.extra_as(SetlevelExtra).rejection for i in out.ideas]
    assert why[:3] == [None] * 3 and all(w.startswith("its set is schema-invalid (schema_invalid: 4 card")
                                         for w in why[3:]), why
    assert [i.status for i in out.ideas][3:] == ["rejected"] * 2
    sets = json.loads((run.path / "sets.json").read_text())
    assert [(s["slot"], s["valid"]) for s in sets["sets"]] == [(1, True), (2, False)]
    assert sets["sets"][0]["r_set"] == pytest.approx(3.05) and sets["sets"][1]["r_set"] == 0.0
    assert [i.extra_as(SetlevelExtra).set_number for i in out.ideas] == [1, 1, 1, 2, 2]
