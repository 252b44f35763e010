"""Which LLM errors are worth retrying, how long to wait, and the retry loop — the LLM client's view of
the project's one outbound-call toolkit (`motivgraph.outbound`: classifier, Retry-After, tenacity loop).

Provider errors are recognised by duck typing, so openai, httpx and other SDK errors all work
without importing them (see `motivgraph.outbound`).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from motivgraph.outbound import (
    RETRYABLE_STATUS,
    Backoff,
    call_with_retries,
    describe,
    is_connection_error,
    is_retryable,
    is_timeout,
    retry_after_s,
    status_code,
)

__all__ = [
    "RETRYABLE_STATUS", "RetryPolicy", "describe", "is_connection_error", "is_retryable",
    "is_timeout", "retry_after_s", "retry_call", "status_code",
]

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 5
    base_s: float = 1.0
    max_s: float = 60.0
    jitter: float = 0.25  # +/- fraction of the delay, so many clients do not retry in lockstep

    @property
    def backoff(self) -> Backoff:
        return Backoff(retries=self.max_retries, base_s=self.base_s, max_s=self.max_s, jitter=self.jitter)

    def delay(self, attempt: int, e: BaseException, rng: random.Random) -> float:
        """Wait before retry number `attempt` (1-based): Retry-After if given, else exp. backoff."""
        return self.backoff.delay(attempt, e, rng)


async def retry_call(
    fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    rng: random.Random | None = None,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
) -> T:
    """Run `fn`, retrying retryable errors up to `policy.max_retries` times.

    Non-retryable errors propagate unchanged; when retries run out, RetriesExhausted is raised.
    """
    return await call_with_retries(fn, policy.backoff, sleep=sleep, rng=rng, on_retry=on_retry)
