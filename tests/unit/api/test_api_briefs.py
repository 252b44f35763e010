"""The node brief cache (api/services/briefs.py) without a graph server: read-through by key, a warm fill from
the store, a clear dropping what a fill began before it, and size 0 turning it off."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence

from motivgraph.api.services import briefs
from motivgraph.api.services.briefs import BriefCache
from motivgraph.graph.models import NodeRecord


def _rec(i: int) -> NodeRecord:
    return NodeRecord(key=f"problem:p{i}", type="problem", name=f"P{i}", description=f"Problem {i}. " + "x " * 200)


class _Store:
    def __init__(self, n: int) -> None:
        self.nodes = {r.key: r for r in map(_rec, range(n))}
        self.reads: list[list[str]] = []
        self.fills = 0
        self.gate: threading.Event | None = None  # a fill waits on it after its first node
        self.fail = False

    def get_nodes(self, keys: Sequence[str]) -> list[NodeRecord | None]:
        self.reads.append(list(keys))
        return [self.nodes.get(k) for k in keys]

    def iter_nodes(self) -> Iterator[NodeRecord]:
        self.fills += 1
        if self.fail:
            raise ConnectionError("graph down")
        for i, r in enumerate(list(self.nodes.values())):
            if i == 1 and self.gate is not None:
                self.gate.wait(5)
            yield r


def _cache(store: _Store, size: int = 100) -> BriefCache:
    return BriefCache(size, lambda: store)  # type: ignore[arg-type,return-value]


def _wait(cond: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_briefs_are_read_once_then_served_from_the_cache() -> None:
    store = _Store(3)
    cache = _cache(store)
    got = cache.get(["problem:p0", "problem:p1", "problem:gone"])
    assert set(got) == {"problem:p0", "problem:p1"} and store.reads == [["problem:p0", "problem:p1", "problem:gone"]]
    d = got["problem:p0"].description  # one line, cut
    assert got["problem:p0"].name == "P0" and d.startswith("Problem 0. x") and len(d) <= briefs.ONE_LINE_CHARS + 1
    again = cache.get(["problem:p0", "problem:p2"])
    assert store.reads[1:] == [["problem:p2"]]  # p0 came from the cache
    assert again["problem:p0"] == got["problem:p0"] and len(cache) == 3


def test_keep_warm_fills_and_refills_after_a_clear(monkeypatch) -> None:
    monkeypatch.setattr(briefs, "REWARM_DELAY_S", 0.01)
    store = _Store(5)
    cache = _cache(store)
    cache.refill()  # not kept warm: nothing starts
    assert cache._thread is None
    cache.keep_warm()
    _wait(lambda: not cache.filling)
    assert len(cache) == 5 and store.fills == 1
    cache.get(["problem:p3"])
    assert store.reads == []
    cache.clear()
    assert len(cache) == 0
    cache.refill()
    _wait(lambda: len(cache) == 5 and not cache.filling)
    assert store.fills == 2


def test_a_fill_begun_before_a_clear_lands_nothing_and_starts_over(monkeypatch) -> None:
    monkeypatch.setattr(briefs, "REWARM_DELAY_S", 0.01)
    store = _Store(4)
    store.gate = threading.Event()
    cache = _cache(store, size=2)  # a fill stops at the cache's size
    cache.keep_warm()
    _wait(lambda: store.fills == 1)
    cache.clear()  # the graph changed while the fill read the old one
    store.gate.set()
    _wait(lambda: not cache.filling)
    assert store.fills == 2 and len(cache) == 2


def test_size_zero_holds_nothing_and_a_failing_fill_leaves_reads_to_the_graph() -> None:
    store = _Store(2)
    off = _cache(store, size=0)
    off.keep_warm()
    assert off._thread is None
    assert set(off.get(["problem:p0"])) == {"problem:p0"} and len(off) == 0

    store.fail = True
    cache = _cache(store)
    cache.keep_warm()
    _wait(lambda: not cache.filling)
    assert len(cache) == 0 and set(cache.get(["problem:p1"])) == {"problem:p1"}


def test_the_on_filled_hook_runs_after_each_complete_fill_only(monkeypatch) -> None:
    monkeypatch.setattr(briefs, "REWARM_DELAY_S", 0.01)
    store = _Store(4)
    store.gate = threading.Event()
    seen: list[int] = []
    cache = _cache(store, size=2)
    cache.keep_warm(on_filled=lambda: seen.append(len(cache)))
    _wait(lambda: store.fills == 1)
    cache.clear()  # this fill is cut short: no hook for it
    store.gate.set()
    _wait(lambda: not cache.filling)
    assert seen == [2]  # once, with the cache full
    cache.clear()
    cache.refill()
    _wait(lambda: len(seen) == 2 and not cache.filling)
    assert seen == [2, 2]
