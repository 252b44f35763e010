"""Usage accounting: calls, cache hits, tokens in/out and estimated cost, per role.

Cost = tokens x price, with prices in USD per million (input, output) tokens from
`settings.llm.prices`, looked up by model name (exact, else the longest key the name starts
with, so 'gpt-4o-mini-2024-07-18' uses 'gpt-4o-mini'). Unknown models cost 0.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from threading import Lock


def price_for(model_name: str, prices: dict[str, tuple[float, float]]) -> tuple[float, float]:
    if model_name in prices:
        return prices[model_name]
    matches = [k for k in prices if model_name.startswith(k)]
    return prices[max(matches, key=len)] if matches else (0.0, 0.0)


def cost_usd(model_name: str, prices: dict[str, tuple[float, float]], tokens_in: int, tokens_out: int) -> float:
    p_in, p_out = price_for(model_name, prices)
    return (tokens_in * p_in + tokens_out * p_out) / 1_000_000


@dataclass
class RoleUsage:
    calls: int = 0  # calls that reached the provider (each retry attempt is not a separate call)
    cache_hits: int = 0  # answered from the disk cache: no tokens, no cost
    input_tokens: int = 0
    output_tokens: int = 0
    estimated_calls: int = 0  # calls whose token counts were estimated (provider sent no usage)
    retries: int = 0
    failures: int = 0
    cost_usd: float = 0.0

    def add(self, other: RoleUsage) -> None:
        for k, v in asdict(other).items():
            setattr(self, k, getattr(self, k) + v)


@dataclass
class Usage:
    """Thread-safe per-role usage of one client (one run)."""

    by_role: dict[str, RoleUsage] = field(default_factory=dict)
    _lock: Lock = field(default_factory=Lock, repr=False, compare=False)

    def role(self, role: str) -> RoleUsage:
        with self._lock:
            return self.by_role.setdefault(role, RoleUsage())

    def record_call(
        self, role: str, tokens_in: int, tokens_out: int, cost: float, *, estimated: bool = False
    ) -> None:
        r = self.role(role)
        with self._lock:
            r.calls += 1
            r.input_tokens += tokens_in
            r.output_tokens += tokens_out
            r.cost_usd += cost
            r.estimated_calls += int(estimated)

    def record_cache_hit(self, role: str) -> None:
        r = self.role(role)
        with self._lock:
            r.cache_hits += 1

    def record_retry(self, role: str) -> None:
        r = self.role(role)
        with self._lock:
            r.retries += 1

    def record_failure(self, role: str) -> None:
        r = self.role(role)
        with self._lock:
            r.failures += 1

    def total(self) -> RoleUsage:
        t = RoleUsage()
        with self._lock:
            for r in self.by_role.values():
                t.add(r)
        return t

    @property
    def cost_usd(self) -> float:
        return self.total().cost_usd

    def to_dict(self) -> dict[str, dict]:
        out = {role: asdict(r) for role, r in sorted(self.by_role.items())}
        out["total"] = asdict(self.total())
        return out
