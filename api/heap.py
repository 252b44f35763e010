"""A server worker's long-lived heap, kept out of the garbage collector's full passes.

A worker holds on the order of a million long-lived objects: the node briefs of `api.node_cache` (three to four
objects a node), the node index's keys, the settings and models. CPython's full (generation-2) collection walks
every tracked object while it holds the GIL, so each pass stalls every request in flight. On the paper-scale graph
(75k nodes) a pass took 230-360 ms, 28 times in a 40-second run under hostile load (worst-case requests allocate
a lot and trigger them): that stall, not any one request, made normal node_search p99 8x its quiet value
(bench/bench_hostile.py, issue 41).

`gc.freeze()` moves every object that exists now into a permanent generation the collector no longer walks. A
frozen object is still freed by reference counting when dropped (the cache's rows are tuples of strings and
numbers: no reference cycles), so a cache replaced after a graph change is not leaked; only cyclic garbage among
frozen objects would wait, and the collection before the freeze keeps it out.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger(__name__)


def settle_long_lived() -> None:
    """Collect once, then freeze what survives: later full collections walk only what is allocated after now."""
    t0 = time.perf_counter()
    gc.collect()
    gc.freeze()
    log.info("long-lived heap settled: %d objects frozen out of full collections in %.0f ms",
             gc.get_freeze_count(), (time.perf_counter() - t0) * 1000)
