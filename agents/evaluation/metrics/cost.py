"""Cost accounting: calls, tokens and dollars per method, per idea and per metric (judge role)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass
class Cost:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, other: Cost) -> None:
        self.calls += other.calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cost_usd += other.cost_usd

    def as_dict(self) -> dict[str, float | int]:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_usd": round(self.cost_usd, 6)}


def from_usage(usage: Mapping[str, Mapping[str, float]]) -> Cost:
    """A Cost from a usage dict (`Usage.to_dict()`: role -> counters, with 'total' ignored)."""
    c = Cost()
    for role, r in usage.items():
        if role == "total":
            continue
        c.add(Cost(int(r.get("calls", 0)), int(r.get("input_tokens", 0)), int(r.get("output_tokens", 0)),
                   float(r.get("cost_usd", 0.0))))
    return c


def per_idea(total: Cost, n_ideas: int) -> Cost:
    if n_ideas <= 0:
        return Cost()
    return Cost(round(total.calls / n_ideas), round(total.input_tokens / n_ideas),
                round(total.output_tokens / n_ideas), total.cost_usd / n_ideas)


def summed(items: Iterable[Cost]) -> Cost:
    out = Cost()
    for c in items:
        out.add(c)
    return out
