"""Swiss tournament -> ELO (SoIQ seed), per dimension and overall, with bootstrap intervals.

Players are ideas. Each round pairs players with equal or close points (then rating), avoiding
rematches where possible; an odd player out gets a bye (one point, no rating change). Every pairing is
judged in BOTH presentation orders and the two verdicts are averaged, so a judge that only prefers
the first-shown idea produces draws, not a winner. Rounds = max(requested, ceil(log2 N)), at most a full
round robin.

The tournament is a small state machine (`pairs()` then `record()`) so async callers can judge a
whole round concurrently.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from motivgraph.agents.evaluation.metrics.stats import Estimate, mean, percentile

# A verdict is the score of the FIRST-shown idea: 1 win, 0.5 tie, 0 loss.


@dataclass(frozen=True)
class Match:
    a: str
    b: str
    score_a: float  # after averaging both presentation orders


def expected(r_a: float, r_b: float) -> float:
    return 1.0 / (1.0 + 10 ** ((r_b - r_a) / 400.0))


def elo_ratings(players: Sequence[str], matches: Sequence[Match], *, k: float = 32.0,
                start: float = 1000.0) -> dict[str, float]:
    """Sequential ELO over `matches` in order."""
    r = {p: float(start) for p in players}
    for m in matches:
        e = expected(r[m.a], r[m.b])
        delta = k * (m.score_a - e)
        r[m.a] += delta
        r[m.b] -= delta
    return r


def rounds_for(n_players: int, requested: int = 0) -> int:
    """max(requested, ceil(log2 N)), but no more rounds than a full round robin (N - 1, or N when N is odd
    and one player sits out each round): past that every pairing is a rematch, the judge's cached verdict
    again, which would add copies of one match to the bootstrap and narrow the interval without evidence."""
    if n_players < 2:
        return 0
    return min(max(requested, math.ceil(math.log2(n_players))), n_players if n_players % 2 else n_players - 1)


def combine_orders(first: float, second_swapped: float) -> float:
    """Score of idea A from verdict(A shown first) and verdict(B shown first)."""
    return (first + (1.0 - second_swapped)) / 2.0


@dataclass
class SwissTournament:
    players: list[str]
    k: float = 32.0
    start: float = 1000.0
    rounds: int = 0
    seed: int = 0
    matches: list[Match] = field(default_factory=list)
    points: dict[str, float] = field(default_factory=dict)
    ratings: dict[str, float] = field(default_factory=dict)
    played: set[frozenset[str]] = field(default_factory=set)
    byes: set[str] = field(default_factory=set)  # players who have had a bye
    round_no: int = 0

    def __post_init__(self) -> None:
        if len(set(self.players)) != len(self.players):
            raise ValueError("player ids must be unique")
        self.rounds = rounds_for(len(self.players), self.rounds)
        self.points = {p: 0.0 for p in self.players}
        self.ratings = {p: float(self.start) for p in self.players}
        # Round 1 order is a seeded shuffle of the sorted ids: independent of how the caller listed them.
        self._order = sorted(self.players)
        random.Random(self.seed).shuffle(self._order)

    @property
    def done(self) -> bool:
        return self.round_no >= self.rounds

    def pairs(self) -> list[tuple[str, str]]:
        """This round's pairings, each as (a, b) with a < b in id order (presentation is decided by the judge calls).

        Swiss rules: with an odd field the bye goes to the lowest-standing player who has not had one (a
        second bye while another player has none would hand out a free point twice); the rest are paired
        down the standings, each with the highest-standing opponent not met yet, backtracking when that
        leaves someone with only rematches. Only when no rematch-free pairing exists (late rounds of a small
        field) is a rematch taken, greedily."""
        rank = {p: i for i, p in enumerate(self._order)}
        standing = sorted(self.players, key=lambda p: (-self.points[p], -self.ratings[p], rank[p]))
        self._bye = None
        if len(standing) % 2:
            self._bye = next((p for p in reversed(standing) if p not in self.byes), standing[-1])
            standing.remove(self._bye)
        found = _pair_without_rematch(standing, self.played)
        if found is None:
            found, rest = [], list(standing)
            while len(rest) >= 2:
                a = rest.pop(0)
                j = next((i for i, b in enumerate(rest) if frozenset((a, b)) not in self.played), 0)
                found.append((a, rest.pop(j)))
        return [(min(a, b), max(a, b)) for a, b in found]

    def record(self, results: Mapping[tuple[str, str], float]) -> None:
        """Scores of the first of each pair (both orders already combined) for this round's pairs."""
        for (a, b), s in results.items():
            if not 0.0 <= s <= 1.0:
                raise ValueError(f"match score must be in [0, 1], got {s}")
            m = Match(a, b, s)
            self.matches.append(m)
            self.played.add(frozenset((a, b)))
            self.points[a] += s
            self.points[b] += 1.0 - s
            e = expected(self.ratings[a], self.ratings[b])
            delta = self.k * (s - e)
            self.ratings[a] += delta
            self.ratings[b] -= delta
        bye: str | None = getattr(self, "_bye", None)
        if bye:
            self.points[bye] += 1.0
            self.byes.add(bye)
        self.round_no += 1


_PAIRING_SEARCH_LIMIT = 20000  # pairing attempts before giving up on a rematch-free round (bounds the search)


def _pair_without_rematch(standing: list[str], played: set[frozenset[str]]) -> list[tuple[str, str]] | None:
    """Pair `standing` (even length, best first) top-down, each player with the best-standing opponent not
    met yet, backtracking on a dead end; None when no rematch-free pairing is found within the limit."""
    budget = [_PAIRING_SEARCH_LIMIT]

    def go(rest: list[str]) -> list[tuple[str, str]] | None:
        if not rest:
            return []
        a, others = rest[0], rest[1:]
        for i, b in enumerate(others):
            if frozenset((a, b)) in played:
                continue
            budget[0] -= 1
            if budget[0] < 0:
                return None
            tail = go(others[:i] + others[i + 1:])
            if tail is not None:
                return [(a, b), *tail]
        return None

    return go(list(standing))


def group_elo(ratings: Mapping[str, float], group_of: Mapping[str, str]) -> dict[str, float]:
    """Mean rating of each group's players (a method's ideas)."""
    by: dict[str, list[float]] = {}
    for p, r in ratings.items():
        by.setdefault(group_of[p], []).append(r)
    return {g: mean(v) for g, v in sorted(by.items())}


League = tuple[Sequence[str], Sequence[Match]]  # one tournament: its players and its matches


def bootstrap_leagues(
    leagues_by_dim: Mapping[str, Sequence[League]],
    group_of: Mapping[str, str],
    *,
    k: float = 32.0,
    start: float = 1000.0,
    n_boot: int = 500,
    alpha: float = 0.05,
    seed: int = 0,
) -> dict[str, dict[str, Estimate]]:
    """Group ELO per dimension and 'overall' (the mean of the dimensions) over several tournaments
    (one per topic): a group's rating is the mean over all its players in all tournaments. Intervals
    resample each tournament's matches (with replacement) in every bootstrap iteration; 'overall' is
    averaged within each iteration, so its interval reflects the dimensions jointly."""

    def group_means(sample: Mapping[str, Sequence[League]]) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        for dim, leagues in sample.items():
            ratings: dict[str, float] = {}
            for players, matches in leagues:
                ratings.update(elo_ratings(players, matches, k=k, start=start))
            out[dim] = group_elo(ratings, group_of)
        return out

    point = group_means(leagues_by_dim)
    dims = list(leagues_by_dim)
    groups = sorted({g for d in point.values() for g in d})

    def with_overall(v: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        v["overall"] = {g: mean([v[d][g] for d in dims if g in v[d]]) for g in groups}
        return v

    point = with_overall(point)
    ci = _intervals(leagues_by_dim, lambda sample: with_overall(group_means(sample)), point, n_boot=n_boot,
                    alpha=alpha, seed=seed)
    n_of = {g: sum(1 for gg in group_of.values() if gg == g) for g in groups}
    return {d: {g: Estimate(point[d][g], *ci[d][g], n_of[g]) for g in groups if g in point[d]} for d in point}


def _intervals(
    leagues_by_dim: Mapping[str, Sequence[League]],
    rate: Callable[[Mapping[str, Sequence[League]]], dict[str, dict[str, float]]],
    point: Mapping[str, Mapping[str, float]],
    *,
    n_boot: int,
    alpha: float,
    seed: int,
) -> dict[str, dict[str, tuple[float, float]]]:
    """Percentile intervals of `rate` (dimension -> group -> rating) for every rating in `point`: each of the
    `n_boot` iterations resamples every tournament's matches with replacement and rates the resample."""
    rng = random.Random(seed)
    samples: dict[str, dict[str, list[float]]] = {d: {g: [] for g in gv} for d, gv in point.items()}
    for _ in range(n_boot):
        res = {dim: [(p, [ms[rng.randrange(len(ms))] for _ in ms] if ms else []) for p, ms in leagues]
               for dim, leagues in leagues_by_dim.items()}
        for d, gv in rate(res).items():
            for g, v in gv.items():
                samples[d][g].append(v)
    return {d: {g: (percentile(sorted(v), alpha / 2), percentile(sorted(v), 1 - alpha / 2)) for g, v in gv.items()}
            for d, gv in samples.items()}


def method_matches(leagues: Sequence[League], group_of: Mapping[str, str]) -> list[Match]:
    """The leagues' idea matches as matches between the ideas' methods, topic after topic in order. A match
    between two ideas of the same method says nothing about the method and is left out."""
    out: list[Match] = []
    for _, matches in leagues:
        for m in matches:
            ga, gb = group_of[m.a], group_of[m.b]
            if ga != gb:
                out.append(Match(ga, gb, m.score_a))
    return out


def bootstrap_method_elo(
    leagues_by_dim: Mapping[str, Sequence[League]],
    group_of: Mapping[str, str],
    *,
    k: float = 32.0,
    start: float = 1000.0,
    n_boot: int = 500,
    alpha: float = 0.05,
    seed: int = 0,
) -> dict[str, dict[str, Estimate]]:
    """Per-METHOD ELO, as SoIQ reports it (motivgraph-soiq.txt, appendix: "An LLM performed pairwise
    judgments on the quality of ideas, and these outcomes updated the ELO scores for each method"): the
    players are the methods, every cross-method idea match updates its two methods' ratings, over all
    topics in order. Per dimension and 'overall' (mean of the dimensions). Intervals: every bootstrap
    iteration resamples each topic's matches with replacement, as bootstrap_leagues does. The Estimate's
    n is the number of cross-method matches the rating is built from."""
    groups = sorted(set(group_of.values()))

    def ratings(sample: Mapping[str, Sequence[League]]) -> dict[str, dict[str, float]]:
        out = {d: elo_ratings(groups, method_matches(ls, group_of), k=k, start=start) for d, ls in sample.items()}
        out["overall"] = {g: mean([out[d][g] for d in sample]) for g in groups}
        return out

    point = ratings(leagues_by_dim)
    n_of = {d: len(method_matches(ls, group_of)) for d, ls in leagues_by_dim.items()}
    n_of["overall"] = sum(n_of.values())
    ci = _intervals(leagues_by_dim, ratings, point, n_boot=n_boot, alpha=alpha, seed=seed)
    return {d: {g: Estimate(point[d][g], *ci[d][g], n_of[d]) for g in groups} for d in point}
