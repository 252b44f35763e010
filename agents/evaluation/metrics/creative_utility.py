"""Creative Utility (set-level seed, after Wadhwa et al.): quality credited by distance from earlier ideas.

For an ordering u_(1..K): m_1 = q(u_1), m_t = q(u_t) * min_{j<t} d(u_t, u_j), and
    CU = sum_t gamma^(t-1) m_t / sum_t gamma^(t-1)          (normalised to [0, 1]).
The reported CU uses the greedy order: highest quality first, then repeatedly the idea with the largest
marginal value m_t. q = strict win rate against the gold idea; d from a judge or embeddings, in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def _check(q: Sequence[float], d: Sequence[Sequence[float]]) -> None:
    if len(d) != len(q) or any(len(row) != len(q) for row in d):
        raise ValueError("distance matrix must be K x K for K qualities")


def cu_of_order(q: Sequence[float], d: Sequence[Sequence[float]], order: Sequence[int], *, gamma: float = 0.9) -> float:
    """Normalised CU of the ideas taken in `order` (indices into q)."""
    _check(q, d)
    if not 0 < gamma <= 1:
        raise ValueError("gamma must be in (0, 1]")
    if not order:
        return math.nan
    num = den = 0.0
    for t, i in enumerate(order):
        dist = 1.0 if t == 0 else min(d[i][j] for j in order[:t])
        num += gamma**t * q[i] * dist
        den += gamma**t
    return num / den


def greedy_order(q: Sequence[float], d: Sequence[Sequence[float]]) -> list[int]:
    """Farthest-point order: best quality first, then the largest marginal value (ties: lower index)."""
    _check(q, d)
    left = list(range(len(q)))
    if not left:
        return []
    first = max(left, key=lambda i: (q[i], -i))
    order = [first]
    left.remove(first)
    while left:
        nxt = max(left, key=lambda i: (q[i] * min(d[i][j] for j in order), -i))
        order.append(nxt)
        left.remove(nxt)
    return order


def creative_utility(q: Sequence[float], d: Sequence[Sequence[float]], *, gamma: float = 0.9) -> float:
    return cu_of_order(q, d, greedy_order(q, d), gamma=gamma)
