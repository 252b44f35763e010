"""Parser choice: `auto` (GROBID when configured and alive, else offline), `grobid`, `pdf` -- the "parsers" parts
of motivgraph/plugins.py, each an async function building its `DocumentParser` (`make_parser` picks one by name).

Every parser turns one PDF path into a Paper (or raises ParseError / ExternalServiceError) and says in
`description` what it is, so the CLI can tell the user which parser auto picked. `cache_tag` names the parse a
paper is: the parser that made it and a fingerprint of its code and page limit (and, for GROBID, the server),
so the parsed cache (ingest/cache.py) never serves a parse made by another parser or an older version of one.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.util
import logging
from pathlib import Path
from typing import Protocol

import httpx
import pypdfium2 as pdfium

from motivgraph import plugins
from motivgraph.choices import ParserName
from motivgraph.errors import ConfigError, ExternalServiceError, ParseError
from motivgraph.ingest.grobid import GrobidClient
from motivgraph.ingest.models import Paper
from motivgraph.ingest.tei import tei_to_paper
from motivgraph.ingest.workers import ProcessParserPool
from motivgraph.settings import IngestSettings

log = logging.getLogger(__name__)


# The modules whose code decides what each parser makes of a PDF (a change to any of them is a new parse).
_OFFLINE_CODE = ("pdf", "pdf_layout", "pdf_filters", "pdf_identity", "pdf_native", "references", "identity",
                 "models", "quality")
_GROBID_CODE = ("grobid", "tei", "references", "identity", "models")


@functools.cache
def _source_digest(modules: tuple[str, ...]) -> bytes:
    """sha256 over the source of `motivgraph.ingest.<module>` for each module (and the C helper the offline
    parser compiles). Read once per process: every parsed document's cache tag asks for it."""
    h = hashlib.sha256()
    for name in modules:
        spec = importlib.util.find_spec(f"motivgraph.ingest.{name}")
        if spec is None or spec.origin is None:
            raise RuntimeError(f"motivgraph.ingest.{name} has no source to fingerprint")
        h.update(Path(spec.origin).read_bytes())
        if name == "pdf_native":
            for c in sorted((Path(spec.origin).parent / "native").glob("*.c")):
                h.update(c.read_bytes())
    return h.digest()


def code_fingerprint(modules: tuple[str, ...], *extra: object) -> str:
    """12 hex digits over the source of `motivgraph.ingest.<module>` for each module, plus `extra` values: the
    same code and values give the same fingerprint."""
    h = hashlib.sha256(repr(extra).encode())
    h.update(_source_digest(modules))
    return h.hexdigest()[:12]


def offline_tag(settings: IngestSettings) -> str:
    return f"pdf-{code_fingerprint(_OFFLINE_CODE, settings.max_pages)}"


def grobid_tag(settings: IngestSettings) -> str:
    # the server is part of the parse: another GROBID (or another version behind that URL) is a new parse
    return f"grobid-{code_fingerprint(_GROBID_CODE, settings.max_pages, settings.grobid_url or '')}"


def cache_tag(paper: Paper, settings: IngestSettings) -> str:
    """The tag of the parse `paper` is (by the parser that made it: auto makes either kind)."""
    return grobid_tag(settings) if paper.parser == "grobid" else offline_tag(settings)


def accepted_tags(settings: IngestSettings, name: ParserName | None = None) -> tuple[str, ...]:
    """The parses an ingest with parser `name` (default: the setting) takes from the cache, best first, decided
    without reaching GROBID: a resume whose documents are all parsed needs no parser at all."""
    name = name or settings.parser
    if name == "pdf" or not settings.grobid_url:
        return (offline_tag(settings),)
    if name == "grobid":
        return (grobid_tag(settings),)
    return grobid_tag(settings), offline_tag(settings)  # auto: GROBID's parse, else the offline fallback's


class DocumentParser(Protocol):
    name: ParserName
    description: str

    async def parse(self, path: Path, sha256: str) -> Paper: ...

    async def aclose(self) -> None: ...


class OfflineParser:
    name: ParserName = "pdf"

    def __init__(self, settings: IngestSettings, workers: int, reason: str = "") -> None:
        self.settings = settings
        self.pool = ProcessParserPool(workers, memory_mb=settings.worker_memory_mb)
        self.description = "offline (pypdfium2)" + (f" — {reason}" if reason else "")

    async def parse(self, path: Path, sha256: str) -> Paper:
        return await self.pool.parse(
            str(path),
            max_pages=self.settings.max_pages,
            sha256=sha256,
            source_path=str(path),
            timeout=self.settings.doc_timeout_s,
        )

    async def aclose(self) -> None:
        await self.pool.aclose()


class GrobidParser:
    name: ParserName = "grobid"

    def __init__(self, settings: IngestSettings, client: GrobidClient) -> None:
        self.settings = settings
        self.client = client
        self.description = f"GROBID at {client.base_url}"

    async def parse(self, path: Path, sha256: str) -> Paper:
        try:
            data = await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError as e:
            raise ParseError(f"file disappeared before it was parsed: {path}") from e
        try:
            tei = await asyncio.wait_for(
                self.client.process_fulltext(data, path.name),
                # the whole retry loop is bounded, not just each request
                timeout=self.settings.doc_timeout_s * (self.settings.grobid_max_retries + 1),
            )
        except TimeoutError as e:
            raise ExternalServiceError(f"GROBID did not answer within the document time limit for {path.name}") from e
        paper = await asyncio.to_thread(tei_to_paper, tei, sha256=sha256, source_path=str(path), parser="grobid")
        paper.page_count = paper.page_count or _page_count(path)
        return paper

    async def aclose(self) -> None:
        await self.client.aclose()


class AutoParser:
    """GROBID first; when GROBID is down for a document, parse it offline instead."""

    name: ParserName = "auto"

    def __init__(self, grobid: GrobidParser, offline: OfflineParser) -> None:
        self.grobid = grobid
        self.offline = offline
        self.description = f"{grobid.description} (offline parser as fallback)"
        self.fallbacks = 0

    async def parse(self, path: Path, sha256: str) -> Paper:
        try:
            return await self.grobid.parse(path, sha256)
        except ExternalServiceError as e:
            self.fallbacks += 1
            if self.fallbacks == 1:
                log.warning("GROBID unavailable (%s); parsing offline instead", e)
            return await self.offline.parse(path, sha256)

    async def aclose(self) -> None:
        await self.grobid.aclose()
        await self.offline.aclose()


def _page_count(path: Path) -> int | None:
    try:
        doc = pdfium.PdfDocument(str(path))
        try:
            return len(doc)
        finally:
            doc.close()
    except Exception:  # page count is informative only
        return None


async def make_parser(
    settings: IngestSettings,
    name: ParserName | None = None,
    *,
    workers: int | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> DocumentParser:
    """Build the parser for `name` (default: settings.parser): its "parsers" part of motivgraph/plugins.py."""
    build = plugins.load("parsers", name or settings.parser)
    parser: DocumentParser = await build(settings, workers=workers or settings.concurrency, transport=transport)
    return parser


async def _alive_grobid(settings: IngestSettings, transport: httpx.AsyncBaseTransport | None) -> GrobidClient | None:
    """A client of the configured GROBID server when it answers /api/isalive (checked once), else None."""
    client = GrobidClient(settings, transport=transport)
    if await client.is_alive():
        return client
    await client.aclose()
    return None


async def offline_parser(settings: IngestSettings, *, workers: int,
                         transport: httpx.AsyncBaseTransport | None = None) -> DocumentParser:
    """`pdf`: the offline parser (pypdfium2 in worker processes)."""
    return OfflineParser(settings, workers)


async def grobid_parser(settings: IngestSettings, *, workers: int,
                        transport: httpx.AsyncBaseTransport | None = None) -> DocumentParser:
    """`grobid`: the GROBID server, which must be configured and alive."""
    if not settings.grobid_url:
        raise ConfigError("--parser grobid needs a GROBID server: set MOTIVGRAPH_INGEST_GROBID_URL")
    client = await _alive_grobid(settings, transport)
    if client is None:
        raise ExternalServiceError(
            f"GROBID at {settings.grobid_url} is not alive (/api/isalive); start it or use --parser pdf"
        )
    return GrobidParser(settings, client)


async def auto_parser(settings: IngestSettings, *, workers: int,
                      transport: httpx.AsyncBaseTransport | None = None) -> DocumentParser:
    """`auto`: GROBID when configured and alive, with the offline parser as its fallback; else offline."""
    if not settings.grobid_url:
        return OfflineParser(settings, workers, "GROBID not configured (MOTIVGRAPH_INGEST_GROBID_URL)")
    client = await _alive_grobid(settings, transport)
    if client is None:
        return OfflineParser(settings, workers, f"GROBID at {settings.grobid_url} not reachable")
    return AutoParser(GrobidParser(settings, client), OfflineParser(settings, workers))
