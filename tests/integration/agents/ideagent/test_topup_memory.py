"""Top-up runs remember (#43 item 3): the evaluation's next run of a method on the same topic continues the
method's own memory of the earlier runs (RunSpec.memory_from) instead of starting from nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from motivgraph.agents.core import PlatformLLMClient, RunSpec, create_run, run_method
from motivgraph.agents.ideagent.archive import Archive, Draft, Family, Retirement
from motivgraph.agents.ideagent.scripted_world import World
from motivgraph.agents.ideagent.search import SearchState, carry_over
from motivgraph.agents.ideagent.signature import Signature
from motivgraph.llm import ScriptedChatModel
from motivgraph.settings import Settings

TOPIC = "reasoning in small language models"


def _settings(path: Path) -> Settings:
    s = Settings(data_dir=path, _env_file=None)  # type: ignore[call-arg]
    s.llm.max_retries = 0
    return s


def _background(tmp_path: Path) -> Path:
    f = tmp_path / "bg.jsonl"
    f.write_text(json.dumps({"topic_id": "T", "topic_name": TOPIC, "background_papers": [
        {"paper_id": "p1", "title": "Chain of thought in small models", "abstract": "Small models reason poorly."}]})
        + "\n")
    return f


async def _run(settings: Settings, method: str, config: dict[str, Any], bg: Path,
               memory_from: list[str] | None = None) -> tuple[Any, Any, ScriptedChatModel]:
    model = ScriptedChatModel(default=World())
    client = PlatformLLMClient(settings, model=model)
    spec = RunSpec(method=method, topic=TOPIC, topic_id="T", config=config, background_file=str(bg),
                   memory_from=memory_from or [])
    run = create_run(settings.runs_dir, spec)
    try:
        return await run_method(settings, run, llm=client, tool_client=None), run, model
    finally:
        client.close()


def _ideator_prompts(model: ScriptedChatModel) -> list[str]:
    return [str(c[-1].content) for c in model.calls if "ROLE: ideator" in str(c[0].content)]


async def test_sequential_memory_top_up_lists_the_earlier_runs_ideas(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "d")
    bg = _background(tmp_path)
    first, run1, _ = await _run(settings, "sequential_memory", {"ideas": 2}, bg)
    assert first.status == "completed" and len(first.ideas) == 2
    earlier = [it["signature"] for it in json.loads((run1.path / "state.json").read_text())["state"]["items"]]
    problems = [s["problem"] for s in earlier]
    assert len(problems) == 2 and all(problems)

    _, _, fresh_model = await _run(_settings(tmp_path / "fresh"), "sequential_memory", {"ideas": 1}, bg)
    assert not any(p in _ideator_prompts(fresh_model)[0] for p in problems)  # a plain run starts from nothing

    top, run2, model = await _run(settings, "sequential_memory", {"ideas": 1}, bg, memory_from=[run1.id])
    assert top.status == "completed" and len(top.ideas) == 1
    first_prompt = _ideator_prompts(model)[0]
    assert all(p in first_prompt for p in problems)  # the earlier runs' ideas are in its memory from the start
    carried = json.loads((run2.path / "state.json").read_text())["state"]["carried"]
    assert [c["id"] for c in carried] == ["r1.i1", "r1.i2"]


async def test_ideagent_top_up_starts_from_the_earlier_archives(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "d")
    bg = _background(tmp_path)
    _, run1, _ = await _run(settings, "ideagent", {"ideas": 2, "seeds": 3}, bg)
    old = json.loads((run1.path / "state.json").read_text())["state"]["archive"]
    delivered = {d["id"] for d in old["active"].values()} | {d["id"] for d in old["history"]}
    assert delivered, "the first run kept some idea"
    top, run2, _ = await _run(settings, "ideagent", {"ideas": 1, "seeds": 1}, bg, memory_from=[run1.id])
    assert top.status == "completed"
    new = json.loads((run2.path / "state.json").read_text())["state"]["archive"]
    assert {f"r1.{i}" for i in delivered} <= {d["id"] for d in new["history"]}
    assert {f"r1.{f['id']}" for f in old["families"]} <= {f["id"] for f in new["families"]}
    events = [json.loads(x) for x in (run2.path / "transcript.jsonl").read_text().splitlines() if x.strip()]
    assert any(e.get("type") == "memory" and e.get("from") == [run1.id] for e in events)


def _draft(i: str, lineage: str) -> Draft:
    return Draft(id=i, seed=0, lineage=lineage, idea={"title": f"Idea {i}"},
                 signature=Signature(problem=f"problem {i}", mechanism="m", novelty="n", assumptions="a",
                                     effect="e"))


def test_carry_over_keeps_the_archive_invariants_and_never_carries_twice() -> None:
    a1 = Archive(capacity=2)
    a1.active = {"L00": _draft("s00.d0", "L00")}
    lost = _draft("s01.d0", "L01").model_copy(update={"retired": Retirement(why="lost", against="s00.d0",
                                                                             reason="weaker")})
    a1.history = [lost]
    a1.ever_active = ["s00.d0"]
    a1.families = [Family(id="F1", pattern="no evaluation", reason="reject_gate", members=["s02.d0"])]
    a1.check()
    run1 = SearchState(archive=a1)
    s2 = carry_over(SearchState(archive=Archive(capacity=1)), [run1])
    h = {d.id: d for d in s2.archive.history}
    assert set(h) == {"r1.s00.d0", "r1.s01.d0"} and not s2.archive.active
    assert h["r1.s00.d0"].retired.why == "superseded" and h["r1.s01.d0"].retired.why == "lost"
    assert [f.id for f in s2.archive.families] == ["r1.F1"] and s2.archive.families[0].members == ["r1.s02.d0"]
    # run 3 continues runs 1 and 2: run 2's copies of run 1 are not carried a second time
    s3 = carry_over(SearchState(archive=Archive(capacity=1)), [run1, s2])
    assert sorted(d.id for d in s3.archive.history) == ["r1.s00.d0", "r1.s01.d0"]
