"""literature_search: the outbound sources in their configured order, then the local corpus, so it always
answers offline.

The sources and their order: `MOTIVGRAPH_LITERATURE_SOURCES` (default `semantic_scholar,openalex,arxiv`), each
used only when its own switch is on (`MOTIVGRAPH_S2_ENABLED`, `MOTIVGRAPH_OPENALEX_ENABLED`,
`MOTIVGRAPH_ARXIV_ENABLED`; all off by default). Each source's client (motivgraph/sources/) owns its cache, its
client-side rate limit, its Retry-After-honouring retries and its own circuit breaker, so a throttled Semantic
Scholar does not slow OpenAlex down. The first source that finds papers answers; one that is disabled,
throttled past its retries, behind an open breaker, down, slower than its `timeout_s` (also the most a search
waits for it) or finds nothing is passed over, and the result says why (`skipped`, joined in
`fallback_reason`). Whatever no outbound source answers is answered from the title + abstract embeddings of the
ingested papers (`graph.paper_index`), always last. Every paper names the source it came from. When nothing
answered, the result is empty with the reasons (source "none") — unless the local corpus failed because the
graph store is unreachable: that is an outage of the service, a 503 naming the fix, not "no papers".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio

from motivgraph.api.contract.models import (
    LiteraturePaper,
    LiteratureSearchRequest,
    LiteratureSearchResult,
    PaperSource,
    SkippedSource,
)
from motivgraph.api.services.context import ToolContext
from motivgraph.choices import LiteratureSource
from motivgraph.errors import BackendUnavailable, ExternalServiceError, IndexError_, MotivGraphError
from motivgraph.settings import Settings
from motivgraph.sources.arxiv import client_from_settings as arxiv_client
from motivgraph.sources.openalex import client_from_settings as openalex_client
from motivgraph.sources.records import SourcePaper
from motivgraph.sources.semantic_scholar import client_from_settings as s2_client

log = logging.getLogger(__name__)


def _openalex_client(settings: Settings) -> Any:
    return openalex_client(settings)


def _arxiv_client(settings: Settings) -> Any:
    return arxiv_client(settings)


def _s2_client(settings: Settings) -> Any:  # ToolContext.s2_client makes it; here for the table's shape
    return s2_client(settings)


@dataclass(frozen=True)
class Source:
    """One outbound source: what to call it, its settings section, the switch that enables it, its client."""

    key: str
    name: str
    section: str  # the Settings field, also MOTIVGRAPH_<SECTION>_...
    make: Callable[[Settings], Any]

    def settings(self, settings: Settings) -> Any:
        return getattr(settings, self.section)

    def env(self, field: str) -> str:
        return f"MOTIVGRAPH_{self.section.upper()}_{field.upper()}"

    def reason_disabled(self) -> str:
        return f"{self.name} is disabled (set {self.env('enabled')}=true to use it)"


SOURCES = {s.key: s for s in (
    Source("semantic_scholar", "Semantic Scholar", "s2", _s2_client),
    Source("openalex", "OpenAlex", "openalex", _openalex_client),
    Source("arxiv", "arXiv", "arxiv", _arxiv_client),
)}


@dataclass
class Outcome:
    """What one source gave: papers (None when it did not answer), why not, and whether it was switched off."""

    papers: list[LiteraturePaper] | None
    reason: str = ""
    disabled: bool = False


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


def _int(v: Any) -> int | None:
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
        year=_int(_get(obj, "year")),
        venue=str(venue) if venue else None,
        paper_id=str(pid) if pid else None,
        doi=str(doi).lower() if doi else None,
        arxiv_id=str(arxiv) if arxiv else None,
        url=str(url) if url else None,
        source="semantic_scholar",
        citation_count=_int(_get(obj, "citationCount", "citation_count")),
    )


def source_paper(obj: Any) -> LiteraturePaper | None:
    """A LiteraturePaper from another source's record (sources.records.SourcePaper), naming that source."""

    if not isinstance(obj, SourcePaper):
        return s2_paper(obj)
    return LiteraturePaper(**obj.model_dump())


def _in_range(year: int | None, req: LiteratureSearchRequest) -> bool:
    if req.year_from is None and req.year_to is None:
        return True
    if year is None:
        return False
    return (req.year_from is None or year >= req.year_from) and (req.year_to is None or year <= req.year_to)


async def literature_search(ctx: ToolContext, req: LiteratureSearchRequest) -> LiteratureSearchResult:
    chain: list[LiteratureSource]
    if req.source == "auto":
        chain = list(ctx.settings.literature.sources)
    elif req.source == "local":
        chain = []
    else:
        chain = [req.source]
    skipped: list[tuple[PaperSource, Outcome]] = []
    for key in chain:
        got = await _from_source(ctx, SOURCES[key], req)
        if got.papers:
            await anyio.to_thread.run_sync(_mark_in_graph, ctx, got.papers)
            return LiteratureSearchResult(query=req.query, source=key, papers=got.papers,
                                          fallback_reason=_why(skipped), skipped=_skips(skipped))
        if req.source == key:  # this source alone was asked for
            if got.papers is not None:  # it answered, with nothing
                return LiteratureSearchResult(query=req.query, source=key, papers=[])
            raise ExternalServiceError(f"{SOURCES[key].name} could not answer: {got.reason}")
        skipped.append((key, got))
    try:
        local = await anyio.to_thread.run_sync(_from_local, ctx, req)
    except BackendUnavailable:
        # the server's own graph store is down: an outage of this service (503 naming the fix), not "no papers"
        raise
    except (IndexError_, MotivGraphError) as e:
        skipped.append(("local", Outcome(None, f"local corpus unavailable: {e}")))
        return LiteratureSearchResult(query=req.query, source="none", papers=[], fallback_reason=_why(skipped),
                                      skipped=_skips(skipped))
    return LiteratureSearchResult(query=req.query, source="local", papers=local, fallback_reason=_why(skipped),
                                  skipped=_skips(skipped))


def _skips(skipped: list[tuple[PaperSource, Outcome]]) -> list[SkippedSource]:
    return [SkippedSource(source=k, reason=o.reason) for k, o in skipped]


def _why(skipped: list[tuple[PaperSource, Outcome]]) -> str | None:
    """The reasons in one line; the sources that are merely switched off in one clause (the offline default)."""
    off = [SOURCES[k] for k, o in skipped if o.disabled and k in SOURCES]
    parts = [o.reason for k, o in skipped if not (o.disabled and k in SOURCES)]
    if len(off) == 1:
        parts.insert(0, off[0].reason_disabled())
    elif off:
        names = ", ".join(s.name for s in off[:-1]) + f" and {off[-1].name}"
        envs = ", ".join(s.env("enabled") for s in off[:-1]) + f" or {off[-1].env('enabled')}"
        parts.insert(0, f"{names} are disabled (set {envs}=true to use them)")
    return "; ".join(parts) or None


async def _from_source(ctx: ToolContext, src: Source, req: LiteratureSearchRequest) -> Outcome:
    if not src.settings(ctx.settings).enabled:
        return Outcome(None, src.reason_disabled(), disabled=True)
    try:
        client = ctx.source_client(src.key, src.make)
        if client is None:
            return Outcome(None, src.reason_disabled(), disabled=True)
        # The client retries with backoff (honouring Retry-After); an interactive tool must not wait
        # minutes for it, so past the budget the next source answers instead.
        budget = max(1.0, src.settings(ctx.settings).timeout_s)
        raw = None
        with anyio.move_on_after(budget) as scope:
            raw = await client.search(req.query, limit=req.limit, year_from=req.year_from, year_to=req.year_to)
        if scope.cancelled_caught:
            return Outcome(None, f"{src.name} did not answer within {budget:g}s ({src.env('timeout_s')})")
    except MotivGraphError as e:
        log.info("%s did not answer %r: %s", src.name, req.query, e)
        msg = str(e)  # the sources' own errors already start with their name
        return Outcome(None, msg if msg.startswith(src.name) else f"{src.name} failed: {msg}")
    except ImportError as e:
        return Outcome(None, f"{src.name} client unavailable: {e}")
    items = raw.get("data", []) if isinstance(raw, dict) else _get(raw, "data", "papers", "items") or raw
    papers = [p for p in (source_paper(x) for x in (items or [])) if p is not None and _in_range(p.year, req)]
    if not papers:
        return Outcome([], f"{src.name} found nothing for this query")
    return Outcome(papers[: req.limit])


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
            source="local",
        ))
    return out
