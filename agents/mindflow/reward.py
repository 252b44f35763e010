"""Reward and advantage of a tournament group.

    r_k = 1 − Rank_k / (K − 1) − λ · C(G_k)        A_k = r_k − mean(r)   [÷ std(r) if normalised]

C is the flow's cost: 'tokens' = the flow's tokens divided by the group's mean tokens (so 1.0 is an
average flow whatever the model's verbosity), or 'ops' = operators run / (L · |operators|) (the
share of the supernet the flow used; independent of the model).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def flow_costs(mode: str, *, tokens: Sequence[int] = (), n_ops: Sequence[int] = (), layers: int = 1,
               operators: int = 1) -> list[float]:
    if mode == "tokens":
        mean = float(np.mean(tokens)) if len(tokens) else 0.0
        return [float(t) / mean if mean > 0 else 0.0 for t in tokens]
    if mode == "ops":
        return [float(n) / (layers * operators) for n in n_ops]
    raise ValueError(f"unknown cost mode {mode!r}: use 'tokens' or 'ops'")


def rewards(ranks: Sequence[int], costs: Sequence[float], lam: float) -> list[float]:
    k = len(ranks)
    if k < 2:
        raise ValueError("rewards need a group of at least two ranked ideas")
    if sorted(ranks) != list(range(k)):
        raise ValueError(f"ranks must be a strict ranking 0..{k - 1}, got {list(ranks)}")
    if len(costs) != k:
        raise ValueError("one cost per ranked idea")
    return [1.0 - r / (k - 1) - lam * c for r, c in zip(ranks, costs, strict=True)]


def advantages(rs: Sequence[float], normalize: bool = False) -> list[float]:
    arr = np.asarray(rs, dtype=np.float64)
    adv = arr - arr.mean()
    if normalize:
        sd = float(arr.std())
        adv = adv / sd if sd > 1e-12 else adv * 0.0
    return [float(a) for a in adv]
