"""The graph layer: GraphStore protocol, backends, node identity, vector index, interchange.

`open_store(settings)` is the one way to get a store: the backend named by `graph.backend`
(embedded/external FalkorDB by default, Neo4j when set), connected and with its schema ensured.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore
    from motivgraph.settings import Settings


def open_store(settings: Settings, *, ensure_schema: bool = True) -> GraphStore:
    """Connect to the configured graph backend. Raises BackendUnavailable (naming the setting to fix)
    when it cannot be reached and ConfigError when its settings are incomplete."""
    if settings.graph.backend == "neo4j":
        from motivgraph.graph.backends.neo4j import Neo4jStore  # local: optional extra

        store: GraphStore = Neo4jStore.from_settings(settings)
    else:
        from motivgraph.graph.backends.falkordb import FalkorDBStore  # local: light CLI path

        store = FalkorDBStore.from_settings(settings)
    if ensure_schema:
        try:
            store.ensure_schema()
        except BaseException:
            store.close()
            raise
    return store


__all__ = ["open_store"]
