"""A small async GROBID client (httpx) for `processFulltextDocument`.

- `is_alive()` checks `/api/isalive` (the pipeline calls it once at start);
- header consolidation is off by default (it calls out to CrossRef and is slow in bulk);
- 503 means "all GROBID workers busy": back off exponentially and retry, up to a cap;
- timeouts and dropped connections are retried the same way, then reported as
  ExternalServiceError (the server is down; a transient failure for the pipeline);
  500 means GROBID failed on this PDF: ParseError;
- the retry loop, backoff and classifier are the outbound toolkit's (motivgraph/outbound.py);
- concurrency is bounded by a semaphore sized from settings.

Why not kermitt2's `grobid-client-python` (0.2.1, Apache-2.0; issue #30 item 15): measured against the
tests' fake GROBID (real HTTP on 127.0.0.1), it does not serve this pipeline. It is synchronous (requests in
a thread pool), so each call would hold a worker thread of our event loop. Its 503 handling is a fixed
`sleep_time` (default 5 s) and a recursive retry with no cap: a server busy for 8 answers got 9 requests
from it (5 and then ExternalServiceError from ours, the batch pausing as for any transient fault); one busy
for good got 488 requests (at sleep_time=0; 40 minutes at its default), then Python's recursion limit,
reported as HTTP 500. It reports a refused connection and a read timeout as status 400 "Failed to open file"
(requests' errors are IOErrors) and never retries a timeout, so "server down", "this PDF is bad" (500) and
"bad input" cannot be told apart, which our ParseError / ExternalServiceError split needs. Six PDFs with
four injected 503s and concurrency 2: both 10 requests, all parsed; 2.2 s here vs 10.2 s there at its
default sleep (2.1 s at sleep_time=1). Its constructor also installs its own log handler (propagation off),
and it brings lxml, beautifulsoup4 and dateparser for features we do not use. Its engine-count preflight is
the one thing we lack: match `MOTIVGRAPH_INGEST_GROBID_CONCURRENCY` to the server's `concurrency` in
grobid.yaml by hand.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import httpx

from motivgraph.errors import ExternalServiceError, ParseError, RetriesExhausted, RetryableStatus
from motivgraph.outbound import Backoff, call_with_retries, describe, is_retryable_http
from motivgraph.settings import IngestSettings

log = logging.getLogger(__name__)


class GrobidClient:
    def __init__(
        self,
        settings: IngestSettings,
        *,
        url: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 20.0,
    ) -> None:
        base = url or settings.grobid_url
        if not base:
            raise ExternalServiceError("no GROBID URL configured (set MOTIVGRAPH_INGEST_GROBID_URL)")
        self.base_url = base.rstrip("/")
        self.settings = settings
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self._sem = asyncio.Semaphore(settings.grobid_concurrency)
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(settings.grobid_timeout_s, connect=min(10.0, settings.grobid_timeout_s)),
            transport=transport,
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> GrobidClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def is_alive(self) -> bool:
        try:
            r = await self._client.get("/api/isalive", timeout=5.0)
        except httpx.HTTPError as e:
            log.info("GROBID at %s not reachable: %s", self.base_url, e)
            return False
        return r.status_code == 200 and r.text.strip().lower() in ("true", "")

    async def process_fulltext(self, pdf: bytes | Path, filename: str = "paper.pdf") -> str:
        """TEI XML of one PDF. Raises ParseError (GROBID could not parse it) or ExternalServiceError
        (server busy/down after retries)."""
        data = pdf.read_bytes() if isinstance(pdf, Path) else pdf
        form = {
            "consolidateHeader": "1" if self.settings.grobid_consolidate_header else "0",
            "consolidateCitations": "0",
            "includeRawCitations": "1",  # each entry as printed (Reference.raw), as the offline parser keeps it
        }
        # GROBID's 503 means "all workers busy" (retry); its 500 means "cannot parse this PDF" (do not)
        backoff = Backoff(retries=self.settings.grobid_max_retries, base_s=self.backoff_base_s,
                          max_s=self.backoff_max_s, jitter=0.5)

        async def attempt() -> str:
            r = await self._client.post(
                "/api/processFulltextDocument", files={"input": (filename, data, "application/pdf")}, data=form
            )
            if r.status_code == 200:
                return r.text
            if r.status_code == 204:
                raise ParseError("GROBID extracted no content from this PDF (HTTP 204)")
            if r.status_code in (400, 500):
                detail = " ".join(r.text.split())[:200]
                raise ParseError(f"GROBID could not process this PDF (HTTP {r.status_code}): {detail}")
            if r.status_code == 503:
                raise RetryableStatus(r, "503 service busy")
            raise ExternalServiceError(f"GROBID at {self.base_url} answered HTTP {r.status_code}")

        def on_retry(n: int, e: BaseException, wait: float) -> None:
            log.info("GROBID %s (attempt %d); retrying in %.1fs", _what(e, self.settings.grobid_timeout_s), n, wait)

        async with self._sem:
            try:
                return await call_with_retries(attempt, backoff, retry_if=is_retryable_http, on_retry=on_retry)
            except RetriesExhausted as e:
                raise ExternalServiceError(
                    f"GROBID at {self.base_url} failed after {e.attempts} attempts "
                    f"({_what(e.last, self.settings.grobid_timeout_s)})"
                ) from e.last


def _what(e: BaseException, timeout_s: float) -> str:
    if isinstance(e, httpx.TimeoutException):
        return f"timed out after {timeout_s:g}s"
    if isinstance(e, httpx.TransportError):
        return f"connection failed: {e}"
    return describe(e) if not isinstance(e, RetryableStatus) else str(e)
