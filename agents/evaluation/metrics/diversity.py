"""Embedding diversity (SoIQ seed: 1 - mean pairwise cosine similarity among a topic's ideas); the harness
reports it over the whole idea text and over the motivation and the method texts separately."""

from __future__ import annotations

import math

import numpy as np


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim != 2:
        raise ValueError(f"expected a 2-D array of vectors, got shape {v.shape}")
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("a zero vector has no direction: cannot compute cosine similarity")
    return v / norms


def mean_pairwise_cosine(vectors: np.ndarray) -> float:
    """Mean cosine similarity over all distinct pairs (i < j); NaN with fewer than two vectors."""
    v = unit_rows(vectors)
    n = v.shape[0]
    if n < 2:
        return math.nan
    sims = v @ v.T
    iu = np.triu_indices(n, k=1)
    return float(sims[iu].mean())


def embedding_diversity(vectors: np.ndarray) -> float:
    """1 - mean pairwise cosine similarity of one topic's ideas (higher = more diverse)."""
    m = mean_pairwise_cosine(vectors)
    return math.nan if math.isnan(m) else 1.0 - m


def cosine_distance_matrix(vectors: np.ndarray) -> np.ndarray:
    """1 - cosine similarity for every pair (the embedding distance Creative Utility may use)."""
    v = unit_rows(vectors)
    return np.clip(1.0 - v @ v.T, 0.0, 2.0)
