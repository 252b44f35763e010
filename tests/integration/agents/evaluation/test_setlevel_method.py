"""The `setlevel` method through the platform runner: one call, K cards in order, sources resolved."""

import json
from pathlib import Path

import pytest

from motivgraph.agents.core import PlatformLLMClient, RunSpec, create_run, dry_run, get_method, run_method
from motivgraph.agents.setlevel.method import SetlevelExtra
from motivgraph.llm import ScriptedChatModel


def _background(tmp_path: Path) -> Path:
    f = tmp_path / "papers.jsonl"
    rows = [{"paper_id": f"p{i}", "title": f"Paper number {i} on sparse rewards",
             "abstract": f"Abstract {i} about reward shaping."} for i in range(1, 4)]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return f


def _cards(k: int) -> str:
    return json.dumps({"cards": [
        {"title": f"Card {i}", "problem_gap": f"Gap {i}: nobody links A and B.", "core_claim": f"We claim {i} holds.",
         "method": f"Method {i}: combine the two.", "inspiration": f"Document {i} leaves X open and Document 9 "
         "does not exist.", "documents": [f"Document {i}", 2]} for i in range(1, k + 1)]})


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


def test_setlevel_dry_run_prices_one_call(settings, tmp_path: Path) -> None:
    spec = RunSpec(method="setlevel", topic="sparse rewards in RL", config={"ideas": 5},
                   background_file=str(_background(tmp_path)))
    plan = dry_run(settings, spec, None)
    assert plan.roles["setlevel.writer"].calls == 1 and plan.roles["setlevel.writer"].output_tokens == 5 * 420
