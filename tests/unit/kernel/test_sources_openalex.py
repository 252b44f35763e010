"""OpenAlex client against the recorded /works answer (tests/fixtures/sources/openalex_works.json): the Work
object mapped (abstract rebuilt from its inverted index, DOI and arXiv id, authors, venue, citations), the
request it sends, and the shared source behaviour — Retry-After honoured, 5xx and timeouts retried then
capped, the breaker opening and half-opening, an unreadable answer a failure that is not cached."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from motivgraph.errors import ExternalServiceError, RateLimited
from motivgraph.settings import OpenAlexSettings, Settings
from motivgraph.sources.openalex import OpenAlexClient, abstract_text, client_from_settings
from tests.fixtures.sources.replay import FakeTime, Replay, openalex_works

OK = (200, openalex_works(), {})


def _client(replay: Replay, tmp_path: Path | None = None, **kw: Any) -> tuple[OpenAlexClient, FakeTime]:
    t = FakeTime()
    settings = OpenAlexSettings(**{"enabled": True, "requests_per_second": 1000.0, **kw})
    return OpenAlexClient(settings, tmp_path, replay.transport, sleep=t.sleep, clock=t.clock), t


async def test_recorded_works_are_mapped(tmp_path: Path) -> None:
    replay = Replay(OK)
    c, _ = _client(replay, tmp_path, mailto="me@example.org")
    async with c:
        papers = await c.search("speculative  decoding", limit=4, year_from=2015, year_to=2024)
    assert len(papers) == 3  # the untitled work is dropped
    spec, bert, dl = papers
    assert spec.source == "openalex" and spec.paper_id == "W4310632451"
    assert spec.abstract == ("Sampling from large autoregressive models is slow: a small draft model proposes "
                             "tokens and a target model verifies them in parallel.")
    assert spec.doi == "10.48550/arxiv.2211.17192" and spec.arxiv_id == "2211.17192"  # arXiv's own DOI
    assert spec.authors == ["Yaniv Leviathan", "Matan Kalman", "Yossi Matias"] and spec.citation_count == 412
    assert bert.doi == "10.18653/v1/n19-1423" and bert.arxiv_id == "1810.04805"  # from its arXiv location
    assert bert.year == 2019 and bert.venue.startswith("Proceedings of the 2019 Conference")
    assert dl.abstract == "" and dl.arxiv_id is None and dl.venue == "Nature"
    assert dl.url == "https://doi.org/10.1038/nature14539"
    params = replay.requests[0].url.params
    assert replay.requests[0].url.path == "/works"
    assert params["search"] == "speculative decoding" and params["per-page"] == "4"
    assert params["filter"] == "from_publication_date:2015-01-01,to_publication_date:2024-12-31"
    assert params["mailto"] == "me@example.org"
    assert "abstract_inverted_index" in params["select"].split(",")


async def test_no_mailto_no_filter_and_reserved_characters_intact() -> None:
    replay = Replay(OK)
    c, _ = _client(replay)
    async with c:
        await c.search("Q&A for C++ code #2")
    params = replay.requests[0].url.params
    assert params["search"] == "Q&A for C++ code #2" and "mailto" not in params and "filter" not in params


async def test_abstract_from_inverted_index_orders_positions_and_tolerates_junk() -> None:
    assert abstract_text({"b": [1], "a": [0, 2], "x": "not a list", "y": [-1, "3"]}) == "a b a"
    assert abstract_text(None) == "" and abstract_text([]) == ""


async def test_429_waits_what_retry_after_asks() -> None:
    replay = Replay((429, {"error": "rate limited"}, {"Retry-After": "7"}), OK)
    c, t = _client(replay)
    async with c:
        papers = await c.search("speculative decoding")
    assert papers and len(replay.requests) == 2
    assert 7.0 in t.sleeps


async def test_retry_after_beyond_what_a_call_waits_gives_up_and_holds_the_breaker() -> None:
    replay = Replay((429, {"error": "daily limit"}, {"Retry-After": "86400"}), OK)
    c, t = _client(replay, breaker_threshold=5)
    async with c:
        with pytest.raises(RateLimited, match="asked to wait 86400s"):
            await c.search("speculative decoding")
        with pytest.raises(RateLimited, match="circuit breaker open"):
            await c.search("another query")
    assert len(replay.requests) == 1 and not [s for s in t.sleeps if s > 1]  # no day-long sleep, one request


async def test_5xx_and_timeouts_retried_then_capped() -> None:
    replay = Replay((503, {"error": "unavailable"}, {}), (502, b"Bad Gateway", {}), OK)
    c, _ = _client(replay, max_retries=2)
    async with c:
        assert await c.search("speculative decoding")
    assert len(replay.requests) == 3
    replay = Replay(httpx.ReadTimeout("timed out"))
    c, t = _client(replay, max_retries=2, breaker_threshold=10)
    async with c:
        with pytest.raises(ExternalServiceError, match=r"failed after 3 attempts.*ReadTimeout"):
            await c.search("speculative decoding")
    assert len(replay.requests) == 3 and len(t.sleeps) == 2


async def test_breaker_opens_after_n_failures_then_half_opens() -> None:
    replay = Replay((503, {}, {}), (503, {}, {}), (503, {}, {}), (503, {}, {}), OK)
    c, t = _client(replay, max_retries=1, breaker_threshold=3, breaker_cooldown_s=60.0)
    async with c:
        with pytest.raises(ExternalServiceError, match="2 attempts"):
            await c.search("q1")  # 2 failures: still closed
        with pytest.raises(ExternalServiceError, match=r"failed 3 times in a row.*HTTP 503.*pausing calls for 60s"):
            await c.search("q2")  # the third opens it: no more retries
        assert len(replay.requests) == 3
        with pytest.raises(RateLimited, match="circuit breaker open"):
            await c.search("q3")
        assert len(replay.requests) == 3  # open: nothing sent
        t.now += 60.0  # half-open: one trial goes out; it fails, and the breaker opens again at once
        with pytest.raises(ExternalServiceError, match="failed 4 times in a row"):
            await c.search("q4")
        assert len(replay.requests) == 4 and c.breaker.state == "open"
        t.now += 60.0
        assert await c.search("q5")  # the trial succeeds: closed
        assert c.breaker.state == "closed"


@pytest.mark.parametrize("body", [b"<html>Service Unavailable</html>", b'["not", "an", "object"]',
                                  b'{"meta": {}, "results": "nope"}'])
async def test_unreadable_answer_is_a_source_failure_not_cached(tmp_path: Path, body: bytes) -> None:
    replay = Replay((200, body, {"Content-Type": "application/json"}), OK)
    c, _ = _client(replay, tmp_path)
    async with c:
        with pytest.raises(ExternalServiceError, match="could not read"):
            await c.search("speculative decoding")
        assert len(replay.requests) == 1  # not retried: the same request gets the same answer
        assert await c.search("speculative decoding")  # and not cached: asked again, answered
    assert c.breaker.failures == 0


async def test_disk_cache_answers_the_second_call(tmp_path: Path) -> None:
    replay = Replay(OK)
    c, _ = _client(replay, tmp_path)
    async with c:
        await c.search("speculative decoding", limit=4)
    c2, _ = _client(replay, tmp_path)
    async with c2:
        assert (await c2.search("speculative decoding", limit=4))[0].paper_id == "W4310632451"
    assert len(replay.requests) == 1 and (tmp_path / "openalex").is_dir()


def test_client_from_settings_follows_the_enabled_switch(tmp_path: Path) -> None:
    s = Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]
    assert client_from_settings(s) is None  # off by default
    s.openalex.enabled = True
    assert isinstance(client_from_settings(s), OpenAlexClient)


async def test_api_key_is_sent_as_a_parameter_and_kept_out_of_the_cache_key(tmp_path: Path) -> None:
    from pydantic import SecretStr

    replay = Replay(OK)
    c, _ = _client(replay, tmp_path, api_key=SecretStr("oa-key-1"), mailto="a@example.org")
    async with c:
        await c.search("speculative decoding")
    assert replay.requests[0].url.params["api_key"] == "oa-key-1"
    c2, _ = _client(replay, tmp_path, api_key=SecretStr("oa-key-2"), mailto="b@example.org")
    async with c2:
        assert await c2.search("speculative decoding")  # same query, new key and address: from the cache
    assert len(replay.requests) == 1
    assert not any("oa-key" in p.read_text() for p in (tmp_path / "openalex").rglob("*.json"))


async def test_403_slow_down_counts_towards_the_breaker_but_is_not_retried() -> None:
    replay = Replay((403, {"error": "Forbidden", "message": "Rate limit exceeded; slow down"}, {}))
    c, _ = _client(replay, breaker_threshold=2)
    async with c:
        with pytest.raises(ExternalServiceError, match=r"rejected the request \(HTTP 403\): .*Forbidden"):
            await c.search("q1")
        with pytest.raises(ExternalServiceError, match="failed 2 times in a row"):
            await c.search("q2")
        with pytest.raises(RateLimited, match="circuit breaker open"):
            await c.search("q3")
    assert len(replay.requests) == 2
