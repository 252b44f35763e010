"""Evaluation graphs (the shared corpus graph of corpus_graph.py is built by this same code). Per-topic graphs:
each evaluation topic's background papers ingested (paper-JSON ingest and the miner, the same pipeline as
`motivgraph ingest papers.jsonl`) into a graph of its own, so graph-grounded methods ground on exactly the
literature every other method sees, and on nothing else.

Where: `<cache root>/<key[:24]>/` is a data directory of its own (ledger, miner decisions, FAISS indexes,
and the embedded FalkorDB files when no external server is configured); with `graph.falkordb_url` set, the
graph lives on that server under its own name (`eval-<hash of the directory>`). Semantic Scholar is off in
these settings: literature_search answers from the topic's own paper index.

Parents: after ingest every graph gets SoIQ's hierarchical parent nodes (miner/parents.py, appendix B.4), judged
by the configured `parent_judge` model, or by the offline clustering judge when none is set (said in the
summary), so SoIQ's tools see the hierarchy in an evaluation as they do on a user's graph.

Cache key: the background records (canonical JSON) + the extractor (offline heuristic, or the LLM miner's
model) + the parent judge + the miner settings. The same topic and extractor reuse the graph; ingest itself is
idempotent (its ledger skips unchanged records), so an interrupted build resumes. A graph that does not hold every
background paper after ingest (store wiped, ledger kept) is rebuilt once from scratch.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from motivgraph.agents.evaluation.topics import EvalTopic
from motivgraph.errors import BudgetExceeded, ExtractionGateStop, TopicGraphError
from motivgraph.graph.embedded import EmbeddedFalkorDB
from motivgraph.graph.models import PaperRecord
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.paper_json import stable_id
from motivgraph.llm.factory import is_configured, split_model
from motivgraph.llm.local import state_dir
from motivgraph.miner.decisions import DecisionLog
from motivgraph.miner.ingest_job import IngestRequest, run_ingest_command
from motivgraph.miner.parents import ParentBuilder
from motivgraph.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class TopicGraph:
    topic_id: str
    key: str
    settings: Settings  # the topic's own data dir and graph name: give these to the tool client
    extractor: str = ""
    papers: list[PaperRecord] = field(default_factory=list)  # every paper in the graph (what methods can see)
    triples: int = 0  # 0: nothing to explore (node_search has no index): tool methods get the papers as a file
    built: bool = False  # False: reused from the cache as it was
    summary: dict[str, Any] = field(default_factory=dict)


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def background_records(topic: EvalTopic) -> list[dict[str, Any]]:
    """The topic's background papers as the records the ingest reads (every field the topics file had)."""
    return [p.model_dump(mode="json", exclude_none=True) for p in topic.background]


def extractor_id(settings: Settings) -> str:
    """Which extractor builds the graph: 'heuristic' or 'llm:<provider>:<model>' (part of the cache key).
    Read from settings alone, as the miner decides it (miner.extractor, an extractor model set), so a dry
    run without an API key names the same graphs a real run builds."""

    if settings.miner.extractor == "heuristic" or not is_configured(settings.llm, "extractor"):
        return "heuristic"
    override = settings.llm.roles.get("extractor")
    model = (override.model if override and override.model else None) or settings.llm.model or ""
    provider, name = split_model(model)
    return f"llm:{provider}:{name}"


def parent_judge_id(settings: Settings) -> str:
    """Who judges the parents: 'offline' (embedding clustering) or 'llm:<provider>:<model>' (part of the key)."""
    if not is_configured(settings.llm, "parent_judge"):
        return "offline"
    override = settings.llm.roles.get("parent_judge")
    model = (override.model if override and override.model else None) or settings.llm.model or ""
    provider, name = split_model(model)
    return f"llm:{provider}:{name}"


def graph_key(topic: EvalTopic, extractor: str, settings: Settings) -> str:
    payload = {"records": background_records(topic), "extractor": extractor,
               "parent_judge": parent_judge_id(settings),
               "miner": settings.miner.model_dump(mode="json"), "embedding": settings.embedding.model}
    return hashlib.sha256(_canonical(payload).encode("utf-8")).hexdigest()


def topic_settings(settings: Settings, root: Path, *, s2: bool = False) -> Settings:
    """Settings for the topic's own data dir: same models and LLM settings, its own graph; Semantic Scholar
    only with `s2` (literature_search then asks it first; the evaluation drops results after the cutoff)."""
    root = Path(root).expanduser().resolve()
    name = "eval-" + hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:16]
    # A local: model's server is the user's: its state stays in the user's data dir (not <graph>/llm), so the
    # server a graph build starts is the one `motivgraph llm status` lists and `llm stop` stops -- and is reused
    # by every graph and the methods instead of a second server per cached graph.
    llm = settings.llm.model_copy(update={"local_dir": state_dir(settings.data_dir, settings.llm.local_dir)})
    return settings.model_copy(update={
        "data_dir": root,
        "llm": llm,
        "graph": settings.graph.model_copy(update={"name": name}),
        "s2": settings.s2.model_copy(update={"enabled": bool(s2 and settings.s2.enabled)}),
    })


def expected_ids(topic: EvalTopic) -> set[str]:
    """The paper ids the ingest gives the topic's background records (their stable ids)."""

    return {stable_id(r) for r in background_records(topic)}


def _write_records(topic: EvalTopic, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in background_records(topic))
    path.write_text(text, encoding="utf-8")
    return path


def _contents(s: Settings) -> tuple[list[PaperRecord], int]:
    """(every paper, number of triples) of the graph."""

    rt = Runtime(s)
    try:
        return list(rt.store.iter_papers()), rt.store.stats().triples
    finally:
        rt.close()


def stop_embedded(s: Settings) -> None:
    """Stop the topic's embedded FalkorDB (only when it is the topic's own, never an external server)."""
    if s.graph.falkordb_url or not (s.data_dir / "falkordb" / "falkordb.pid").exists():
        return

    with contextlib.suppress(Exception):
        EmbeddedFalkorDB(s.data_dir).stop(timeout_s=10)


def _wipe(s: Settings) -> None:
    rt = Runtime(s)
    try:
        rt.store.clear()
    finally:
        rt.close()
    stop_embedded(s)
    for sub in ("ingest", "index", "miner"):
        shutil.rmtree(s.data_dir / sub, ignore_errors=True)


async def _ingest(topic: EvalTopic, s: Settings, budget_usd: float | None, progress: Any = None) -> dict[str, Any]:
    src = _write_records(topic, s.data_dir / "background.jsonl")
    run = await run_ingest_command(IngestRequest(paths=[str(src)], budget_usd=budget_usd), s, progress=progress)
    sm = run.summary
    if isinstance(run.stopped, ExtractionGateStop):  # a clean stop that is no budget: the extractor invents
        raise TopicGraphError(f"{topic.topic_id}: the extraction gate stopped building its graph: {run.stopped}")
    if isinstance(run.stopped, BudgetExceeded):  # the evaluation stops (resumable), the ledger keeps what is done
        raise BudgetExceeded(f"{topic.topic_id}: building its graph reached the budget: {run.stopped}")
    if run.stopped is not None:
        raise TopicGraphError(f"{topic.topic_id}: building its graph stopped: {run.stopped}")
    failed = [f"{o.path}: {o.error}" for o in sm.outcomes if o.state == "failed"]
    rows = dict(run.miner_rows)
    cost = rows.get("estimated cost", "$0").lstrip("$")
    return {"extractor": run.extractor, "processed": sm.processed, "ok": sm.ok, "failed": sm.failed,
            "already_stored": sm.already_done, "failures": failed[:5], "miner": rows,
            "cost_usd": float(cost) if cost.replace(".", "", 1).isdigit() else 0.0}


async def build_parents(s: Settings, budget_usd: float | None = None) -> dict[str, Any]:
    """B.4 parents over the graph's problems and challenges with the configured parent judge (incremental
    and cached in the graph's decision log: a rebuilt or resumed graph asks only the new questions)."""
    from motivgraph.llm import LLMClient  # local: an offline evaluation loads no LangChain

    judge = parent_judge_id(s)
    rt = Runtime(s)
    client = LLMClient(s, budget_usd=budget_usd) if judge != "offline" else None
    decisions = DecisionLog.for_data_dir(s.data_dir)
    try:
        b = ParentBuilder(rt.store, rt.embedder, s.miner, decisions, client=client, index=rt.node_index,
                          concurrency=s.llm.concurrency)
        results = await b.build()
        return {"judge": judge, "rule": s.miner.parent_rule, "parents": sum(len(r.parents) for r in results),
                "children": sum(r.adopted for r in results), "joined": sum(r.joined for r in results),
                "judge_calls": sum(r.judge_calls for r in results), "failures": sum(r.failures for r in results),
                "cost_usd": round(client.usage.cost_usd, 6) if client is not None else 0.0}
    finally:
        decisions.close()
        if client is not None:
            client.close()
        rt.close()


async def build_topic_graph(settings: Settings, topic: EvalTopic, cache_root: Path, *,
                            budget_usd: float | None = None, progress: Any = None, s2: bool = False) -> TopicGraph:
    """The topic's graph, built on first use and reused while its key holds (see module doc). `progress`: the
    ingest's progress hooks (start(total, parser), advance(outcome)) while papers are ingested."""
    extractor = await asyncio.to_thread(extractor_id, settings)
    key = graph_key(topic, extractor, settings)
    s = topic_settings(settings, Path(cache_root) / key[:24], s2=s2)
    s.data_dir.mkdir(parents=True, exist_ok=True)
    marker = s.data_dir / "eval-graph.json"
    want = expected_ids(topic)
    tg = TopicGraph(topic.topic_id, key, s, extractor)
    cached = marker.exists() and json.loads(marker.read_text(encoding="utf-8")).get("key") == key
    if not topic.background:
        tg.summary = {"note": "no background papers: the graph is empty"}
        return tg
    for attempt in range(2):
        if not cached or attempt:
            tg.summary = await _ingest(topic, s, budget_usd, progress)
            tg.built = True
        tg.papers, tg.triples = await asyncio.to_thread(_contents, s)
        missing = want - {p.paper_id for p in tg.papers}
        if not missing:
            break
        if attempt or (tg.built and tg.summary.get("failed")):
            # papers the ingest could not read stay out (named in the report), the rest is the graph
            tg.summary["missing"] = sorted(missing)
            break
        log.info("topic graph %s misses %d paper(s); rebuilding from scratch", topic.topic_id, len(missing))
        await asyncio.to_thread(_wipe, s)
        cached = False
    before = json.loads(marker.read_text(encoding="utf-8")) if marker.exists() else {}
    parents = before.get("parents") if not tg.built and before.get("key") == key else None
    if parents is None and tg.triples:
        try:
            parents = await build_parents(s, budget_usd)
        except BudgetExceeded as e:  # resumable: the decision log keeps every verdict asked so far
            raise BudgetExceeded(f"{topic.topic_id}: building its parent nodes reached the budget: {e}") from None
    elif parents is None:  # said, not silently skipped
        parents = {"judge": parent_judge_id(s), "rule": s.miner.parent_rule, "parents": 0, "children": 0,
                   "joined": 0, "judge_calls": 0, "failures": 0, "cost_usd": 0.0,
                   "note": "the graph holds no triple: no problem or challenge node to group"}
    if parents is not None:
        tg.summary["parents"] = parents
    marker.write_text(json.dumps({"key": key, "topic_id": topic.topic_id, "extractor": extractor, "triples": tg.triples,
                                  "papers": sorted(p.paper_id for p in tg.papers), "parents": parents}, indent=1),
                      encoding="utf-8")
    return tg
