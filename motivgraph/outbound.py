"""The one toolkit for calls that leave the process (LLM providers, GROBID, Semantic Scholar, the
MotivGraph API): which errors are worth retrying, how long to wait, the retry loop (tenacity), a
client-side rate limiter, a circuit breaker, and the ingest failure taxonomy built on the same classifier.

Errors are recognised by duck typing, so openai, httpx, redis and other SDK errors all work without
importing them: an HTTP status in `e.status_code` or `e.response.status_code`, a Retry-After header in
`e.response.headers` (or `e.headers`), timeouts and connection errors by type or class name.
A client whose answer is an HTTP response rather than an exception raises `RetryableStatus(response)`
inside its attempt, so the same classifier (status and Retry-After) decides.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import tenacity

from motivgraph.errors import (
    BackendUnavailable,
    ExternalServiceError,
    ParseError,
    RetriesExhausted,
    RunStopped,
)

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})


# -- the classifier ---------------------------------------------------------------------------------------------


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


def parse_retry_after(value: Any) -> float | None:
    """A Retry-After header value (seconds, or an HTTP date) as seconds from now; None if unusable."""
    if value is None or value == "":
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        pass
    try:
        when = email.utils.parsedate_to_datetime(str(value))
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


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
    except (AttributeError, TypeError, ValueError):
        return None
    return parse_retry_after(value)


def is_timeout(e: BaseException) -> bool:
    return isinstance(e, TimeoutError | asyncio.TimeoutError) or "Timeout" in type(e).__name__


def is_connection_error(e: BaseException) -> bool:
    return isinstance(e, ConnectionError) or any(
        n in type(e).__name__ for n in ("ConnectionError", "ConnectError", "RemoteProtocolError")
    )


def is_retryable(e: BaseException) -> bool:
    """Worth another attempt of the same call: a retryable HTTP status, a timeout, a dropped connection."""
    code = status_code(e)
    if code is not None:
        return code in RETRYABLE_STATUS
    return is_timeout(e) or is_connection_error(e)


def is_retryable_http(e: BaseException) -> bool:
    """`is_retryable`, plus any httpx transport failure (read/write errors on a dropped connection)."""
    if is_retryable(e):
        return True
    return isinstance(e, httpx.TransportError)


def describe(e: BaseException) -> str:
    code = status_code(e)
    kind = f"HTTP {code}" if code is not None else type(e).__name__
    text = str(e).strip().splitlines()[0][:300] if str(e).strip() else ""
    return f"{kind}: {text}" if text else kind


def is_transient(e: BaseException) -> bool:
    """Ingest failure taxonomy: True when the failure says nothing about the document — the store, the
    LLM endpoint, GROBID or the network is down, or the budget is spent — so the document must stay
    resumable; False for a bad document (parse error, rejected extraction, ...), a permanent failure.

    A client that gave up after its own retries raises its error `from` the last underlying one, so
    the whole cause chain is examined."""

    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, ParseError):
            return False  # e.g. GROBID answered 500 for this PDF: the document is the problem
        if isinstance(cur, BackendUnavailable | ExternalServiceError | RunStopped):
            return True
        if is_retryable(cur):
            return True
        cur = cur.__cause__  # explicit `raise ... from`: an implicit context may be unrelated
    return False


# -- the retry loop -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with jitter, capped; the server's Retry-After wins (capped at `advice_max_s`)."""

    retries: int = 5
    base_s: float = 1.0
    max_s: float = 60.0
    jitter: float = 0.25  # +/- fraction of the delay, so many clients do not retry in lockstep
    advice_max_s: float | None = None  # cap on Retry-After (default: max_s)

    def delay(self, retry: int, e: BaseException | None, rng: random.Random) -> float:
        """Wait before retry number `retry` (1-based)."""
        advised = retry_after_s(e) if e is not None else None
        if advised is not None:
            return min(advised, self.advice_max_s if self.advice_max_s is not None else self.max_s)
        d = min(self.base_s * 2 ** (retry - 1), self.max_s)
        return max(0.0, d * (1 + rng.uniform(-self.jitter, self.jitter)))


async def call_with_retries(
    fn: Callable[[], Awaitable[T]],
    backoff: Backoff,
    *,
    retry_if: Callable[[BaseException], bool] = is_retryable,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    rng: random.Random | None = None,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
) -> T:
    """Run `fn`, retrying errors `retry_if` accepts up to `backoff.retries` times (tenacity).

    Errors it does not accept propagate unchanged; when retries run out, RetriesExhausted is raised
    (`from` the last error)."""
    rng = rng or random.Random()

    def wait(state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        return backoff.delay(state.attempt_number, exc, rng)

    def before_sleep(state: tenacity.RetryCallState) -> None:
        if on_retry is not None and state.outcome is not None and state.next_action is not None:
            exc = state.outcome.exception()
            assert exc is not None
            on_retry(state.attempt_number, exc, state.next_action.sleep)

    async def pause(seconds: float) -> None:
        await sleep(seconds)  # a plain coroutine function whatever `sleep` is (tenacity inspects it)

    retrying = tenacity.AsyncRetrying(
        stop=tenacity.stop_after_attempt(backoff.retries + 1),
        wait=wait,
        retry=tenacity.retry_if_exception(retry_if),
        sleep=pause,
        before_sleep=before_sleep,
        reraise=False,
    )
    try:
        return await retrying(fn)
    except tenacity.RetryError as e:
        last = e.last_attempt.exception()
        assert last is not None
        raise RetriesExhausted(last, e.last_attempt.attempt_number, describe(last)) from last


# -- client-side rate limit -----------------------------------------------------------------------------------


class RateLimiter:
    """Requests per minute for asyncio code. A GCRA-style scheduler: each acquire reserves the next free
    slot synchronously (no await between reading and writing the schedule, so no lock is needed and it
    works across event loops), then sleeps until that slot. Up to `burst` requests may go back to back."""

    def __init__(
        self,
        requests_per_minute: float,
        *,
        burst: int = 1,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        if requests_per_minute <= 0:
            raise ValueError("requests_per_minute must be > 0")
        self.interval = 60.0 / requests_per_minute
        self.burst = max(1, burst)
        self._clock, self._sleep = clock, sleep
        self._tat = 0.0  # theoretical arrival time of the next request

    def reserve(self) -> float:
        """Book the next slot; returns how long the caller must wait for it (seconds)."""
        now = self._clock()
        tat = max(self._tat, now)
        wait = max(0.0, tat - now - (self.burst - 1) * self.interval)
        self._tat = tat + self.interval
        return wait

    async def acquire(self) -> None:
        wait = self.reserve()
        if wait > 0:
            await self._sleep(wait)


# -- circuit breaker ------------------------------------------------------------------------------------------


class CircuitBreaker:
    """Fail fast instead of hammering a service that keeps refusing: after `threshold` consecutive failures
    the circuit opens for `cooldown_s` (or longer when the server asked for a longer pause), and calls are
    refused without a request. Then it half-opens: calls go through again, the first success closes it, and
    the first failure opens it again at once — one trial request, not `threshold` more against a service
    that is still refusing. Which answers count as failures is the client's decision (a 429 only, or any
    outage); the breaker only counts. Not locked: asyncio code reads and writes it without awaiting between."""

    def __init__(self, threshold: int, cooldown_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if threshold < 1:
            raise ValueError("threshold must be >= 1")
        self.threshold, self.cooldown_s = threshold, max(0.0, cooldown_s)
        self._clock = clock
        self.failures = 0  # consecutive
        self._open_until = 0.0

    @property
    def state(self) -> str:
        """One of "closed", "open" (calls refused) or "half_open" (calls allowed; one failure re-opens it)."""
        if self._clock() < self._open_until:
            return "open"
        return "half_open" if self.failures >= self.threshold else "closed"

    def open_for(self) -> float:
        """Seconds until calls are allowed again (0 when they are allowed now)."""
        return max(0.0, self._open_until - self._clock())

    def record_success(self) -> None:
        self.failures = 0
        self._open_until = 0.0

    def record_failure(self, *, hold_s: float | None = None) -> bool:
        """Count one failure; True when it opened the circuit. `hold_s`: the server's own advice (Retry-After),
        which keeps the circuit open longer than the cooldown when it asks for more."""
        self.failures += 1
        if self.failures < self.threshold:
            return False
        self._open_until = self._clock() + max(self.cooldown_s, hold_s or 0.0)
        return True

    def hold(self, seconds: float) -> None:
        """Open now for `seconds`, whatever the count: the server asked for a pause longer than a caller
        waits (a Retry-After of an hour), so no call should go out before it ends."""
        self.failures = max(self.failures, self.threshold)
        self._open_until = max(self._open_until, self._clock() + max(0.0, seconds))
