"""Semantic Scholar Graph API client (httpx, async): title match and paper search.

- API key (optional) from settings/env, sent as `x-api-key`; never logged;
- client-side rate limit (default 1 request/s, shared by all calls of one client);
- 429: exponential backoff honouring `Retry-After`; 5xx and timeouts: retried; both capped;
- circuit breaker: after `breaker_threshold` consecutive 429s, calls fail fast with RateLimited
  for `breaker_cooldown_s` instead of hammering the API;
- a disk cache of successful answers under `<cache_dir>/s2/` (JSON keyed by request).
All of it is the literature sources' common client (sources/http_source.py, on motivgraph/outbound.py);
what is S2's own is the key header, which failures open the breaker (429s) and the two endpoints.

Why not the `semanticscholar` package (0.12.0, MIT, async on httpx + tenacity; issue #30 item 15):
measured against a fake Graph API (real HTTP on 127.0.0.1), its retry policy is fixed and ignores
`Retry-After`. A 429 with `Retry-After: 2`: ours waited 2.0 s, it 5.1 s (its floor). A server that
keeps answering 429 until its 7 s window closes: ours 2 requests in 7.0 s, it 3 requests in 10.2 s (the
early retry is one more 429 against the key). A 429 on every request: ours opens the circuit breaker
after 3 requests (2.1 s) and sends nothing more for `breaker_cooldown_s`; it schedules 10 requests over
251 s of waits (5, 5, 5, 8, 16, 32, 60, 60, 60) and then raises tenacity's RetryError. Neither the
attempt count nor the waits are settings. A 503 is not an error to it: the search returned 0 papers
after 1 request (ours retried: 1 paper, 2 requests), so an outage reads as "nothing found". It pastes
the query into the query string unescaped: "Q&A for C++ code #2" reached the server as "Q". It has no
client-side rate limit, no cache, opens a new connection per request with no transport to inject, and
its constructor calls `logging.basicConfig`. Its typed records and pagination are what we would gain;
our two endpoints need one page and a nine-field model.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, Field

from motivgraph.settings import SemanticScholarSettings, Settings
from motivgraph.sources.http_source import HttpSource

log = logging.getLogger(__name__)

FIELDS = "paperId,title,abstract,year,venue,authors,externalIds,url,citationCount"


class S2Author(BaseModel):
    authorId: str | None = None
    name: str | None = None


class S2Paper(BaseModel):
    paperId: str
    title: str = ""
    abstract: str | None = None
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    authors: list[S2Author] = Field(default_factory=list)
    externalIds: dict[str, Any] | None = None
    citationCount: int | None = None

    @property
    def doi(self) -> str | None:
        v = (self.externalIds or {}).get("DOI")
        return str(v).lower() if v else None

    @property
    def arxiv_id(self) -> str | None:
        v = (self.externalIds or {}).get("ArXiv")
        return str(v) if v else None

    @property
    def author_names(self) -> list[str]:
        return [a.name for a in self.authors if a.name]


def _norm_title(t: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", t.lower()).split())


class SemanticScholarClient(HttpSource):
    key = "s2"
    name = "Semantic Scholar"
    hint = " (set MOTIVGRAPH_S2_API_KEY for a higher rate limit)"
    not_found_is_empty = True  # /paper/search/match answers 404 when no title matches

    def __init__(
        self,
        settings: SemanticScholarSettings,
        cache_dir: Path | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        sleep: Any = asyncio.sleep,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 60.0,
    ) -> None:
        headers = {}
        if settings.api_key is not None and settings.api_key.get_secret_value():
            headers["x-api-key"] = settings.api_key.get_secret_value()
        super().__init__(settings, cache_dir, transport, headers=headers, sleep=sleep,
                         backoff_base_s=backoff_base_s, backoff_max_s=backoff_max_s)
        self.settings: SemanticScholarSettings = settings

    def counts_as_failure(self, e: BaseException | None, status: int | None) -> bool:
        # only 429s open this breaker: S2 throttles by key, and an outage is already capped by the retries
        return status == 429

    async def search(
        self, query: str, limit: int = 10, year_from: int | None = None, year_to: int | None = None
    ) -> list[S2Paper]:
        """Relevance search (/paper/search)."""
        query = " ".join(query.split())[:300]
        if not query:
            return []
        params: dict[str, Any] = {"query": query, "limit": max(1, min(100, limit)), "fields": FIELDS}
        if year_from or year_to:
            params["year"] = f"{year_from or ''}-{year_to or ''}"
        data = await self._get("/paper/search", params)
        return [S2Paper.model_validate(d) for d in (data or {}).get("data", []) or [] if d.get("paperId")]

    async def match_title(self, title: str) -> S2Paper | None:
        """Best match for a title (/paper/search/match), accepted only if the titles agree."""
        title = " ".join(title.split())[:300]
        if len(title) < 8:
            return None
        data = await self._get("/paper/search/match", {"query": title, "fields": FIELDS})
        items = (data or {}).get("data", []) or []
        if not items:
            return None
        hit = S2Paper.model_validate(items[0])
        a, b = _norm_title(title), _norm_title(hit.title)
        if not a or not b or (a != b and not (a.startswith(b) or b.startswith(a))):
            log.debug("S2 match rejected: %r vs %r", title, hit.title)
            return None
        return hit



def client_from_settings(settings: Settings) -> SemanticScholarClient | None:
    """The Semantic Scholar client configured from settings (None when disabled)."""
    if not settings.s2.enabled:
        return None
    return SemanticScholarClient(settings.s2, cache_dir=settings.cache_dir)
