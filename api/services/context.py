"""What every tool needs, opened once per process: store, node search, embedder, paper search, literature
sources; and the graph version that the node brief cache (`BriefCache`, briefs.py) and the index state follow.
Query embeddings and node searches go through `BatchedQueries` (batching.py).

The graph version is read at most once per `version_ttl_s` (one O(1) query), so a request costs no
extra round trip for the staleness check, yet a graph changed by another process (an ingest while
the API serves) is noticed within that interval: the node cache is dropped and the index state
re-read. A stale index is still searched but every result says so (`index_stale`); a missing or
unreadable one is a 503 naming `motivgraph reindex`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from motivgraph.api.services.batching import BatchedQueries
from motivgraph.api.services.briefs import BriefCache
from motivgraph.errors import NOTHING_TO_SEARCH, BackendUnavailable, IndexCorrupt, IndexMissing, MotivGraphError
from motivgraph.graph.runtime import Runtime
from motivgraph.graph.search_backends import open_node_search
from motivgraph.settings import Settings
from motivgraph.sources.semantic_scholar import client_from_settings

if TYPE_CHECKING:
    from motivgraph.api.contract.models import NodeBrief
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.base import GraphStore
    from motivgraph.graph.grouped_index import IndexStatus
    from motivgraph.graph.paper_index import PaperIndex
    from motivgraph.graph.search_backends import NodeSearchBackend
    from motivgraph.graph.vector_index import IndexHit

log = logging.getLogger(__name__)


class ToolContext:
    """Shared state of the tool services; thread-safe (the API runs sync routes in a thread pool)."""

    def __init__(
        self,
        runtime: Runtime | Settings | None = None,
        *,
        source_clients: Mapping[str, Any] | None = None,
        version_ttl_s: float | None = None,
        node_cache_size: int | None = None,
    ) -> None:
        self.runtime = runtime if isinstance(runtime, Runtime) else Runtime(runtime)
        self.settings = self.runtime.settings
        self.version_ttl_s = self.settings.api.version_check_s if version_ttl_s is None else version_ttl_s
        # the caller's clients by source key (`source_client(key)`), used as they are: a test replays recorded
        # answers through one; the others are made from settings per event loop
        self._sources_given = dict(source_clients or {})
        # S2's client, given or made; its owner (ToolService.close, the app's lifespan) closes it
        self._s2_client: Any = self._sources_given.get("semantic_scholar")
        self._s2_loop: Any = None
        self._sources: dict[str, tuple[Any, Any]] = {}  # other literature sources: key -> (loop, client)
        self._lock = threading.Lock()
        self._version: int | None = None
        self._version_at = 0.0
        self._index_status: IndexStatus | None = None
        self._status_at = 0.0
        self.brief_cache = BriefCache(self.settings.api.node_cache if node_cache_size is None else node_cache_size,
                                      lambda: self.store)
        self.queries = BatchedQueries(lambda: self.embedder, lambda: self.node_search)
        self._warned_stale: int | None = None

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

        return open_node_search(self.runtime)

    @property
    def paper_index(self) -> PaperIndex:
        return self.runtime.paper_index

    @property
    def s2_client(self) -> Any:
        """The given S2 client, or one made from settings per event loop (an httpx AsyncClient's
        connections belong to the loop that opened them; agents may run several loops in turn)."""
        if "semantic_scholar" in self._sources_given:
            return self._s2_client

        loop = asyncio.get_running_loop()
        with self._lock:
            if self._s2_client is None or self._s2_loop is not loop:
                self._s2_client, self._s2_loop = client_from_settings(self.settings), loop
            return self._s2_client

    def source_client(self, key: str, make: Callable[[Settings], Any]) -> Any:
        """The client of outbound literature source `key` (`semantic_scholar`, `openalex`, `arxiv`): the given
        one, else `make(settings)` once per event loop, like `s2_client`; None when that source is disabled."""
        if key == "semantic_scholar":
            return self.s2_client
        if key in self._sources_given:
            return self._sources_given[key]

        loop = asyncio.get_running_loop()
        with self._lock:
            held = self._sources.get(key)
            if held is None or held[0] is not loop:
                held = self._sources[key] = (loop, make(self.settings))
            return held[1]

    async def aclose_sources(self) -> None:
        """Close the literature source clients this context made on the running loop (a client's connections
        belong to the loop that opened them; S2's is closed by its owner, as before)."""

        loop = asyncio.get_running_loop()
        with self._lock:
            mine = [c for held_loop, c in self._sources.values() if held_loop is loop]
            self._sources = {k: v for k, v in self._sources.items() if v[0] is not loop}
        for client in mine:
            aclose = getattr(client, "aclose", None)
            if aclose is not None:
                await aclose()

    # ------------------------------------------------------------------------------ versions
    def graph_version(self, *, fresh: bool = False) -> int:
        now = time.monotonic()
        if fresh or self._version is None or now - self._version_at > self.version_ttl_s:
            v = int(self.store.node_version())
            with self._lock:
                if v != self._version:
                    if self._version is not None:
                        log.info("graph version %s -> %s; node cache dropped", self._version, v)
                    self.brief_cache.clear()
                    self._index_status = None
                    changed = self._version is not None
                else:
                    changed = False
                self._version, self._version_at = v, now
            if changed:
                self.brief_cache.refill()
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
    def search(
        self, text: str, k: int, types: Sequence[str] | None = None, min_score: float | None = None
    ) -> tuple[list[IndexHit], bool]:
        """Top-k node hits for `text` (embedding and search batched across requests), and whether the index
        searched is stale."""
        stale = self.ready_index()
        return self.queries.search(text, k, types, min_score), stale

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
        return self.brief_cache.get(keys)
