"""The node vector searches `index.backend` names: the "index_backends" parts of motivgraph/plugins.py.

Each opens a `NodeSearchBackend` (graph/search_backends.py) for a process's `Runtime`, and reads its state without
loading the embedding model (`graph stats`, `reindex --check` and /health report it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from motivgraph.errors import ConfigError

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore
    from motivgraph.graph.grouped_index import IndexStatus
    from motivgraph.graph.runtime import Runtime
    from motivgraph.graph.search_backends import NodeSearchBackend
    from motivgraph.settings import Settings


class FaissBackend:
    """The FAISS `NodeIndex` in the data folder (default; any graph store): the runtime's own, so the tools and
    the commands that rebuild it share one loaded index."""

    def open(self, runtime: Runtime) -> NodeSearchBackend:
        return runtime.node_index

    def peek(self, settings: Settings, store: GraphStore) -> IndexStatus:
        from motivgraph.graph.vector_index import NodeIndex  # local: only the chosen backend's stack loads

        return NodeIndex.peek(settings, store)


class Neo4jBackend:
    """Neo4j's vector indexes (`Neo4jNodeVectors`), when the graph store is Neo4j."""

    def open(self, runtime: Runtime) -> NodeSearchBackend:
        from motivgraph.graph.neo4j_search import Neo4jNodeVectors  # local: only the chosen backend's stack loads

        settings = runtime.settings
        if settings.graph.backend != "neo4j":
            raise ConfigError("MOTIVGRAPH_INDEX_BACKEND=neo4j searches Neo4j's vector indexes, so it needs "
                              f"MOTIVGRAPH_GRAPH_BACKEND=neo4j (it is {settings.graph.backend!r}); "
                              "or set MOTIVGRAPH_INDEX_BACKEND=faiss")
        return Neo4jNodeVectors(settings, runtime.store, runtime.embedder)

    def peek(self, settings: Settings, store: GraphStore) -> IndexStatus:
        from motivgraph.graph.neo4j_search import Neo4jNodeVectors  # local: only the chosen backend's stack loads

        return Neo4jNodeVectors(settings, store, None).status()


FAISS = FaissBackend()
NEO4J = Neo4jBackend()
