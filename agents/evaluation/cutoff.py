"""No leak of the future: every paper's date (one derivation, here), each topic's cutoff, and the tool client
that hides from a method whatever was published after its topic's cutoff.

Dates are intervals: a record may say a day (`publicationDate`, `date`, `published`: YYYY[-MM[-DD]]), a month
(an arXiv id's YYMM) or a year (`year`). Of the dates a record carries the tightest one is used (the interval
that ends first: an arXiv preprint of 2303 published at a 2024 venue was public in March 2023).

A topic's cutoff is the END of the latest interval among its background papers (or `--cutoff`), so none of
its own background papers is ever hidden; a paper is held back when its interval ends after the cutoff, i.e.
when it MAY have appeared after it (a paper dated only "2025" is held back from a topic whose cutoff is
2025-04-30: it cannot be shown to be earlier). Within the cutoff's own month an arXiv-dated paper cannot be
told apart by date; the topic's target papers are therefore also held back by identity (id / DOI / arXiv id /
title), whatever their date.

Undated results: graph papers without a date stay visible (they are background papers someone chose for a
topic, or the user's own graph) and are counted; undated literature results are DROPPED and counted, since an
external search may return a preprint too new to carry a year, which is exactly the leak this module exists
to stop, while a search rarely returns an undated paper at all.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pydantic import BaseModel

from motivgraph.agents.evaluation.topics import _norm_title, identities
from motivgraph.agents.tools.base import ToolClient
from motivgraph.api.contract.models import (
    LiteraturePaper,
    LiteratureSearchResult,
    NodeRelationResult,
    NodeSearchRequest,
    RandomNodesRequest,
    TransferResult,
    TripleOut,
    Unresolved,
)
from motivgraph.api.contract.tools import Q, R, ToolSpec
from motivgraph.errors import CutoffError, NodeNotFound
from motivgraph.graph.identity import node_key, normalize_name
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.identity import normalize_arxiv

DateSpan = tuple[date, date]  # (earliest, latest) day the paper can have appeared
_ISO = re.compile(r"^\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[T ].*)?\s*$")
_DATE_FIELDS = ("publicationDate", "publication_date", "date", "published", "published_date")
_ARXIV_FIELDS = ("arxiv_id", "arxivId", "paper_id", "paperId", "id", "doi", "DOI")
# ask for more than the method wants when hidden items are dropped from a draw or a ranking, so a filtered
# answer still has the size asked for (as long as the graph holds enough visible items)
OVERFETCH = 3


def _span(y: int, m: int | None = None, d: int | None = None) -> DateSpan | None:
    if not 1500 < y < 2200 or (m is not None and not 1 <= m <= 12):
        return None
    if m is None:
        return date(y, 1, 1), date(y, 12, 31)
    last = calendar.monthrange(y, m)[1]
    if d is None:
        return date(y, m, 1), date(y, m, last)
    if not 1 <= d <= last:
        return None
    return date(y, m, d), date(y, m, d)


def _parse(text: str) -> DateSpan | None:
    m = _ISO.match(text)
    if not m:
        return None
    return _span(int(m.group(1)), int(m.group(2)) if m.group(2) else None, int(m.group(3)) if m.group(3) else None)


def arxiv_span(value: Any) -> DateSpan | None:
    """The month an arXiv id was assigned (`2402.03300` → February 2024; `cs/0112017` → December 2001)."""

    aid = normalize_arxiv(str(value)) if isinstance(value, str | int) else None
    if not aid:
        return None
    yymm = aid.split("/", 1)[1][:4] if "/" in aid else aid[:4]
    yy, mm = int(yymm[:2]), int(yymm[2:])
    return _span((1900 if yy >= 91 else 2000) + yy, mm)


def paper_span(paper: Any) -> DateSpan | None:
    """When a paper (topics-file record, graph paper, literature result, plain dict) appeared: the tightest of
    its explicit date, its arXiv id's month and its year; None when it carries none."""
    rec = paper.model_dump(mode="json") if isinstance(paper, BaseModel) else dict(paper)
    spans: list[DateSpan] = []
    for k in _DATE_FIELDS:
        v = rec.get(k)
        if isinstance(v, str) and (s := _parse(v)):
            spans.append(s)
    ext = rec.get("externalIds") or rec.get("external_ids") or {}
    ids = [rec.get(k) for k in _ARXIV_FIELDS] + ([ext.get("ArXiv"), ext.get("arxiv")] if isinstance(ext, dict) else [])
    spans += [s for s in (arxiv_span(v) for v in ids) if s]
    year = rec.get("year")
    if isinstance(year, int | str) and str(year).strip().isdigit() and (s := _span(int(str(year).strip()))):
        spans.append(s)
    return min(spans, key=lambda s: (s[1], s[0])) if spans else None


def parse_cutoff(text: str) -> date:
    """`--cutoff YYYY-MM[-DD]`: the last day that counts (a month means its last day)."""
    m = re.fullmatch(r"(\d{4})-(\d{1,2})(?:-(\d{1,2}))?", (text or "").strip())
    span = _span(int(m.group(1)), int(m.group(2)), int(m.group(3)) if m.group(3) else None) if m else None
    if span is None:
        raise CutoffError(f"cutoff {text!r} is not a date: give YYYY-MM or YYYY-MM-DD (e.g. 2024-06 or 2024-06-30)")
    return span[1]


def topic_cutoff(background: Iterable[Any], override: str | None = None) -> tuple[date | None, str]:
    """(cutoff, how it was decided): `override` for every topic, else the end of the latest background paper's
    date; None when no background paper is dated (then nothing is held back by date, and the note says so)."""
    if override:
        return parse_cutoff(override), "--cutoff"
    papers = list(background)
    spans = [s for s in (paper_span(p) for p in papers) if s]
    if not spans:
        if not papers:
            return None, "the topic has no background paper to date it by"
        return None, (f"none of its {len(papers)} background paper(s) carries a date, a year or an arXiv id "
                      "(whose YYMM would date it)")
    by_arxiv = sum(1 for p in papers if paper_span(p) is not None and _arxiv_only(p))
    how = f"latest of {len(spans)} dated background paper(s)"
    if by_arxiv:
        how += f"; {by_arxiv} dated by their arXiv id's YYMM alone"
    return max(s[1] for s in spans), how


def _arxiv_only(paper: Any) -> bool:
    """True when a record's only date is its arXiv id (no explicit date, no year)."""
    rec = paper.model_dump(mode="json") if isinstance(paper, BaseModel) else dict(paper)
    return not any(isinstance(rec.get(k), str) and _parse(rec[k]) for k in _DATE_FIELDS) and not str(
        rec.get("year") or "").strip().isdigit()


def after(span: DateSpan | None, cutoff: date | None) -> bool:
    """True when the paper may have appeared after the cutoff (its date interval ends after it)."""
    return cutoff is not None and span is not None and span[1] > cutoff


# ----------------------------------------------------------------------------------------------- the filter
@dataclass
class GraphDates:
    """What the filter needs of a graph: each node's source papers, each parent's children, each paper's date."""

    node_papers: dict[str, set[str]] = field(default_factory=dict)
    children: dict[str, set[str]] = field(default_factory=dict)  # parent key -> child keys
    paper_spans: dict[str, DateSpan | None] = field(default_factory=dict)

    def later_papers(self, cutoff: date | None) -> set[str]:
        return {pid for pid, s in self.paper_spans.items() if after(s, cutoff)}

    def undated_papers(self) -> int:
        return sum(1 for s in self.paper_spans.values() if s is None)

    def hidden_nodes(self, later: set[str]) -> set[str]:
        """Nodes every source paper of which is held back; parents whose every child is hidden."""
        hidden = {k for k, ps in self.node_papers.items() if ps and ps <= later}
        for _ in range(8):  # parent levels are few; a fixed point in as many passes
            more = {p for p, cs in self.children.items() if p not in hidden and cs and cs <= hidden}
            if not more:
                break
            hidden |= more
        return hidden


def read_graph_dates(settings: Any, extra: dict[str, Any] | None = None) -> GraphDates:
    """GraphDates of the settings' graph; `extra` maps paper id → its source record (dates a graph paper does not
    keep, e.g. a topics file's publicationDate)."""

    rt = Runtime(settings)
    try:
        gd = GraphDates()
        for p in rt.store.iter_papers():
            spans = [s for s in (paper_span(p), paper_span((extra or {}).get(p.paper_id) or {})) if s]
            gd.paper_spans[p.paper_id] = min(spans, key=lambda s: (s[1], s[0])) if spans else None
        for n in rt.store.iter_nodes():
            gd.node_papers[n.key] = set(n.sources)
        for par in rt.store.iter_parents():
            gd.children.setdefault(node_key(par.type, par.parent.name), set()).update(par.children)
        return gd
    finally:
        rt.close()


@dataclass
class HeldBack:
    """What the filter kept from a topic's methods (counted over every call of every run)."""

    graph_nodes: int = 0
    graph_papers: int = 0
    literature: int = 0
    literature_undated: int = 0
    targets: int = 0

    def add(self, other: dict[str, int]) -> None:
        for k, v in other.items():
            if hasattr(self, k):
                setattr(self, k, getattr(self, k) + int(v))


class CutoffToolClient(ToolClient):
    """A tool client that hides what appeared after the cutoff (and the topic's target papers): graph nodes
    whose papers are all later, triples through them, later source papers, and literature results dated later
    or undated. Every tool a method reaches goes through `call`, so node_search, node_relation, random_nodes,
    transfer_candidates, literature_search and the background search are all covered."""

    def __init__(self, inner: Any, *, cutoff: date | None, hidden_nodes: set[str], later_papers: set[str],
                 targets: Iterable[Any] = (), held: HeldBack | None = None) -> None:
        self.inner = inner
        self.cutoff = cutoff
        self.hidden_nodes = hidden_nodes
        # "did you mean" names a node by its name alone: a hidden node's name must not come back that way either
        self._hidden_names = {k.split(":", 1)[1] for k in hidden_nodes if ":" in k}
        self.later_papers = later_papers
        self.held = held if held is not None else HeldBack()
        self._target_ids: set[str] = set()
        self._target_titles: set[str] = set()
        for t in targets:
            self._target_ids |= identities(t)
            title = str(getattr(t, "title", "") if isinstance(t, BaseModel) else dict(t).get("title") or "")
            if _norm_title(title):
                self._target_titles.add(_norm_title(title))

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()

    # ------------------------------------------------------------------ predicates
    def _is_target(self, rec: Any) -> bool:
        title = str(getattr(rec, "title", "") or "")
        return bool(identities(rec) & self._target_ids) or (
            bool(_norm_title(title)) and _norm_title(title) in self._target_titles)

    def _paper_hidden(self, pid: str) -> bool:
        return pid in self.later_papers

    def _node_hidden(self, key: str) -> bool:
        return key in self.hidden_nodes

    def _suggestions(self, names: list[str]) -> list[str]:
        keep = [n for n in names if normalize_name(n) not in self._hidden_names]
        self.held.graph_nodes += len(names) - len(keep)
        return keep

    def _unresolved(self, items: list[Any]) -> list[Any]:
        out: list[Any] = []
        for u in items:
            if isinstance(u, Unresolved):
                out.append(u.model_copy(update={"suggestions": self._suggestions(u.suggestions)}))
            elif isinstance(u, dict):  # over HTTP the error carries them as dicts
                out.append({**u, "suggestions": self._suggestions(list(u.get("suggestions") or []))})
            else:
                out.append(u)
        return out

    def _triple_hidden(self, t: TripleOut) -> bool:
        if any(self._node_hidden(n.key) for n in (t.problem, t.challenge, t.solution)):
            return True
        return bool(t.papers) and all(self._paper_hidden(p) for p in t.papers)

    def _lit_hidden(self, p: LiteraturePaper) -> str | None:
        """Why a literature result is dropped (None: it is kept)."""
        if self._is_target(p):
            return "targets"
        if p.paper_id and p.paper_id in self.later_papers:
            return "graph_papers"
        span = paper_span(p)
        if span is None:  # a graph paper without a date stays (module doc); an undated search result does not
            return "literature_undated" if self.cutoff is not None and not p.in_graph else None
        return "literature" if after(span, self.cutoff) else None

    # ------------------------------------------------------------------ the call
    async def _invoke(self, spec: ToolSpec[Q, R], req: Q) -> R:
        name = spec.name
        if name == "node_search" and isinstance(req, NodeSearchRequest) and self.hidden_nodes:
            res = await self.inner.call(spec, req.model_copy(update={"k": min(100, req.k * OVERFETCH)}))
            keep = [h for h in res.hits if not self._node_hidden(h.key)]
            self.held.graph_nodes += len(res.hits) - len(keep)
            return res.model_copy(update={"hits": keep[: req.k]})
        if name == "random_nodes" and isinstance(req, RandomNodesRequest) and self.hidden_nodes:
            res = await self.inner.call(spec, req.model_copy(update={"n": min(50, req.n * OVERFETCH)}))
            nodes = [n for n in res.nodes if not self._node_hidden(n.key)]
            triples = [t for t in res.triples if not self._triple_hidden(t)]
            self.held.graph_nodes += len(res.nodes) - len(nodes) + len(res.triples) - len(triples)
            return res.model_copy(update={"nodes": nodes[: req.n], "triples": triples[: req.n]})
        try:
            res = await self.inner.call(spec, req)
        except NodeNotFound as e:  # its "did you mean" names, without the hidden ones
            raise NodeNotFound(e.ref, self._suggestions(list(e.suggestions)), self._unresolved(e.unresolved)) from None
        if isinstance(res, NodeRelationResult):
            return self._relations(res)  # type: ignore[return-value]
        if isinstance(res, TransferResult):
            keep = [c for c in res.candidates if not any(self._node_hidden(n.key) for n in (
                c.target_challenge, c.source_challenge, c.solution, *c.target_problems, *c.source_problems))
                and not (c.papers and all(self._paper_hidden(p) for p in c.papers))]
            self.held.graph_nodes += len(res.candidates) - len(keep)
            return res.model_copy(update={"candidates": keep})  # type: ignore[return-value]
        if isinstance(res, LiteratureSearchResult):
            kept = []
            for p in res.papers:
                why = self._lit_hidden(p)
                if why is None:
                    kept.append(p)
                else:
                    setattr(self.held, why, getattr(self.held, why) + 1)
            return res.model_copy(update={"papers": kept})  # type: ignore[return-value]
        return res

    def _relations(self, res: NodeRelationResult) -> NodeRelationResult:
        nodes, unresolved = [], self._unresolved(list(res.unresolved))
        for r in res.nodes:
            if self._node_hidden(r.node.key):
                self.held.graph_nodes += 1
                unresolved.append(Unresolved(query=r.query))  # as if it did not exist: it did not, yet
                continue
            upd: dict[str, Any] = {}
            for f in ("parents", "children", "problems", "challenges", "solutions"):
                upd[f] = [n for n in getattr(r, f) if not self._node_hidden(n.key)]
            upd["triples"] = [t for t in r.triples if not self._triple_hidden(t)]
            upd["papers"] = [p for p in r.papers if not self._paper_hidden(p.paper_id)]
            self.held.graph_papers += len(r.papers) - len(upd["papers"])
            nodes.append(r.model_copy(update=upd))
        return res.model_copy(update={"nodes": nodes, "unresolved": unresolved})


@dataclass
class TopicFilter:
    """What one topic's methods may not see of its graph, and what was held back from them."""

    cutoff: date | None
    how: str
    later_papers: set[str] = field(default_factory=set)
    hidden_nodes: set[str] = field(default_factory=set)
    graph_papers: int = 0  # papers in the graph the topic's methods are given
    undated_graph_papers: int = 0
    targets: list[Any] = field(default_factory=list)
    held: HeldBack = field(default_factory=HeldBack)

    def client(self, inner: Any) -> CutoffToolClient:
        return CutoffToolClient(inner, cutoff=self.cutoff, hidden_nodes=self.hidden_nodes,
                                later_papers=self.later_papers, targets=self.targets, held=self.held)

    def summary(self) -> dict[str, Any]:
        """The per-topic row of the report and status: the cutoff and everything held back."""
        return {"cutoff": self.cutoff.isoformat() if self.cutoff else None, "cutoff_from": self.how,
                "graph_papers": self.graph_papers, "graph_papers_held_back": len(self.later_papers),
                "graph_nodes_hidden": len(self.hidden_nodes), "graph_papers_undated": self.undated_graph_papers,
                "literature_held_back": self.held.literature,
                "literature_undated_dropped": self.held.literature_undated,
                "target_papers_dropped": self.held.targets, "graph_items_dropped_from_answers": self.held.graph_nodes}

    def note(self, topic_id: str) -> str:
        s = self.summary()
        if self.cutoff is None:
            return (f"{topic_id}: no cutoff ({self.how}): nothing was held back by date; give --cutoff YYYY-MM to "
                    "hold back later papers")
        return (f"{topic_id}: cutoff {s['cutoff']} ({self.how}): held back {s['graph_papers_held_back']} of "
                f"{s['graph_papers']} graph paper(s) ({s['graph_nodes_hidden']} node(s)), "
                f"{s['literature_held_back']} literature result(s) dated later and {s['literature_undated_dropped']} "
                f"undated, {s['target_papers_dropped']} target paper result(s)")


def topic_filters(topics: list[Any], override: str | None, graphs: dict[str, tuple[GraphDates, int]]) -> dict[
        str, TopicFilter]:
    """A TopicFilter per topic: `graphs` maps topic id to (its graph's dates, number of papers in it); a topic
    without a graph (background file) gets a filter for literature only."""
    out = {}
    for t in topics:
        cutoff, how = topic_cutoff(t.background, override)
        f = TopicFilter(cutoff, how, targets=list(t.targets))
        if t.topic_id in graphs:
            gd, n = graphs[t.topic_id]
            f.later_papers = gd.later_papers(cutoff)
            f.hidden_nodes = gd.hidden_nodes(f.later_papers)
            f.graph_papers, f.undated_graph_papers = n, gd.undated_papers()
        out[t.topic_id] = f
    return out
