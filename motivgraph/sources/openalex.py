"""OpenAlex works search (GET /works?search=…), a literature source behind literature_search.

OpenAlex's data is free; its API wants a free key (MOTIVGRAPH_OPENALEX_API_KEY, sent as `api_key`) for more
than a handful of searches a day since February 2026, and a `mailto` (MOTIVGRAPH_OPENALEX_MAILTO) identifies
the caller. Neither is part of the cache key. 429 means the daily allowance is spent.
A work carries its abstract as an inverted index (word -> positions), rebuilt here into text; its DOI as a
doi.org URL; an arXiv id only through a location on arxiv.org or arXiv's own DOI (10.48550/arXiv.…).
Rate limit, retries, breaker and cache: sources/http_source.py.
"""

from __future__ import annotations

from typing import Any

import httpx

from motivgraph.settings import OpenAlexSettings, Settings
from motivgraph.sources.http_source import HttpSource
from motivgraph.sources.records import SourcePaper, arxiv_id_from_doi, arxiv_id_from_url, normalize_doi

# only what a result needs: a whole work object is tens of kilobytes (concepts, referenced works, ...)
SELECT = (
    "id,doi,title,display_name,publication_year,authorships,abstract_inverted_index,cited_by_count,ids,"
    "primary_location,locations"
)


def abstract_text(inverted: Any) -> str:
    """The abstract from OpenAlex's `abstract_inverted_index` ({word: [positions]}); "" when absent."""
    if not isinstance(inverted, dict):
        return ""
    at: dict[int, str] = {}
    for word, positions in inverted.items():
        for pos in positions if isinstance(positions, list) else []:
            if isinstance(pos, int) and pos >= 0:
                at[pos] = str(word)
    return " ".join(at[i] for i in sorted(at))


def _str(v: Any) -> str | None:
    return v.strip() or None if isinstance(v, str) else None


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _arxiv(work: dict[str, Any], doi: str | None) -> str | None:
    from_doi = arxiv_id_from_doi(doi)
    if from_doi:
        return from_doi
    locations = [work.get("primary_location"), *(work.get("locations") or [])]
    for loc in map(_dict, locations):
        for url in (loc.get("landing_page_url"), loc.get("pdf_url")):
            hit = arxiv_id_from_url(_str(url))
            if hit:
                return hit[0]
    return None


def work_paper(work: Any) -> SourcePaper | None:
    """A SourcePaper from one OpenAlex Work object; None when it has no title."""
    if not isinstance(work, dict):
        return None
    title = _str(work.get("title")) or _str(work.get("display_name"))
    if not title:
        return None
    ids = _dict(work.get("ids"))
    doi = normalize_doi(_str(work.get("doi")) or _str(ids.get("doi")))
    openalex_id = _str(work.get("id")) or _str(ids.get("openalex")) or ""
    short_id = openalex_id.rstrip("/").rsplit("/", 1)[-1] or None
    authors = [
        name for a in work.get("authorships") or [] if (name := _str(_dict(_dict(a).get("author")).get("display_name")))
    ]
    primary = _dict(work.get("primary_location"))
    venue = _str(_dict(primary.get("source")).get("display_name"))
    year = work.get("publication_year")
    cited = work.get("cited_by_count")
    return SourcePaper(
        source="openalex",
        title=" ".join(title.split()),
        abstract=" ".join(abstract_text(work.get("abstract_inverted_index")).split()),
        authors=authors,
        year=year if isinstance(year, int) else None,
        venue=venue,
        paper_id=short_id,
        doi=doi,
        arxiv_id=_arxiv(work, doi),
        url=(f"https://doi.org/{doi}" if doi else None) or _str(primary.get("landing_page_url")) or openalex_id or None,
        citation_count=cited if isinstance(cited, int) else None,
    )


def decode_works(response: httpx.Response) -> dict[str, Any]:
    """A /works list answer: a JSON object whose `results` is a list; ValueError otherwise."""
    data = response.json()
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise ValueError("not an OpenAlex list answer (no `results` list)")
    return data


class OpenAlexClient(HttpSource):
    key = "openalex"
    name = "OpenAlex"
    hint = " (set MOTIVGRAPH_OPENALEX_API_KEY: without a key the daily allowance is tiny)"
    uncached_params = frozenset({"api_key", "mailto"})

    def __init__(
        self,
        settings: OpenAlexSettings,
        cache_dir: Any = None,
        transport: httpx.AsyncBaseTransport | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(settings, cache_dir, transport, **kw)
        self.settings: OpenAlexSettings = settings
        self._api_key = settings.api_key.get_secret_value() if settings.api_key is not None else ""
        if self._api_key:
            self.hint = ""

    def counts_as_failure(self, e: BaseException | None, status: int | None) -> bool:
        # OpenAlex answers 403 when requests come too fast ("slow down"): throttling, like its 429s
        return status == 403 or super().counts_as_failure(e, status)

    async def search(
        self, query: str, limit: int = 10, year_from: int | None = None, year_to: int | None = None
    ) -> list[SourcePaper]:
        """Works by relevance to `query` (title, abstract and full text), at most `limit`."""
        query = " ".join(query.split())[:300]
        if not query:
            return []
        params: dict[str, Any] = {"search": query, "per-page": max(1, min(100, limit)), "select": SELECT}
        filters = []
        if year_from is not None:
            filters.append(f"from_publication_date:{year_from:04d}-01-01")
        if year_to is not None:
            filters.append(f"to_publication_date:{year_to:04d}-12-31")
        if filters:
            params["filter"] = ",".join(filters)
        if self.settings.mailto:
            params["mailto"] = self.settings.mailto
        if self._api_key:
            params["api_key"] = self._api_key  # OpenAlex takes its key as a query parameter, not a header
        data = await self._get("/works", params, decode_works)
        return [p for p in map(work_paper, data["results"]) if p is not None]


def client_from_settings(settings: Settings) -> OpenAlexClient | None:
    """The OpenAlex client configured from settings (None when disabled)."""
    if not settings.openalex.enabled:
        return None
    return OpenAlexClient(settings.openalex, cache_dir=settings.cache_dir)
