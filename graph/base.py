"""The GraphStore protocol: what every backend (embedded FalkorDB, Neo4j) provides.

Backends live in `graph/backends/`, one module each; all Cypher lives in `graph/queries.py`
(dialect differences beside the backend that needs them). Every value is a query parameter.
Writes are idempotent: re-upserting the same paper or triple changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol, runtime_checkable

from graph.models import (
    GraphStats,
    NodeDetail,
    NodeRecord,
    NodeType,
    PaperRecord,
    ParentIn,
    TripleFilter,
    TripleIn,
    TriplePage,
    TripleView,
    UpsertResult,
)


@runtime_checkable
class GraphStore(Protocol):
    backend: str

    # lifecycle
    def ping(self) -> None:
        """Raise BackendUnavailable (naming the setting to fix) when the store is unreachable."""

    def ensure_schema(self) -> None:
        """Create uniqueness constraints / indexes idempotently."""

    def close(self) -> None: ...

    def clear(self) -> None:
        """Delete every node and relationship of this graph (tests, `graph import --replace`)."""

    # writes
    def upsert_papers(self, papers: Sequence[PaperRecord]) -> int: ...

    def upsert_triples(self, triples: Sequence[TripleIn]) -> UpsertResult:
        """MERGE nodes by key (new spellings become aliases), HAS_CHALLENGE / SOLVED_BY edges and
        Paper-[:STATES {triple_index, section, extractor}]->node provenance. Idempotent."""

    def add_aliases(self, key: str, aliases: Iterable[str]) -> int: ...

    def add_parents(self, parents: Sequence[ParentIn]) -> UpsertResult:
        """MERGE parent nodes (level >= 1) and PARENT_OF edges to existing children."""

    def restore_nodes(self, nodes: Sequence[NodeRecord]) -> int:
        """Write nodes exactly as given (name, description, aliases, level, created_at) — import."""

    # reads
    def get_node(self, key: str) -> NodeDetail | None: ...

    def find_nodes(self, name_or_key: str, types: Sequence[NodeType] | None = None) -> list[NodeRecord]:
        """Exact key, or name / alias equal after normalisation."""

    def random_nodes(
        self, n: int, types: Sequence[NodeType] | None = None, seed: int | None = None
    ) -> list[NodeRecord]:
        """n distinct nodes; the same seed on the same graph gives the same nodes."""

    def random_triples(self, n: int, seed: int | None = None) -> list[TripleView]: ...

    def page_triples(
        self, flt: TripleFilter | None = None, cursor: str | None = None, limit: int = 50
    ) -> TriplePage: ...

    def iter_nodes(self, types: Sequence[NodeType] | None = None, batch: int = 5000) -> Iterator[NodeRecord]: ...

    def get_paper(self, paper_id: str) -> PaperRecord | None: ...

    def iter_papers(self, batch: int = 5000) -> Iterator[PaperRecord]: ...

    def paper_triples(self, paper_id: str) -> list[TripleIn]:
        """The triples a paper states, with their provenance, as they were upserted (export)."""

    def iter_parents(self) -> Iterator[ParentIn]: ...

    def stats(self) -> GraphStats: ...

    def node_version(self) -> int:
        """Counter bumped whenever a node is created or its name/description changes; the vector
        index records it to detect staleness."""
