"""Quality gates, eight-axis pairwise diversity and Yield (IDEAgent seed).

Gates: non-obviousness (NB), soundness (S), clarity (C), each 0-9 per idea.
Pairwise diversity D (0-9) comes from the evaluation's own eight-axis decomposition: for each axis the
judge names the relation of the two ideas (same / variant / related / distinct); code maps the relations
to a score, every axis counted once (the seed weights no axis above another; an earlier version counted
the three core axes twice, which is not in the paper):
    D = 9 * sum_a dist(rel_a) / (3 * |axes|),   dist: same 0, variant 1, related 2, distinct 3.
Yield(NB>=k, S>=l, C>=m, D>=tau) = size of the largest set of gate-passing ideas whose every pair has
D >= tau: an exact maximum clique (networkx), not a greedy pick.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

AXES = (
    "failure_mode",
    "causal_diagnosis",
    "intervention",
    "signal_source",
    "intervention_site",
    "target",
    "evaluation_paradigm",
    "assumption_class",
)
CORE_AXES = ("failure_mode", "causal_diagnosis", "intervention")  # named in reports; weighted like the rest
RELATION_DISTANCE = {"same": 0, "variant": 1, "related": 2, "distinct": 3}


@dataclass(frozen=True)
class Gates:
    non_obviousness: float
    soundness: float
    clarity: float

    def passes(self, k: float, l: float, m: float) -> bool:  # noqa: E741 - the seed's own letters
        return self.non_obviousness >= k and self.soundness >= l and self.clarity >= m


def axis_weight(axis: str) -> int:
    """Every axis counts once (IDEAgent seed, Evaluation: one 0-9 pairwise score from the eight axes)."""
    if axis not in AXES:
        raise ValueError(f"unknown axis {axis!r}; axes: {', '.join(AXES)}")
    return 1


def pair_diversity(relations: Mapping[str, str]) -> float:
    """0-9 diversity of one pair from its per-axis relations (all eight axes required)."""
    missing = [a for a in AXES if a not in relations]
    if missing:
        raise ValueError(f"missing axis relation(s): {', '.join(missing)}")
    total = 0.0
    for a in AXES:
        rel = relations[a]
        if rel not in RELATION_DISTANCE:
            raise ValueError(f"axis {a}: relation must be one of {', '.join(RELATION_DISTANCE)}, got {rel!r}")
        total += axis_weight(a) * RELATION_DISTANCE[rel]
    return 9.0 * total / (3.0 * sum(axis_weight(a) for a in AXES))


def diversity_graph(ideas: Sequence[str], gates: Mapping[str, Gates], diversity: Mapping[frozenset[str], float],
                    k: float, l: float, m: float, tau: float) -> nx.Graph:  # noqa: E741
    """Graph of gate-passing ideas, an edge where a pair's diversity is at least tau."""
    g = nx.Graph()
    passing = [i for i in ideas if gates[i].passes(k, l, m)]
    g.add_nodes_from(passing)
    for x in range(len(passing)):
        for y in range(x + 1, len(passing)):
            a, b = passing[x], passing[y]
            if diversity.get(frozenset((a, b)), 0.0) >= tau:
                g.add_edge(a, b)
    return g


def max_clique(g: nx.Graph) -> list[str]:
    """An exact maximum clique (ties broken by sorted ids for reproducibility)."""
    if g.number_of_nodes() == 0:
        return []
    best: list[str] = []
    for c in nx.find_cliques(g):
        c = sorted(c)
        if len(c) > len(best) or (len(c) == len(best) and c < best):
            best = c
    return best


def yield_(ideas: Sequence[str], gates: Mapping[str, Gates], diversity: Mapping[frozenset[str], float], *,
           k: float = 7, l: float = 7, m: float = 6, tau: float = 7) -> int:  # noqa: E741
    """Defaults: IDEAgent's main table (NB >= 7, S >= 7, C >= 6, D >= 7); EvalConfig passes its own."""
    return len(max_clique(diversity_graph(ideas, gates, diversity, k, l, m, tau)))


def yield_surface(ideas: Sequence[str], gates: Mapping[str, Gates], diversity: Mapping[frozenset[str], float], *,
                  ks: Sequence[float] = tuple(range(10)), ls: Sequence[float] = tuple(range(10)),
                  m: float = 0, tau: float = 7) -> list[list[int]]:
    """Yield over the (k, l) grid at fixed clarity gate m and diversity threshold tau: rows k, columns l."""
    return [[yield_(ideas, gates, diversity, k=k, l=l, m=m, tau=tau) for l in ls] for k in ks]  # noqa: E741


def topics_with_yield(yields: Sequence[int], thresholds: Sequence[int] = (1, 2, 3)) -> dict[int, int]:
    """How many topics reach Yield >= t, for each t."""
    return {t: sum(1 for y in yields if y >= t) for t in thresholds}
