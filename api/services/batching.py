"""Natural micro-batching for concurrent requests (no added latency when idle).

The first caller becomes the leader and runs the function on everything pending; callers arriving
while it runs queue up and are served by the next round as one batch. One MiniLM forward pass for
16 queries costs a fraction of 16 passes, and one exact FAISS scan serves all queued query vectors
with a single pass over the index memory — so throughput under concurrent load grows instead of
every request paying the full price. `BatchedQueries` is what the tools use: query embeddings (cached
by text) and node searches, each through a Batcher.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

import numpy as np

from motivgraph.api.services.lru import LockedLRU

if TYPE_CHECKING:
    from motivgraph.choices import NodeType
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.search_backends import NodeSearchBackend
    from motivgraph.graph.vector_index import IndexHit

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


class BatchedQueries:
    """The embeddings and node searches of concurrent tool requests, batched; thread-safe. `embedder` and
    `node_search` are called for the service when first needed (opened lazily by ToolContext)."""

    MAX_SEARCHERS = 256  # one batcher per (k, types, min_score): bounded, the parameters come from clients

    def __init__(self, embedder: Callable[[], Embedder], node_search: Callable[[], NodeSearchBackend]) -> None:
        self._node_search = node_search
        self._embeds = LockedLRU(2048)
        self._embed: Batcher[str, np.ndarray] = Batcher(lambda texts: list(embedder().embed(texts)))
        self._lock = threading.Lock()
        self._searchers: dict[tuple[Any, ...], Batcher[np.ndarray, list[IndexHit]]] = {}

    def embed(self, text: str) -> np.ndarray:
        """The unit embedding of `text` (repeated queries are not embedded again)."""
        v = self._embeds.get(text)
        if v is None:
            v = self._embed(text)
            self._embeds.put(text, v)
        return v

    def search(self, text: str, k: int, types: Sequence[str] | None = None,
               min_score: float | None = None) -> list[IndexHit]:
        """Top-k node hits for `text`; the caller has checked the index's readiness for this request."""
        return self._searcher(k, tuple(types) if types else None, min_score)(self.embed(text))

    def _searcher(self, k: int, types: tuple[str, ...] | None,
                  min_score: float | None) -> Batcher[np.ndarray, list[IndexHit]]:
        key = (k, types, min_score)
        b = self._searchers.get(key)
        if b is None:
            with self._lock:
                b = self._searchers.get(key)
                if b is None:
                    search = self._node_search()
                    typed = cast("Sequence[NodeType] | None", types)
                    b = Batcher(lambda vecs: search.search_vectors(np.stack(vecs), k, typed, min_score, check=False))
                    if len(self._searchers) < self.MAX_SEARCHERS:
                        self._searchers[key] = b
        return b
