"""The GraphStore protocol: what every backend (embedded FalkorDB, Neo4j) provides.

Backends live in `graph/backends/`, one module each; all Cypher lives in `graph/queries.py`
(dialect differences beside the backend that needs them). Every value is a query parameter.
Writes are idempotent: re-upserting the same paper or triple changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, runtime_checkable

from motivgraph.choices import NodeType
from motivgraph.graph.models import (
    GraphStats,
    NodeDetail,
    NodeEvidence,
    NodePage,
    NodeRecord,
    PaperPage,
    PaperRecord,
    ParentIn,
    RemovalResult,
    TripleEvidence,
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
        """Delete every node and relationship of this graph (tests, `graph import --replace`); the
        schema stays and node_version moves past its old value (an older vector index looks stale)."""

    # writes
    def upsert_papers(self, papers: Sequence[PaperRecord]) -> int:
        """MERGE by paper_id and set the metadata (last write wins). Returns the number of new papers."""

    def upsert_triples(self, triples: Sequence[TripleIn]) -> UpsertResult:
        """MERGE nodes by key (new spellings become aliases; the first non-empty description is kept),
        HAS_CHALLENGE / SOLVED_BY edges (SOLVED_BY.problems records which P each C->S was stated for)
        and Paper-[:STATES {triple_index, role, section, extractor, mention}]->node provenance, each STATES
        edge holding its element's quotes (TripleIn.evidence; replaced on a re-upsert). Idempotent.
        ValueError (before anything is written) for a name with no letters/digits or a NodeIn.key of the
        wrong type. relationships_created counts STATES edges too."""

    def add_parents(self, parents: Sequence[ParentIn]) -> UpsertResult:
        """MERGE parent nodes (level >= 1) and PARENT_OF edges to existing children of the same type
        (missing children are skipped with a warning; a child of another type is a ValueError)."""

    def restore_nodes(self, nodes: Sequence[NodeRecord]) -> int:
        """Write nodes exactly as given (name, description, aliases, level, created_at, sources) —
        import. Returns the number of nodes created."""

    def remove_paper(self, paper_id: str, *, drop_paper: bool = True) -> RemovalResult:
        """Take one paper's contribution out: its STATES edges, its id from nodes' and edges' `sources`,
        aliases only its mentions gave, triples only it stated, nodes no paper states any more and
        parents left with no child; with `drop_paper` the Paper node too. Idempotent."""

    def retain_paper_triples(self, paper_id: str, triples: Sequence[TripleIn]) -> RemovalResult:
        """After a paper is written again (a second document of it, a re-run): take out its statements that
        `triples` do not make (other indexes, other nodes) with their quotes, and, as `remove_paper` does,
        what only they gave the graph. The Paper node and the kept statements stay. Idempotent."""

    def papers_stating(self, keys: Sequence[str]) -> set[str]:
        """Ids of the papers that state any of these node keys."""

    # reads
    def get_node(self, key: str, *, cap: int = 100, triples: int = 50) -> NodeDetail | None:
        """The node with typed neighbours (each list sorted by key, capped at `cap`), its source papers
        and up to `triples` stated triples through it; None for an unknown or malformed key."""

    def get_nodes(self, keys: Sequence[str]) -> list[NodeRecord | None]:
        """Full records for keys of any type, in the order given (None for a missing key), in one
        round trip per label — the API's hot path reads search hits this way."""

    def find_nodes(self, name_or_key: str, types: Sequence[NodeType] | None = None) -> list[NodeRecord]:
        """Exact key, or name / alias equal after normalisation; exact names first. ValueError for an
        unknown type."""

    def random_nodes(
        self, n: int, types: Sequence[NodeType] | None = None, seed: int | None = None
    ) -> list[NodeRecord]:
        """n distinct nodes; the same seed on the same graph gives the same nodes, and a larger n
        extends the same sequence (a window of the indexed `rnd` property from a seeded start)."""

    def random_node_keys(self, n: int, types: Sequence[NodeType] | None = None, seed: int | None = None) -> list[str]:
        """The keys random_nodes returns, in its order, without reading the records (for a caller that
        holds node briefs in memory)."""

    def random_triples(self, n: int, seed: int | None = None) -> list[TripleView]:
        """n distinct stated triples, one per challenge while there are enough; reproducible per seed."""

    def page_triples(
        self, flt: TripleFilter | None = None, cursor: str | None = None, limit: int = 50
    ) -> TriplePage:
        """Stated triples in a stable order (challenge `rnd`, then keys) with an opaque cursor;
        ValueError for a malformed cursor or parent key. limit is clamped to 1..1000."""

    def iter_nodes(self, types: Sequence[NodeType] | None = None, batch: int = 5000) -> Iterator[NodeRecord]: ...

    def page_nodes(self, types: Sequence[NodeType] | None = None, cursor: str | None = None,
                   limit: int = 50) -> NodePage:
        """Nodes by type then key with an opaque cursor; ValueError for a malformed cursor or unknown type."""

    def page_papers(self, cursor: str | None = None, limit: int = 50) -> PaperPage:
        """Papers in id order with an opaque cursor; ValueError for a malformed cursor."""

    def get_paper(self, paper_id: str) -> PaperRecord | None: ...

    def iter_papers(self, batch: int = 5000) -> Iterator[PaperRecord]: ...

    def paper_triples(self, paper_id: str) -> list[TripleIn]:
        """The triples a paper states, with their provenance, as they were upserted (export)."""

    def node_evidence(self, keys: Sequence[str], *, per_node: int = 5) -> dict[str, list[NodeEvidence]]:
        """For each existing key, up to `per_node` papers' statements of it with their quotes (verified
        statements first, then by paper id and triple index); one read per label. Keys with no
        statement (or unknown keys) map to an empty list."""

    def triple_evidence(self, triples: Sequence[tuple[str, str, str]], *,
                        per_triple: int = 5) -> list[list[TripleEvidence]]:
        """For each (problem key, challenge key, solution key), in the order given, up to `per_triple`
        papers' statements of that triple with their quotes per element; one read for the batch."""

    def iter_parents(self) -> Iterator[ParentIn]: ...

    def stats(self) -> GraphStats: ...

    def node_version(self) -> int:
        """Counter bumped whenever a node is created or its name/description changes; the vector
        index records it to detect staleness."""
