"""Semantic Scholar client against hand-written responses in the Graph API's JSON shape."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from motivgraph.errors import ExternalServiceError, RateLimited
from motivgraph.ingest.models import Paper
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.ingest.sinks import SinkResult
from motivgraph.settings import IngestSettings, SemanticScholarSettings, Settings
from motivgraph.sources.semantic_scholar import SemanticScholarClient, client_from_settings
from tests.fixtures.ingest.pdfgen import write_paper

TITLE = "Sparse Information Extraction: Unsupervised Language Models to the Rescue"
PAPER = {
    "paperId": "0b5c0b3e8e5e7b1b0b7e4a1e9c2b5b2f1a9c3d4e",
    "title": TITLE,
    "abstract": "Even in a massive corpus such as the Web, a substantial fraction of extractions appear infrequently.",
    "year": 2007,
    "venue": "Annual Meeting of the Association for Computational Linguistics",
    "url": "https://www.semanticscholar.org/paper/0b5c0b3e8e5e7b1b0b7e4a1e9c2b5b2f1a9c3d4e",
    "authors": [{"authorId": "145612610", "name": "Doug Downey"}, {"authorId": "1741101", "name": "Oren Etzioni"}],
    "externalIds": {"ACL": "P07-1088", "DBLP": "conf/acl/DowneySE07", "MAG": "2117232483", "CorpusId": 1163925},
    "citationCount": 120,
}
MATCH_200 = {"data": [{**PAPER, "matchScore": 181.3}]}
SEARCH_200 = {"total": 2, "offset": 0, "next": 2, "data": [PAPER, {**PAPER, "paperId": "ff" * 20, "title": "Other"}]}


class Recorder:
    def __init__(self, responses: list[httpx.Response]) -> None:
        self.responses = responses
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.responses.pop(0) if self.responses else httpx.Response(500)


def _client(rec: Recorder, tmp_path: Path | None = None, **kw: object) -> tuple[SemanticScholarClient, list[float]]:
    sleeps: list[float] = []

    async def fake_sleep(s: float) -> None:
        sleeps.append(s)

    settings = SemanticScholarSettings(**{"enabled": True, **kw})  # type: ignore[arg-type]
    c = SemanticScholarClient(settings, tmp_path, transport=httpx.MockTransport(rec), sleep=fake_sleep)
    return c, sleeps


async def test_match_title_200_typed_result_and_api_key(tmp_path: Path) -> None:
    rec = Recorder([httpx.Response(200, json=MATCH_200)])
    c, _ = _client(rec, tmp_path, api_key=SecretStr("k-123"))
    async with c:
        hit = await c.match_title(TITLE)
    assert hit is not None and hit.year == 2007 and hit.author_names == ["Doug Downey", "Oren Etzioni"]
    assert hit.venue.startswith("Annual Meeting") and hit.doi is None and hit.paperId == PAPER["paperId"]
    req = rec.requests[0]
    assert req.url.path.endswith("/paper/search/match") and req.url.params["query"] == TITLE
    assert req.headers["x-api-key"] == "k-123"


async def test_disk_cache_answers_the_second_call(tmp_path: Path) -> None:
    rec = Recorder([httpx.Response(200, json=MATCH_200)])
    c, _ = _client(rec, tmp_path)
    async with c:
        await c.match_title(TITLE)
    c2, _ = _client(rec, tmp_path)
    async with c2:
        hit = await c2.match_title(TITLE)
    assert hit is not None and len(rec.requests) == 1


async def test_429_honours_retry_after(tmp_path: Path) -> None:
    rec = Recorder([httpx.Response(429, headers={"Retry-After": "7"}, json={"message": "Too Many Requests"}),
                    httpx.Response(200, json=SEARCH_200)])
    c, sleeps = _client(rec)
    async with c:
        res = await c.search("open information extraction", limit=5, year_from=2005, year_to=2010)
    assert [r.title for r in res] == [TITLE, "Other"]
    assert 7.0 in sleeps
    assert rec.requests[1].url.params["year"] == "2005-2010" and rec.requests[1].url.params["limit"] == "5"


async def test_5xx_retried_then_capped() -> None:
    rec = Recorder([httpx.Response(500), httpx.Response(502), httpx.Response(200, json=MATCH_200)])
    c, sleeps = _client(rec)
    async with c:
        assert await c.match_title(TITLE) is not None
    assert len(rec.requests) == 3
    rec = Recorder([httpx.Response(500)] * 10)
    c, sleeps = _client(rec, max_retries=2, requests_per_second=1000.0)
    async with c:
        with pytest.raises(ExternalServiceError, match="3 attempts"):
            await c.match_title(TITLE)
    assert len(rec.requests) == 3
    # exponential: each backoff at least as long as the one before (jitter is bounded)
    backoffs = [s for s in sleeps if s >= 0.5]
    assert backoffs == sorted(backoffs) and len(backoffs) == 2


async def test_503_is_an_error_not_an_empty_result() -> None:
    """An outage must not read as 'nothing found' (the `semanticscholar` package returns an empty page)."""
    rec = Recorder([httpx.Response(503)] * 5)
    c, _ = _client(rec, max_retries=1)
    async with c:
        with pytest.raises(ExternalServiceError, match="2 attempts"):
            await c.search("open information extraction")
    assert len(rec.requests) == 2


async def test_query_reserved_characters_reach_the_api_intact() -> None:
    """&, + and # in a title or query are encoded, not read as parameter separators or a fragment."""
    rec = Recorder([httpx.Response(200, json=SEARCH_200), httpx.Response(200, json=MATCH_200)])
    c, _ = _client(rec)
    async with c:
        await c.search("Q&A for C++ code #2", year_from=2020)
        await c.match_title("Q&A for C++ code #2: a study")
    assert [r.url.params["query"] for r in rec.requests] == ["Q&A for C++ code #2", "Q&A for C++ code #2: a study"]
    assert rec.requests[0].url.params["year"] == "2020-"


async def test_circuit_breaker_after_consecutive_429s() -> None:
    rec = Recorder([httpx.Response(429)] * 10)
    c, _ = _client(rec, breaker_threshold=3, max_retries=10)
    async with c:
        with pytest.raises(RateLimited, match="3 times in a row"):
            await c.match_title(TITLE)
        n = len(rec.requests)
        with pytest.raises(RateLimited, match="circuit breaker open"):
            await c.search("anything")
    assert n == 3 and len(rec.requests) == 3  # the open breaker sent nothing


async def test_no_match_and_wrong_match() -> None:
    rec = Recorder([httpx.Response(404, json={"error": "Title match not found"}),
                    httpx.Response(200, json={"data": [{**PAPER, "title": "A completely different paper"}]})])
    c, _ = _client(rec)
    async with c:
        assert await c.match_title("Some unknown title here") is None
        assert await c.match_title("Some unknown title here again") is None


async def test_rate_limit_spaces_requests() -> None:
    rec = Recorder([httpx.Response(200, json=SEARCH_200) for _ in range(3)])
    c, sleeps = _client(rec, requests_per_second=1.0)
    async with c:
        await asyncio.gather(*(c.search(f"q{i}") for i in range(3)))
    # three calls at 1 req/s: the second and third waited for their slot
    assert len([s for s in sleeps if s > 0.5]) == 2


async def test_ingest_is_not_blocked_when_s2_is_down(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    write_paper(tmp_path / "in" / "a.pdf")
    s = Settings(  # type: ignore[call-arg]
        data_dir=tmp_path / "data",
        ingest=IngestSettings(parser="pdf"),
        s2=SemanticScholarSettings(enabled=True, base_url="http://127.0.0.1:9", max_retries=0, timeout_s=1),
        _env_file=None,
    )
    got: list[Paper] = []

    class Sink:
        async def process(self, paper: Paper) -> SinkResult:
            got.append(paper)
            return SinkResult()

    summary = await ingest_async([tmp_path / "in"], s, sink=Sink(), concurrency=1)
    assert summary.ok == 1 and got[0].title.startswith("Mining Research Motivations")


async def test_ingest_fills_metadata_from_a_local_s2(tmp_path: Path) -> None:
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    title = "Mining Research Motivations from Scientific Papers"
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a: object) -> None:
            pass

        def do_GET(self) -> None:
            hits.append(self.path)
            body = json.dumps(
                {"data": [{**PAPER, "title": title, "year": 2024, "venue": "ACL",
                           "externalIds": {"DOI": "10.18653/v1/2024.acl-long.1", "ArXiv": "2401.00001"}}]}
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        (tmp_path / "in").mkdir()
        write_paper(tmp_path / "in" / "a.pdf", title=title)
        s = Settings(  # type: ignore[call-arg]
            data_dir=tmp_path / "data",
            ingest=IngestSettings(parser="pdf"),
            s2=SemanticScholarSettings(enabled=True, base_url=f"http://127.0.0.1:{srv.server_address[1]}"),
            _env_file=None,
        )
        got: list[Paper] = []

        class Sink:
            async def process(self, paper: Paper) -> SinkResult:
                got.append(paper)
                return SinkResult()

        await ingest_async([tmp_path / "in"], s, sink=Sink(), concurrency=1)
    finally:
        srv.shutdown()
        srv.server_close()
    p = got[0]
    assert hits and hits[0].startswith("/paper/search/match")
    assert (p.year, p.venue, p.doi, p.arxiv_id) == (2024, "ACL", "10.18653/v1/2024.acl-long.1", "2401.00001")
    assert p.paper_id.startswith("sha256:")  # the id does not depend on the API having answered


def test_client_from_settings_follows_the_enabled_switch(tmp_path: Path) -> None:
    on = Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]
    on.s2.enabled = True
    off = Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]
    off.s2.enabled = False
    assert isinstance(client_from_settings(on), SemanticScholarClient)
    assert client_from_settings(off) is None
