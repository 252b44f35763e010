"""Creative Utility (set-level seed, after Wadhwa et al.): quality credited by distance from earlier ideas.

For an ordering u_(1..K): m_1 = q(u_1), m_t = q(u_t) * min_{j<t} d(u_t, u_j), and
    CU = sum_t gamma^(t-1) m_t / sum_t gamma^(t-1)          (normalised to [0, 1]).
The reported CU uses the greedy order: highest quality first, then repeatedly the idea with the largest
marginal value m_t. q and d come in named variants (EvalConfig.cu_quality / cu_distance): the paper's
(q: strict wins of an impact judgment against the gold idea in both orders, length-controlled;
d: (5 - s) / 4 from per-field 1..5 similarities) and the earlier ones (six-dimension strict-win share;
the 8-axis judge or embedding cosine distance).

R_set, the set-level TRAINING reward the ideator's sets are scored by, differs from CU in three ways:
the written order instead of the greedy one, no patience discount and no normalisation, and a small
bonus for a schema-valid set (an invalid one is 0).
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


# ------------------------------------------------------------------ the paper's quality and distance terms
# Quality: an impact judge compares the idea with the gold (target) idea in both presentation orders.
# Distance: a judge rates the similarity of two idea cards field by field (problem gap, core claim,
# method) on 1..5; each becomes (5 - s) / 4 and the fields are averaged -- in [0, 1] by construction.

SIMILARITY_FIELDS = ("problem_gap", "core_claim", "method")


_IMPACT_POINTS = {"idea": 1.0, "tie": 0.5, "gold": 0.0}


def impact_value(idea_first: str, idea_second: str) -> float:
    """I(u) of one judge: the mean over the two presentation orders of the idea's points in that order,
    1 for a win, 0.5 for a tie, 0 for a loss (the set-level seed's pairwise impact in {0, 0.5, 1}).
    Each argument is the winner in that order: "idea", "gold" or "tie"."""
    for w in (idea_first, idea_second):
        if w not in _IMPACT_POINTS:
            raise ValueError(f"impact winner must be idea, gold or tie, got {w!r}")
    return (_IMPACT_POINTS[idea_first] + _IMPACT_POINTS[idea_second]) / 2


def strict_impact(idea_first: str, idea_second: str) -> float:
    """The strict win the evaluation's quality counts: 1 only when the idea wins in BOTH orders."""
    return 1.0 if impact_value(idea_first, idea_second) == 1.0 else 0.0


def field_distance(similarities: Sequence[float]) -> float:
    """d(u, v) from per-field 1..5 similarities: mean of (5 - s) / 4, so always in [0, 1]."""
    if not similarities:
        raise ValueError("field_distance needs at least one field similarity")
    for s in similarities:
        if not 1 <= s <= 5:
            raise ValueError(f"a field similarity must lie in 1..5, got {s}")
    return sum((5.0 - s) / 4.0 for s in similarities) / len(similarities)


def r_set(q: Sequence[float], d: Sequence[Sequence[float]], *, valid: bool = True, bonus: float = 0.05) -> float:
    """The set-level reward: the ideas in the order WRITTEN, no patience discount, unnormalised,
    R = sum_i q_i * min_{j<i} d_ij (the first idea's min is 1), plus `bonus` for a schema-valid set;
    an invalid set earns 0 (no judge needs to be asked)."""
    if not valid:
        return 0.0
    _check(q, d)
    total = 0.0
    for i in range(len(q)):
        total += q[i] * (1.0 if i == 0 else min(d[i][j] for j in range(i)))
    return total + bonus


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def fit_length_logit(wins: Sequence[float], x: Sequence[float], *, l2: float = 1e-3,
                     iterations: int = 50) -> tuple[float, float]:
    """Logistic regression win ~ a + b*x by Newton's method (a small ridge keeps it finite when the
    pool is separable). Returns (a, b)."""
    if len(wins) != len(x) or not wins:
        raise ValueError("wins and x must be non-empty and of equal length")
    a = b = 0.0
    for _ in range(iterations):
        ga, gb = -l2 * a, -l2 * b
        haa, hab, hbb = l2, 0.0, l2
        for y, xi in zip(wins, x, strict=True):
            p = _sigmoid(a + b * xi)
            ga += y - p
            gb += (y - p) * xi
            w = p * (1 - p)
            haa += w
            hab += w * xi
            hbb += w * xi * xi
        det = haa * hbb - hab * hab
        if det <= 1e-12:
            break
        da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-10:
            break
    return a, b


def length_controlled(wins: Sequence[float], idea_tokens: Sequence[float],
                      gold_tokens: Sequence[float]) -> list[float]:
    """Per-idea length-controlled strict win (after Length-Controlled AlpacaEval, adapted to one idea).

    One logistic regression over the whole pool: win ~ a + b*x with x = log(idea length / gold length).
    An idea's controlled quality is its strict win weighted by sigma(a) / sigma(a + b*x) -- the win
    probability of a gold-length idea over that of an idea of its length -- clipped to [0, 1]. Under the
    fitted model its expected value is sigma(a) whatever its length; a loss stays 0 (a method that never
    wins scores 0), an idea as long as its gold keeps its raw value, and with no length effect (b = 0)
    nothing changes."""
    if not len(wins) == len(idea_tokens) == len(gold_tokens):
        raise ValueError("wins, idea_tokens and gold_tokens must be of equal length")
    if any(t <= 0 for t in (*idea_tokens, *gold_tokens)):
        raise ValueError("lengths must be positive")
    if not wins:
        return []
    x = [math.log(i / g) for i, g in zip(idea_tokens, gold_tokens, strict=True)]
    a, b = fit_length_logit(wins, x)
    return [min(1.0, w * _sigmoid(a) / _sigmoid(a + b * xi)) for w, xi in zip(wins, x, strict=True)]


def field_distance_matrix(n: int, similarities: dict[tuple[int, int], Sequence[Sequence[float]]]) -> list[list[float]]:
    """K x K distances from judged field similarities: `similarities[(i, j)]` holds one per-field 1..5
    list per judgment (judges, orders); the pair's distance is the mean of their field_distance.
    A pair without a judgment is NaN (a missing judgment is not 'identical')."""
    d = [[0.0 if i == j else math.nan for j in range(n)] for i in range(n)]
    for (i, j), sims in similarities.items():
        if not (0 <= i < n and 0 <= j < n) or i == j:
            raise ValueError(f"pair ({i}, {j}) is not a pair of {n} ideas")
        if sims:
            d[i][j] = d[j][i] = sum(field_distance(s) for s in sims) / len(sims)
    return d
