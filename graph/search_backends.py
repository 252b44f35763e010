"""Where the tools search nodes by meaning: one small protocol, two interchangeable implementations.

`node_search`, `random_nodes(far_from=...)`, `transfer_candidates`, the did-you-mean suggestions and
`motivgraph search` need four things from a node vector search: its state (ok / stale / missing / corrupt,
with the fix), making it ready, top-k hits for query vectors, and the stored vectors of given nodes. The
FAISS `NodeIndex` (graph/vector_index.py; default, any graph store) and Neo4j's vector indexes
(`Neo4jNodeVectors` in graph/neo4j_search.py; `MOTIVGRAPH_INDEX_BACKEND=neo4j`, graph store on Neo4j) both
provide them, with the same text, model and cosine scores, so a tool's answer does not depend on which one
runs. Both satisfy the protocol as they are (structurally): no adapter sits between a tool and the index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from motivgraph import plugins

if TYPE_CHECKING:
    from motivgraph.choices import NodeType
    from motivgraph.graph.base import GraphStore
    from motivgraph.graph.grouped_index import IndexStatus
    from motivgraph.graph.runtime import Runtime
    from motivgraph.graph.vector_index import IndexHit
    from motivgraph.settings import Settings


class NodeSearchBackend(Protocol):
    """Node vector search as the tools use it. Scores are cosine similarities in [-1, 1]."""

    def status(self) -> IndexStatus:
        """The search's state and, when it is not ok, the command that fixes it."""
        ...

    def ensure_ready(self) -> None:
        """Rebuild (index.auto_rebuild) or raise IndexMissing / IndexStale / IndexCorrupt."""
        ...

    def search_vectors(self, vectors: np.ndarray, k: int, types: Sequence[NodeType] | None = None,
                       min_score: float | None = None, *, check: bool) -> list[list[IndexHit]]:
        """Top-k hits per unit query vector (rows of `vectors`), best first, merged across `types`.
        `check=False`: the caller checked readiness (status / ensure_ready) once for the request, and a
        stale index it chose to serve is searched; `check=True` runs `ensure_ready` first. Required here
        (the two implementations default differently for their direct callers), so a tool always says."""
        ...

    def vectors_for(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored unit vector of each node key; keys without one are left out."""
        ...


def node_index_status(settings: Settings, store: GraphStore) -> IndexStatus:
    """The state of the node search `index.backend` names, read without loading the embedding model: what
    `graph stats`, `reindex --check` and /health all report (graph/index_backends.py)."""
    status: IndexStatus = plugins.load("index_backends", settings.index.backend).peek(settings, store)
    return status


def open_node_search(runtime: Runtime) -> NodeSearchBackend:
    """The search named by `index.backend` (graph/index_backends.py); a clear ConfigError when its graph store
    cannot serve it."""
    search: NodeSearchBackend = plugins.load("index_backends", runtime.settings.index.backend).open(runtime)
    return search
