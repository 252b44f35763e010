"""GROBID client and pipeline against a local fake GROBID (real HTTP on 127.0.0.1) that serves
the real TEI files from ../shared/corpus/tei."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from motivgraph.errors import ConfigError, ExternalServiceError, ParseError
from motivgraph.ingest.grobid import GrobidClient
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.models import Paper
from motivgraph.ingest.parsers import AutoParser, GrobidParser, OfflineParser, make_parser
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.ingest.sinks import SinkResult
from motivgraph.settings import IngestSettings, Settings
from tests.fixtures.ingest.pdfgen import write_paper

TEI_DIR = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "tei"
TEI_FILES = {p.name.split(".grobid")[0].removesuffix(".tei.xml"): p for p in sorted(TEI_DIR.glob("*.xml"))}
pytestmark = pytest.mark.skipif(not TEI_FILES, reason=f"TEI corpus not found at {TEI_DIR}")
NAACL = "2021.naacl-main.224"


class FakeGrobid:
    """Speaks GROBID's HTTP API. `script` is consumed one action per fulltext request:
    'ok', '503', '500', 'slow' (sleeps past the client timeout); empty script means 'ok'.
    `die_after` stops the server after that many successful answers."""

    def __init__(self) -> None:
        self.script: list[str] = []
        self.requests: list[dict[str, str]] = []
        self.die_after: int | None = None
        self.served = 0
        self.in_flight = self.max_in_flight = 0
        self.delay_s = 0.0
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: object) -> None:
                pass

            def do_GET(self) -> None:
                if self.path == "/api/isalive":
                    self._send(200, b"true", "text/plain")
                else:
                    self._send(404, b"not found", "text/plain")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path != "/api/processFulltextDocument":
                    self._send(404, b"", "text/plain")
                    return
                text = body.decode("latin-1")
                fname = re.search(r'filename="([^"]+)"', text)
                consolidate = re.search(r'name="consolidateHeader"\r\n\r\n(\d)', text)
                fake.requests.append(
                    {
                        "file": fname.group(1) if fname else "",
                        "consolidateHeader": consolidate.group(1) if consolidate else "",
                    }
                )
                with fake._lock:
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    time.sleep(fake.delay_s)
                    self._answer(fname, fake)
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

            def _answer(self, fname: re.Match[str] | None, fake: FakeGrobid) -> None:
                action = fake.script.pop(0) if fake.script else "ok"
                if action == "503":
                    self._send(503, b"", "text/plain")
                elif action == "500":
                    self._send(500, b"[GENERAL] An exception occurred while running Grobid.", "text/plain")
                elif action == "slow":
                    time.sleep(1.5)
                    self._send(503, b"", "text/plain")
                else:
                    stem = Path(fname.group(1) if fname else "").stem
                    tei = TEI_FILES.get(stem, TEI_FILES[NAACL]).read_bytes()
                    self._send(200, tei, "application/xml")
                    fake.served += 1
                    if fake.die_after is not None and fake.served >= fake.die_after:
                        threading.Thread(target=fake.stop, daemon=True).start()

            def _send(self, code: int, data: bytes, ctype: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self._stopped = False

    def stop(self) -> None:
        if not self._stopped:
            self._stopped = True
            self.server.shutdown()
            self.server.server_close()


@pytest.fixture
def grobid() -> Iterator[FakeGrobid]:
    g = FakeGrobid()
    try:
        yield g
    finally:
        g.stop()


def _settings(url: str | None, **kw: object) -> IngestSettings:
    # A generous timeout: on a loaded CI box a 0.5 s one expired mid-answer, the client retried and
    # request counts drifted. Only the timeout test sets a short one, against a deliberately slow answer.
    base: dict[str, object] = {"grobid_url": url, "grobid_timeout_s": 30.0, "grobid_max_retries": 2}
    base.update(kw)
    return IngestSettings(**base)  # type: ignore[arg-type]


async def test_isalive_and_fulltext_success(grobid: FakeGrobid) -> None:
    async with GrobidClient(_settings(grobid.url), backoff_base_s=0.01) as c:
        assert await c.is_alive()
        tei = await c.process_fulltext(b"%PDF-1.4 fake", f"{NAACL}.pdf")
    assert "Incorporating External Knowledge" in tei
    assert grobid.requests == [{"file": f"{NAACL}.pdf", "consolidateHeader": "0"}]


async def test_503_is_retried_with_backoff_then_succeeds(grobid: FakeGrobid) -> None:
    grobid.script = ["503", "503", "ok"]
    async with GrobidClient(_settings(grobid.url), backoff_base_s=0.01) as c:
        tei = await c.process_fulltext(b"x", f"{NAACL}.pdf")
    assert "<TEI" in tei and len(grobid.requests) == 3


async def test_503_beyond_retry_cap_is_an_external_error(grobid: FakeGrobid) -> None:
    grobid.script = ["503"] * 5
    async with GrobidClient(_settings(grobid.url, grobid_max_retries=1), backoff_base_s=0.01) as c:
        with pytest.raises(ExternalServiceError, match="2 attempts"):
            await c.process_fulltext(b"x", "a.pdf")
    assert len(grobid.requests) == 2


async def test_500_is_a_parse_error_not_retried(grobid: FakeGrobid) -> None:
    grobid.script = ["500"]
    async with GrobidClient(_settings(grobid.url), backoff_base_s=0.01) as c:
        with pytest.raises(ParseError, match="HTTP 500"):
            await c.process_fulltext(b"x", "a.pdf")
    assert len(grobid.requests) == 1


async def test_timeout_is_retried_then_reported(grobid: FakeGrobid) -> None:
    grobid.script = ["slow", "slow"]
    settings = _settings(grobid.url, grobid_timeout_s=0.3, grobid_max_retries=1)
    async with GrobidClient(settings, backoff_base_s=0.01) as c:
        with pytest.raises(ExternalServiceError, match="timed out"):
            await c.process_fulltext(b"x", "a.pdf")


async def test_unreachable_server_is_transient_not_a_parse_error() -> None:
    """A refused connection is 'GROBID is down' (retried, then ExternalServiceError: the batch pauses),
    never a verdict on the PDF (kermitt2's client reports it as status 400 'Failed to open file')."""
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with GrobidClient(_settings(f"http://127.0.0.1:{port}", grobid_max_retries=1), backoff_base_s=0.01) as c:
        with pytest.raises(ExternalServiceError, match=r"2 attempts .*connection failed") as err:
            await c.process_fulltext(b"x", "a.pdf")
    assert not isinstance(err.value, ParseError)


async def test_consolidate_header_setting_is_sent(grobid: FakeGrobid) -> None:
    async with GrobidClient(_settings(grobid.url, grobid_consolidate_header=True)) as c:
        await c.process_fulltext(b"x", f"{NAACL}.pdf")
    assert grobid.requests[0]["consolidateHeader"] == "1"


async def test_concurrency_is_bounded(grobid: FakeGrobid) -> None:
    grobid.delay_s = 0.1
    async with GrobidClient(_settings(grobid.url, grobid_concurrency=2, grobid_timeout_s=5)) as c:
        await asyncio.gather(*(c.process_fulltext(b"x", f"{NAACL}.pdf") for _ in range(6)))
    assert len(grobid.requests) == 6 and 1 <= grobid.max_in_flight <= 2


async def test_parser_choice(grobid: FakeGrobid) -> None:
    p = await make_parser(_settings(grobid.url), "auto", workers=1)
    assert isinstance(p, AutoParser) and grobid.url in p.description
    await p.aclose()
    p = await make_parser(_settings(None), "auto", workers=1)
    assert isinstance(p, OfflineParser) and "not configured" in p.description
    await p.aclose()
    p = await make_parser(_settings("http://127.0.0.1:9"), "auto", workers=1)
    assert isinstance(p, OfflineParser) and "not reachable" in p.description
    await p.aclose()
    with pytest.raises(ConfigError, match="MOTIVGRAPH_INGEST_GROBID_URL"):
        await make_parser(_settings(None), "grobid")
    with pytest.raises(ExternalServiceError, match="not alive"):
        await make_parser(_settings("http://127.0.0.1:9"), "grobid")
    p = await make_parser(_settings(grobid.url), "grobid")
    assert isinstance(p, GrobidParser)
    await p.aclose()


class RecordingSink:
    def __init__(self) -> None:
        self.papers: list[Paper] = []

    async def process(self, paper: Paper) -> SinkResult:
        self.papers.append(paper)
        return SinkResult(status="stored", counts={"papers": 1})


def _corpus(tmp_path: Path, n: int) -> list[Path]:
    """n real (generated) PDFs named after TEI files, so the fake answers with that TEI."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    names = list(TEI_FILES)[:n]
    return [write_paper(tmp_path / f"{name}.pdf", title=f"Generated paper {i}") for i, name in enumerate(names)]


async def test_server_dies_mid_batch_grobid_only(grobid: FakeGrobid, tmp_path: Path) -> None:
    """GROBID down is a transient failure (issue 12 #1): the batch pauses and retries, then stops cleanly
    with nothing marked failed; the same command finishes the job once GROBID is back."""
    from motivgraph.errors import IngestInterrupted

    files = _corpus(tmp_path / "in", 4)
    grobid.die_after = 2
    s = Settings(data_dir=tmp_path / "data", ingest=_settings(grobid.url, grobid_max_retries=1), _env_file=None)  # type: ignore[call-arg]
    s.ingest.transient_max_consecutive = 2
    s.ingest.transient_backoff_s = 0.01
    sink = RecordingSink()
    with pytest.raises(IngestInterrupted, match="re-run the same command"):
        await ingest_async([tmp_path / "in"], s, sink=sink, parser="grobid", concurrency=1)
    led = Ledger.for_data_dir(s.data_dir)
    assert led.counts()["stored"] == 2 and led.counts()["failed"] == 0
    led.close()
    assert all(p.parser == "grobid" for p in sink.papers)
    # GROBID back: the same command finishes the batch; the two stored ones are not redone
    g2 = FakeGrobid()
    try:
        s.ingest.grobid_url = g2.url
        summary = await ingest_async([tmp_path / "in"], s, sink=sink, parser="grobid")
        assert summary.ok == 2 and summary.already_done == 2 and len(g2.requests) == 2
    finally:
        g2.stop()
    assert len(files) == len({p.sha256 for p in sink.papers}) == 4


async def test_server_dies_mid_batch_auto_falls_back_offline(grobid: FakeGrobid, tmp_path: Path) -> None:
    _corpus(tmp_path / "in", 4)
    grobid.die_after = 1
    s = Settings(data_dir=tmp_path / "data", ingest=_settings(grobid.url, grobid_max_retries=0), _env_file=None)  # type: ignore[call-arg]
    sink = RecordingSink()
    summary = await ingest_async([tmp_path / "in"], s, sink=sink, parser="auto", concurrency=1)
    assert summary.ok == 4 and summary.failed == 0
    assert sorted(p.parser for p in sink.papers) == ["grobid", "pdf", "pdf", "pdf"]
