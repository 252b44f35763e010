"""What every tool needs, opened once per process: store, node index, embedder, paper search, S2.

The graph version is read at most once per `version_ttl_s` (one O(1) query), so a request costs no
extra round trip for the staleness check, yet a graph changed by another process (an ingest while
the API serves) is noticed within that interval: the node cache is dropped and the index state
re-read. A stale index is still searched but every result says so (`index_stale`); a missing or
unreadable one is a 503 naming `motivgraph reindex`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from cachetools import LRUCache

from motivgraph.api.contract.models import NodeBrief, TripleOut
from motivgraph.api.services.batching import Batcher
from motivgraph.errors import NOTHING_TO_SEARCH, BackendUnavailable, IndexCorrupt, IndexMissing, MotivGraphError
from motivgraph.graph.runtime import Runtime
from motivgraph.settings import Settings

if TYPE_CHECKING:
    from motivgraph.api.services.search_backend import NodeSearchBackend
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.base import GraphStore
    from motivgraph.graph.grouped_index import IndexStatus
    from motivgraph.graph.models import NodeRecord, NodeRef, NodeType, TripleView
    from motivgraph.graph.paper_index import PaperIndex
    from motivgraph.graph.vector_index import IndexHit

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


# The node cache holds a brief as a plain tuple of its fields: a third of a model instance's memory, and
# model_construct turns it back into one without validating again what the graph gave.
_BRIEF_FIELDS = tuple(NodeBrief.model_fields)


def _brief_row(b: NodeBrief) -> tuple[Any, ...]:
    return tuple(getattr(b, f) for f in _BRIEF_FIELDS)


def triple_out(t: TripleView) -> TripleOut:
    return TripleOut(problem=brief(t.problem), challenge=brief(t.challenge), solution=brief(t.solution),
                     papers=list(t.papers))


class _LRU:
    """cachetools' LRUCache behind a lock (the API runs sync routes in a thread pool)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._d: LRUCache[Any, Any] = LRUCache(maxsize=max(1, size))
        self._lock = threading.Lock()
        self.generation = 0  # bumped by clear(): a fill begun before a clear must not land after it

    def __len__(self) -> int:
        return len(self._d)

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


class ToolContext:
    """Shared state of the tool services; thread-safe (the API runs sync routes in a thread pool)."""

    def __init__(
        self,
        runtime: Runtime | Settings | None = None,
        *,
        s2_client: Any = None,
        version_ttl_s: float | None = None,
        node_cache_size: int | None = None,
    ) -> None:
        self.runtime = runtime if isinstance(runtime, Runtime) else Runtime(runtime)
        self.settings = self.runtime.settings
        self.version_ttl_s = self.settings.api.version_check_s if version_ttl_s is None else version_ttl_s
        self._s2_client = s2_client
        self._s2_injected = s2_client is not None
        self._s2_loop: Any = None
        self._sources: dict[str, tuple[Any, Any]] = {}  # other literature sources: key -> (loop, client)
        self._sources_injected: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._version: int | None = None
        self._version_at = 0.0
        self._index_status: IndexStatus | None = None
        self._status_at = 0.0
        self._nodes = _LRU(self.settings.api.node_cache if node_cache_size is None else node_cache_size)
        self.keep_warm = False  # fill the brief cache from the graph, now and after each change (warm_briefs)
        self._warming: threading.Thread | None = None
        self._rewarm = False
        self._embeds = _LRU(2048)
        self._warned_stale: int | None = None
        self._searchers: dict[tuple[Any, ...], Batcher] = {}

    # ------------------------------------------------------------------------------ services
    @property
    def store(self) -> GraphStore:
        try:
            return self.runtime.store
        except MotivGraphError:
            raise
        except Exception as e:  # a backend SDK failing to connect raises its own types
            raise BackendUnavailable(f"The graph store could not be opened: {e}") from e

    @property
    def embedder(self) -> Embedder:
        return self.runtime.embedder

    @cached_property
    def node_search(self) -> NodeSearchBackend:
        """The node vector search named by index.backend: the FAISS index or Neo4j's vector indexes."""
        from motivgraph.api.services.search_backend import open_node_search

        return open_node_search(self.runtime)

    @property
    def node_index(self) -> NodeSearchBackend:
        """Older name of `node_search` (kept for callers that reach the vectors through it)."""
        return self.node_search

    @property
    def paper_index(self) -> PaperIndex:
        return self.runtime.paper_index

    @property
    def s2_client(self) -> Any:
        """The injected S2 client, or one made from settings per event loop (an httpx AsyncClient's
        connections belong to the loop that opened them; agents may run several loops in turn)."""
        if self._s2_injected:
            return self._s2_client
        import asyncio

        loop = asyncio.get_running_loop()
        with self._lock:
            if self._s2_client is None or self._s2_loop is not loop:
                from motivgraph.sources.semantic_scholar import client_from_settings

                self._s2_client, self._s2_loop = client_from_settings(self.settings), loop
            return self._s2_client

    def source_client(self, key: str, make: Callable[[Settings], Any]) -> Any:
        """The client of outbound literature source `key` (`semantic_scholar`, `openalex`, `arxiv`): an injected
        one, else `make(settings)` once per event loop, like `s2_client`; None when that source is disabled."""
        if key == "semantic_scholar":
            return self.s2_client
        if key in self._sources_injected:
            return self._sources_injected[key]
        import asyncio

        loop = asyncio.get_running_loop()
        with self._lock:
            held = self._sources.get(key)
            if held is None or held[0] is not loop:
                held = self._sources[key] = (loop, make(self.settings))
            return held[1]

    async def aclose_sources(self) -> None:
        """Close the literature source clients this context made on the running loop (a client's connections
        belong to the loop that opened them; S2's is closed by its owner, as before)."""
        import asyncio

        loop = asyncio.get_running_loop()
        with self._lock:
            mine = [c for held_loop, c in self._sources.values() if held_loop is loop]
            self._sources = {k: v for k, v in self._sources.items() if v[0] is not loop}
        for client in mine:
            aclose = getattr(client, "aclose", None)
            if aclose is not None:
                await aclose()

    def use_source_client(self, key: str, client: Any) -> None:
        """Answer literature source `key` with this client (tests replay recorded answers through one)."""
        if key == "semantic_scholar":
            self._s2_client, self._s2_injected = client, True
        else:
            self._sources_injected[key] = client

    # ------------------------------------------------------------------------------ versions
    def graph_version(self, *, fresh: bool = False) -> int:
        now = time.monotonic()
        if fresh or self._version is None or now - self._version_at > self.version_ttl_s:
            v = int(self.store.node_version())
            with self._lock:
                if v != self._version:
                    if self._version is not None:
                        log.info("graph version %s -> %s; node cache dropped", self._version, v)
                    self._nodes.clear()
                    self._index_status = None
                    changed = self._version is not None
                else:
                    changed = False
                self._version, self._version_at = v, now
            if changed and self.keep_warm:
                self.warm_briefs()
        return self._version

    def index_status(self, *, fresh: bool = False) -> IndexStatus:
        self.graph_version(fresh=fresh)
        now = time.monotonic()
        st = self._index_status
        if fresh or st is None or now - self._status_at > self.version_ttl_s:
            st = self.node_search.status()
            with self._lock:
                self._index_status, self._status_at = st, now
        return st

    def ready_index(self) -> bool:
        """Make sure the node index can be searched; True when it is stale (searched, and flagged)."""
        st = self.index_status()
        if st.state == "ok":
            return False
        if self.settings.index.auto_rebuild:
            self.node_search.ensure_ready()
            st = self.index_status(fresh=True)
            return st.state == "stale"
        if st.state == "stale":
            if self._warned_stale != st.graph_version:
                self._warned_stale = st.graph_version
                log.warning("%s (serving the stale index, flagged in every result)", st.message)
            return True
        if st.state == "missing" and not self._has_searchable_nodes():
            raise IndexMissing(NOTHING_TO_SEARCH)
        raise (IndexMissing if st.state == "missing" else IndexCorrupt)(st.message)

    def _has_searchable_nodes(self) -> bool:
        """Whether the graph holds any problem, challenge or solution node (asked only when the index is
        missing: then `reindex` is the fix only if there is something to index)."""
        try:
            return self.store.stats().searchable_nodes > 0
        except MotivGraphError:
            return True  # cannot tell: keep the index's own advice

    # ------------------------------------------------------------------------------ search
    def embed(self, text: str) -> np.ndarray:
        v = self._embeds.get(text)
        if v is None:
            v = self._embed_batcher(text)
            self._embeds.put(text, v)
        return v

    @cached_property
    def _embed_batcher(self) -> Batcher[str, np.ndarray]:
        return Batcher(lambda texts: list(self.embedder.embed(texts)))

    def _search_batcher(self, k: int, types: tuple[str, ...] | None, min_score: float | None) -> Batcher:
        key = (k, types, min_score)
        b = self._searchers.get(key)
        if b is None:
            with self._lock:
                b = self._searchers.get(key)
                if b is None:
                    search = self.node_search
                    typed = cast("Sequence[NodeType] | None", types)
                    b = Batcher(lambda vecs: search.search_vectors(np.stack(vecs), k, typed, min_score))
                    if len(self._searchers) < 256:  # bounded: parameters come from clients
                        self._searchers[key] = b
        return b

    def search(
        self, text: str, k: int, types: Sequence[str] | None = None, min_score: float | None = None
    ) -> tuple[list[IndexHit], bool]:
        stale = self.ready_index()
        hits = self._search_batcher(k, tuple(types) if types else None, min_score)(self.embed(text))
        return hits, stale

    def suggestions(self, text: str, k: int = 5, types: Sequence[str] | None = None) -> list[str]:
        """Names of nodes close to `text` (did you mean); empty when the index cannot answer."""
        try:
            hits, _ = self.search(text, k, types, min_score=0.3)
        except MotivGraphError as e:
            log.debug("no suggestions for %r: %s", text, e)
            return []
        return list(dict.fromkeys(h.name for h in hits))

    # ------------------------------------------------------------------------------ nodes
    def briefs(self, keys: Iterable[str]) -> dict[str, NodeBrief]:
        """NodeBrief per key (keys not in the graph are left out), from a cache dropped whenever
        the graph version changes."""
        self.graph_version()
        out: dict[str, NodeBrief] = {}
        missing: list[str] = []
        for k in keys:
            row = self._nodes.get(k)
            if row is None:
                missing.append(k)
            else:
                out[k] = NodeBrief.model_construct(**dict(zip(_BRIEF_FIELDS, row, strict=True)))
        if missing:
            for rec in self._fetch(missing):
                b = brief(rec)
                self._nodes.put(rec.key, _brief_row(b))
                out[rec.key] = b
        return out

    @property
    def cached_briefs(self) -> int:
        return len(self._nodes)

    @property
    def filling_briefs(self) -> bool:
        return self._warming is not None and self._warming.is_alive()

    def warm_briefs(self) -> None:
        """Fill the brief cache from the graph in a background thread (one at a time), so node_search hits
        need no graph round trip. A graph change drops the cache; the fill then starts over REWARM_DELAY_S
        later, and again while changes keep dropping it (an ingest changes the graph paper by paper)."""
        with self._lock:
            if self._nodes.size <= 0:
                return
            if self._warming is not None and self._warming.is_alive():
                self._rewarm = True
                return
            self._rewarm = False
            self._warming = threading.Thread(target=self._fill_briefs, name="motivgraph-warm-briefs", daemon=True)
            self._warming.start()

    def _fill_briefs(self) -> None:
        delay = 0.0
        while True:
            time.sleep(delay)
            delay = REWARM_DELAY_S
            if self._fill_once():
                with self._lock:
                    if not self._rewarm:
                        return
                    self._rewarm = False
            if not self.keep_warm:
                return

    def _fill_once(self) -> bool:
        """One pass over the graph's nodes into the cache; False when a graph change dropped it meanwhile."""
        t0 = time.monotonic()
        generation = self._nodes.generation
        batch: list[tuple[str, tuple[Any, ...]]] = []
        put = 0
        try:
            for rec in self.store.iter_nodes():
                batch.append((rec.key, _brief_row(brief(rec))))
                if len(batch) >= 2000:
                    if not self._nodes.put_many(batch, generation):
                        return False
                    put += len(batch)
                    batch = []
                if put + len(batch) >= self._nodes.size:
                    break
            if not self._nodes.put_many(batch, generation):
                return False
        except Exception as e:  # a warm cache is an optimisation: a failure leaves requests on the graph
            log.warning("could not fill the node cache (%s: %s); briefs are read from the graph per request",
                        type(e).__name__, e)
            return True
        log.info("node cache warm: %d briefs in %.1fs", put + len(batch), time.monotonic() - t0)
        return True

    def _fetch(self, keys: list[str]) -> list[NodeRecord]:
        return [r for r in self.store.get_nodes(keys) if r is not None]
