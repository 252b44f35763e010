"""Parser choice: `auto` (GROBID when configured and alive, else offline), `grobid`, `pdf`.

Every parser turns one PDF path into a Paper (or raises ParseError / ExternalServiceError) and
says in `description` what it is, so the CLI can tell the user which parser auto picked.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Protocol

import httpx
import pypdfium2 as pdfium

from motivgraph.choices import ParserName
from motivgraph.errors import ConfigError, ExternalServiceError, ParseError
from motivgraph.ingest.grobid import GrobidClient
from motivgraph.ingest.models import Paper
from motivgraph.ingest.tei import tei_to_paper
from motivgraph.ingest.workers import ProcessParserPool
from motivgraph.settings import IngestSettings

log = logging.getLogger(__name__)


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
    """Build the parser for `name` (default: settings.parser). GROBID is checked with isalive once."""
    name = name or settings.parser
    workers = workers or settings.concurrency
    if name == "pdf":
        return OfflineParser(settings, workers)
    if not settings.grobid_url:
        if name == "grobid":
            raise ConfigError("--parser grobid needs a GROBID server: set MOTIVGRAPH_INGEST_GROBID_URL")
        return OfflineParser(settings, workers, "GROBID not configured (MOTIVGRAPH_INGEST_GROBID_URL)")
    client = GrobidClient(settings, transport=transport)
    alive = await client.is_alive()
    if not alive:
        await client.aclose()
        if name == "grobid":
            raise ExternalServiceError(
                f"GROBID at {settings.grobid_url} is not alive (/api/isalive); start it or use --parser pdf"
            )
        return OfflineParser(settings, workers, f"GROBID at {settings.grobid_url} not reachable")
    grobid = GrobidParser(settings, client)
    if name == "grobid":
        return grobid
    return AutoParser(grobid, OfflineParser(settings, workers))
