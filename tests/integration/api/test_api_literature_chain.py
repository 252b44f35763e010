"""POST /tools/literature_search over the source chain: Semantic Scholar, OpenAlex and arXiv in the configured
order, each replaying its recorded answers (tests/fixtures/sources/), then the local corpus. A source that
throttles past its retries (Retry-After honoured), is down, times out, answers something unreadable or sits
behind its open breaker is passed over with the reason recorded; every paper names its source."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from motivgraph.settings import Settings
from tests.fixtures.sources.replay import FakeTime, Replay, openalex_works, recorded
from tests.integration.api.conftest import asgi_client

pytestmark = pytest.mark.asyncio

ATOM = (200, recorded("arxiv_query.xml"), {"Content-Type": "application/atom+xml"})
WORKS = (200, openalex_works(), {})
S2_429 = (429, {"message": "Too Many Requests"}, {"Retry-After": "5"})


def _settings(api_settings: Settings, order: str = "semantic_scholar,openalex,arxiv", **on: bool) -> Settings:
    s = api_settings.model_copy(deep=True)
    s.literature = type(s.literature)(sources=order)
    for key in ("s2", "openalex", "arxiv"):
        section = getattr(s, key)
        section.enabled = on.get(key, False)
        section.max_retries = 2
        section.requests_per_second = 1000.0
    return s


def _client(settings: Settings, section: str, transport: httpx.AsyncBaseTransport, t: FakeTime) -> tuple[str, Any]:
    """(source key, a client of that source on `transport`, sleeping and timing on the fake clock; no cache)."""
    from motivgraph.sources.arxiv import ArxivClient
    from motivgraph.sources.openalex import OpenAlexClient
    from motivgraph.sources.semantic_scholar import SemanticScholarClient

    if section == "s2":  # its constructor predates the injectable clock
        return "semantic_scholar", SemanticScholarClient(settings.s2, None, transport, sleep=t.sleep)
    cls = {"openalex": OpenAlexClient, "arxiv": ArxivClient}[section]
    return section, cls(getattr(settings, section), None, transport, sleep=t.sleep, clock=t.clock)


def _service(settings: Settings, tmp_path: Any, t: FakeTime,
             transports: dict[str, httpx.AsyncBaseTransport] | None = None, **replays: Replay) -> Any:
    """The tool service with each given source's client replaying its script (or answering through the given
    transport)."""
    from motivgraph.api.services import ToolService

    answering = {section: replay.transport for section, replay in replays.items()} | (transports or {})
    return ToolService(settings, source_clients=dict(_client(settings, section, transport, t)
                                                     for section, transport in answering.items()))


async def _search(svc: Any, **body: Any) -> httpx.Response:
    from motivgraph.api.app import create_app

    async with asgi_client(create_app(svc)) as c:
        return await c.post("/tools/literature_search", json=body)


async def test_s2_throttled_past_its_retries_openalex_answers(api_settings, tmp_path):
    t = FakeTime()
    s2, oa = Replay(S2_429), Replay(WORKS)
    settings = _settings(api_settings, s2=True, openalex=True, arxiv=True)
    settings.s2.breaker_threshold = 10  # throttled past its retries before its breaker would open
    svc = _service(settings, tmp_path, t, s2=s2, openalex=oa, arxiv=Replay(ATOM))
    r = await _search(svc, query="speculative decoding", limit=3)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["source"] == "openalex"
    assert [p["source"] for p in body["papers"]] == ["openalex"] * 3
    assert len(s2.requests) == 3 and t.sleeps.count(5.0) == 2  # 1 + 2 retries, each waiting what Retry-After asked
    assert [k["source"] for k in body["skipped"]] == ["semantic_scholar"]
    assert body["fallback_reason"].startswith("Semantic Scholar still rate-limiting after 2 retries")
    assert body["papers"][0]["doi"] == "10.48550/arxiv.2211.17192" and body["papers"][0]["citation_count"] == 412


async def test_order_comes_from_settings_and_each_result_names_its_source(api_settings, tmp_path):
    t = FakeTime()
    oa, ax = Replay(WORKS), Replay(ATOM)
    svc = _service(_settings(api_settings, "arxiv,openalex", openalex=True, arxiv=True), tmp_path, t,
                   openalex=oa, arxiv=ax)
    body = (await _search(svc, query="speculative decoding", limit=2)).json()
    assert body["source"] == "arxiv" and {p["source"] for p in body["papers"]} == {"arxiv"}
    assert body["papers"][0]["paper_id"] == "2211.17192v2" and body["papers"][0]["arxiv_id"] == "2211.17192"
    assert body["skipped"] == [] and body["fallback_reason"] is None
    assert oa.requests == []  # arXiv answered first; OpenAlex was never asked


async def test_openalex_down_5xx_then_arxiv(api_settings, tmp_path):
    t = FakeTime()
    oa = Replay((503, {"error": "Service Unavailable"}, {}))
    svc = _service(_settings(api_settings, openalex=True, arxiv=True), tmp_path, t, openalex=oa, arxiv=Replay(ATOM))
    body = (await _search(svc, query="speculative decoding")).json()
    assert body["source"] == "arxiv"
    assert len(oa.requests) == 3
    reasons = {k["source"]: k["reason"] for k in body["skipped"]}
    assert set(reasons) == {"semantic_scholar", "openalex"}
    assert "disabled" in reasons["semantic_scholar"] and "HTTP 503" in reasons["openalex"]


async def test_timeouts_and_unreadable_answers_fall_through_to_local(api_settings, tmp_path):
    t = FakeTime()
    oa = Replay(httpx.ReadTimeout("read timed out"))
    ax = Replay((200, b"<html><body>Bad gateway</body></html>", {"Content-Type": "text/html"}))
    svc = _service(_settings(api_settings, openalex=True, arxiv=True), tmp_path, t, openalex=oa, arxiv=ax)
    r = await _search(svc, query="model quantization for LLMs", limit=3)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["source"] == "local" and body["papers"][0]["paper_id"] == "doi:10.1000/llmq"
    assert {p["source"] for p in body["papers"]} == {"local"}
    reasons = {k["source"]: k["reason"] for k in body["skipped"]}
    assert "ReadTimeout" in reasons["openalex"] and "could not read" in reasons["arxiv"]
    assert len(oa.requests) == 3 and len(ax.requests) == 1


async def test_a_hanging_source_is_cut_at_its_timeout(api_settings, tmp_path):
    async def hang(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(30)
        return httpx.Response(200, json=openalex_works())

    settings = _settings(api_settings, openalex=True, arxiv=True)
    settings.openalex.timeout_s = 1.0
    t = FakeTime()
    svc = _service(settings, tmp_path, t, {"openalex": httpx.MockTransport(hang)}, arxiv=Replay(ATOM))
    body = (await _search(svc, query="speculative decoding")).json()
    assert body["source"] == "arxiv"
    assert "OpenAlex did not answer within 1s (MOTIVGRAPH_OPENALEX_TIMEOUT_S)" in body["fallback_reason"]


async def test_breaker_open_skips_the_source_without_a_request(api_settings, tmp_path):
    t = FakeTime()
    oa = Replay((500, {}, {}))
    settings = _settings(api_settings, openalex=True, arxiv=True)
    settings.openalex.breaker_threshold = 3
    settings.openalex.max_retries = 5
    svc = _service(settings, tmp_path, t, openalex=oa, arxiv=Replay(ATOM))
    first = (await _search(svc, query="speculative decoding")).json()
    assert first["source"] == "arxiv" and "failed 3 times in a row" in first["fallback_reason"]
    assert len(oa.requests) == 3
    second = (await _search(svc, query="graph networks")).json()
    assert second["source"] == "arxiv" and "circuit breaker open" in second["fallback_reason"]
    assert len(oa.requests) == 3  # open: OpenAlex not called at all


async def test_results_in_the_graph_are_marked(api_settings, tmp_path):
    works = openalex_works()
    works["results"][2]["doi"] = "https://doi.org/10.1000/LLMQ"  # a paper of the test graph
    svc = _service(_settings(api_settings, openalex=True), tmp_path, FakeTime(), openalex=Replay((200, works, {})))
    papers = (await _search(svc, query="deep learning")).json()["papers"]
    assert [p["in_graph"] for p in papers] == [False, False, True]


async def test_one_source_alone(api_settings, tmp_path):
    t = FakeTime()
    svc = _service(_settings(api_settings, openalex=True, arxiv=True), tmp_path, t,
                   openalex=Replay(httpx.ConnectError("connection refused")), arxiv=Replay(ATOM))
    r = await _search(svc, query="speculative decoding", source="openalex")
    assert r.status_code == 503 and r.json()["error"] == "external_service" and "OpenAlex" in r.json()["message"]
    r = await _search(svc, query="speculative decoding", source="arxiv")
    assert r.status_code == 200 and r.json()["source"] == "arxiv"
    r = await _search(svc, query="speculative decoding", source="openalex", limit=1, year_from=2030)
    assert r.status_code == 503  # still down (the filter changes nothing about that)


async def test_offline_default_all_disabled_one_compact_reason(client):
    body = (await (client.post("/tools/literature_search", json={"query": "routing"}))).json()
    assert body["source"] == "local"
    assert body["fallback_reason"] == ("Semantic Scholar, OpenAlex and arXiv are disabled (set MOTIVGRAPH_S2_ENABLED, "
                                       "MOTIVGRAPH_OPENALEX_ENABLED or MOTIVGRAPH_ARXIV_ENABLED=true to use them)")
    assert [k["source"] for k in body["skipped"]] == ["semantic_scholar", "openalex", "arxiv"]
    assert {p["source"] for p in body["papers"]} == {"local"}


@contextmanager
def _loopback(routes: dict[str, tuple[int, bytes, str]]) -> Iterator[tuple[str, list[str]]]:
    """A real HTTP server on 127.0.0.1 answering each path prefix with a recorded body."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a: object) -> None:
            pass

        def do_GET(self) -> None:
            hits.append(self.path)
            status, body, ctype = next(v for k, v in routes.items() if self.path.startswith(k))
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}", hits
    finally:
        srv.shutdown()
        srv.server_close()


async def test_clients_made_from_settings_over_real_http(api_settings, tmp_path):
    """No injected clients: the chain builds each from settings and talks HTTP to a loopback server."""
    from motivgraph.api.services import ToolService

    routes = {"/oa/works": (500, b'{"error": "Internal Server Error"}', "application/json"),
              "/ax/query": (200, recorded("arxiv_query.xml"), "application/atom+xml")}
    with _loopback(routes) as (base, hits):
        settings = _settings(api_settings, "openalex,arxiv", openalex=True, arxiv=True)
        settings.data_dir = tmp_path / "data"
        settings.openalex.base_url, settings.arxiv.base_url = f"{base}/oa", f"{base}/ax"
        settings.openalex.max_retries = 0
        settings.openalex.mailto = "me@example.org"
        svc = ToolService(settings)
        body = (await _search(svc, query="speculative decoding", limit=2)).json()
    assert body["source"] == "arxiv" and body["papers"][1]["doi"] == "10.1103/revmodphys.74.47"
    assert "OpenAlex failed" in body["fallback_reason"] and "HTTP 500" in body["fallback_reason"]
    assert hits[0].startswith("/oa/works?") and "mailto=me%40example.org" in hits[0]
    assert hits[1].startswith("/ax/query?") and "search_query=all%3Aspeculative+AND+all%3Adecoding" in hits[1]
    assert json.loads(json.dumps(body))["papers"][0]["source"] == "arxiv"


async def test_s2_answering_html_is_skipped_not_a_500(api_settings, tmp_path):
    """A proxy's error page with status 200 is a failure of that source (its JSON decode error used to escape)."""
    s2 = Replay((200, b"<html><body>Gateway error</body></html>", {"Content-Type": "text/html"}))
    svc = _service(_settings(api_settings, s2=True, openalex=True), tmp_path, FakeTime(), s2=s2,
                   openalex=Replay(WORKS))
    r = await _search(svc, query="speculative decoding")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["source"] == "openalex" and "Semantic Scholar answered with something it could not read" in \
        body["fallback_reason"]


async def test_s2_answering_first_names_itself_and_counts_citations(api_settings, tmp_path):
    s2_body = {"total": 1, "offset": 0, "data": [{
        "paperId": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", "externalIds": {"ArXiv": "2211.17192"},
        "title": "Fast Inference from Transformers via Speculative Decoding", "abstract": "Draft and verify.",
        "venue": "International Conference on Machine Learning", "year": 2023, "citationCount": 412,
        "authors": [{"authorId": "1", "name": "Yaniv Leviathan"}]}]}
    oa = Replay(WORKS)
    svc = _service(_settings(api_settings, s2=True, openalex=True), tmp_path, FakeTime(), s2=Replay((200, s2_body, {})),
                   openalex=oa)
    body = (await _search(svc, query="speculative decoding")).json()
    assert body["source"] == "semantic_scholar" and oa.requests == []
    (p,) = body["papers"]
    assert p["source"] == "semantic_scholar" and p["citation_count"] == 412 and p["arxiv_id"] == "2211.17192"


async def test_clients_made_from_settings_are_closed_with_the_service(api_settings, tmp_path):
    from motivgraph.api.services import ToolService
    from motivgraph.api.services.literature import SOURCES

    settings = _settings(api_settings, openalex=True, arxiv=True)
    svc = ToolService(settings)
    made = [svc.ctx.source_client(k, SOURCES[k].make) for k in ("openalex", "arxiv")]
    assert svc.ctx.source_client("openalex", SOURCES["openalex"].make) is made[0]  # one per loop, reused
    await svc.ctx.aclose_sources()
    assert all(c._client.is_closed for c in made)
    assert svc.ctx.source_client("openalex", SOURCES["openalex"].make) is not made[0]  # a fresh one after closing
