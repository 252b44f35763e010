"""The graph layer: GraphStore protocol, backends, node identity, vector index, interchange.

`open_store(settings)` is the one way to get a store: the "graph_backends" part (motivgraph/plugins.py) named
by `graph.backend` (embedded/external FalkorDB by default, Neo4j when set), connected and with its schema ensured.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from motivgraph import plugins

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore
    from motivgraph.settings import Settings


def open_store(settings: Settings, *, ensure_schema: bool = True) -> GraphStore:
    """Connect to the configured graph backend. Raises BackendUnavailable (naming the setting to fix)
    when it cannot be reached and ConfigError when its settings are incomplete."""
    # the backend's module is imported here, on first use: a light CLI path imports no graph driver
    store: GraphStore = plugins.load("graph_backends", settings.graph.backend).from_settings(settings)
    if ensure_schema:
        try:
            store.ensure_schema()
        except BaseException:
            store.close()
            raise
    return store


__all__ = ["open_store"]
