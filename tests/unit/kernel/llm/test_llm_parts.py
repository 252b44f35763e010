"""Offline token counts, the rate limiter (fake clock) and retry classification."""

from __future__ import annotations

import asyncio
import email.utils
import random
import time

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage

from motivgraph.errors import RetriesExhausted
from motivgraph.llm import count_message_tokens, count_tokens, tokenizer_name, truncate_to_tokens
from motivgraph.llm.limiter import RateLimiter
from motivgraph.llm.retry import RetryPolicy, is_retryable, retry_after_s, retry_call, status_code
from motivgraph.llm.usage import cost_usd, price_for


def test_tokens_use_the_bundled_wordpiece_tokenizer() -> None:
    assert tokenizer_name() == "minilm-wordpiece"
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    text = "Graph neural networks struggle with over-smoothing in deep architectures. " * 20
    n = count_tokens(text)
    assert 200 < n < 400  # ~12-13 WordPiece tokens per sentence
    cut = truncate_to_tokens(text, 50)
    assert text.startswith(cut) and count_tokens(cut) <= 50 and count_tokens(cut) >= 48
    assert truncate_to_tokens("short", 50) == "short"
    msgs = [HumanMessage("hello world"), AIMessage(content="", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "1"}])]
    assert count_message_tokens(msgs) > count_tokens("hello world")


def test_prices_by_model_name() -> None:
    prices = {"gpt-4o": (2.5, 10.0), "gpt-4o-mini": (0.15, 0.6)}
    assert price_for("gpt-4o-mini-2024-07-18", prices) == (0.15, 0.6)  # longest prefix
    assert price_for("llama3", prices) == (0.0, 0.0)
    assert cost_usd("gpt-4o", prices, 1_000_000, 100_000) == pytest.approx(3.5)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.now += s


@pytest.mark.parametrize(("burst", "expected"), [(1, [0, 1, 1, 1]), (3, [0, 0, 0, 1])])
def test_rate_limiter_spacing(burst: int, expected: list[float]) -> None:
    clock = FakeClock()
    lim = RateLimiter(60, burst=burst, clock=clock, sleep=clock.sleep)

    async def run() -> list[float]:
        waits = []
        for _ in range(4):
            before = clock.now
            await lim.acquire()
            waits.append(clock.now - before)
        return waits

    assert asyncio.run(run()) == pytest.approx(expected)


def _status_error(code: int, headers: dict[str, str] | None = None) -> httpx.HTTPStatusError:
    req = httpx.Request("POST", "http://127.0.0.1/x")
    resp = httpx.Response(code, headers=headers or {}, request=req)
    return httpx.HTTPStatusError("boom", request=req, response=resp)


def test_retry_classification_by_duck_typing() -> None:
    assert status_code(_status_error(503)) == 503 and is_retryable(_status_error(503))
    assert is_retryable(_status_error(429)) and not is_retryable(_status_error(400))
    assert is_retryable(httpx.ReadTimeout("slow")) and is_retryable(httpx.ConnectError("refused"))
    assert is_retryable(TimeoutError()) and not is_retryable(ValueError("bad"))
    assert retry_after_s(_status_error(429, {"Retry-After": "12"})) == 12.0
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < retry_after_s(_status_error(429, {"retry-after": when})) <= 31
    assert retry_after_s(_status_error(429)) is None


def test_retry_policy_caps_and_jitter() -> None:
    pol = RetryPolicy(max_retries=3, base_s=1, max_s=5, jitter=0.25)
    rng = random.Random(0)
    delays = [pol.delay(n, _status_error(503), rng) for n in (1, 2, 3, 4, 5)]
    assert 0.75 <= delays[0] <= 1.25 and 1.5 <= delays[1] <= 2.5 and all(d <= 6.25 for d in delays)
    assert pol.delay(1, _status_error(429, {"retry-after": "600"}), rng) == 5  # advice capped


def test_retry_call_gives_up_after_cap() -> None:
    calls = []

    async def failing() -> None:
        calls.append(1)
        raise _status_error(502)

    async def no_sleep(_s: float) -> None:
        return None

    with pytest.raises(RetriesExhausted) as e:
        asyncio.run(retry_call(failing, RetryPolicy(max_retries=2), sleep=no_sleep))
    assert len(calls) == 3 and e.value.attempts == 3
