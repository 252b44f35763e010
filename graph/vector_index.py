"""FAISS vector index over graph nodes (`NodeIndex`), its hits (`IndexHit`) and the text a node is
embedded as (`node_text`).

Node text is `name + ": " + description`, embedded with the project's Embedder (unit vectors, so
inner product = cosine). One FAISS index per node type, so a type filter is exact rather than a
post-filter over a shared top-k. The graph is the source of truth: the index records the graph's
`node_version()` it was built from, and a stale, missing or unreadable index is reported
(IndexStale / IndexMissing / IndexCorrupt, each naming `motivgraph reindex`) or rebuilt when
`settings.index.auto_rebuild` is on — never searched silently.

What it shares with the paper index (`graph.paper_index.PaperIndex`) lives beside it: versioning,
staleness and rebuilds in `graph.grouped_index`, the on-disk generations and append log in
`graph.index_store`, FAISS build and search in `graph.faiss_groups`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel

from motivgraph.choices import NODE_TYPES, NodeType
from motivgraph.graph.grouped_index import GroupedIndex
from motivgraph.graph.identity import LABELS, check_type
from motivgraph.graph.models import NodeRef


class IndexHit(BaseModel):
    key: str
    type: NodeType
    name: str
    level: int = 0
    score: float


def node_text(name: str, description: str) -> str:
    """The text a node is embedded as (and what a query about it is best phrased like)."""
    return f"{name}: {description}" if description else name


class NodeIndex(GroupedIndex):
    """One FAISS index per node type over `name: description`. See the module doc."""

    GROUPS = NODE_TYPES
    SUBDIR = "nodes"
    WHAT = "node index"

    def graph_version(self) -> int:
        return int(self.store.node_version())

    def _group_totals(self) -> dict[str, int]:
        counts = self.store.stats().nodes
        return {t: int(counts.get(LABELS[t], 0)) for t in self.GROUPS}

    def _iter_items(self, group: str) -> Iterator[tuple[str, str, int, str]]:
        for n in self.store.iter_nodes(types=[group]):  # type: ignore[list-item]
            yield n.key, n.name, n.level, node_text(n.name, n.description)

    def add(
        self,
        nodes: Sequence[NodeRef],
        *,
        from_version: int | None = None,
        to_version: int | None = None,
        vectors: Sequence[np.ndarray | None] | None = None,
    ) -> int:
        """Add (or replace, by key) the given nodes; returns how many were added. `vectors`, aligned
        with `nodes`, are their embeddings of `node_text(name, description)` when the caller already
        computed them (the resolver does): only nodes without one are embedded here.

        Versioning, so the index is never silently wrong: pass `from_version` = the store's
        `node_version()` read *before* the writes that produced these nodes. If the index was
        built at exactly that version, it is stamped `to_version` (default: the store's version
        now) and stays "ok"; otherwise (or without `from_version`) its stamp is kept and it is
        reported stale until `motivgraph reindex`. A missing index is built from the graph."""

        def new_version(stamp: dict[str, Any]) -> int:
            old = stamp.get("graph_version")
            if from_version is not None and old == from_version:
                return int(to_version if to_version is not None else self.graph_version())
            return int(old) if old is not None else -1

        items = []
        for n in nodes:
            t = check_type(n.type)
            items.append((t, n.key, n.name, int(n.level), node_text(n.name, n.description)))
        return self._add_items(items, new_version, vectors)

    def remove(self, keys: Sequence[str], *, from_version: int | None = None, to_version: int | None = None) -> int:
        """Delete the vectors of these node keys (nodes removed from the graph); returns how many were
        in the index. Versioning as in `add`: stamped current only when the index was built at
        `from_version` (the store's version read before the removal), else it stays reported stale."""

        def new_version(stamp: dict[str, Any]) -> int:
            old = stamp.get("graph_version")
            if from_version is not None and old == from_version:
                return int(to_version if to_version is not None else self.graph_version())
            return int(old) if old is not None else -1

        return self._remove_items(keys, new_version)

    def search(
        self,
        text: str,
        k: int = 10,
        types: Sequence[NodeType] | None = None,
        min_score: float | None = None,
        *,
        check: bool = True,
    ) -> list[IndexHit]:
        """Top-k nodes by cosine similarity to `text`, best first, merged across the given types.
        `check=False` skips the staleness check (one graph query) for callers that did it."""
        return self.search_many([text], k, types, min_score, check=check)[0]

    def search_many(
        self,
        texts: Sequence[str],
        k: int = 10,
        types: Sequence[NodeType] | None = None,
        min_score: float | None = None,
        *,
        check: bool = True,
    ) -> list[list[IndexHit]]:
        """`search` for several texts at once (one embedding batch, one FAISS call per type)."""
        if not texts:
            return []
        return self.search_vectors(self.embedder.embed(list(texts)), k, types, min_score, check=check)

    def search_vectors(
        self,
        vectors: np.ndarray,
        k: int = 10,
        types: Sequence[NodeType] | None = None,
        min_score: float | None = None,
        *,
        check: bool = True,
    ) -> list[list[IndexHit]]:
        """`search` by unit query vectors (e.g. from `vectors_for`), one hit list per row."""
        names = [check_type(t) for t in types] if types else list(self.GROUPS)
        live, results = self._query(np.atleast_2d(vectors), k, names, min_score, check)
        return [
            [
                IndexHit(
                    key=live[g].ids[r], type=g, name=live[g].labels[r], level=live[g].levels[r],
                    score=s,
                )
                for s, g, r in hits
            ]
            for hits in results
        ]

    def vectors_for(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored embedding of each indexed node key (keys not indexed are left out)."""
        return self.vectors_of(keys)
