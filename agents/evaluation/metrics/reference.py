"""Reference-based pairwise judging against target papers (MindFlow seed, section 5.2).

Six dimensions in two stages: problem discovery (problem novelty, significance, timeliness) and
problem solving (technical novelty, effectiveness, feasibility). Each judge votes in both presentation
orders; a dimension's score is the idea's win rate over all its votes against the references.

MOScore(s; w) = 1/2 * ( sum_i w_i s_i / sum_i w_i  +  (prod_i s_i^{w_i})^{1 / sum_i w_i} ),
the mean of the weighted arithmetic and weighted geometric means (weights need not sum to 1: both
terms are normalised by sum w). MOScore_PD uses the problem-discovery scores, MOScore_PS the
problem-solving ones.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

PD_DIMS = ("problem_novelty", "significance", "timeliness")
PS_DIMS = ("technical_novelty", "effectiveness", "feasibility")
DIMENSIONS = PD_DIMS + PS_DIMS


@dataclass(frozen=True)
class Vote:
    """One judge's verdict on one (idea, reference) pair, one dimension, one presentation order.

    `winner` is "idea", "reference" or "tie" (a tie counts half)."""

    dimension: str
    winner: str
    judge: str = ""
    reference: str = ""
    idea_first: bool = True


def vote_value(v: Vote) -> float:
    if v.winner not in ("idea", "reference", "tie"):
        raise ValueError(f"vote winner must be idea, reference or tie, got {v.winner!r}")
    return {"idea": 1.0, "tie": 0.5, "reference": 0.0}[v.winner]


def win_rates(votes: Iterable[Vote], dimensions: Sequence[str] = DIMENSIONS) -> dict[str, float]:
    """Per dimension: the idea's share of votes won (ties half). NaN where a dimension has no votes."""
    won: dict[str, float] = {d: 0.0 for d in dimensions}
    n: dict[str, int] = {d: 0 for d in dimensions}
    for v in votes:
        if v.dimension not in won:
            raise ValueError(f"unknown dimension {v.dimension!r}")
        won[v.dimension] += vote_value(v)
        n[v.dimension] += 1
    return {d: (won[d] / n[d] if n[d] else math.nan) for d in dimensions}


def strict_win_rate(votes: Iterable[Vote]) -> float:
    """Share of (judge, reference, dimension) cells the idea wins in BOTH presentation orders
    (the set-level seed's strict win rate, used as Creative Utility's quality)."""
    cells: dict[tuple[str, str, str], list[float]] = {}
    for v in votes:
        cells.setdefault((v.judge, v.reference, v.dimension), []).append(vote_value(v))
    if not cells:
        return math.nan
    return sum(1.0 for vals in cells.values() if all(x == 1.0 for x in vals)) / len(cells)


def moscore(scores: Sequence[float], weights: Sequence[float]) -> float:
    """MOScore of three (or any number of) dimension scores in [0, 1] with non-negative weights."""
    if len(scores) != len(weights) or not scores:
        raise ValueError("scores and weights must be non-empty and of equal length")
    if any(w < 0 for w in weights) or sum(weights) <= 0:
        raise ValueError("weights must be non-negative with a positive sum")
    if any(math.isnan(s) for s in scores):
        return math.nan
    if any(not 0.0 <= s <= 1.0 for s in scores):
        raise ValueError("scores must lie in [0, 1]")
    wsum = float(sum(weights))
    arith = sum(w * s for w, s in zip(weights, scores, strict=True)) / wsum
    if any(s == 0.0 and w > 0 for s, w in zip(scores, weights, strict=True)):
        geo = 0.0
    else:
        geo = math.exp(sum(w * math.log(s) for w, s in zip(weights, scores, strict=True) if w > 0) / wsum)
    return 0.5 * (arith + geo)


def moscores(rates: Mapping[str, float], w_pd: Sequence[float] = (1, 1, 1),
             w_ps: Sequence[float] = (1, 1, 1)) -> dict[str, float]:
    return {
        "moscore_pd": moscore([rates[d] for d in PD_DIMS], w_pd),
        "moscore_ps": moscore([rates[d] for d in PS_DIMS], w_ps),
    }
