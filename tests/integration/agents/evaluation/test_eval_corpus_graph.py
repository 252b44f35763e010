"""The shared corpus graph (the default) and no leak of the future, on a real graph (FalkorDB + FAISS + the
offline miner): one graph of every topic's background papers, every target left out, cached across
evaluations; a target paper dated after the cutoff PLANTED in that graph and returned by the literature source
reaches no method: SoIQ through the evaluation (scripted researcher and mentor calling node_search,
random_nodes, node_relation, transfer_candidates and literature_search) and MindFlow's analogical operator
(transfer_candidates, node_search, random_nodes far from the topic) on the evaluation's own tool client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eval_support import make_graph_reader, make_writer, world_model
from test_eval_topic_graphs import LIGHT, _paper, _seen, topics_file

from motivgraph.agents.core import PlatformLLMClient, unregister
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.harness import Evaluation, create_eval
from motivgraph.agents.evaluation.judges import Judge
from motivgraph.agents.evaluation.topics import load_topics_file
from motivgraph.agents.tools.base import ToolClient
from motivgraph.api.contract.models import LiteraturePaper
from motivgraph.errors import TargetLeak
from motivgraph.llm import ScriptedChatModel

# the target paper planted in the graph and in the literature: a subject of its own, so the miner gives it
# nodes no earlier paper states (a node an earlier paper also states is rightly visible)
PLANTED_ID = "2506.54321"
PLANTED_TITLE = "Zeolite Lattice Search with Pheromone Trails"
PLANTED = _paper(PLANTED_ID, PLANTED_TITLE, "zeolite catalyst discovery", 0)


@pytest.fixture
def readers():
    make_graph_reader("c_reader")
    make_writer("c_writer", 2)
    yield ["c_reader", "c_writer"]
    unregister("c_reader")
    unregister("c_writer")


def _topics(tmp_path: Path) -> Path:
    """Two topics (background 2301, so both cutoffs are 2023-01-31); T0's targets include the planted paper."""
    f = topics_file(tmp_path)
    rows = [json.loads(x) for x in f.read_text().splitlines()]
    rows[0]["target_papers"].append(PLANTED)
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return f


def _evaluation(settings, embedder, f: Path, methods: list[str], model: Any, tools: Any = None, **cfg) -> Evaluation:
    config = EvalConfig(methods=methods, n_ideas=1, max_runs=1, n_boot=10, metrics=LIGHT, panel_size=1, **cfg)
    run = create_eval(settings, config, load_topics_file(f), source=str(f))
    return Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings, model=model),
                      judges=[Judge("j", PlatformLLMClient(settings, model=world_model("scripted-judge")))],
                      embed=embedder.embed, topic_tool_client_factory=tools)


class PlantedLiterature(ToolClient):
    """The literature source returning the planted target (dated after the cutoff) and an undated preprint
    beside what the graph's own search finds: the in-process seam of literature_search. Every other tool goes
    to the real client on the evaluation's graph."""

    def __init__(self, s: Any) -> None:
        from motivgraph.agents.tools.inprocess import InProcessToolClient

        self.inner = InProcessToolClient(s)  # the real client on the evaluation's graph (its settings)

    async def _invoke(self, spec: Any, req: Any) -> Any:
        res = await self.inner.call(spec, req)
        if spec.name != "literature_search":
            return res
        extra = [LiteraturePaper(title=PLANTED_TITLE, abstract=PLANTED["abstract"], year=2025, arxiv_id=PLANTED_ID,
                                 authors=["Zed Zeolite"]),
                 LiteraturePaper(title="An undated preprint on lattices", abstract="No date known.")]
        return res.model_copy(update={"papers": extra + list(res.papers)})

    async def aclose(self) -> None:
        await self.inner.aclose()


def _planted_only_nodes(s: Any) -> list[str]:
    """Names of the graph's nodes that only the planted paper states."""
    from motivgraph.graph.runtime import Runtime

    rt = Runtime(s)
    try:
        return [n.name for n in rt.store.iter_nodes() if n.sources and set(n.sources) == {f"arxiv:{PLANTED_ID}"}]
    finally:
        rt.close()


async def _plant(s: Any, tmp_path: Path) -> None:
    """The target paper ingested into the cached corpus graph, as a stale or careless cache could hold it."""
    from motivgraph.miner.ingest_job import IngestRequest, run_ingest_command

    src = tmp_path / "planted.jsonl"
    src.write_text(json.dumps(PLANTED) + "\n")
    run = await run_ingest_command(IngestRequest(paths=[str(src)]), s)
    assert run.summary.ok == 1


def _soiq_script() -> ScriptedChatModel:
    from tests.integration.agents.soiq.soiq_support import idea_dict, idea_text, tc

    # queries in words of the planted paper, never its exact node names (a 'no node named X' reply echoes X)
    replies = [
        tc("node_search", query="catalyst discovery in zeolites", k=10),
        tc("get_random_nodes", n=50),
        tc("get_random_nodes", n=20, mode="triples"),
        tc("node_relation", names=["LEARNED BASELINE WITH CONTROL VARIATES FOR ZEOLITE CATALYST DISCOVERY",
                                   "Sparse Reward Exploration study 0"]),
        tc("transfer_candidates", topic="zeolites and catalysts"),
        tc("literature_search", query="lattice search for catalysts"),
        idea_text(idea_dict(cite="")),
        "<ACCEPT>",
    ]
    return ScriptedChatModel(replies, model_name="scripted-soiq")


async def test_corpus_graph_is_shared_cached_and_nothing_after_the_cutoff_reaches_soiq_or_mindflow(
        settings, embedder, falkordb_server, tmp_path: Path, readers) -> None:
    settings.graph.falkordb_url = falkordb_server.url
    settings.agents.require_random_draw = False
    f = _topics(tmp_path)
    cache = tmp_path / "graphs"
    topics = {t.topic_id: t for t in load_topics_file(f)}

    # 1. one graph of every topic's background papers; the target papers are not in it
    ev = _evaluation(settings, embedder, f, readers, world_model("scripted-gen"), graph_cache=str(cache))
    await ev.execute()
    assert ev.mode == "corpus"
    (corpus,) = json.loads((ev.run.path / "graphs.json").read_text()).values()
    assert corpus["built"] and corpus["topics"] == ["T0", "T1"]
    assert sorted(corpus["papers"]) == sorted(f"arxiv:{p.paper_id}" for t in topics.values() for p in t.background)
    seen = _seen(ev, "c_reader")
    every = sorted(p.title for t in topics.values() for p in t.background)
    assert seen["T0"]["literature"] == every == seen["T1"]["literature"]  # the other topic's papers too
    built = [e for e in ev.run.events() if e.get("phase") == "corpus-graph" and e["type"] == "progress"]
    assert [e["done"] for e in built] == [1, 2, 3, 4] and built[-1]["total"] == 4  # the build reports progress
    held = ev.run.status()["held_back"]
    assert held["T0"]["cutoff"] == "2023-01-31" and held["T0"]["graph_papers"] == 4

    # 2. the planted target (2025-06, after the 2023-01 cutoff) in the cached graph and in the literature
    gs = ev.graphs["T0"].settings
    await _plant(gs, tmp_path)
    forbidden = [PLANTED_TITLE, PLANTED_ID, *_planted_only_nodes(gs)]
    assert len(forbidden) >= 4, forbidden  # the planted paper states nodes of its own
    s2 = settings.model_copy(update={"data_dir": tmp_path / "second"})
    ev2 = _evaluation(s2, embedder, f, ["soiq"], _soiq_script(), tools=PlantedLiterature, graph_cache=str(cache))
    res = await ev2.execute()
    (corpus2,) = json.loads((ev2.run.path / "graphs.json").read_text()).values()
    assert not corpus2["built"] and f"arxiv:{PLANTED_ID}" in corpus2["papers"]  # reused: the planted paper is in it
    assert not [e for e in ev2.run.events() if e.get("phase") == "corpus-graph"]  # nothing rebuilt
    (child,) = [d for d in json.loads((ev2.run.path / "deliveries.json").read_text()) if d["topic_id"] == "T0"]
    run_dir = s2.runs_dir / child["runs"][0]
    events = [json.loads(x) for x in (run_dir / "transcript.jsonl").read_text().splitlines()]
    called = {e["name"] for e in events if e.get("type") == "tool_call"}
    assert {"node_search", "get_random_nodes", "node_relation", "transfer_candidates", "literature_search"} <= called
    results = [e for e in events if e.get("type") == "tool_result"]
    assert len(results) >= 6 and any("Sparse Reward Exploration study" in e.get("text", "") for e in results)
    everything = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in run_dir.rglob("*") if p.is_file())
    assert not [x for x in forbidden if x in everything], "a method saw the planted target"
    held2 = ev2.run.status()["held_back"]["T0"]
    assert held2["graph_papers_held_back"] == 1 and held2["graph_nodes_hidden"] >= 3
    assert held2["target_papers_dropped"] >= 1 and held2["literature_undated_dropped"] >= 1
    assert any(n.startswith("T0: cutoff 2023-01-31") and "held back 1 of 5 graph paper(s)" in n for n in res.notes)
    assert "held back 1 of 5 graph paper(s)" in (ev2.run.path / "report.html").read_text()

    # the allow_target_leak guard stays: with a cutoff after the target's date it is visible, and refused
    ev3 = _evaluation(settings.model_copy(update={"data_dir": tmp_path / "third"}), embedder, f, ["soiq"],
                      _soiq_script(), graph_cache=str(cache), cutoff="2025-12")
    with pytest.raises(TargetLeak, match=rf"T0: target paper '{PLANTED_TITLE}' \(id {PLANTED_ID}\) is in the corpus"):
        await ev3.execute()

    # 3. MindFlow's analogical operator on the evaluation's own tool client for T0 (its real toolbox path)
    from motivgraph.agents.core.toolbox import Toolbox
    from motivgraph.agents.mindflow import scripted
    from motivgraph.agents.mindflow.config import FlowConfig
    from motivgraph.agents.mindflow.executor import execute_flow
    from motivgraph.agents.mindflow.flow import FlowPlan
    from motivgraph.agents.mindflow.llmcall import model_ask
    from motivgraph.agents.mindflow.operators import OpEnv

    model = ScriptedChatModel(default=scripted.reply)
    view = ev2.view(topics["T0"], "mindflow")
    assert view.tools is not None
    client = view.tools()
    try:
        topic = "zeolite catalyst discovery"  # far-field draws: every node far from it, the planted ones excepted
        box = Toolbox(client, topic=topic)
        out = await execute_flow(FlowPlan.fixed([["analogical"], ["critical"]]), OpEnv(
            topic, "", "", FlowConfig(), model_ask(model), box), FlowConfig())
    finally:
        await client.aclose()
    assert out.trace.steps[0].tools == ["transfer_candidates", "node_search", "random_nodes"]
    prompts = "\n".join(str(m.content) for call in model.calls for m in call)
    assert "GRAPH MATERIAL FOR ANALOGIES:" in prompts and box.seen.nodes  # the graph answered
    assert not [x for x in forbidden if x in prompts], "MindFlow saw the planted target"
