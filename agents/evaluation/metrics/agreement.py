"""Judge agreement: Cohen's kappa between two judges rating the same items (per dimension)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence


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
