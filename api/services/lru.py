"""A least-recently-used cache the API's worker threads share (node briefs, query embeddings)."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from cachetools import LRUCache


class LockedLRU:
    """cachetools' LRUCache behind a lock (the API runs sync routes in a thread pool); size 0 holds nothing."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._d: LRUCache[Any, Any] = LRUCache(maxsize=max(1, size))
        self._lock = threading.Lock()
        self.generation = 0  # bumped by clear(): a fill begun before a clear must not land after it

    def __len__(self) -> int:
        return len(self._d)

    def __contains__(self, key: Any) -> bool:
        with self._lock:
            return key in self._d

    def get(self, key: Any) -> Any:
        with self._lock:
            return self._d.get(key)

    def put(self, key: Any, value: Any) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._d[key] = value

    def put_many(self, items: Iterable[tuple[Any, Any]], generation: int) -> bool:
        """Put `items` unless the cache was cleared since `generation`; False (nothing put) then."""
        if self.size <= 0:
            return False
        with self._lock:
            if self.generation != generation:
                return False
            for key, value in items:
                self._d[key] = value
            return True

    def clear(self) -> None:
        with self._lock:
            self._d.clear()
            self.generation += 1
