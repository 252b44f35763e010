"""Where the tools search nodes by meaning: one small interface, two interchangeable backends.

`node_search`, `random_nodes(far_from=...)`, `transfer_candidates` and the did-you-mean suggestions
need four things from a node vector search: its state (ok / stale / missing / corrupt, with the fix),
making it ready, top-k hits for query vectors, and the stored vectors of given nodes. The FAISS
`NodeIndex` (default, any graph store) and Neo4j's vector indexes (`MOTIVGRAPH_INDEX_BACKEND=neo4j`,
graph store on Neo4j) both provide them, with the same text, model and cosine scores, so a tool's
answer does not depend on which one runs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from motivgraph.errors import ConfigError

if TYPE_CHECKING:
    from motivgraph.graph.grouped_index import IndexStatus
    from motivgraph.graph.models import NodeType
    from motivgraph.graph.neo4j_search import Neo4jNodeVectors
    from motivgraph.graph.runtime import Runtime
    from motivgraph.graph.vector_index import IndexHit, NodeIndex


class NodeSearchBackend(ABC):
    """Node vector search as the tools use it. Scores are cosine similarities in [-1, 1]."""

    name: str

    @abstractmethod
    def status(self) -> IndexStatus:
        """The search's state and, when it is not ok, the command that fixes it."""

    @abstractmethod
    def ensure_ready(self) -> None:
        """Rebuild (index.auto_rebuild) or raise IndexMissing / IndexStale / IndexCorrupt."""

    @abstractmethod
    def search_vectors(self, vectors: np.ndarray, k: int, types: Sequence[NodeType] | None = None,
                       min_score: float | None = None) -> list[list[IndexHit]]:
        """Top-k hits per unit query vector (rows of `vectors`), best first, merged across `types`.
        The caller has checked readiness (status / ensure_ready) once for the request."""

    @abstractmethod
    def vectors_for(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored unit vector of each node key; keys without one are left out."""


class FaissNodeSearch(NodeSearchBackend):
    name = "faiss"

    def __init__(self, index: NodeIndex) -> None:
        self.index = index

    def status(self) -> IndexStatus:
        return self.index.status()

    def ensure_ready(self) -> None:
        self.index.ensure_ready()

    def search_vectors(self, vectors: np.ndarray, k: int, types: Sequence[NodeType] | None = None,
                       min_score: float | None = None) -> list[list[IndexHit]]:
        return self.index.search_vectors(vectors, k, types, min_score, check=False)

    def vectors_for(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        return self.index.vectors_for(keys)


class Neo4jNodeSearch(NodeSearchBackend):
    name = "neo4j"

    def __init__(self, vectors: Neo4jNodeVectors) -> None:
        self.vectors = vectors

    def status(self) -> IndexStatus:
        return self.vectors.status()

    def ensure_ready(self) -> None:
        self.vectors.ensure_ready()

    def search_vectors(self, vectors: np.ndarray, k: int, types: Sequence[NodeType] | None = None,
                       min_score: float | None = None) -> list[list[IndexHit]]:
        return self.vectors.search_vectors(vectors, k, types, min_score)

    def vectors_for(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        return self.vectors.vectors_for(keys)


def open_node_search(runtime: Runtime) -> NodeSearchBackend:
    """The backend named by `index.backend`; a clear ConfigError when its graph store cannot serve it."""
    settings = runtime.settings
    if settings.index.backend == "neo4j":
        if settings.graph.backend != "neo4j":
            raise ConfigError("MOTIVGRAPH_INDEX_BACKEND=neo4j searches Neo4j's vector indexes, so it needs "
                              f"MOTIVGRAPH_GRAPH_BACKEND=neo4j (it is {settings.graph.backend!r}); "
                              "or set MOTIVGRAPH_INDEX_BACKEND=faiss")
        from motivgraph.graph.neo4j_search import Neo4jNodeVectors

        return Neo4jNodeSearch(Neo4jNodeVectors(settings, runtime.store, runtime.embedder))
    return FaissNodeSearch(runtime.node_index)
