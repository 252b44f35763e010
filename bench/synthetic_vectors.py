"""Synthetic clustered vectors for index benchmarks: a word model in place of an embedder.

Every word has a fixed random unit vector (seeded by the word, so independent of vocabulary order); a text is
the normalised sum of its words' vectors, and a node adds its description's words (weight DESC_WEIGHT) and its
own noise (NOISE). Texts that share words are near each other, as real sentence embeddings of them are, at no
model cost. Used by bench_scale (the 10x index), bench_api (`--vectors synthetic`) and bench_neo4j
(`--vectors words`). Changing the model changes bench_scale's cached datasets: bump its DATASET_VERSION.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

DIM = 384  # all-MiniLM-L6-v2
DESC_WEIGHT = 0.6
NOISE = 0.35
STOP = frozenset([
    "a", "an", "the", "of", "in", "on", "at", "for", "to", "and", "or", "by", "with", "over", "via", "is",
    "are", "be", "that", "this", "where", "which", "from", "across", "under", "between", "during", "within",
    "through", "using", "because", "matters", "arises", "based", "approach", "task", "difficulty", "such",
    "as", "it", "its", "their", "than", "into", "how",
])
WORD = re.compile(r"[a-z][a-z0-9'-]*")


class WordVectors:
    """Fixed random unit vector per word (seeded by the word, so independent of vocabulary order)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.index: dict[str, int] = {}
        self.rows: list[np.ndarray] = [np.zeros(DIM, dtype=np.float32)]  # row 0: padding

    def ids(self, text: str) -> list[int]:
        out = []
        for w in WORD.findall(text.lower()):
            if w in STOP:
                continue
            i = self.index.get(w)
            if i is None:
                rng = np.random.default_rng([self.seed, zlib.crc32(w.encode())])
                v = rng.standard_normal(DIM).astype(np.float32)
                self.rows.append(v / np.linalg.norm(v))
                i = self.index[w] = len(self.rows) - 1
            out.append(i)
        return out

    def matrix(self) -> np.ndarray:
        return np.stack(self.rows)


def bag(word_matrix: np.ndarray, id_lists: list[list[int]]) -> np.ndarray:
    """Row i = sum of the word vectors of id_lists[i] / sqrt(len) (norm ~1 for unrelated words)."""
    width = max((len(x) for x in id_lists), default=1) or 1
    pad = np.zeros((len(id_lists), width), dtype=np.int32)
    for i, ids in enumerate(id_lists):
        pad[i, : len(ids)] = ids
    lens = np.maximum(1, np.array([len(x) for x in id_lists], dtype=np.float32))
    return word_matrix[pad].sum(axis=1) / np.sqrt(lens)[:, None]


def vectorise(wv: WordVectors, names: Sequence[str], descs: Sequence[str] | None, rng: np.random.Generator,
              chunk: int = 4096) -> np.ndarray:
    """Unit vectors for (name, description) pairs under the word model, with per-item noise."""
    name_ids = [wv.ids(n) for n in names]
    desc_ids = [wv.ids(d) for d in descs] if descs is not None else None
    wm = wv.matrix()
    out = np.empty((len(names), DIM), dtype=np.float32)
    for s in range(0, len(names), chunk):
        e = min(len(names), s + chunk)
        v = bag(wm, name_ids[s:e])
        if desc_ids is not None:
            v += DESC_WEIGHT * bag(wm, desc_ids[s:e])
        noise = rng.standard_normal((e - s, DIM)).astype(np.float32)
        v += NOISE * noise / np.linalg.norm(noise, axis=1, keepdims=True)
        out[s:e] = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def make_group(cls: Any, ids: list[str], labels: list[str], levels: list[int], vectors: np.ndarray, kind: str,
               index: Any) -> Any:
    """A vector_index Group holding one prebuilt FAISS index (the layout of either index format)."""
    if hasattr(cls, "single"):  # format 2: parts + text hashes (no hash: never reused by a rebuild)
        return cls.single(ids, labels, levels, [""] * len(ids), vectors, kind, index, DIM)
    return cls(ids=ids, labels=labels, levels=levels, vectors=vectors, kind=kind, index=index,
               pos={k: i for i, k in enumerate(ids)})
