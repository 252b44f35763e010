"""Natural micro-batching for concurrent requests (no added latency when idle).

The first caller becomes the leader and runs the function on everything pending; callers arriving
while it runs queue up and are served by the next round as one batch. One MiniLM forward pass for
16 queries costs a fraction of 16 passes, and one exact FAISS scan serves all queued query vectors
with a single pass over the index memory — so throughput under concurrent load grows instead of
every request paying the full price.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Generic, TypeVar

X = TypeVar("X")
Y = TypeVar("Y")


class Batcher(Generic[X, Y]):
    def __init__(self, fn: Callable[[list[X]], Sequence[Y]], max_batch: int = 64) -> None:
        self.fn = fn
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._pending: list[tuple[X, Future[Y]]] = []
        self._leading = False

    def __call__(self, item: X) -> Y:
        fut: Future[Y] = Future()
        with self._lock:
            self._pending.append((item, fut))
            lead = not self._leading
            if lead:
                self._leading = True
        if lead:
            self._lead()
        return fut.result()

    def _lead(self) -> None:
        while True:
            with self._lock:
                batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
                if not batch:
                    self._leading = False
                    return
            try:
                out = self.fn([x for x, _ in batch])
                if len(out) != len(batch):
                    raise RuntimeError(f"batched call returned {len(out)} results for {len(batch)} inputs")
            except BaseException as e:  # every waiter gets the error, the next round still runs
                for _, f in batch:
                    f.set_exception(e)
                continue
            for (_, f), y in zip(batch, out, strict=True):
                f.set_result(y)
