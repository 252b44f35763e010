"""Read-only views behind /triples, /nodes/{key}, /papers/{id}, /stats and /health."""

from __future__ import annotations

import logging
import time
from typing import Any

from pydantic import BaseModel, Field

from motivgraph import __version__
from motivgraph.api.contract.models import NodeBrief, NodeRelation, PaperBrief, QuoteOut, TripleOut
from motivgraph.api.services.briefs import brief, triple_out
from motivgraph.api.services.context import ToolContext
from motivgraph.api.services.evidence import node_quotes, triple_quotes_from, with_triple_evidence
from motivgraph.api.services.node_relation import relation_of
from motivgraph.api.services.scrub import scrub_paths
from motivgraph.choices import NodeType
from motivgraph.errors import GraphError, InvalidCursor, MotivGraphError, NodeNotFound, PaperNotFound
from motivgraph.graph.models import PaperRecord, TripleEvidence, TripleFilter
from motivgraph.ingest.identity import resolve_paper_id

log = logging.getLogger(__name__)


class TriplesPage(BaseModel):
    items: list[TripleOut]
    next_cursor: str | None = Field(None, description="Pass as `cursor` to get the next page; null at the end.")


class PaperTriple(BaseModel):
    index: int
    problem: str
    challenge: str
    solution: str
    section: str | None = None
    evidence: list[QuoteOut] = Field(default_factory=list, description="This paper's quotes for the triple's "
                                     "elements (at most api.evidence_quotes per element).")


class PaperOut(BaseModel):
    """A paper as clients see it: the stored record without the location of its file on the server (that is
    the server's business; `motivgraph papers list --json` shows it to the machine's owner)."""

    paper_id: str
    title: str = ""
    abstract: str = ""
    year: int | None = None
    venue: str | None = None
    authors: list[str] = Field(default_factory=list)
    sha256: str | None = Field(None, description="SHA-256 of the paper's file, when it was ingested from one.")

    @classmethod
    def of(cls, rec: PaperRecord) -> PaperOut:
        return cls.model_validate(rec.model_dump(include=set(cls.model_fields)))


class PaperView(BaseModel):
    paper: PaperOut
    triples: list[PaperTriple] = Field(default_factory=list)


class IndexInfo(BaseModel):
    state: str
    message: str
    index_version: int | None = None
    graph_version: int | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    built_at: str | None = None


class Stats(BaseModel):
    nodes: dict[str, int]
    relationships: dict[str, int]
    triples: int
    papers: int = Field(description="Corpus size: Paper nodes in the graph.")
    graph_version: int
    node_index: IndexInfo
    paper_index: IndexInfo | None = None


class ComponentHealth(BaseModel):
    ok: bool
    detail: str
    latency_ms: float | None = None


class Health(BaseModel):
    status: str = Field(description="'ok', 'degraded' (index stale or missing) or 'down' (graph unreachable).")
    graph: ComponentHealth
    index: ComponentHealth
    index_stale: bool = False
    node_cache: int = Field(0, description="Node briefs this worker holds in memory (api.node_cache).")
    node_cache_filling: bool = Field(False, description="This worker is filling its node cache from the graph.")
    version: str


def page_triples(ctx: ToolContext, flt: TripleFilter, cursor: str | None, limit: int) -> TriplesPage:
    try:
        page = ctx.store.page_triples(flt, cursor=cursor, limit=limit)
    except ValueError as e:  # a cursor that is not one of ours
        raise InvalidCursor(str(e)) from e
    api = ctx.settings.api
    items = with_triple_evidence(ctx.store, [triple_out(t) for t in page.items], per=api.evidence_quotes,
                                 chars=api.evidence_quote_chars)
    return TriplesPage(items=items, next_cursor=page.next_cursor)


class PapersPage(BaseModel):
    items: list[PaperOut]
    next_cursor: str | None = Field(None, description="Pass as `cursor` to get the next page; null at the end.")


class NodesPage(BaseModel):
    items: list[NodeBrief]
    next_cursor: str | None = Field(None, description="Pass as `cursor` to get the next page; null at the end.")


def page_papers(ctx: ToolContext, cursor: str | None, limit: int) -> PapersPage:
    try:
        page = ctx.store.page_papers(cursor=cursor, limit=limit)
    except ValueError as e:
        raise InvalidCursor(str(e)) from e
    return PapersPage(items=[PaperOut.of(p) for p in page.items], next_cursor=page.next_cursor)


def page_nodes(ctx: ToolContext, types: list[NodeType] | None, cursor: str | None, limit: int) -> NodesPage:
    try:
        page = ctx.store.page_nodes(types, cursor=cursor, limit=limit)
    except ValueError as e:
        raise InvalidCursor(str(e)) from e
    return NodesPage(items=[brief(n, full=True) for n in page.items], next_cursor=page.next_cursor)


def get_node(ctx: ToolContext, key: str) -> NodeRelation:
    store = ctx.store
    detail = store.get_node(key)
    if detail is None:
        recs = store.find_nodes(key)
        detail = store.get_node(recs[0].key) if len(recs) == 1 else None
        if detail is None:
            raise NodeNotFound(key, ctx.suggestions(key.split(":", 1)[-1]) if not recs else [r.key for r in recs])
    api = ctx.settings.api
    quotes = node_quotes(store, [detail.node.key], per=api.evidence_quotes, chars=api.evidence_quote_chars)
    rel = relation_of(detail, key, max_triples=200, max_neighbours=200, evidence=quotes[detail.node.key])
    # the node view shows each triple with its quotes too (the explorer's triple rows)
    rel.triples = with_triple_evidence(store, rel.triples, per=api.evidence_quotes, chars=api.evidence_quote_chars)
    return rel


def get_paper(ctx: ToolContext, paper_id: str) -> PaperView:
    """A paper by any id the CLI accepts: doi:/arxiv:/sha256: ids, a bare DOI or arXiv id, a sha256 prefix."""
    store = ctx.store
    try:
        paper_id = resolve_paper_id(store, paper_id)
    except GraphError as e:
        raise PaperNotFound(str(e)) from e
    rec = store.get_paper(paper_id)
    if rec is None:
        raise PaperNotFound(f"No paper with id {paper_id!r}")
    api = ctx.settings.api
    triples = [
        PaperTriple(index=t.index, problem=t.problem.name, challenge=t.challenge.name, solution=t.solution.name,
                    section=t.section,
                    evidence=triple_quotes_from(
                        [TripleEvidence(paper_id=paper_id, title=rec.title, year=rec.year, triple_index=t.index,
                                        section=t.section, evidence=t.evidence)],
                        per=api.evidence_quotes, chars=api.evidence_quote_chars))
        for t in store.paper_triples(paper_id)
    ]
    return PaperView(paper=PaperOut.of(rec), triples=triples)


def _index_info(st: Any) -> IndexInfo:
    return IndexInfo(state=st.state, message=scrub_paths(st.message), index_version=st.index_version,
                     graph_version=st.graph_version, counts=dict(st.counts), built_at=st.built_at)


def stats(ctx: ToolContext) -> Stats:
    s = ctx.store.stats()
    node_st = _index_info(ctx.index_status(fresh=True))
    paper_st: IndexInfo | None
    try:
        paper_st = _index_info(ctx.paper_index.status())
    except MotivGraphError as e:
        paper_st = IndexInfo(state="corrupt", message=scrub_paths(str(e)))
    return Stats(nodes=s.nodes, relationships=s.relationships, triples=s.triples,
                 papers=int(s.nodes.get("Paper", 0)), graph_version=s.node_version,
                 node_index=node_st, paper_index=paper_st)


def health(ctx: ToolContext) -> Health:
    t0 = time.perf_counter()
    try:
        ctx.store.ping()
        ctx.graph_version(fresh=True)
        graph = ComponentHealth(ok=True, detail=f"{ctx.store.backend} reachable",
                                latency_ms=round((time.perf_counter() - t0) * 1000, 2))
    except MotivGraphError as e:
        graph = ComponentHealth(ok=False, detail=scrub_paths(str(e)))
        return Health(status="down", graph=graph, index=ComponentHealth(ok=False, detail="graph unreachable"),
                      version=__version__)
    except Exception as e:  # a driver error type we do not know: still a 503, never a 500
        log.warning("health check: graph ping failed: %r", e)
        return Health(status="down", graph=ComponentHealth(ok=False, detail=f"graph ping failed: {type(e).__name__}"),
                      index=ComponentHealth(ok=False, detail="graph unreachable"), version=__version__)
    try:
        st = ctx.index_status(fresh=True)
        index = ComponentHealth(ok=st.state in ("ok", "stale"), detail=scrub_paths(st.message))
        stale = st.state == "stale"
    except MotivGraphError as e:
        index, stale = ComponentHealth(ok=False, detail=scrub_paths(str(e))), False
    status = "ok" if index.ok and not stale else "degraded"
    return Health(status=status, graph=graph, index=index, index_stale=stale, node_cache=len(ctx.brief_cache),
                  node_cache_filling=ctx.brief_cache.filling, version=__version__)


__all__ = ["PaperBrief", "health", "page_triples", "stats"]
