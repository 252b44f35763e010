"""The kernel's outbound-call toolkit (classifier, Retry-After, tenacity loop, taxonomy) and fsutil."""

from __future__ import annotations

import os
import random
from pathlib import Path

import httpx
import pytest

from motivgraph.errors import (
    BackendUnavailable,
    BudgetExceeded,
    ExternalServiceError,
    LLMError,
    ParseError,
    RetriesExhausted,
    RetryableStatus,
)
from motivgraph.fsutil import atomic_open, atomic_write, path_from_text, path_to_text
from motivgraph.outbound import Backoff, call_with_retries, is_retryable, is_transient, parse_retry_after, retry_after_s


class Sleeps(list[float]):
    async def __call__(self, s: float) -> None:
        self.append(s)


def test_classifier_and_retry_after() -> None:
    resp = httpx.Response(503, headers={"Retry-After": "7"})
    assert is_retryable(RetryableStatus(resp)) and retry_after_s(RetryableStatus(resp)) == 7.0
    assert not is_retryable(RetryableStatus(httpx.Response(400)))
    assert is_retryable(httpx.ConnectError("refused")) and is_retryable(TimeoutError())
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0 and parse_retry_after("soon") is None


async def test_loop_retries_honours_advice_and_gives_up() -> None:
    sleeps = Sleeps()
    calls = 0

    async def flaky() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RetryableStatus(httpx.Response(429, headers={"Retry-After": "3"}))
        if calls == 2:
            raise httpx.ReadTimeout("slow")
        return "ok"

    assert await call_with_retries(flaky, Backoff(retries=3, base_s=1), sleep=sleeps, rng=random.Random(1)) == "ok"
    assert sleeps[0] == 3.0 and 1.5 <= sleeps[1] <= 2.5 and calls == 3

    async def down() -> str:
        raise httpx.ConnectError("refused")

    with pytest.raises(RetriesExhausted) as ei:
        await call_with_retries(down, Backoff(retries=2), sleep=Sleeps())
    assert ei.value.attempts == 3 and isinstance(ei.value.__cause__, httpx.ConnectError)

    async def bad() -> str:
        raise ValueError("not retryable")

    with pytest.raises(ValueError):
        await call_with_retries(bad, Backoff(retries=5), sleep=Sleeps())


def _chained(outer: Exception, inner: Exception) -> Exception:
    try:
        try:
            raise inner
        except Exception as e:
            raise outer from e
    except Exception as err:
        return err


def test_failure_taxonomy() -> None:
    assert is_transient(BackendUnavailable("Cannot reach FalkorDB"))
    assert is_transient(ExternalServiceError("GROBID failed after 4 attempts"))
    assert is_transient(BudgetExceeded("spent"))
    assert is_transient(_chained(LLMError("LLM extractor failed after 6 attempts"), ConnectionError("refused")))
    assert not is_transient(LLMError("reply could not be parsed"))
    assert not is_transient(ParseError("encrypted PDF"))
    assert not is_transient(_chained(ParseError("GROBID could not process this PDF"), RuntimeError("500")))
    assert not is_transient(RuntimeError("bug"))


@pytest.mark.parametrize("raw", [b"plain.pdf", b"caf\xe9.pdf", b"a\\x41\\\\b.pdf", "naïve ✓.pdf".encode(), b"\xff"])
def test_paths_as_text_are_reversible(raw: bytes) -> None:
    text = path_to_text(raw)
    text.encode("utf-8")  # storable anywhere
    assert os.fsencode(path_from_text(text)) == raw
    if b"\\" not in raw:
        try:
            assert text == raw.decode("utf-8")  # valid UTF-8 names are shown as they are
        except UnicodeDecodeError:
            assert "\\x" in text


def test_atomic_write_replaces_or_leaves_untouched(tmp_path: Path) -> None:
    p = tmp_path / "sub" / "f.json"
    atomic_write(p, "one")
    atomic_write(p, b"two")
    assert p.read_text() == "two"
    with pytest.raises(RuntimeError), atomic_open(p) as fh:
        fh.write("half")
        raise RuntimeError("killed mid-write")
    assert p.read_text() == "two" and [x.name for x in p.parent.iterdir()] == ["f.json"]


def test_rate_limiter_is_shared_from_the_kernel() -> None:
    from motivgraph.llm.limiter import RateLimiter as LLMLimiter
    from motivgraph.outbound import RateLimiter

    assert LLMLimiter is RateLimiter
    lim = RateLimiter(60, clock=lambda: 100.0)
    assert [lim.reserve() for _ in range(3)] == [0.0, 1.0, 2.0]
