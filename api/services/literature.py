"""literature_search: Semantic Scholar first, then the local corpus, so it always answers offline.

Semantic Scholar (when `MOTIVGRAPH_S2_ENABLED`; key optional) goes through the ingest layer's
client, which owns caching, the rate limit, Retry-After backoff and the circuit breaker. Whatever
it cannot answer — disabled, down, rate-limited past its retries, breaker open, or no hits — is
answered from the title + abstract embeddings of the ingested papers (`graph.paper_index`). The
result names the source that answered and, when S2 was skipped or failed, why. When neither answered, the
result is empty with the reasons (source "none") — unless the local corpus failed because the graph store
is unreachable: that is an outage of the service, a 503 naming the fix, not "no papers".
"""

from __future__ import annotations

import logging
from typing import Any

import anyio

from motivgraph.api.contract.models import LiteraturePaper, LiteratureSearchRequest, LiteratureSearchResult
from motivgraph.api.services.context import ToolContext
from motivgraph.errors import BackendUnavailable, ExternalServiceError, IndexError_, MotivGraphError

log = logging.getLogger(__name__)


def _get(obj: Any, *names: str) -> Any:
    for n in names:
        v = obj.get(n) if isinstance(obj, dict) else getattr(obj, n, None)
        if v not in (None, "", [], {}):
            return v
    return None


def _authors(v: Any) -> list[str]:
    out: list[str] = []
    for a in v or []:
        name = a if isinstance(a, str) else _get(a, "name")
        if name:
            out.append(str(name))
    return out


def _year(v: Any) -> int | None:
    try:
        return int(v) if v is not None else None
    except (TypeError, ValueError):
        return None


def s2_paper(obj: Any) -> LiteraturePaper | None:
    """A LiteraturePaper from an S2 result: the client's model or a raw S2 JSON object."""
    title = _get(obj, "title")
    if not title:
        return None
    ext = _get(obj, "externalIds", "external_ids") or {}
    doi = _get(obj, "doi") or (ext.get("DOI") if isinstance(ext, dict) else None)
    arxiv = _get(obj, "arxiv_id", "arxivId") or (ext.get("ArXiv") if isinstance(ext, dict) else None)
    pid = _get(obj, "paperId", "paper_id", "s2_id")
    url = _get(obj, "url")
    if not url and pid:
        url = f"https://www.semanticscholar.org/paper/{pid}"
    venue = _get(obj, "venue")
    if isinstance(venue, dict):
        venue = _get(venue, "name")
    return LiteraturePaper(
        title=" ".join(str(title).split()),
        abstract=" ".join(str(_get(obj, "abstract") or "").split()),
        authors=_authors(_get(obj, "authors")),
        year=_year(_get(obj, "year")),
        venue=str(venue) if venue else None,
        paper_id=str(pid) if pid else None,
        doi=str(doi).lower() if doi else None,
        arxiv_id=str(arxiv) if arxiv else None,
        url=str(url) if url else None,
    )


def _in_range(year: int | None, req: LiteratureSearchRequest) -> bool:
    if req.year_from is None and req.year_to is None:
        return True
    if year is None:
        return False
    return (req.year_from is None or year >= req.year_from) and (req.year_to is None or year <= req.year_to)


async def literature_search(ctx: ToolContext, req: LiteratureSearchRequest) -> LiteratureSearchResult:
    reason: str | None = None
    if req.source in ("auto", "semantic_scholar"):
        papers, reason = await _from_s2(ctx, req)
        if papers:
            await anyio.to_thread.run_sync(_mark_in_graph, ctx, papers)
            return LiteratureSearchResult(query=req.query, source="semantic_scholar", papers=papers)
        if req.source == "semantic_scholar":
            if papers is not None:  # S2 answered, with nothing
                return LiteratureSearchResult(query=req.query, source="semantic_scholar", papers=[])
            raise ExternalServiceError(f"Semantic Scholar could not answer: {reason}")
    try:
        local = await anyio.to_thread.run_sync(_from_local, ctx, req)
    except BackendUnavailable:
        # the server's own graph store is down: an outage of this service (503 naming the fix), not "no papers"
        raise
    except (IndexError_, MotivGraphError) as e:
        why = f"local corpus unavailable: {e}"
        return LiteratureSearchResult(
            query=req.query, source="none", papers=[], fallback_reason=f"{reason}; {why}" if reason else why
        )
    return LiteratureSearchResult(query=req.query, source="local", papers=local, fallback_reason=reason)


async def _from_s2(ctx: ToolContext, req: LiteratureSearchRequest) -> tuple[list[LiteraturePaper] | None, str]:
    """(papers, reason): papers is None when S2 did not answer; reason says why."""
    if not ctx.settings.s2.enabled:
        return None, "Semantic Scholar is disabled (set MOTIVGRAPH_S2_ENABLED=true to use it)"
    try:
        client = ctx.s2_client
        if client is None:
            return None, "Semantic Scholar is disabled (set MOTIVGRAPH_S2_ENABLED=true to use it)"
        # The client retries with backoff (honouring Retry-After); an interactive tool must not wait
        # minutes for it, so past the budget the local corpus answers instead.
        budget = max(1.0, ctx.settings.s2.timeout_s)
        raw = None
        with anyio.move_on_after(budget) as scope:
            raw = await client.search(req.query, limit=req.limit, year_from=req.year_from, year_to=req.year_to)
        if scope.cancelled_caught:
            return None, f"Semantic Scholar did not answer within {budget:g}s (MOTIVGRAPH_S2_TIMEOUT_S)"
    except MotivGraphError as e:
        log.info("Semantic Scholar did not answer %r: %s", req.query, e)
        return None, f"Semantic Scholar failed: {e}"
    except ImportError as e:
        return None, f"Semantic Scholar client unavailable: {e}"
    items = raw.get("data", []) if isinstance(raw, dict) else _get(raw, "data", "papers", "items") or raw
    papers = [p for p in (s2_paper(x) for x in (items or [])) if p is not None and _in_range(p.year, req)]
    if not papers:
        return [], "Semantic Scholar found nothing for this query"
    return papers[: req.limit], ""


def _mark_in_graph(ctx: ToolContext, papers: list[LiteraturePaper]) -> None:
    try:
        store = ctx.store
        for p in papers:
            for pid in (f"doi:{p.doi}" if p.doi else None, f"arxiv:{p.arxiv_id}" if p.arxiv_id else None):
                if pid and store.get_paper(pid) is not None:
                    p.in_graph = True
                    break
    except MotivGraphError as e:  # provenance marks are a nicety; never fail the search on them
        log.debug("could not mark papers in graph: %s", e)


def _from_local(ctx: ToolContext, req: LiteratureSearchRequest) -> list[LiteraturePaper]:
    index = ctx.paper_index
    st = index.status()
    if st.state in ("missing", "corrupt"):
        if ctx.settings.index.auto_rebuild:
            index.ensure_ready()
        else:
            raise IndexError_(st.message)
    filtered = req.year_from is not None or req.year_to is not None
    total = max(1, sum(st.counts.values()) if st.counts else req.limit)
    k = min(total, req.limit * (4 if filtered else 1))
    while True:
        hits = [h for h in index.search(req.query, k, check=False) if _in_range(h.year, req)]
        if len(hits) >= req.limit or k >= total:
            break
        k = min(total, k * 4)
    store = ctx.store
    out: list[LiteraturePaper] = []
    for h in hits[: req.limit]:
        rec = store.get_paper(h.paper_id)
        if rec is None:
            continue  # indexed but no longer in the graph
        pid = rec.paper_id
        out.append(LiteraturePaper(
            title=rec.title or h.title or pid,
            abstract=rec.abstract,
            authors=list(rec.authors),
            year=rec.year,
            venue=rec.venue,
            paper_id=pid,
            doi=pid[4:] if pid.startswith("doi:") else None,
            arxiv_id=pid[6:] if pid.startswith("arxiv:") else None,
            url=f"https://doi.org/{pid[4:]}" if pid.startswith("doi:") else (
                f"https://arxiv.org/abs/{pid[6:]}" if pid.startswith("arxiv:") else None),
            score=round(float(h.score), 4),
            in_graph=True,
        ))
    return out
