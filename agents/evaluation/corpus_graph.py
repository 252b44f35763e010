"""The shared corpus graph: every topic's background papers in one graph (deduplicated by the ingest's stable
paper id), every topic's target papers left out. Graph-based methods ground on it by default: random-node
exploration (SoIQ) and far-field analogies (MindFlow) draw on the other topics' nodes, as the seeds' methods
draw on a graph of thousands of papers rather than a topic's handful.

It is built and cached exactly as a per-topic graph (topic_graph.py: content-keyed, resumable through the
ingest's ledger, reused by every evaluation of the same papers and extractor); what a method on one topic may
see of it is decided per topic by the cutoff (cutoff.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motivgraph.agents.evaluation.topic_graph import build_topic_graph
from motivgraph.agents.evaluation.topics import EvalTopic, TopicPaper, _norm_title, identities
from motivgraph.ingest.paper_json import stable_id

if TYPE_CHECKING:
    from motivgraph.agents.evaluation.topic_graph import TopicGraph
    from motivgraph.settings import Settings

CORPUS_ID = "corpus"


def corpus_records(topics: list[EvalTopic]) -> tuple[list[TopicPaper], list[str]]:
    """(the corpus's papers, what was left out and why). A paper is one by its stable id (the same paper in
    two topics is ingested once, the first record kept); a paper that is any topic's target (same id, DOI,
    arXiv id or title) is left out, so no topic's held-out truth is ever in the graph."""

    target_ids: set[str] = set()
    target_titles: set[str] = set()
    for t in topics:
        for p in t.targets:
            target_ids |= identities(p)
            if _norm_title(p.title):
                target_titles.add(_norm_title(p.title))
    out: list[TopicPaper] = []
    seen: set[str] = set()
    left_out: list[str] = []
    for t in topics:
        for p in t.background:
            rec: dict[str, Any] = p.model_dump(mode="json", exclude_none=True)
            sid = stable_id(rec)
            if sid in seen:
                continue
            seen.add(sid)
            if identities(p) & target_ids or _norm_title(p.title) in target_titles:
                left_out.append(f"{p.title!r} (background of {t.topic_id}, a target paper of the evaluation)")
                continue
            out.append(p)
    return out, left_out


def corpus_topic(topics: list[EvalTopic]) -> tuple[EvalTopic, list[str]]:
    """The corpus as one pseudo-topic (what topic_graph builds a graph from), and the papers left out."""
    papers, left_out = corpus_records(topics)
    ids = hashlib.sha256("\n".join(sorted(t.topic_id for t in topics)).encode("utf-8")).hexdigest()[:8]
    return EvalTopic(topic_id=f"{CORPUS_ID}-{ids}", topic=f"corpus of {len(topics)} topic(s)", background=papers), \
        left_out


class BuildProgress:
    """The ingest's progress hooks as evaluation events: one `progress` event per paper (phase
    `corpus-graph`), so the CLI's bar and the run's transcript show the build, and a resumed build
    (the ledger skips what is done) starts from what is left."""

    def __init__(self, emit: Callable[[dict[str, Any]], None], topic_id: str) -> None:
        self.emit = emit
        self.topic_id = topic_id
        self.total = 0
        self.done = 0

    def start(self, total: int, parser: str) -> None:
        self.total, self.done = total, 0
        self.emit({"type": "phase", "phase": "corpus-graph", "total": total, "topic_id": self.topic_id})

    def advance(self, outcome: Any) -> None:
        self.done += 1
        self.emit({"type": "progress", "phase": "corpus-graph", "done": self.done, "total": self.total,
                   "topic_id": self.topic_id, "state": str(getattr(outcome, "state", ""))})


async def build_corpus_graph(settings: Settings, topics: list[EvalTopic], cache_root: Path, *,
                             budget_usd: float | None, emit: Callable[[dict[str, Any]], None],
                             s2: bool = False) -> tuple[TopicGraph, list[str]]:
    """The shared corpus graph (built, or reused from the cache when the same papers and extractor built it
    before) and the papers left out of it."""

    corpus, left_out = corpus_topic(topics)
    tg = await build_topic_graph(settings, corpus, cache_root, budget_usd=budget_usd,
                                 progress=BuildProgress(emit, corpus.topic_id), s2=s2)
    return tg, left_out


def source_records(topics: list[EvalTopic]) -> dict[str, dict[str, Any]]:
    """Every background record by the paper id the ingest gives it: the dates a graph paper does not keep
    (a topics file's publicationDate) are read from here."""

    out: dict[str, dict[str, Any]] = {}
    for t in topics:
        for p in t.background:
            rec = p.model_dump(mode="json", exclude_none=True)
            out.setdefault(stable_id(rec), rec)
    return out
