"""Transient failures (`motivgraph.outbound.is_transient`: the store, an LLM endpoint or GROBID down, the network):
pause, reconnect, retry -- or stop cleanly with IngestInterrupted ("re-run to resume"). One policy for the ingest
pipeline's documents, the steps outside any document, and the re-processing jobs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from motivgraph.errors import IngestInterrupted, RunStopped
from motivgraph.graph.embedded import EmbeddedFalkorDB
from motivgraph.outbound import describe, is_transient

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore
    from motivgraph.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")


def embedded_store_recovery(settings: Settings, store: GraphStore | None) -> Callable[[], Awaitable[None]]:
    """Reconnect to the graph: (re)start the embedded FalkorDB when it is the configured backend
    (a no-op when it is alive), then ping. Raises when the store is still unreachable."""

    async def recover() -> None:
        if settings.graph.backend != "neo4j" and not settings.graph.falkordb_url:
            await asyncio.to_thread(EmbeddedFalkorDB(settings.data_dir).start)
        if store is not None and hasattr(store, "ping"):
            await asyncio.to_thread(store.ping)

    return recover


class TransientGate:
    """One pause for the whole batch: the first step to meet a transient failure waits (backoff),
    recovers and reopens the gate; steps that failed during the same outage just retry. Used per
    document by `execute` and per paper by the re-processing jobs (`miner.reprocess`)."""

    def __init__(self, settings: Settings, recover: Sequence[Callable[[], Awaitable[None]]],
                 progress_note: Callable[[str], None] | None) -> None:
        self.max_consecutive = settings.ingest.transient_max_consecutive
        self.base_s = settings.ingest.transient_backoff_s
        self.recover = list(recover)
        self.note = progress_note
        self.consecutive = 0
        self.generation = 0
        self.pauses = 0
        self._lock = asyncio.Lock()
        self._open = asyncio.Event()
        self._open.set()

    async def wait_open(self) -> int:
        await self._open.wait()
        return self.generation

    def succeeded(self) -> None:
        self.consecutive = 0

    async def failed(self, exc: BaseException, generation: int, what: str) -> None:
        async with self._lock:
            if generation != self.generation:
                return  # recovered since this attempt began: just retry
            self.consecutive += 1
            if self.consecutive > self.max_consecutive:
                raise IngestInterrupted(
                    f"stopped after {self.max_consecutive} consecutive transient failures (last: {describe(exc)}, "
                    f"on {what}); no document was marked failed — re-run the same command to resume"
                ) from exc
            self._open.clear()
            self.pauses += 1
            wait = min(60.0, self.base_s * 2 ** (self.consecutive - 1))
            msg = (f"transient failure ({describe(exc)}); pausing {wait:.1f}s, then reconnecting "
                   f"({self.consecutive}/{self.max_consecutive})")
            log.warning(msg)
            if self.note:
                self.note(msg)
            try:
                await asyncio.sleep(wait)
                for fn in self.recover:
                    try:
                        await fn()
                    except Exception as e:  # still down: the retry fails again and counts
                        log.warning("reconnect failed: %s", describe(e))
            finally:
                self.generation += 1
                self._open.set()

    async def run(self, step: Callable[[], Awaitable[T]], what: str) -> T:
        """Run `step` until it succeeds: a transient failure pauses, recovers and retries (or raises
        IngestInterrupted when they keep coming); any other error propagates unchanged. `step` must be
        idempotent. A clean stop (RunStopped: a spent budget, the extraction gate) stops at once."""
        while True:
            generation = await self.wait_open()
            try:
                result = await step()
            except (asyncio.CancelledError, RunStopped, IngestInterrupted):
                raise
            except Exception as e:
                if not is_transient(e):
                    raise
                await self.failed(e, generation, what)  # pauses, or raises IngestInterrupted
                continue
            self.succeeded()
            return result


async def store_step(fn: Callable[[], T], settings: Settings, note: Callable[[str], None] | None = None,
                     what: str = "a graph store step") -> T:
    """Run a store-bound step outside any document (opening a sink, planning, repairing indexes) in a
    thread under the same policy as the documents: a transient failure reconnects (restarting the
    embedded DB) with backoff and runs it again, or stops with IngestInterrupted ("re-run to resume")."""
    gate = TransientGate(settings, [embedded_store_recovery(settings, None)], note)
    return await gate.run(lambda: asyncio.to_thread(fn), what)
