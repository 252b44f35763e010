"""Client-side request rate limit (requests per minute) for asyncio code.

A GCRA-style scheduler: each acquire reserves the next free slot synchronously (no await between
reading and writing the schedule, so no lock is needed and it works across event loops), then
sleeps until that slot. A burst of up to `burst` requests may go out back to back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class RateLimiter:
    def __init__(
        self,
        requests_per_minute: float,
        *,
        burst: int = 1,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
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
