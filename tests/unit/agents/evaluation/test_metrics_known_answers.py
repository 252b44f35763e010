"""Known-answer fixtures for the evaluation metrics: Yield, pairwise (eight-axis) diversity, embedding
diversity, MOScore, ELO and the Swiss pairings, each worked out by hand in the comments.

The scripted judges here answer differently per pair, per dimension/axis and per presentation order,
so an index, orientation or aggregation mistake changes a number (a judge that says the same thing
everywhere lets such mistakes pass). Every call passes its parameters explicitly: the evaluation's
defaults belong to the protocol config and may change.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from motivgraph.agents.evaluation.metrics.diversity import embedding_diversity
from motivgraph.agents.evaluation.metrics.elo import Match, SwissTournament, combine_orders, elo_ratings
from motivgraph.agents.evaluation.metrics.reference import (
    DIMENSIONS,
    PD_DIMS,
    PS_DIMS,
    Vote,
    moscores,
    strict_win_rate,
    win_rates,
)
from motivgraph.agents.evaluation.metrics.yield_ import AXES, Gates, pair_diversity, yield_
from tests.unit.agents.evaluation.swiss_support import run_swiss

# -- MOScore -----------------------------------------------------------------------------------------
# A reference judge's verdict per (reference, dimension, idea shown first?): "idea" wins 1, "tie" 1/2,
# "reference" 0. Every dimension differs from the others, and most cells differ between the two orders.
REF_VOTES: dict[tuple[str, str, bool], str] = {
    ("R1", "problem_novelty", True): "idea", ("R1", "problem_novelty", False): "idea",
    ("R1", "significance", True): "idea", ("R1", "significance", False): "reference",
    ("R1", "timeliness", True): "tie", ("R1", "timeliness", False): "reference",
    ("R1", "technical_novelty", True): "idea", ("R1", "technical_novelty", False): "tie",
    ("R1", "effectiveness", True): "reference", ("R1", "effectiveness", False): "reference",
    ("R1", "feasibility", True): "idea", ("R1", "feasibility", False): "idea",
    ("R2", "problem_novelty", True): "idea", ("R2", "problem_novelty", False): "tie",
    ("R2", "significance", True): "reference", ("R2", "significance", False): "reference",
    ("R2", "timeliness", True): "idea", ("R2", "timeliness", False): "idea",
    ("R2", "technical_novelty", True): "idea", ("R2", "technical_novelty", False): "idea",
    ("R2", "effectiveness", True): "tie", ("R2", "effectiveness", False): "idea",
    ("R2", "feasibility", True): "reference", ("R2", "feasibility", False): "tie",
}


def ref_votes() -> list[Vote]:
    return [Vote(dimension=d, winner=w, judge="j1", reference=r, idea_first=first)
            for (r, d, first), w in REF_VOTES.items()]


def test_win_rates_per_dimension_by_hand():
    # four votes per dimension (2 references x 2 orders):
    #   problem_novelty   1 + 1 + 1 + 1/2 = 3.5 -> 0.875
    #   significance      1 + 0 + 0 + 0   = 1   -> 0.25
    #   timeliness      1/2 + 0 + 1 + 1   = 2.5 -> 0.625
    #   technical_novelty 1 + 1/2 + 1 + 1 = 3.5 -> 0.875
    #   effectiveness     0 + 0 + 1/2 + 1 = 1.5 -> 0.375
    #   feasibility       1 + 1 + 0 + 1/2 = 2.5 -> 0.625
    assert win_rates(ref_votes(), DIMENSIONS) == {
        "problem_novelty": 0.875, "significance": 0.25, "timeliness": 0.625,
        "technical_novelty": 0.875, "effectiveness": 0.375, "feasibility": 0.625}
    # strict: cells won in BOTH orders -- R1 problem_novelty, R1 feasibility, R2 timeliness,
    # R2 technical_novelty: 4 of 12 cells
    assert strict_win_rate(ref_votes()) == pytest.approx(4 / 12)


def test_moscore_by_hand_with_unequal_weights():
    rates = win_rates(ref_votes(), DIMENSIONS)
    assert (PD_DIMS, PS_DIMS) == (("problem_novelty", "significance", "timeliness"),
                                  ("technical_novelty", "effectiveness", "feasibility"))
    got = moscores(rates, w_pd=(2, 1, 1), w_ps=(1, 1, 2))
    # PD, s = (0.875, 0.25, 0.625), w = (2, 1, 1), sum w = 4:
    #   arithmetic (2*0.875 + 0.25 + 0.625) / 4 = 2.625 / 4 = 0.65625
    #   geometric  (0.875^2 * 0.25 * 0.625)^(1/4) = 0.11962890625^(1/4) = 0.588110635...
    #   MOScore_PD = (0.65625 + 0.588110635) / 2 = 0.622180318
    assert got["moscore_pd"] == pytest.approx(0.622180318, abs=1e-9)
    # PS, s = (0.875, 0.375, 0.625), w = (1, 1, 2):
    #   arithmetic (0.875 + 0.375 + 2*0.625) / 4 = 0.625
    #   geometric  (0.875 * 0.375 * 0.625^2)^(1/4) = 0.128173828125^(1/4) = 0.598342482...
    #   MOScore_PS = (0.625 + 0.598342482) / 2 = 0.611671241
    assert got["moscore_ps"] == pytest.approx(0.611671241, abs=1e-9)


# -- eight-axis pair diversity and Yield -------------------------------------------------------------
def rel(*names: str) -> dict[str, str]:
    assert len(names) == len(AXES)
    return dict(zip(AXES, names, strict=True))


ALL_DISTINCT = rel(*["distinct"] * 8)  # 24 distance points -> 9
# distance points 3+3+2+2+1+1+0+3 = 15 -> 9 * 15 / 24 = 5.625
MIXED = rel("distinct", "distinct", "related", "related", "variant", "variant", "same", "distinct")
# 0+1+2+3+0+1+2+3 = 12 -> 4.5; the axes in the other order of the same multiset give the same sum
CYCLE = rel("same", "variant", "related", "distinct", "same", "variant", "related", "distinct")
# 1*8 = 8 -> 3
ALL_VARIANT = rel(*["variant"] * 8)

# The judge's relations per ordered pair (first shown, second shown): order matters for (i1, i4).
PAIR_RELATIONS: dict[tuple[str, str], dict[str, str]] = {
    ("i1", "i2"): ALL_DISTINCT, ("i2", "i1"): MIXED,  # (9 + 5.625) / 2 = 7.3125 >= 7: an edge
    ("i1", "i4"): ALL_DISTINCT, ("i4", "i1"): ALL_VARIANT,  # (9 + 3) / 2 = 6 < 7: no edge (9 if one order only)
    ("i2", "i4"): ALL_DISTINCT, ("i4", "i2"): ALL_DISTINCT,  # 9: an edge
    ("i1", "i3"): ALL_DISTINCT, ("i3", "i1"): ALL_DISTINCT,  # i3 fails the gates: its edges must not count
    ("i2", "i3"): ALL_DISTINCT, ("i3", "i2"): ALL_DISTINCT,
    ("i3", "i4"): ALL_DISTINCT, ("i4", "i3"): ALL_DISTINCT,
}


def test_pair_diversity_by_hand():
    assert pair_diversity(ALL_DISTINCT) == 9.0
    assert pair_diversity(MIXED) == pytest.approx(5.625)  # 9 * 15 / 24
    assert pair_diversity(CYCLE) == pytest.approx(4.5)  # 9 * 12 / 24
    assert pair_diversity(ALL_VARIANT) == pytest.approx(3.0)  # 9 * 8 / 24
    with pytest.raises(ValueError, match="missing axis"):
        pair_diversity({a: "same" for a in AXES[:7]})


def both_orders_mean() -> dict[frozenset[str], float]:
    pairs = {frozenset(p) for p in PAIR_RELATIONS}
    out = {}
    for p in pairs:
        a, b = sorted(p)
        out[p] = (pair_diversity(PAIR_RELATIONS[(a, b)]) + pair_diversity(PAIR_RELATIONS[(b, a)])) / 2
    return out


GATES = {
    "i1": Gates(non_obviousness=8, soundness=8, clarity=7),
    "i2": Gates(non_obviousness=7, soundness=7, clarity=6),  # exactly on every gate: passes (>=)
    "i3": Gates(non_obviousness=9, soundness=6, clarity=9),  # S 6 < 7: fails
    "i4": Gates(non_obviousness=7, soundness=8, clarity=6),
}


def test_yield_by_hand():
    div = both_orders_mean()
    assert div[frozenset(("i1", "i2"))] == pytest.approx(7.3125)
    assert div[frozenset(("i1", "i4"))] == pytest.approx(6.0)
    ideas = ["i1", "i2", "i3", "i4"]
    # gates NB>=7, S>=7, C>=6 keep i1, i2, i4; edges at D>=7: i1-i2 (7.3125), i2-i4 (9); not i1-i4 (6)
    # largest all-pairs-diverse subset: {i1, i2} or {i2, i4} -> Yield 2 (3 if i3's edges counted or if
    # only the first order of (i1, i4) were read)
    assert yield_(ideas, GATES, div, k=7, l=7, m=6, tau=7) == 2
    # tau 6: i1-i4 (6.0) becomes an edge -> {i1, i2, i4} -> 3
    assert yield_(ideas, GATES, div, k=7, l=7, m=6, tau=6) == 3
    # l 6 admits i3, whose edges to all three are 9: {i2, i3, i4} (or {i1, i2, i3}) -> 3
    assert yield_(ideas, GATES, div, k=7, l=6, m=6, tau=7) == 3
    # k 8 keeps i1, i3 only; l 7 drops i3 -> 1
    assert yield_(ideas, GATES, div, k=8, l=7, m=6, tau=7) == 1


# -- embedding diversity -----------------------------------------------------------------------------
def test_embedding_diversity_by_hand():
    v = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])  # the third is (1, 1) at another length
    # cosines: (1,2) 0, (1,3) 1/sqrt2, (2,3) 1/sqrt2 -> mean sqrt2/3 -> diversity 1 - sqrt2/3 = 0.528595479
    assert embedding_diversity(v) == pytest.approx(1 - math.sqrt(2) / 3)


# -- ELO and the Swiss pairings ----------------------------------------------------------------------
STRENGTH = {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}


def judge(first: str, second: str) -> float:
    """Score of the first-shown idea. Strengths two or more apart: the stronger wins in either order.
    Adjacent strengths: the first-shown wins (position bias), so the two orders cancel into a draw."""
    if abs(STRENGTH[first] - STRENGTH[second]) == 1:
        return 1.0
    return 1.0 if STRENGTH[first] > STRENGTH[second] else 0.0


def test_combine_orders_by_hand():
    assert combine_orders(judge("a", "c"), judge("c", "a")) == 1.0  # (1 + (1 - 0)) / 2
    assert combine_orders(judge("c", "a"), judge("a", "c")) == 0.0  # (0 + (1 - 1)) / 2
    assert combine_orders(judge("a", "b"), judge("b", "a")) == 0.5  # (1 + (1 - 1)) / 2: bias cancels
    assert combine_orders(1.0, 0.5) == 0.75  # first order a win, swapped order a tie


def test_elo_ratings_by_hand():
    ms = [Match("A", "B", 0.75), Match("B", "C", 0.25)]
    r = elo_ratings(["A", "B", "C"], ms, k=32, start=1000)
    # 1) A-B: expected 0.5, delta 32 * (0.75 - 0.5) = 8 -> A 1008, B 992
    # 2) B-C: expected(992, 1000) = 1 / (1 + 10^(8/400)) = 0.488489; delta 32 * (0.25 - 0.488489) = -7.63165
    #    -> B 984.36835, C 1007.63165
    assert r["A"] == pytest.approx(1008.0)
    assert r["B"] == pytest.approx(984.36835, abs=1e-4) and r["C"] == pytest.approx(1007.63165, abs=1e-4)


def test_swiss_pairings_and_ratings_by_hand():
    t = run_swiss(list("abcde"), judge, rounds=0, k=32, start=1000, seed=7)
    # rounds: max(0, ceil(log2 5)) = 3. Round-1 order: random.Random(7).shuffle(sorted ids) = e a d b c.
    # Round 1 (all 0 points, 1000): e-a, d-b, c bye. a beats e (5 vs 1), b beats d (4 vs 2).
    #   points a1 b1 c1(bye) d0 e0; ratings a 1016, e 984, b 1016, d 984, c 1000.
    # Round 2 standing by (-points, -rating, round-1 rank): a(1, 1016), b(1, 1016), c(1, 1000), e(0, 984,
    #   rank 0), d(0, 984, rank 2): a-b, c-e, d bye. a-b adjacent -> 0.5 (no rating change); c beats e:
    #   expected(1000, 984) = 0.523010, delta 32 * 0.476990 = 15.26369 -> c 1015.26369, e 968.73631.
    #   points a1.5 b1.5 c2 d1 e0.
    # Round 3 standing: c(2), a(1.5, 1016, rank 1), b(1.5, 1016, rank 3), d(1, had a bye), e(0): the bye
    #   goes to e, the lowest without one (d must not get a second). c's first unmet opponent is a, but then
    #   b-d would be a round-1 rematch -> backtrack: c-b, a-d. b-c adjacent -> 0.5; a beats d.
    assert [(m.a, m.b, m.score_a) for m in t.matches] == [
        ("a", "e", 1.0), ("b", "d", 1.0),
        ("a", "b", 0.5), ("c", "e", 1.0),
        ("b", "c", 0.5), ("a", "d", 1.0)]
    assert t.points == {"a": 2.5, "b": 2.0, "c": 2.5, "d": 1.0, "e": 1.0}
    assert t.byes == {"c", "d", "e"}  # three rounds, three different players sat out
    assert len({frozenset((m.a, m.b)) for m in t.matches}) == len(t.matches)  # no rematch
    # Round 3 ratings: b-c expected(1016, 1015.26369) = 0.501060, delta 32 * (0.5 - 0.501060) = -0.03392
    #   -> b 1015.96608, c 1015.29761; a-d expected(1016, 984) = 1 / (1 + 10^(-0.08)) = 0.545922,
    #   delta 32 * 0.454078 = 14.53050 -> a 1030.53050, d 969.46950; e 968.73631 (byes move no rating).
    assert t.ratings["a"] == pytest.approx(1030.53050, abs=1e-3)
    assert t.ratings["b"] == pytest.approx(1015.96608, abs=1e-3)
    assert t.ratings["c"] == pytest.approx(1015.29761, abs=1e-3)
    assert t.ratings["d"] == pytest.approx(969.46950, abs=1e-3)
    assert t.ratings["e"] == pytest.approx(968.73631, abs=1e-3)


def test_swiss_falls_back_to_a_rematch_only_when_none_is_avoidable():
    """Four players after three rounds have met everyone: round 4 must rematch, and still pairs everyone."""
    t = SwissTournament(list("abcd"), rounds=3, seed=1)
    t.played = {frozenset(p) for p in ("ab", "cd", "ac", "bd", "ad", "bc")}
    pairs = t.pairs()
    assert sorted(x for p in pairs for x in p) == list("abcd")


def test_swiss_pairs_are_independent_of_the_callers_listing_order():
    a = SwissTournament(list("abcde"), rounds=1, seed=7)
    b = SwissTournament(list("edcba"), rounds=1, seed=7)
    assert a.pairs() == b.pairs() == [("a", "e"), ("b", "d")]
