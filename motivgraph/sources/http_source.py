"""What every outbound literature source does the same way, on the outbound toolkit (motivgraph/outbound.py):

- a client-side rate limit shared by every call of one client (every attempt, retries included, takes a slot);
- 429 and 5xx answers, timeouts and dropped connections retried with exponential backoff, a Retry-After
  honoured — and when the server asks for a longer pause than a caller would wait (`advice_max_s`), the
  call gives up at once and the circuit stays open for that long instead of sleeping through it;
- a circuit breaker per client: after `breaker_threshold` consecutive failures, calls fail fast for
  `breaker_cooldown_s`, then one trial call decides (outbound.CircuitBreaker). Which failures count is the
  source's choice (`counts_as_failure`): Semantic Scholar counts 429s only, the others any outage;
- an answer that cannot be decoded (bad JSON, bad XML, an unexpected shape) is a failure of that source
  (ExternalServiceError), never an exception that escapes as a 500, and is not cached;
- a disk cache of decoded answers under `<cache_dir>/<source key>/` (JSON keyed by request).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Protocol, Self

import httpx

from motivgraph.errors import ExternalServiceError, RateLimited, RetriesExhausted, RetryableStatus
from motivgraph.fsutil import atomic_write
from motivgraph.outbound import (
    RETRYABLE_STATUS,
    Backoff,
    CircuitBreaker,
    RateLimiter,
    call_with_retries,
    describe,
    is_retryable_http,
    parse_retry_after,
    status_code,
)


class SourceSettings(Protocol):
    """The settings every source section has (motivgraph/settings.py: s2, openalex, arxiv)."""

    base_url: str
    requests_per_second: float
    max_retries: int
    timeout_s: float
    breaker_threshold: int
    breaker_cooldown_s: float


Decode = Callable[[httpx.Response], Any]


def decode_json(response: httpx.Response) -> dict[str, Any]:
    """The body as a JSON object (what every source's API answers); ValueError for anything else."""
    data = response.json()
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    return data


class HttpSource:
    """Base of one source's client. A subclass sets `key`/`name`, builds its requests and decodes its answers;
    `_get` does the rest. Injectable `transport`, `sleep` and `clock` let tests replay recorded answers and
    see the waits asked for without spending them."""

    key: ClassVar[str]  # the cache folder and the name results carry: "openalex"
    name: ClassVar[str]  # for messages: "OpenAlex"
    hint: str = ""  # appended to rate-limit messages, e.g. which setting raises the limit
    not_found_is_empty: ClassVar[bool] = False  # a 404 means "no such item" (None), not an error
    # request parameters that do not change the answer (credentials, contact address): left out of the cache key,
    # so a new key reuses the cache and no credential is hashed into a file name
    uncached_params: ClassVar[frozenset[str]] = frozenset()

    def __init__(
        self,
        settings: SourceSettings,
        cache_dir: Path | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        headers: dict[str, str] | None = None,
        sleep: Any = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 60.0,
    ) -> None:
        self.settings = settings
        self.cache_dir = (cache_dir / self.key) if cache_dir else None
        self._sleep = sleep
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self._client = httpx.AsyncClient(
            base_url=settings.base_url.rstrip("/"),
            headers={"User-Agent": "motivgraph/0.1", **(headers or {})},
            timeout=settings.timeout_s,
            transport=transport,
        )
        self._limiter = RateLimiter(settings.requests_per_second * 60, sleep=sleep, clock=clock)
        self.advice_max_s = backoff_max_s * 5  # the longest Retry-After a call waits for
        self._backoff = Backoff(
            retries=settings.max_retries, base_s=backoff_base_s, max_s=backoff_max_s, advice_max_s=self.advice_max_s
        )
        self.breaker = CircuitBreaker(settings.breaker_threshold, settings.breaker_cooldown_s, clock=clock)
        self._last_failure = ""

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- what counts against the breaker ----------------------------------------------------------------------
    def counts_as_failure(self, e: BaseException | None, status: int | None) -> bool:
        """Whether a failed attempt counts towards opening the breaker: by default any sign of an outage or
        throttling (a retryable status, a timeout, a dropped connection) and an undecodable answer (e None)."""
        if status is not None:
            return status in RETRYABLE_STATUS
        return e is None or is_retryable_http(e)

    def _failure(self, what: str, status: int | None, e: BaseException | None, retry_after: float | None) -> None:
        """Count a failed attempt; raise when that opened the breaker (the call stops retrying then)."""
        self._last_failure = what
        if not self.counts_as_failure(e, status):
            return
        if not self.breaker.record_failure(hold_s=retry_after):
            return
        pause = max(self.settings.breaker_cooldown_s, retry_after or 0.0)
        n = self.breaker.failures
        if status == 429:
            raise RateLimited(
                f"{self.name} answered 429 {n} times in a row; pausing calls for {pause:g}s{self.hint}",
                retry_after=retry_after,
            )
        raise ExternalServiceError(
            f"{self.name} failed {n} times in a row (last: {what}); pausing calls for {pause:g}s"
        )

    # -- cache --------------------------------------------------------------------------------------------------
    def _cache_path(self, path: str, params: dict[str, Any]) -> Path | None:
        if self.cache_dir is None:
            return None
        keyed = sorted((k, v) for k, v in params.items() if k not in self.uncached_params)
        key = hashlib.sha256(json.dumps([path, keyed], default=str).encode()).hexdigest()
        return self.cache_dir / key[:2] / f"{key}.json"

    @staticmethod
    def _cache_get(p: Path | None) -> Any | None:
        if p is None:
            return None
        try:
            return json.loads(p.read_text())
        except (OSError, ValueError):
            return None

    @staticmethod
    def _cache_put(p: Path | None, data: Any) -> None:
        if p is not None:
            atomic_write(p, json.dumps(data))

    # -- the request --------------------------------------------------------------------------------------------
    async def _get(self, path: str, params: dict[str, Any], decode: Decode = decode_json) -> Any:
        """GET `path`, decoded; cached, rate-limited, retried, behind the breaker. Raises RateLimited when
        throttled past the retries or the breaker is open for 429s, ExternalServiceError for any other failure."""
        cpath = self._cache_path(path, params)
        cached = self._cache_get(cpath)
        if cached is not None:
            return cached
        wait = self.breaker.open_for()
        if wait > 0:
            raise RateLimited(
                f"{self.name} circuit breaker open after {self.breaker.failures} failures in a row "
                f"(last: {self._last_failure}); calls resume in {wait:.0f}s{self.hint}",
                retry_after=wait,
            )

        async def attempt() -> Any:
            await self._limiter.acquire()
            try:
                r = await self._client.get(path, params=params)
            except httpx.HTTPError as e:
                self._failure(describe(e), None, e, None)
                raise
            code = r.status_code
            if code == 200:
                try:
                    data = decode(r)
                except ValueError as e:  # undecodable: the same request would get the same answer, so no retry
                    self._failure(f"malformed answer: {e}", None, None, None)
                    raise ExternalServiceError(f"{self.name} answered with something it could not read: {e}") from e
                self.breaker.record_success()
                self._cache_put(cpath, data)
                return data
            if code == 404 and self.not_found_is_empty:
                self.breaker.record_success()
                return None
            if code == 429 or code >= 500:
                advised = parse_retry_after(r.headers.get("Retry-After"))
                self._failure(f"HTTP {code}", code, None, advised)
                if advised is not None and advised > self.advice_max_s:
                    # waiting that long would stall the caller; the breaker keeps every call off until then
                    self.breaker.hold(advised)
                    raise RateLimited(
                        f"{self.name} asked to wait {advised:.0f}s (HTTP {code}); not waiting that long{self.hint}",
                        retry_after=advised,
                    )
                raise RetryableStatus(r, "429 rate limited" if code == 429 else "")
            detail = " ".join(r.text.split())[:200]
            self._failure(f"HTTP {code}", code, None, None)  # counted only where the source says so (a 403 "slow down")
            raise ExternalServiceError(f"{self.name} rejected the request (HTTP {code}): {detail}")

        try:
            return await call_with_retries(attempt, self._backoff, retry_if=is_retryable_http, sleep=self._sleep)
        except RetriesExhausted as e:
            if status_code(e.last) == 429:
                raise RateLimited(
                    f"{self.name} still rate-limiting after {self.settings.max_retries} retries{self.hint}"
                ) from e.last
            raise ExternalServiceError(
                f"{self.name} failed after {e.attempts} attempts ({describe(e.last)})"
            ) from e.last
