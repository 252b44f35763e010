"""Which errors are worth retrying, how long to wait, and the retry loop.

Provider errors are recognised by duck typing, so openai, httpx and other SDK errors all work
without importing them: an HTTP status in `e.status_code` or `e.response.status_code`, a
Retry-After header in `e.response.headers` (or `e.headers`), and timeout/connection errors by
type or class name.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})


def status_code(e: BaseException) -> int | None:
    code = getattr(e, "status_code", None)
    if code is None:
        code = getattr(getattr(e, "response", None), "status_code", None)
    try:
        return int(code) if code is not None else None
    except (TypeError, ValueError):
        return None


def _headers(e: BaseException) -> Any:
    headers = getattr(getattr(e, "response", None), "headers", None)
    return headers if headers is not None else getattr(e, "headers", None)


def retry_after_s(e: BaseException) -> float | None:
    """The server's advice in seconds (Retry-After as seconds or HTTP date, or retry-after-ms)."""
    explicit = getattr(e, "retry_after", None)
    if isinstance(explicit, int | float):
        return float(explicit)
    headers = _headers(e)
    if not headers:
        return None
    try:
        ms = headers.get("retry-after-ms") or headers.get("Retry-After-Ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        pass
    try:
        when = email.utils.parsedate_to_datetime(str(value))
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def is_timeout(e: BaseException) -> bool:
    return isinstance(e, TimeoutError | asyncio.TimeoutError) or "Timeout" in type(e).__name__


def is_connection_error(e: BaseException) -> bool:
    return isinstance(e, ConnectionError) or any(
        n in type(e).__name__ for n in ("ConnectionError", "ConnectError", "RemoteProtocolError")
    )


def is_retryable(e: BaseException) -> bool:
    code = status_code(e)
    if code is not None:
        return code in RETRYABLE_STATUS
    return is_timeout(e) or is_connection_error(e)


def describe(e: BaseException) -> str:
    code = status_code(e)
    kind = f"HTTP {code}" if code is not None else type(e).__name__
    text = str(e).strip().splitlines()[0][:300] if str(e).strip() else ""
    return f"{kind}: {text}" if text else kind


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 5
    base_s: float = 1.0
    max_s: float = 60.0
    jitter: float = 0.25  # +/- fraction of the delay, so many clients do not retry in lockstep

    def delay(self, attempt: int, e: BaseException, rng: random.Random) -> float:
        """Wait before retry number `attempt` (1-based): Retry-After if given, else exp. backoff."""
        advised = retry_after_s(e)
        if advised is not None:
            return min(advised, self.max_s)
        d = min(self.base_s * 2 ** (attempt - 1), self.max_s)
        return max(0.0, d * (1 + rng.uniform(-self.jitter, self.jitter)))


class RetriesExhausted(Exception):
    """Internal: carries the last error and the attempt count out of `retry_call`."""

    def __init__(self, last: BaseException, attempts: int) -> None:
        super().__init__(describe(last))
        self.last, self.attempts = last, attempts


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
    rng = rng or random.Random()
    attempt = 0
    while True:
        try:
            return await fn()
        except Exception as e:
            if not is_retryable(e):
                raise
            attempt += 1
            if attempt > policy.max_retries:
                raise RetriesExhausted(e, attempt) from e
            wait = policy.delay(attempt, e, rng)
            if on_retry:
                on_retry(attempt, e, wait)
            await sleep(wait)
