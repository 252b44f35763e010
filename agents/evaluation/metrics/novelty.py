"""Computable novelty (MindFlow seed): semantic divergence of an idea from its nearest papers.

novelty = 1 - mean cosine similarity to the `k` most similar background papers (k=1: the nearest).
Computed for motivation and method text separately; the overall novelty is their mean.
"""

from __future__ import annotations

import numpy as np

from motivgraph.agents.evaluation.metrics.diversity import unit_rows


def computable_novelty(idea: np.ndarray, papers: np.ndarray, *, k: int = 1) -> float:
    """1 - mean of the top-k cosine similarities between one idea vector and the paper vectors."""
    if k < 1:
        raise ValueError("k must be at least 1")
    p = unit_rows(papers)
    if p.shape[0] == 0:
        raise ValueError("no background papers to compare with")
    q = unit_rows(np.asarray(idea, dtype=np.float64).reshape(1, -1))[0]
    sims = np.sort(p @ q)[::-1][: min(k, p.shape[0])]
    return float(1.0 - sims.mean())


def field_novelty(motivation: np.ndarray, method: np.ndarray, papers: np.ndarray, *, k: int = 1) -> dict[str, float]:
    """The harness's novelty columns, as MindFlow's protocol reports them: "We report novelty for both the
    motivation and the proposed method and use their mean as the overall novelty score"."""
    nm, nx = computable_novelty(motivation, papers, k=k), computable_novelty(method, papers, k=k)
    return {"motivation": nm, "method": nx, "overall": (nm + nx) / 2}
