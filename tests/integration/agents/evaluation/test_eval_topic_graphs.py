"""Per-topic graphs (an option; the default is the shared corpus graph, test_eval_corpus_graph.py): each
topic's background papers ingested into a graph of its own,
cached by content; tool-using methods ground on exactly that graph. Target-paper leak check in both graph
modes (per-topic, current): refused with the papers named, or warned with allow_target_leak."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eval_support import make_graph_reader, make_writer, world_model

from motivgraph.agents.core import PlatformLLMClient, unregister
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.harness import Evaluation, create_eval
from motivgraph.agents.evaluation.judges import Judge
from motivgraph.agents.evaluation.topics import load_topics_file
from motivgraph.errors import TargetLeak

LIGHT = ["scores", "grounding"]  # these tests are about what methods see, not the metrics


@pytest.fixture
def methods():
    make_graph_reader("g_reader")
    make_writer("f_writer", 2)
    yield ["g_reader", "f_writer"]
    unregister("g_reader")
    unregister("f_writer")


CHALLENGES = ["high variance of gradient estimates", "delayed credit assignment", "loss of feature diversity",
              "noisy neighbourhood aggregation"]
SOLUTIONS = ["a learned baseline with control variates", "hindsight relabelling of trajectories",
             "residual connections with initial feature injection", "attention-weighted neighbour sampling"]


def _paper(pid: str, title: str, subject: str, k: int) -> dict:
    ch, so = CHALLENGES[k % 4], SOLUTIONS[k % 4]
    abstract = (f"{subject.capitalize()} is a central problem in machine learning. Existing methods for {subject} "
                f"suffer from {ch}, which makes training unstable and slow. We propose {so}, a simple technique that "
                f"addresses {ch}. Experiments on standard benchmarks show that {so} improves accuracy and stability.")
    intro = (f"Many applications depend on {subject}. However, current approaches struggle because of {ch}: the "
             f"signal that guides learning is weak, and errors accumulate over long horizons. Prior work reduces "
             f"this problem only partially and needs careful tuning. In this paper we introduce {so}. Our key idea is "
             f"to reuse information that standard training discards, so that {ch} no longer dominates the updates. "
             f"We analyse when the technique helps, and we evaluate it on four benchmarks where it reduces the error "
             f"of strong baselines by a clear margin while adding little computation.")
    return {"paper_id": pid, "title": title, "abstract": abstract, "introduction": intro}


def topics_file(tmp_path: Path, *, leak: bool = False) -> Path:
    rows = []
    for t, subject in enumerate(("sparse reward exploration", "graph neural oversmoothing")):
        bg = [_paper(f"2301.{t}000{k}", f"{subject.title()} study {k}", subject, 2 * t + k) for k in range(2)]
        tg = [{"paper_id": f"2405.{t}0001", "title": f"Later work on {subject}", "abstract": "Held out."}]
        if leak and t == 0:  # the same paper, spelled as an arXiv URL with a version, among the background
            bg.append(_paper(f"https://arxiv.org/abs/2405.{t}0001v2", "Renamed later work", subject, 3))
        rows.append({"topic_id": f"T{t}", "topic_name": subject, "background_papers": bg, "target_papers": tg})
    f = tmp_path / ("leak.jsonl" if leak else "topics.jsonl")
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return f


def _evaluation(settings, embedder, topics_path: Path, methods: list[str], **cfg) -> Evaluation:
    config = EvalConfig(methods=methods, n_ideas=1, n_boot=10, metrics=LIGHT, **cfg)
    run = create_eval(settings, config, load_topics_file(topics_path), source=str(topics_path))
    gen = world_model("scripted-gen")
    return Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings, model=gen),
                      judges=[Judge("j", PlatformLLMClient(settings, model=world_model("scripted-judge")))],
                      embed=embedder.embed)


def _children(ev: Evaluation, method: str) -> dict[str, Any]:
    from motivgraph.agents.core.rundir import RunDir

    return {d["topic_id"]: RunDir.open(ev.settings.runs_dir, d["runs"][0])
            for d in json.loads((ev.run.path / "deliveries.json").read_text()) if d["method"] == method}


def _seen(ev: Evaluation, method: str) -> dict[str, dict]:
    """What the method's child runs recorded seeing, per topic."""
    out = {}
    for tid, run in _children(ev, method).items():
        (idea,) = run.ideas()
        out[tid] = json.loads(idea["extra"]["seen"])
    return out


async def test_each_topic_gets_its_own_cached_graph_and_tool_methods_ground_on_it(
        settings, embedder, falkordb_server, tmp_path: Path, methods) -> None:
    settings.graph.falkordb_url = falkordb_server.url  # topic graphs: own names on the session's server
    f = topics_file(tmp_path)
    cache = tmp_path / "graphs"
    ev = _evaluation(settings, embedder, f, methods, graph="per-topic", graph_cache=str(cache))
    await ev.execute()
    graphs = json.loads((ev.run.path / "graphs.json").read_text())
    assert set(graphs) == {"T0", "T1"} and all(g["built"] for g in graphs.values())
    assert len({g["graph"] for g in graphs.values()}) == 2 and len({g["data_dir"] for g in graphs.values()}) == 2
    topics = {t.topic_id: t for t in load_topics_file(f)}
    for tid, g in graphs.items():  # every background paper (by the ingest's stable id), nothing else
        assert sorted(g["papers"]) == sorted(f"arxiv:{p.paper_id}" for p in topics[tid].background)
        # SoIQ's hierarchy (B.4): every evaluation graph went through the parent step, with the configured judge
        # (no parent_judge model here: the offline clustering judge, and it says so)
        par = g["summary"]["parents"]
        assert par["judge"] == "offline" and par["rule"] == "paper" and par["failures"] == 0, par
        assert {"parents", "children", "judge_calls", "cost_usd"} <= set(par)
    seen = _seen(ev, "g_reader")
    for tid, t in topics.items():
        titles = sorted(p.title for p in t.background)
        assert seen[tid]["tools"] and seen[tid]["background"] == "graph"
        assert seen[tid]["literature"] == titles  # the topic's own literature, not the other topic's
        assert set(seen[tid]["papers"]) <= set(titles)
    for tid, run in _children(ev, "f_writer").items():  # a method without tools: the same papers as a file
        bg = json.loads((run.path / "background.json").read_text())
        assert bg["source"] == "file" and sorted(p["title"] for p in bg["papers"]) == sorted(
            p.title for p in topics[tid].background)

    # a second evaluation of the same topics reuses the cached graphs
    s2 = settings.model_copy(update={"data_dir": tmp_path / "other"})
    ev2 = _evaluation(s2, embedder, f, methods[:1], graph="per-topic", graph_cache=str(cache))
    await ev2.execute()
    graphs2 = json.loads((ev2.run.path / "graphs.json").read_text())
    assert not any(g["built"] for g in graphs2.values())
    assert {k: g["summary"]["parents"] for k, g in graphs2.items()} == {
        k: g["summary"]["parents"] for k, g in graphs.items()}  # the parent step is cached with the graph
    assert {k: g["key"] for k, g in graphs2.items()} == {k: g["key"] for k, g in graphs.items()}
    assert _seen(ev2, "g_reader") == seen


async def test_per_topic_leak_is_refused_naming_the_paper_or_warned_when_allowed(
        settings, embedder, falkordb_server, tmp_path: Path, methods) -> None:
    settings.graph.falkordb_url = falkordb_server.url
    f = topics_file(tmp_path, leak=True)
    ev = _evaluation(settings, embedder, f, methods[:1], graph_cache=str(tmp_path / "graphs"))
    with pytest.raises(TargetLeak, match=r"T0: target paper 'Later work on sparse reward exploration' \(id 2405.00001"):
        await ev.execute()
    assert not (ev.run.path / "state.json").exists() or not json.loads(
        (ev.run.path / "state.json").read_text()).get("children")  # refused before any method ran
    assert ev.run.status()["status"] == "failed"
    ev2 = _evaluation(settings.model_copy(update={"data_dir": tmp_path / "d2"}), embedder, f, methods[:1],
                      graph_cache=str(tmp_path / "graphs"), allow_target_leak=True)
    res = await ev2.execute()
    assert any(n.startswith("WARNING target papers visible") and "T0" in n and "T1" not in n for n in res.notes)
    assert "WARNING target papers visible" in (ev2.run.path / "report.html").read_text()


async def test_current_graph_leak_is_refused_or_warned(settings, embedder, store, tmp_path: Path, methods) -> None:
    from motivgraph.graph.models import PaperRecord

    # the user's graph holds T1's target paper under its DOI-less arXiv id
    store.upsert_papers([PaperRecord(paper_id="arxiv:2405.10001", title="Something else entirely"),
                         PaperRecord(paper_id="arxiv:2301.99999", title="Unrelated")])
    f = topics_file(tmp_path)
    # by date the target (2405) is after both topics' cutoff (their background: 2301): hidden, nothing to refuse
    res0 = await _evaluation(settings, embedder, f, methods[1:], graph="current").execute()
    assert not any("WARNING target papers" in n for n in res0.notes)
    assert any(n.startswith("T1: cutoff 2023-01-31") and "held back 1 of 2 graph paper(s)" in n for n in res0.notes)
    # a cutoff after the target's date: the target is visible, and the guard refuses
    ev = _evaluation(settings, embedder, f, methods[1:], graph="current", cutoff="2024-06")
    with pytest.raises(TargetLeak, match=r"T1: target paper 'Later work on graph neural oversmoothing' "
                       r"\(id 2405.10001\) is in the current graph"):
        await ev.execute()
    ev2 = _evaluation(settings, embedder, f, methods[1:], graph="current", cutoff="2024-06", allow_target_leak=True)
    res = await ev2.execute()
    assert any("WARNING" in n and "T1" in n for n in res.notes)
    # without the target in the graph: no refusal, no warning
    store.clear()
    res3 = await _evaluation(settings, embedder, f, methods[1:], graph="current").execute()
    assert not any("WARNING target papers" in n for n in res3.notes)
