"""Text-protocol tool calls (incl. malformed and unknown ones), idea JSON repair / re-ask,
ablation switches, and resume — all on the small real graph with the scripted model."""

from __future__ import annotations

import json

import pytest

from motivgraph.agents.core.rundir import RunDir, mark_interrupted
from motivgraph.errors import LLMError
from motivgraph.llm import ScriptedChatModel
from tests.integration.agents.soiq.soiq_support import SoiqSession, build_graph, idea_dict, idea_text, tc, tool_client


@pytest.fixture
def graph_rt(settings, store, embedder):
    return build_graph(settings, store, embedder)


def make_session(settings, rt, model, run=None, **cfg):
    settings.agents.require_random_draw = False  # scripts go straight to the idea
    events: list[dict] = []
    s = SoiqSession(settings, tool_client(rt), model, run=run, emit=events.append, **cfg)
    return s, s.run_dir, events


async def test_text_protocol_calls_including_malformed(settings, graph_rt):
    replies = [
        'First I look at the graph.\nnode_search(query="oversmoothing in graph networks", k=4) <CALL>',
        'node_relation(names=["Oversmoothing in deep message passing"]) <CALL>\n'
        'literature_search(query="deep graph networks" <CALL>',
        "unknown_tool(x=1) <CALL>\nnode_search(k=3) <CALL>",
        'literature_search(search_query="deep graph networks oversmoothing") <CALL>'
        "\nResults: (the model hallucinates results here, which must be dropped)",
        idea_text(idea_dict()),
        "<ACCEPT>",
    ]
    model = ScriptedChatModel(replies)
    session, _run, events = make_session(settings, graph_rt, model, tool_mode="text")
    result = await session.run()
    assert model.remaining == 0 and len(result.ideas) == 1
    assert session.tool_mode == "text"
    assert all(t == [] for t in model.tools_seen)  # nothing bound natively
    # the system prompt taught the protocol
    assert "<CALL>" in model.calls[0][0].content
    res = [e for e in events if e["type"] == "tool_result"]
    oks = [e["ok"] for e in res]
    assert oks == [True, True, False, False, False, True]
    assert "Oversmoothing in deep message passing" in res[0]["text"]
    assert "unbalanced" in res[2]["text"]
    assert "unknown tool 'unknown_tool'" in res[3]["text"]
    assert "query" in res[4]["text"] and "Field required" in res[4]["text"]
    # every result came back to the model in one user message per step, errors included
    third_call = model.calls[2]
    assert "could not read your tool call" in third_call[-1].content
    # text after the last <CALL> is not kept in the conversation
    assert all("hallucinates" not in m.content for m in model.calls[4])
    assert result.ideas[0]["grounding"]["citations_resolved"] == 1


async def test_invalid_idea_json_repaired_and_reasked(settings, graph_rt):
    idea = idea_dict(cite="")
    broken = json.dumps(idea, indent=1)[:-2] + ",\n"  # trailing comma, missing closing brace
    replies = [
        "I have thought a lot. My idea is great but I will describe it in prose only.",  # no JSON -> re-ask
        f"IDEA JSON:\n```json\n{broken}",  # broken JSON -> repaired
        "<ACCEPT>",
    ]
    model = ScriptedChatModel(replies)
    session, _, events = make_session(settings, graph_rt, model)
    result = await session.run()
    assert len(result.ideas) == 1 and result.ideas[0]["idea"]["Title"] == idea["Title"]
    ev = next(e for e in events if e["type"] == "idea")
    # The re-ask is the LLM layer's structured call for the Idea schema: it repaired the broken JSON.
    assert ev["reasks"] == 1
    assert "could not be read" in model.calls[1][-1].content
    # The schema instruction of a structured call, after the conversation (its prompt-cache prefix)
    assert "JSON Schema" in model.calls[1][-1].content


async def test_idea_never_valid_is_recorded_not_crashing(settings, graph_rt):
    model = ScriptedChatModel(["no idea", "still none", "nothing", idea_text(idea_dict(cite="")), "<ACCEPT>"])
    session, run, events = make_session(settings, graph_rt, model, ideas=2)
    result = await session.run()
    assert [e["decision"] for e in events if e["type"] == "idea_done"] == ["NO_IDEA", "ACCEPT"]
    assert len(result.ideas) == 1 and result.rejected == 1
    # the second idea was told about the first attempt? (it had no title, so nothing to repeat)
    assert run.status()["status"] == "completed"


async def test_previous_ideas_are_told_to_the_next(settings, graph_rt):
    first = idea_dict("Pheromone guided message passing", cite="")
    second = idea_dict("Curriculum depth for graph networks", cite="")
    model = ScriptedChatModel([idea_text(first), "<REJECT>", idea_text(second), "<ACCEPT>"])
    session, _, _ = make_session(settings, graph_rt, model, ideas=2)
    result = await session.run()
    assert [r["idea"]["Title"] for r in result.ideas] == [second["Title"]]
    second_task = model.calls[2][-1].content
    assert "Pheromone guided message passing" in second_task and "clearly different" in second_task


async def _tool_texts(settings, rt, ablations):
    replies = [
        tc("node_search", query="oversmoothing graph networks", k=3),
        tc("literature_search", query="deep graph networks oversmoothing", limit=3),
        tc("get_random_nodes", n=3),
        idea_text(idea_dict(cite="")),
        "<ACCEPT>",
    ]
    if "no_mentor" in ablations:
        replies[-1] = idea_text(idea_dict(cite="", extra="self-revised"))
    model = ScriptedChatModel(replies)
    session, _, events = make_session(settings, rt, model, ablations=ablations)
    result = await session.run()
    assert model.remaining == 0
    return [e["text"] for e in events if e["type"] == "tool_result"], result, events


async def test_ablations_change_what_tools_return(settings, graph_rt):
    base, _, _ = await _tool_texts(settings, graph_rt, [])
    assert "[challenge] Oversmoothing in deep message passing" in base[0]
    assert "Silva et al., 2021" in base[1]
    assert "[problem]" in base[2] or "[challenge]" in base[2] or "[solution]" in base[2]

    no_graph, _, _ = await _tool_texts(settings, graph_rt, ["no_graph"])
    assert "documents" in no_graph[0] and "[challenge]" not in no_graph[0]
    assert "Deeper Graph Networks without Oversmoothing" in no_graph[0]  # paper-level text
    assert "random papers" in no_graph[2] and "[problem]" not in no_graph[2]

    no_lit, result, _ = await _tool_texts(settings, graph_rt, ["no_lit_details"])
    assert "Deeper Graph Networks without Oversmoothing" in no_lit[1]
    assert "Silva" not in no_lit[1] and "2021" not in no_lit[1]  # titles only

    _, result, events = await _tool_texts(settings, graph_rt, ["no_mentor"])
    assert not any(e.get("agent") == "mentor" for e in events)
    rec = result.ideas[0]
    assert rec["decision"]["by"] == "self" and rec["idea"]["Abstract"].endswith("self-revised")


async def test_resume_after_failure_continues_from_checkpoint(settings, graph_rt):
    first = ScriptedChatModel([
        tc("node_search", query="oversmoothing", k=3),
        idea_text(idea_dict(cite="")),
        "Aspect: Rationality. Why would it help?",
        idea_text(idea_dict(cite="", extra="round one"), "Because."),
        ValueError("provider went away"),  # the mentor's round-2 call fails: the session stops
    ])
    session, run, _ = make_session(settings, graph_rt, first, ideas=1)
    with pytest.raises(LLMError):
        await session.run()
    assert run.status()["status"] == "failed"
    state = run.load_state()
    assert state["format"] == "motivgraph.checkpoint/1" and state["method"] == "soiq" and state["version"] == 2
    assert state["state"]["current"]["round"] == 1 and state["state"]["current"]["stage"] == "deliberate"
    assert "provider went away" in run.status()["error"]

    second = ScriptedChatModel(["Aspect: Feasibility. Data?", idea_text(idea_dict(cite="", extra="round two")),
                                "<ACCEPT>"])
    resumed = SoiqSession(settings, tool_client(graph_rt), second, run=RunDir.open(settings.runs_dir, run.id))
    result = await resumed.run()
    assert second.remaining == 0
    rec = result.ideas[0]
    assert [h["round"] for h in rec["history"]] == [0, 1, 2]
    assert rec["idea"]["Abstract"].endswith("round two")
    # the resumed mentor continued the same conversation: it saw the round-1 answer
    assert "Because." in second.calls[0][-1].content
    assert any(e["type"] == "resumed" for e in run.events())
    assert run.status()["status"] == "completed"
    # usage counted across both processes
    assert result.usage["total"]["calls"] == 7


async def test_killed_session_marked_interrupted_then_resumed(settings, graph_rt):
    model = ScriptedChatModel([idea_text(idea_dict(cite="")), "<REJECT>"])
    session, run, _ = make_session(settings, graph_rt, model, ideas=2)
    run.update_status(status="running", pid=2**22 + 12345)  # a process that does not exist
    assert mark_interrupted(settings.runs_dir) == [run.id]
    assert run.status()["status"] == "interrupted"
    # resume from scratch state (nothing checkpointed yet) runs the whole session
    model.add(idea_text(idea_dict("Pheromone-weighted routing after a restart", cite="")), "<ACCEPT>")
    result = await session.run()
    assert [r["idea"]["Title"] for r in result.ideas] == ["Pheromone-weighted routing after a restart"]


async def test_resume_refused_for_completed_or_live_run(settings, graph_rt):
    import os
    import subprocess
    import sys

    from motivgraph.errors import RunStateError

    model = ScriptedChatModel([idea_text(idea_dict(cite="")), "<ACCEPT>"])
    session, _run, _ = make_session(settings, graph_rt, model)
    await session.run()
    with pytest.raises(RunStateError, match="already completed"):
        await session.run()
    # a run another live process is running
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        other, run2, _ = make_session(settings, graph_rt, ScriptedChatModel([]))
        run2.update_status(status="running", pid=child.pid)
        assert child.pid != os.getpid()
        with pytest.raises(RunStateError, match="being run by process"):
            await other.run()
    finally:
        child.kill()
        child.wait()


async def test_constrained_mode_runs_json_actions_against_the_graph(settings, graph_rt):
    """Models without native tool calls whose server constrains output: each step is a structured
    call whose schema is the action; the first step must be a tool call (exploration)."""
    replies = [
        '{"action": {"tool": "answer"}}',  # not offered on the first step: corrected by the re-ask
        '{"action": {"tool": "node_search", "arguments": {"query": "oversmoothing in graph networks"}}}',
        '{"action": {"tool": "answer"}}',
        json.dumps(idea_dict(cite="")),  # the answer: a structured call for the Idea schema
        "<ACCEPT>",
    ]
    model = ScriptedChatModel(replies)
    session, run, events = make_session(settings, graph_rt, model, tool_mode="constrained")
    result = await session.run()
    assert model.remaining == 0 and len(result.ideas) == 1
    assert session.tool_mode == "constrained"
    assert all(t == [] for t in model.tools_seen)  # nothing bound natively
    first_schema = model.calls[0][-1].content  # a conversation: the schema comes after it
    assert "JSON Schema" in first_schema and '"const":"answer"' not in first_schema.replace(" ", "")
    assert "could not be used" in model.calls[1][-1].content  # the structured re-ask quoted the problem
    assert '"const":"answer"' in model.calls[2][-1].content.replace(" ", "")  # now answering is allowed
    res = [e for e in events if e["type"] == "tool_result"]
    assert [(e["tool"], e["ok"]) for e in res] == [("node_search", True)]
    assert "Oversmoothing in deep message passing" in res[0]["text"]
    # the results reached the model, and the idea came from the structured answer step
    assert any("Oversmoothing in deep message passing" in m.content for m in model.calls[3])
    assert result.ideas[0]["idea"]["Title"] == idea_dict()["Title"]
    assert any(e["type"] == "usage" for e in events)
    assert run.status()["reason"] is None


async def test_no_accepted_idea_names_the_reason(settings, graph_rt):
    model = ScriptedChatModel([idea_text(idea_dict(cite="")), "<REJECT>"])
    session, run, events = make_session(settings, graph_rt, model, tool_mode="text")
    result = await session.run()
    assert result.ideas == [] and result.rejected == 1
    st = run.status()
    assert st["status"] == "completed"
    assert st["reason"] == "no_valid_idea: idea 1: the mentor rejected it in round 1"
    done = [e for e in events if e["type"] == "idea_done"]
    assert done[0]["reason"] == "the mentor rejected it in round 1"


async def test_no_idea_at_all_names_the_researcher(settings, graph_rt):
    model = ScriptedChatModel(["no idea", "still none", "nothing"])
    session, run, _ = make_session(settings, graph_rt, model, tool_mode="text")
    await session.run()
    st = run.status()
    assert st["status"] == "completed"
    assert st["reason"].startswith("no_valid_idea: idea 1: the researcher wrote no valid idea: ")


async def test_a_top_up_run_is_told_the_earlier_runs_attempts(settings, graph_rt):
    """#43: the evaluation's next SoIQ run on a topic continues its memory (RunSpec.memory_from): the earlier
    run's rejected idea is listed to the researcher as already proposed, as within one run."""
    from motivgraph.agents.core import RunSpec, create_run

    first = idea_dict("Pheromone guided message passing", cite="")
    s1, run1, _ = make_session(settings, graph_rt, ScriptedChatModel([idea_text(first), "<REJECT>"]), ideas=1)
    assert (await s1.run()).ideas == []  # rejected by the mentor
    second = idea_dict("Curriculum depth for graph networks", cite="")
    model = ScriptedChatModel([idea_text(second), "<ACCEPT>"])
    run2 = create_run(settings.runs_dir, RunSpec(method="soiq", topic="oversmoothing in deep graph neural networks",
                                                 config={"ideas": 1}, memory_from=[run1.id]))
    s2, _, events = make_session(settings, graph_rt, model, run=run2)
    result = await s2.run()
    assert [r["idea"]["Title"] for r in result.ideas] == [second["Title"]]
    task = model.calls[0][-1].content
    assert "Pheromone guided message passing" in task and "clearly different" in task
    assert any(e.get("type") == "memory" and e.get("carried_attempts") == 1 for e in events)
    # without the memory, a fresh run is told nothing
    fresh = ScriptedChatModel([idea_text(second), "<ACCEPT>"])
    s3, _, _ = make_session(settings, graph_rt, fresh, ideas=1)
    await s3.run()
    assert "Pheromone guided message passing" not in fresh.calls[0][-1].content
