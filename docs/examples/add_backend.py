"""Worked example for docs/extending.md, "Add a graph backend": the six primitives a backend implements.

Every query, its parameters and how rows become records live in `CypherGraphStore`
(graph/backends/cypher.py, statements from graph/queries.py); a backend supplies its connection:
`_read`, `_write_tx`, `ensure_schema`, `_drop_all`, `ping` and `close`. A store for another Cypher
server implements them over that server's driver. To run here, this one implements them over the
connection of an existing store and records each statement with its time, which is also a way to see
what a command asks of the graph. `from_settings` is how `open_store` connects it once it is the
"graph_backends" part named by `MOTIVGRAPH_GRAPH_BACKEND`. tests/integration/docs/test_docs_examples.py runs the
whole backend conformance suite (tests/integration/graph/test_store_conformance.py) on it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from motivgraph.graph.backends.cypher import CypherGraphStore, Row, Statement
from motivgraph.graph.backends.falkordb import FalkorDBStore
from motivgraph.settings import Settings


class RecordingStore(CypherGraphStore):
    """A GraphStore whose primitives run on `inner`'s connection and are recorded in `statements`."""

    def __init__(self, inner: CypherGraphStore) -> None:
        super().__init__(batch_size=inner.batch_size)
        self.inner = inner
        # the Cypher dialect is the server's: the queries CypherGraphStore picks depend on it
        self.backend = inner.backend
        self.alias_index = inner.alias_index
        self.statements: list[tuple[str, str, float]] = []  # (read|write, first line, milliseconds)

    @classmethod
    def from_settings(cls, settings: Settings) -> RecordingStore:
        """The store `open_store(settings)` returns: here, recording over the configured FalkorDB's connection."""
        return cls(FalkorDBStore.from_settings(settings))

    def _timed(self, kind: str, query: str, fn: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn()
        finally:
            self.statements.append((kind, query.strip().splitlines()[0], (time.perf_counter() - t0) * 1e3))

    # ---- the six primitives
    def _read(self, query: str, params: dict[str, Any] | None = None) -> list[Row]:
        return self._timed("read", query, lambda: self.inner._read(query, params))

    def _write_tx(self, statements: Sequence[Statement]) -> list[list[Row]]:
        first = statements[0][0] if statements else ""
        return self._timed("write", first, lambda: self.inner._write_tx(statements))

    def ensure_schema(self) -> None:
        self.inner.ensure_schema()

    def _drop_all(self) -> None:
        self.inner._drop_all()

    def ping(self) -> None:
        self.inner.ping()

    def close(self) -> None:
        self.inner.close()
