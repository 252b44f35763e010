"""A synchronous driver of the Swiss tournament for the metric tests (the harness judges each round
concurrently through `pairs()` / `record()` itself)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from motivgraph.agents.evaluation.metrics.elo import SwissTournament, combine_orders


def run_swiss(players: Sequence[str], judge: Callable[[str, str], float], *, rounds: int = 0, k: float = 32.0,
              start: float = 1000.0, seed: int = 0) -> SwissTournament:
    """Play a full tournament; `judge(first, second)` is asked for both presentation orders of every pair."""
    t = SwissTournament(list(players), k=k, start=start, rounds=rounds, seed=seed)
    while not t.done:
        pairs = t.pairs()
        t.record({(a, b): combine_orders(judge(a, b), judge(b, a)) for a, b in pairs})
    return t
