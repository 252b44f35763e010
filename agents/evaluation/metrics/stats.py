"""Means with bootstrap confidence intervals (percentile method, seeded so reports are reproducible)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Estimate:
    """A point value with a (lo, hi) interval; `n` is how many observations it came from."""

    value: float
    lo: float
    hi: float
    n: int

    def as_dict(self) -> dict[str, float | int]:
        return {"value": self.value, "lo": self.lo, "hi": self.hi, "n": self.n}


def mean(xs: Sequence[float]) -> float:
    """Arithmetic mean; NaN for no values (a metric that could not be computed is not zero)."""
    return sum(xs) / len(xs) if xs else math.nan


def percentile(sorted_xs: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile of already sorted values, q in [0, 1]."""
    if not sorted_xs:
        return math.nan
    pos = q * (len(sorted_xs) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def bootstrap(
    items: Sequence[T],
    statistic: Callable[[Sequence[T]], float],
    *,
    n_boot: int = 1000,
    alpha: float = 0.05,
    seed: int = 0,
) -> Estimate:
    """statistic(items) with the (alpha/2, 1-alpha/2) percentile interval over `n_boot` resamples."""
    if not items:
        return Estimate(math.nan, math.nan, math.nan, 0)
    value = statistic(items)
    if len(items) == 1:
        return Estimate(value, value, value, 1)
    rng = random.Random(seed)
    stats = sorted(statistic([items[rng.randrange(len(items))] for _ in items]) for _ in range(n_boot))
    stats = [s for s in stats if not math.isnan(s)]
    return Estimate(value, percentile(stats, alpha / 2), percentile(stats, 1 - alpha / 2), len(items))


def mean_ci(xs: Sequence[float], *, n_boot: int = 1000, alpha: float = 0.05, seed: int = 0) -> Estimate:
    """Mean of the finite values of `xs` with a bootstrap interval."""
    vals = [float(x) for x in xs if x is not None and not math.isnan(float(x))]
    return bootstrap(vals, mean, n_boot=n_boot, alpha=alpha, seed=seed)
