"""Lazily opened services for one process (CLI command, API server, agent run).

Each property opens its service on first use, so a command only pays for what it touches
(the embedding model alone takes seconds to load).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from motivgraph.graph import open_store

if TYPE_CHECKING:
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.base import GraphStore
    from motivgraph.graph.paper_index import PaperIndex
    from motivgraph.graph.vector_index import NodeIndex
    from motivgraph.settings import Settings


class Runtime:
    def __init__(self, settings: Settings | None = None) -> None:
        if settings is None:
            from motivgraph.settings import get_settings  # local: light CLI path (`search --help` needs no settings)

            settings = get_settings()
        self.settings = settings

    @cached_property
    def store(self) -> GraphStore:
        return open_store(self.settings)

    @cached_property
    def embedder(self) -> Embedder:
        from motivgraph.embeddings import get_embedder  # local: light CLI path

        return get_embedder(self.settings.embedding)

    @cached_property
    def node_index(self) -> NodeIndex:
        from motivgraph.graph.vector_index import NodeIndex  # local: light CLI path

        return NodeIndex.open(self.settings, self.store, self.embedder)

    @cached_property
    def paper_index(self) -> PaperIndex:
        from motivgraph.graph.paper_index import PaperIndex  # local: light CLI path

        return PaperIndex.open(self.settings, self.store, self.embedder)

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()
