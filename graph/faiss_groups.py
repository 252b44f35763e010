"""The FAISS side of the grouped indexes (`graph.grouped_index.GroupedIndex`): a group's items and
the FAISS indexes over their rows (`Group`, made of `Part`s), which kind of index a group gets
(`choose_kind`: exact, or HNSW above `index.hnsw_threshold`), building one (`build_faiss`) and the top-k
search over groups (`search_groups`). Vectors are unit vectors, so inner product = cosine.

Apart from the on-disk store (`graph.index_store`) because both sides use one definition of a group:
the store rebuilds exact indexes from the stored vectors when it loads a generation, the grouped index
searches the groups it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import faiss
import numpy as np

from motivgraph.choices import IndexKind
from motivgraph.settings import IndexSettings


@dataclass(frozen=True)
class Part:
    """A run of rows [start, start + len(vectors)) of a group with its own FAISS index (local row ids)."""

    start: int
    vectors: np.ndarray
    index: Any  # faiss.Index


@dataclass
class Group:
    """One group's items, row-aligned (rows of deleted items stay until compaction, listed in `dead`):
    parts[0] is the generation's base, the rest were appended since. Treated as immutable once
    published, so a search holding it is never disturbed by a writer (writers build a new one)."""

    ids: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    levels: list[int] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)
    kind: IndexKind = "exact"  # of the base part; appended parts are exact
    pos: dict[str, int] = field(default_factory=dict)  # live id -> row
    dead: frozenset[int] = frozenset()
    dim: int = 0

    def __len__(self) -> int:
        return len(self.pos)

    @property
    def rows(self) -> int:
        return len(self.ids)

    @property
    def base_rows(self) -> int:
        return len(self.parts[0].vectors) if self.parts else 0

    @property
    def index(self) -> Any:
        """The base FAISS index."""
        return self.parts[0].index if self.parts else None

    def vector(self, row: int) -> np.ndarray:
        for p in reversed(self.parts):
            if row >= p.start:
                return p.vectors[row - p.start]
        raise IndexError(row)

    def all_vectors(self) -> np.ndarray:
        if not self.parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(self.parts) == 1:
            return self.parts[0].vectors
        return np.concatenate([p.vectors for p in self.parts])

    @classmethod
    def single(
        cls, ids: list[str], labels: list[str], levels: list[int], hashes: list[str], vectors: np.ndarray,
        kind: IndexKind, index: Any, dim: int,
    ) -> Group:
        return cls(ids=ids, labels=labels, levels=levels, hashes=hashes, parts=[Part(0, vectors, index)],
                   kind=kind, pos={k: i for i, k in enumerate(ids)}, dim=dim)


def choose_kind(cfg: IndexSettings, count: int) -> IndexKind:
    if cfg.kind == "auto":
        return "hnsw" if count > cfg.hnsw_threshold else "exact"
    return cfg.kind


def build_faiss(vectors: np.ndarray, kind: IndexKind, cfg: IndexSettings, dim: int) -> Any:
    if kind == "hnsw":
        hnsw = faiss.IndexHNSWFlat(dim, cfg.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efConstruction = cfg.hnsw_ef_construction
        hnsw.hnsw.efSearch = cfg.hnsw_ef_search
        index: faiss.Index = hnsw
    else:
        index = faiss.IndexFlatIP(dim)
    if len(vectors):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index


def search_groups(
    groups: dict[str, Group], names: Sequence[str], queries: np.ndarray, k: int, min_score: float | None
) -> list[list[tuple[float, str, int]]]:
    """Top-k (score, group, row) per query over the named groups (each part of each), merged best first.
    Deleted rows still in FAISS are over-fetched and dropped (compaction keeps them few)."""
    per_query: list[list[tuple[float, str, int]]] = [[] for _ in range(len(queries))]
    for g in names:
        grp = groups.get(g)
        if grp is None or not len(grp):
            continue
        dead = grp.dead
        for part in grp.parts:
            n = len(part.vectors)
            if not n:
                continue
            kk = min(k + len(dead), n)
            scores, rows = part.index.search(queries, kk)
            for qi in range(len(queries)):
                for s, r in zip(scores[qi], rows[qi], strict=True):
                    if r < 0:  # HNSW may return fewer than k
                        continue
                    row = part.start + int(r)
                    if row in dead:
                        continue
                    if min_score is not None and s < min_score:
                        continue
                    per_query[qi].append((float(s), g, row))
    for lst in per_query:
        # ties broken by id so results are deterministic
        lst.sort(key=lambda t: (-t[0], groups[t[1]].ids[t[2]]))
        del lst[k:]
    return per_query
