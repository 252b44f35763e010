"""arXiv client against recorded Atom feeds (tests/fixtures/sources/arxiv_*.xml): entries mapped (id and
version, DOI, journal ref, authors, year), the query it builds, one request per 3 s, an error feed and an
unreadable or DOCTYPE-carrying answer as source failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from motivgraph.errors import ExternalServiceError, RateLimited
from motivgraph.settings import ArxivSettings, Settings
from motivgraph.sources.arxiv import ArxivClient, client_from_settings, search_query
from tests.fixtures.sources.replay import FakeTime, Replay, recorded

FEED = (200, recorded("arxiv_query.xml"), {"Content-Type": "application/atom+xml; charset=utf-8"})


def _client(replay: Replay, tmp_path: Path | None = None, **kw: Any) -> tuple[ArxivClient, FakeTime]:
    t = FakeTime()
    settings = ArxivSettings(**{"enabled": True, **kw})
    return ArxivClient(settings, tmp_path, replay.transport, sleep=t.sleep, clock=t.clock), t


async def test_recorded_feed_is_mapped() -> None:
    replay = Replay(FEED)
    c, _ = _client(replay)
    async with c:
        papers = await c.search("speculative decoding", limit=2)
    spec, review = papers
    assert spec.source == "arxiv" and spec.title == "Fast Inference from Transformers via Speculative Decoding"
    assert (spec.arxiv_id, spec.paper_id, spec.year) == ("2211.17192", "2211.17192v2", 2022)
    assert spec.abstract.startswith("Sampling from large autoregressive models is slow: a small draft model proposes")
    assert spec.authors == ["Yaniv Leviathan", "Matan Kalman", "Yossi Matias"]
    assert spec.doi is None and spec.venue is None and spec.url == "http://arxiv.org/abs/2211.17192v2"
    assert (review.arxiv_id, review.paper_id) == ("cond-mat/0106096", "cond-mat/0106096v1")  # old-style id
    assert review.doi == "10.1103/revmodphys.74.47" and review.venue == "Reviews of Modern Physics 74, 47 (2002)"
    assert review.year == 2001
    params = replay.requests[0].url.params
    assert replay.requests[0].url.path == "/api/query"
    assert params["search_query"] == "all:speculative AND all:decoding" and params["max_results"] == "2"
    assert params["sortBy"] == "relevance"


async def test_the_feed_as_served_since_2025_reads_the_same() -> None:
    replay = Replay((200, recorded("arxiv_query_https.xml"), {}))
    c, _ = _client(replay)
    async with c:
        (p,) = await c.search("speculative decoding", limit=1)
    assert (p.arxiv_id, p.paper_id, p.year) == ("2211.17192", "2211.17192v2", 2022)
    assert p.url == "https://arxiv.org/abs/2211.17192v2" and len(p.authors) == 3


def test_query_words_are_terms_never_operators_and_years_are_submission_dates() -> None:
    assert search_query("Graph neural networks for molecules") == "all:graph AND all:neural AND all:networks AND " \
        "all:molecules"
    assert search_query("cats AND dogs OR (mice)") == "all:cats AND all:dogs AND all:mice"
    assert search_query("multi-agent planning") == 'all:"multi-agent" AND all:planning'
    assert search_query("routing", 2016, 2020) == "all:routing AND submittedDate:[201601010000 TO 202012312359]"
    assert search_query("routing", year_from=2016).endswith("[201601010000 TO 299912312359]")
    assert search_query("the of") == "all:the AND all:of"  # only stop words: keep them rather than send nothing


async def test_no_words_no_request() -> None:
    replay = Replay(FEED)
    c, _ = _client(replay)
    async with c:
        assert await c.search("?! ...", year_from=2020) == []
    assert replay.requests == []


async def test_one_request_per_three_seconds() -> None:
    replay = Replay(FEED)
    c, t = _client(replay)  # default rate: 1/3 per second
    async with c:
        await c.search("speculative decoding")
        await c.search("graph networks")
        await c.search("protein folding")
    assert len(replay.requests) == 3
    assert t.sleeps == [pytest.approx(3.0), pytest.approx(3.0)]


async def test_error_feed_is_a_failure_naming_arxivs_message() -> None:
    replay = Replay((200, recorded("arxiv_error.xml"), {}))
    c, _ = _client(replay)
    async with c:
        with pytest.raises(ExternalServiceError, match="max_results must be non-negative"):
            await c.search("speculative decoding")


@pytest.mark.parametrize("body", [
    b"<feed xmlns='http://www.w3.org/2005/Atom'><entry>",  # cut off
    b'{"not": "xml"}',
    b"<html><body>Rate exceeded.</body></html>",  # XML, not an Atom feed
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
    b"<feed xmlns='http://www.w3.org/2005/Atom'><title>&lol2;</title></feed>",
])
async def test_unreadable_or_doctype_answer_is_a_source_failure(body: bytes) -> None:
    replay = Replay((200, body, {}))
    c, _ = _client(replay, requests_per_second=1000.0)
    async with c:
        with pytest.raises(ExternalServiceError, match="could not read"):
            await c.search("speculative decoding")
    assert len(replay.requests) == 1


async def test_503_with_retry_after_then_answers_and_429_breaker() -> None:
    replay = Replay((503, b"busy", {"Retry-After": "4"}), FEED)
    c, t = _client(replay)
    async with c:
        assert await c.search("speculative decoding")
    assert 4.0 in t.sleeps
    replay = Replay((429, b"", {}))
    c, _ = _client(replay, max_retries=5, breaker_threshold=2, requests_per_second=1000.0)
    async with c:
        with pytest.raises(RateLimited, match="429 2 times in a row"):
            await c.search("speculative decoding")
    assert len(replay.requests) == 2


def test_client_from_settings_follows_the_enabled_switch(tmp_path: Path) -> None:
    s = Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]
    assert client_from_settings(s) is None
    s.arxiv.enabled = True
    c = client_from_settings(s)
    assert isinstance(c, ArxivClient) and c.settings.requests_per_second == pytest.approx(1 / 3)


async def test_transport_error_is_reported() -> None:
    replay = Replay(httpx.ConnectError("connection refused"))
    c, _ = _client(replay, max_retries=0)
    async with c:
        with pytest.raises(ExternalServiceError, match="connection refused"):
            await c.search("speculative decoding")
