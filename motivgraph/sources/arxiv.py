"""arXiv API search (GET /query?search_query=…), a literature source behind literature_search.

The answer is an Atom feed: one <entry> per e-print with its abs URL as <id> (the arXiv id and version),
<title>, <summary> (the abstract), <published> (first version), <author><name>, and arXiv's extension
elements <arxiv:doi> and <arxiv:journal_ref>. A query arXiv cannot run comes back as a feed whose one
entry's id is under /api/errors. arXiv asks for at most one request every 3 seconds: the client-side rate
limit (MOTIVGRAPH_ARXIV_REQUESTS_PER_SECOND, default 1/3) is the toolkit's limiter, so retries wait too.

XML safety: the feed is parsed with the standard library's ElementTree, which never fetches external
entities; defusedxml is not a dependency, so an answer declaring a DOCTYPE (the only place entities can
be defined, the way to an entity-expansion bomb) is refused as unreadable before it is parsed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import httpx

from motivgraph.errors import ExternalServiceError
from motivgraph.settings import ArxivSettings, Settings
from motivgraph.sources.http_source import HttpSource
from motivgraph.sources.records import SourcePaper, arxiv_id_from_url, normalize_doi

NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
MAX_TERMS = 12  # arXiv's query parser answers very long AND-chains slowly; the first words carry the topic
# words that would only narrow an AND of terms without saying what a paper is about
_STOP_WORDS = (
    "a an and are as at be by for from how in into is it its of on or our the their this to towards via we "
    "what when which with without using"
)
_STOP = frozenset(_STOP_WORDS.split())
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
_DOCTYPE = re.compile(rb"<!DOCTYPE|<!ENTITY", re.I)
_FIRST_YEAR, _LAST_YEAR = 1991, 2999  # arXiv opened in 1991; an open upper end needs some year


def search_query(query: str, year_from: int | None = None, year_to: int | None = None) -> str:
    """arXiv's `search_query` for free text: every content word in any field (`all:`), ANDed — lower-cased,
    so a word of the query is never read as an operator (AND/OR/ANDNOT) — and the submission years."""
    words = [w.lower() for w in _WORD.findall(query)]
    terms = [w for w in words if w not in _STOP] or words
    parts = [f'all:"{t}"' if not t.isalnum() else f"all:{t}" for t in list(dict.fromkeys(terms))[:MAX_TERMS]]
    if year_from is not None or year_to is not None:
        lo, hi = year_from or _FIRST_YEAR, year_to or _LAST_YEAR
        parts.append(f"submittedDate:[{lo:04d}01010000 TO {hi:04d}12312359]")
    return " AND ".join(parts)


def _text(el: ET.Element | None) -> str:
    return " ".join((el.text or "").split()) if el is not None else ""


def entry_paper(entry: ET.Element) -> SourcePaper | None:
    """A SourcePaper from one Atom <entry>; None when it is not an e-print (no arXiv id or no title)."""
    abs_url = _text(entry.find("atom:id", NS))
    hit = arxiv_id_from_url(abs_url)
    title = _text(entry.find("atom:title", NS))
    if hit is None or not title:
        return None
    arxiv_id, version = hit
    published = _text(entry.find("atom:published", NS))
    year = int(published[:4]) if published[:4].isdigit() else None
    url = next(
        (
            link.get("href")
            for link in entry.findall("atom:link", NS)
            if link.get("rel") == "alternate" and link.get("href")
        ),
        None,
    )
    return SourcePaper(
        source="arxiv",
        title=title,
        abstract=_text(entry.find("atom:summary", NS)),
        authors=[n for a in entry.findall("atom:author", NS) if (n := _text(a.find("atom:name", NS)))],
        year=year,
        venue=_text(entry.find("arxiv:journal_ref", NS)) or None,
        paper_id=f"{arxiv_id}v{version}" if version else arxiv_id,
        doi=normalize_doi(_text(entry.find("arxiv:doi", NS))),
        arxiv_id=arxiv_id,
        url=url or abs_url,
    )


def decode_feed(response: httpx.Response) -> dict[str, Any]:
    """The feed as {"papers": [...], "error": message or None}; ValueError when it is not a readable feed."""
    body = response.content
    if _DOCTYPE.search(body):
        raise ValueError("the answer declares a DOCTYPE or entities; refused unparsed (no entity expansion)")
    try:
        root = ET.fromstring(body)
    except ET.ParseError as e:
        raise ValueError(f"not XML: {e}") from e
    if root.tag != f"{{{NS['atom']}}}feed":
        raise ValueError(f"not an Atom feed (root element {root.tag!r})")
    entries = root.findall("atom:entry", NS)
    for entry in entries:
        if "/api/errors" in _text(entry.find("atom:id", NS)):
            return {"papers": [], "error": _text(entry.find("atom:summary", NS)) or "unspecified error"}
    papers = [p.model_dump() for p in map(entry_paper, entries) if p is not None]
    return {"papers": papers, "error": None}


class ArxivClient(HttpSource):
    key = "arxiv"
    name = "arXiv"

    def __init__(
        self,
        settings: ArxivSettings,
        cache_dir: Any = None,
        transport: httpx.AsyncBaseTransport | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(settings, cache_dir, transport, **kw)
        self.settings: ArxivSettings = settings

    async def search(
        self, query: str, limit: int = 10, year_from: int | None = None, year_to: int | None = None
    ) -> list[SourcePaper]:
        """E-prints by relevance to `query`, at most `limit`."""
        q = search_query(" ".join(query.split())[:300], year_from, year_to)
        if not q or q.startswith("submittedDate"):
            return []  # no word to search for
        params = {
            "search_query": q,
            "start": 0,
            "max_results": max(1, min(100, limit)),
            "sortBy": "relevance",
            "sortOrder": "descending",
        }
        data = await self._get("/query", params, decode_feed)
        if data.get("error"):
            raise ExternalServiceError(f"arXiv could not run the query: {data['error']}")
        return [SourcePaper.model_validate(p) for p in data.get("papers", [])]


def client_from_settings(settings: Settings) -> ArxivClient | None:
    """The arXiv client configured from settings (None when disabled)."""
    if not settings.arxiv.enabled:
        return None
    return ArxivClient(settings.arxiv, cache_dir=settings.cache_dir)
