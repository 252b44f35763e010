"""SoIQ runs end to end through the platform (agents.core runner) on a small real graph (embedded
FalkorDB, real MiniLM + FAISS), with every agent driven by the scripted model."""

from __future__ import annotations

import json

import pytest

from motivgraph.llm import ScriptedChatModel
from tests.integration.agents.soiq.soiq_support import (
    BAD_LINK,
    SoiqSession,
    build_graph,
    idea_dict,
    idea_text,
    tc,
    tool_client,
)


@pytest.fixture
def graph_rt(settings, store, embedder):
    return build_graph(settings, store, embedder)


async def run_session(settings, rt, replies, require_draw=False, **cfg):
    # Most scripts go straight to the idea; the random-draw nudge has its own test.
    settings.agents.require_random_draw = require_draw
    model = ScriptedChatModel(replies)
    events: list[dict] = []
    session = SoiqSession(settings, tool_client(rt), model, emit=events.append, **cfg)
    result = await session.run()
    return result, session.run_dir, model, events


async def test_full_session_accept(settings, graph_rt):
    idea0 = idea_dict()
    idea1 = idea_dict(extra="Revised after round 1.")
    idea2 = idea_dict(extra="Revised after round 2.")
    idea3 = idea_dict(extra="Revised after round 3.")
    replies = [
        # exploration: several tool calls, then the idea
        tc("node_search", query="oversmoothing graph neural networks", k=5),
        tc("node_relation", names=["Oversmoothing in deep message passing"]),
        tc("literature_search", query="deep graph networks oversmoothing"),
        tc("get_random_nodes", n=5),
        tc("transfer_candidates"),
        idea_text(idea0),
        # mentor round 1, researcher answers with a tool call then a revision
        "Aspect: Innovativeness. How does pheromone weighting differ from attention?",
        tc("literature_search", query="graph attention oversmoothing"),
        idea_text(idea1, "Attention is learned per layer; pheromone accumulates across training."),
        "Aspect: Rationality. Why would reinforcing paths reduce oversmoothing?",
        idea_text(idea2, "Because it keeps informative paths sharper."),
        "Aspect: Feasibility. How is the pheromone initialised on ogbn-arxiv?",
        idea_text(idea3, "Uniformly, then updated from gradients."),
        "Your answers were convincing. <ACCEPT>",
    ]
    result, run, model, events = await run_session(settings, graph_rt, replies, ideas=1)
    assert model.remaining == 0
    assert result.status == "completed" and len(result.ideas) == 1
    rec = result.ideas[0]
    assert rec["decision"]["decision"] == "ACCEPT" and rec["decision"]["forced"] is False
    assert rec["rounds"] == 3
    assert rec["aspects"] == ["Innovativeness", "Rationality", "Feasibility"]
    assert [h["round"] for h in rec["history"]] == [0, 1, 2, 3]
    assert rec["history"][3]["idea"]["Abstract"].endswith("Revised after round 3.")
    assert rec["idea"] == idea3
    # grounding: both links resolve against the graph, the citation matches a paper seen
    g = rec["grounding"]
    assert g["links_total"] == 2 and g["links_resolved"] == 2, g
    assert g["citations_total"] == 1 and g["citations_resolved"] == 1, g
    assert rec["flagged"] is False
    # tools really ran on the graph: the node search result names a real node
    results = [e for e in events if e["type"] == "tool_result"]
    assert len(results) == 6 and all(e["ok"] for e in results), results
    assert "Oversmoothing in deep message passing" in results[0]["text"]
    assert "Silva et al." in results[2]["text"]
    # the researcher was offered the tools natively
    # (one canonical name per tool: random_nodes; the alias get_random_nodes the model used was accepted)
    assert {t["function"]["name"] for t in model.tools_seen[0]} >= {"node_search", "random_nodes"}
    assert "get_random_nodes" not in {t["function"]["name"] for t in model.tools_seen[0]}
    # run directory
    lines = [json.loads(x) for x in run.transcript_path.read_text().splitlines()]
    kinds = {e["type"] for e in lines}
    assert {"message", "tool_call", "tool_result", "decision", "usage", "grounding", "status"} <= kinds
    stored = json.loads((run.path / "ideas.json").read_text())[0]
    assert stored["title"] == idea3["Title"] and stored["motivation"] == idea3["Motivation"]
    assert stored["method"] == idea3["Method"] and stored["experiments"] == idea3["Experiments plan"]
    assert stored["extra"]["idea_json"] == idea3
    # the record's grounding: both links resolved, the citation resolved to the paper returned
    assert [ln["resolved"] for ln in stored["grounding"]["links"]] == [True, True]
    (cite,) = stored["grounding"]["citations"]
    assert cite["paper"]["title"] == "Deeper Graph Networks without Oversmoothing" and cite["paper"]["year"] == 2021
    prov = stored["provenance"]
    assert prov["method"] == "soiq" and prov["run_id"] == run.id
    assert set(prov["models"]) == {"soiq.researcher", "soiq.mentor"}
    summary = (run.path / "summary.md").read_text()
    assert "ACCEPT" in summary and "Reproducibility" in summary
    repro = json.loads((run.path / "repro.json").read_text())
    assert set(repro["models"]) == {"soiq.researcher", "soiq.mentor"} and repro["prompt_templates"]
    assert run.status()["status"] == "completed"
    # usage is LLMClient's, per namespaced role
    assert set(run.status()["usage"]) == {"soiq.researcher", "soiq.mentor", "total"}
    u = result.usage["total"]
    assert u["calls"] == len(replies) and u["input_tokens"] > 0 and u["output_tokens"] > 0
    assert result.usage["researcher"]["calls"] + result.usage["mentor"]["calls"] == len(replies)
    assert sum(1 for e in lines if e["type"] == "usage") == len(replies)


async def test_reject_path_not_in_results(settings, graph_rt):
    replies = [
        idea_text(idea_dict()),
        "Aspect: Innovativeness. Is this not just edge attention?",
        idea_text(idea_dict(), "I believe it is different."),
        "The answer does not address the question; the idea is not novel. <REJECT>",
    ]
    result, run, _, events = await run_session(settings, graph_rt, replies, ideas=1)
    assert result.ideas == [] and result.rejected == 1
    # the rejected idea is kept as a record with status rejected
    assert [(i["title"], i["status"]) for i in run.ideas()] == [(idea_dict()["Title"], "rejected")]
    # ... and says why, in SoIQ's terms (#43: every rejection carries a reason from the method's own taxonomy)
    assert run.ideas()[0]["rejection"] == "the mentor rejected it in round 2"
    decision = next(e for e in events if e["type"] == "decision")
    assert decision["decision"] == "REJECT"
    done = next(e for e in events if e["type"] == "idea_done")
    assert done["idea_json"]["Title"] == idea_dict()["Title"]  # kept in the transcript


async def test_round_limit_forces_decision(settings, graph_rt):
    idea = idea_dict(cite="")
    replies = [
        idea_text(idea),
        "Aspect: Feasibility. Where does the data come from?",
        idea_text(idea, "Public benchmarks."),
        "Aspect: Rationality. Why pheromones?",
        idea_text(idea, "They accumulate evidence."),
        "Still unsure, but acceptable. <ACCEPT>",
    ]
    result, _, model, _ = await run_session(settings, graph_rt, replies, ideas=1, rounds=2)
    assert model.remaining == 0
    rec = result.ideas[0]
    assert rec["decision"]["forced"] is True and rec["rounds"] == 2
    # the forced-decision prompt was the last thing the mentor saw
    assert "round limit" in model.calls[-1][-1].content


async def test_unresolved_link_flagged_and_fixed_once(settings, graph_rt):
    bad = idea_dict(links=BAD_LINK, cite="(Nobody et al., 2020)")
    replies = [
        idea_text(bad),
        "<ACCEPT>",
        idea_text(bad, "I could not find better references."),  # the one fix attempt fails
    ]
    result, _, model, _ = await run_session(settings, graph_rt, replies, ideas=1)
    rec = result.ideas[0]
    g = rec["grounding"]
    assert rec["flagged"] is True
    assert g["links_total"] == 2 and g["links_resolved"] == 1
    assert [u["name"] for u in g["unresolved_links"]] == ["Quantum pheromone transformers"]
    assert g["unresolved_citations"][0]["author"] == "Nobody"
    assert len(rec["grounding_attempts"]) == 2
    fix_prompt = model.calls[2][-1].content
    assert "Quantum pheromone transformers" in fix_prompt and "Nobody" in fix_prompt


async def test_unresolved_link_fixed_by_researcher(settings, graph_rt):
    replies = [
        tc("literature_search", query="deep graph networks"),
        idea_text(idea_dict(links=BAD_LINK)),
        "<ACCEPT>",
        idea_text(idea_dict()),
    ]
    result, *_ = await run_session(settings, graph_rt, replies, ideas=1)
    rec = result.ideas[0]
    assert rec["flagged"] is False and rec["grounding_attempts"][0]["flagged"] is True


async def test_only_unknown_nodes_answered_and_flagged(settings, graph_rt):
    idea = idea_dict(cite="")
    idea["Motivation"] = f"Only an invented concept here: {BAD_LINK}, nothing else from the graph."
    replies = [
        tc("node_relation", names=["Quantum pheromone transformers"]),
        idea_text(idea),
        "<ACCEPT>",
        idea_text(idea, "I keep it."),
    ]
    result, _, _, events = await run_session(settings, graph_rt, replies, ideas=1)
    res = next(e for e in events if e["type"] == "tool_result")
    assert res["ok"] is False and "No node named 'Quantum pheromone transformers'" in res["text"]
    g = result.ideas[0]["grounding"]
    assert g["links_total"] == 1 and g["links_resolved"] == 0
    assert g["unresolved_links"][0]["reason"] == "no such node in the graph"
    assert result.ideas[0]["flagged"] is True


async def test_idea_without_random_draw_is_nudged_once(settings, graph_rt):
    first = idea_dict("First thought", cite="")
    revised = idea_dict("Transfer from a random node", cite="")
    replies = [
        tc("node_search", query="oversmoothing graph networks", k=3),
        idea_text(first),
        tc("get_random_nodes", n=5),
        idea_text(revised, "The pheromone node transfers well."),
        "<ACCEPT>",
    ]
    result, _, model, events = await run_session(settings, graph_rt, replies, require_draw=True, ideas=1)
    assert model.remaining == 0
    assert "random_nodes" in model.calls[2][-1].content and "not drawn random nodes" in model.calls[2][-1].content
    assert [e["name"] for e in events if e["type"] == "tool_call"] == ["node_search", "get_random_nodes"]
    assert result.ideas[0]["idea"]["Title"] == revised["Title"]


async def test_no_nudge_when_random_nodes_were_drawn(settings, graph_rt):
    replies = [tc("get_random_nodes", n=3), idea_text(idea_dict(cite="")), "<ACCEPT>"]
    result, _, model, _ = await run_session(settings, graph_rt, replies, require_draw=True, ideas=1)
    assert model.remaining == 0 and len(result.ideas) == 1


async def test_caps_per_phase_and_per_round(settings, graph_rt):
    settings.agents.tool_calls_per_phase = 2
    settings.agents.tool_calls_per_round = 1
    idea = idea_dict(cite="")
    replies = [
        tc("node_search", query="a b c"),
        tc("node_search", query="d e f"),
        idea_text(idea),  # asked without tools once the phase budget is spent
        "Aspect: Innovativeness. Search for prior work.",
        tc("literature_search", query="pheromone message passing"),
        idea_text(idea, "Nothing close."),  # the round budget is spent: no tools offered
        "<ACCEPT>",
    ]
    result, _, model, _ = await run_session(settings, graph_rt, replies, ideas=1)
    assert model.remaining == 0 and len(result.ideas) == 1
    offered = [bool(t) for t in model.tools_seen]
    # researcher: tools, tools, none (phase cap) | mentor: none | researcher: tools, none (round cap) | mentor
    assert offered == [True, True, False, False, True, False, False]
    assert "budget" in model.calls[2][-1].content and "budget" in model.calls[5][-1].content
