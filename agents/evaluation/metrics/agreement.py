"""Judge agreement: Cohen's kappa between two judges rating the same items (per dimension)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable], *, weights: str | None = None) -> float:
    """kappa = (p_o - p_e) / (1 - p_e). `weights="quadratic"` for ordinal numeric ratings (0-9 gates).
    NaN when fewer than one item; 1.0 when both judges use one identical category throughout."""
    if len(a) != len(b):
        raise ValueError("both judges must rate the same items")
    n = len(a)
    if n == 0:
        return math.nan
    if weights is None:
        po = sum(1 for x, y in zip(a, b, strict=True) if x == y) / n
        ca, cb = Counter(a), Counter(b)
        pe = sum(ca[c] * cb.get(c, 0) for c in ca) / (n * n)
        return 1.0 if pe == 1.0 else (po - pe) / (1 - pe)
    if weights != "quadratic":
        raise ValueError("weights must be None or 'quadratic'")
    fa, fb = [float(x) for x in a], [float(y) for y in b]  # type: ignore[arg-type]  # ordinal: numbers
    cats = sorted(set(fa) | set(fb))
    if len(cats) == 1:
        return 1.0
    lo, hi = cats[0], cats[-1]

    def w(x: float, y: float) -> float:
        return ((x - y) / (hi - lo)) ** 2

    do = sum(w(x, y) for x, y in zip(fa, fb, strict=True)) / n
    de = sum(w(x, y) for x in fa for y in fb) / (n * n)
    return 1.0 if de == 0 else 1.0 - do / de


# -- order consistency: one judge, one question, both presentation orders ---------------------------------
SLOTS = ("A", "B")


@dataclass(frozen=True)
class OrderPair:
    """One judge's two answers to one question asked in both orders. For a choice (`slotted`), each answer
    is the slot it named as shown ("A" first-shown, "B" second-shown, "tie"); a judge free of position bias
    names the same idea both times, i.e. opposite slots. For a symmetric label (a diversity relation) the
    two answers should simply be equal."""

    kind: str
    dimension: str
    judge: str
    first: str
    second: str
    slotted: bool = True


def pair_consistent(p: OrderPair) -> bool:
    if not p.slotted:
        return p.first == p.second
    return (p.first, p.second) in (("A", "B"), ("B", "A"), ("tie", "tie"))


def pair_flipped(p: OrderPair) -> bool:
    """The same slot won in both orders: the verdict follows the position, not the idea (no signal)."""
    return p.slotted and p.first == p.second and p.first in SLOTS


def order_consistency(pairs: Iterable[OrderPair], *, bias_share: float = 0.9,
                      bias_min: int = 6) -> list[dict[str, Any]]:
    """Per (kind, dimension, judge): pairs answered in both orders, how many agree across the orders, how
    many flipped with the position, the consistency rate, the share of decisive verdicts naming slot A,
    and whether the judge is order-biased there (>= bias_share of >= bias_min decisive verdicts in one slot)."""
    groups: dict[tuple[str, str, str], list[OrderPair]] = {}
    for p in pairs:
        groups.setdefault((p.kind, p.dimension, p.judge), []).append(p)
    rows = []
    for (kind, dim, judge), ps in sorted(groups.items()):
        consistent = sum(1 for p in ps if pair_consistent(p))
        flipped = sum(1 for p in ps if pair_flipped(p))
        row: dict[str, Any] = {"kind": kind, "dimension": dim, "judge": judge, "pairs": len(ps),
                               "consistent": consistent, "flipped": flipped,
                               "consistency": consistent / len(ps), "decisive": None, "slot_a_share": None,
                               "order_biased": None}
        if ps[0].slotted:
            verdicts = [v for p in ps for v in (p.first, p.second) if v in SLOTS]
            share_a = sum(1 for v in verdicts if v == "A") / len(verdicts) if verdicts else math.nan
            row |= {"decisive": len(verdicts), "slot_a_share": share_a,
                    "order_biased": bool(len(verdicts) >= bias_min
                                         and max(share_a, 1 - share_a) >= bias_share)}
        rows.append(row)
    return rows
