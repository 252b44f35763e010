"""Node briefs (key, type, name, level, one-line description) as the tools answer them, and their cache.

`BriefCache` keeps briefs by node key so node_search hits and random_nodes draws need no graph round trip;
`ToolContext` drops it whenever the graph version changes. A server keeps it warm: a background thread fills
it from the graph, and again after each change (`keep_warm`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from motivgraph.api.contract.models import NodeBrief, TripleOut
from motivgraph.api.services.lru import LockedLRU

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore
    from motivgraph.graph.models import NodeRecord, NodeRef, TripleView

log = logging.getLogger(__name__)

ONE_LINE_CHARS = 200
# After a graph change drops the node cache, how long before it is filled again (an ingest changes the graph
# every few seconds; a fill is one pass over every node).
REWARM_DELAY_S = 5.0


def one_line(text: str, limit: int = ONE_LINE_CHARS) -> str:
    """First sentence-ish of a description, on one line, at most `limit` characters."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    dot = cut.rfind(". ")
    if dot >= limit // 2:
        return cut[: dot + 1]
    return cut[: cut.rfind(" ") if " " in cut[limit // 2 :] else limit].rstrip(" ,;:") + "…"


def brief(ref: NodeRef | NodeRecord, *, full: bool = False) -> NodeBrief:
    return NodeBrief(
        key=ref.key, type=ref.type, name=ref.name, level=ref.level,
        description=ref.description if full else one_line(ref.description),
    )


def triple_out(t: TripleView) -> TripleOut:
    return TripleOut(problem=brief(t.problem), challenge=brief(t.challenge), solution=brief(t.solution),
                     papers=list(t.papers))


# The node cache holds a brief as a plain tuple of its fields: a third of a model instance's memory, and
# model_construct turns it back into one without validating again what the graph gave.
_BRIEF_FIELDS = tuple(NodeBrief.model_fields)


def _brief_row(b: NodeBrief) -> tuple[Any, ...]:
    return tuple(getattr(b, f) for f in _BRIEF_FIELDS)


class BriefCache:
    """Briefs by node key, read through from the graph; thread-safe. `store` is called for the graph store
    when one is needed (opening it lazily, as `ToolContext.store` does, with its error for a down backend)."""

    def __init__(self, size: int, store: Callable[[], GraphStore]) -> None:
        self.nodes = LockedLRU(size)
        self._store = store
        self._lock = threading.Lock()
        self._keep = False  # fill again after each clear (keep_warm)
        self._on_filled: Callable[[], None] | None = None  # keep_warm's hook, after each complete fill
        self._thread: threading.Thread | None = None
        self._refill = False

    def __len__(self) -> int:
        return len(self.nodes)

    def get(self, keys: Iterable[str]) -> dict[str, NodeBrief]:
        """NodeBrief per key; keys not in the graph are left out. The caller checks the graph version first."""
        out: dict[str, NodeBrief] = {}
        missing: list[str] = []
        for k in keys:
            row = self.nodes.get(k)
            if row is None:
                missing.append(k)
            else:
                out[k] = NodeBrief.model_construct(**dict(zip(_BRIEF_FIELDS, row, strict=True)))
        if missing:
            for rec in self._fetch(missing):
                b = brief(rec)
                self.nodes.put(rec.key, _brief_row(b))
                out[rec.key] = b
        return out

    def _fetch(self, keys: list[str]) -> list[NodeRecord]:
        return [r for r in self._store().get_nodes(keys) if r is not None]

    def clear(self) -> None:
        """Drop every brief (the graph changed); a fill running now puts nothing (and starts over)."""
        self.nodes.clear()

    def refill(self) -> None:
        """After a graph change: fill again when the cache is kept warm."""
        if self._keep:
            self.warm()

    @property
    def filling(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def keep_warm(self, on_filled: Callable[[], None] | None = None) -> None:
        """Fill the cache now and again after every clear (a server; a test's shared service decides itself).
        `on_filled` runs in the fill thread after each complete fill (the server settles its heap there)."""
        self._keep = True
        self._on_filled = on_filled
        self.warm()

    def warm(self) -> None:
        """Fill the cache from the graph in a background thread (one at a time), so node_search hits need no
        graph round trip. A clear during a fill makes it start over REWARM_DELAY_S later, and again while
        changes keep dropping it (an ingest changes the graph paper by paper)."""
        with self._lock:
            if self.nodes.size <= 0:
                return
            if self._thread is not None and self._thread.is_alive():
                self._refill = True
                return
            self._refill = False
            self._thread = threading.Thread(target=self._fill_loop, name="motivgraph-warm-briefs", daemon=True)
            self._thread.start()

    def _fill_loop(self) -> None:
        delay = 0.0
        while True:
            time.sleep(delay)
            delay = REWARM_DELAY_S
            if self._fill_once():
                with self._lock:
                    done = not self._refill
                    self._refill = False
                if done:
                    if self._on_filled is not None:
                        self._on_filled()
                    return
            if not self._keep:
                return

    def _fill_once(self) -> bool:
        """One pass over the graph's nodes into the cache; False when a clear dropped it meanwhile."""
        t0 = time.monotonic()
        generation = self.nodes.generation
        batch: list[tuple[str, tuple[Any, ...]]] = []
        put = 0
        try:
            for rec in self._store().iter_nodes():
                batch.append((rec.key, _brief_row(brief(rec))))
                if len(batch) >= 2000:
                    if not self.nodes.put_many(batch, generation):
                        return False
                    put += len(batch)
                    batch = []
                if put + len(batch) >= self.nodes.size:
                    break
            if not self.nodes.put_many(batch, generation):
                return False
        except Exception as e:  # a warm cache is an optimisation: a failure leaves requests on the graph
            log.warning("could not fill the node cache (%s: %s); briefs are read from the graph per request",
                        type(e).__name__, e)
            return True
        log.info("node cache warm: %d briefs in %.1fs", put + len(batch), time.monotonic() - t0)
        return True
