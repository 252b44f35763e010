"""Swiss tournament and ELO, pinned to hand-computed values and to the judge's preference."""

import math

import pytest

from motivgraph.agents.evaluation.metrics.elo import (
    Match,
    SwissTournament,
    bootstrap_leagues,
    combine_orders,
    elo_ratings,
    expected,
    group_elo,
    rounds_for,
)
from tests.unit.agents.evaluation.swiss_support import run_swiss


def test_one_elo_update_by_hand() -> None:
    # equal ratings: expected 0.5, win -> +K/2
    r = elo_ratings(["a", "b"], [Match("a", "b", 1.0)], k=32, start=1000)
    assert r == {"a": 1016.0, "b": 984.0}
    # second game b beats a: expected(b) = 1/(1+10^(32/400))
    e_b = 1 / (1 + 10 ** (32 / 400))
    r2 = elo_ratings(["a", "b"], [Match("a", "b", 1.0), Match("a", "b", 0.0)], k=32, start=1000)
    assert r2["b"] == pytest.approx(984 + 32 * (1 - e_b))
    assert expected(1000, 1000) == 0.5


def test_rounds_are_at_least_ceil_log2_n() -> None:
    assert rounds_for(8) == 3 and rounds_for(9) == 4 and rounds_for(1) == 0
    # never more than a full round robin: past it every pairing would be a rematch (a cached verdict again)
    assert rounds_for(5, requested=6) == 5 and rounds_for(6, requested=9) == 5 and rounds_for(2, requested=5) == 1
    assert rounds_for(40, requested=5) == 6 and rounds_for(20, requested=5) == 5


def test_both_orders_are_combined() -> None:
    assert combine_orders(1.0, 0.0) == 1.0  # A wins shown first and shown second
    assert combine_orders(1.0, 1.0) == 0.5  # judge always picks the first shown: a draw
    assert combine_orders(0.5, 0.5) == 0.5


def test_swiss_pairs_by_score_without_rematch() -> None:
    t = SwissTournament(["a", "b", "c", "d"], seed=1)
    first = t.pairs()
    assert sorted(x for p in first for x in p) == ["a", "b", "c", "d"]
    # Make the winners of round 1 the two first ids of each pair; round 2 pairs winner with winner.
    t.record({p: 1.0 for p in first})
    winners = {p[0] for p in first}
    second = t.pairs()
    assert any(set(p) == winners for p in second)
    assert not {frozenset(p) for p in second} & {frozenset(p) for p in first}


def _quality_judge(quality: dict[str, float]):
    def judge(first: str, second: str) -> float:
        q1, q2 = quality[first], quality[second]
        return 1.0 if q1 > q2 else 0.0 if q1 < q2 else 0.5
    return judge


def test_known_preference_orders_elo_and_flipping_it_flips_the_order() -> None:
    quality = {f"m{m}-i{i}": float(m) for m in range(3) for i in range(4)}
    group = {p: p.split("-")[0] for p in quality}
    t = run_swiss(list(quality), _quality_judge(quality), seed=3)
    g = group_elo(t.ratings, group)
    assert g["m2"] > g["m1"] > g["m0"]
    flipped = run_swiss(list(quality), _quality_judge({p: -q for p, q in quality.items()}), seed=3)
    gf = group_elo(flipped.ratings, group)
    assert gf["m0"] > gf["m1"] > gf["m2"]


def test_elo_is_invariant_to_presentation_order_with_a_symmetric_judge() -> None:
    quality = {"a": 3.0, "b": 1.0, "c": 2.0, "d": 0.0, "e": 2.5}
    judge = _quality_judge(quality)
    base = run_swiss(list(quality), judge, seed=7).ratings
    # The same tournament with every pair asked the other way round first, and the players listed
    # in reverse: a symmetric judge gives the same ratings.
    t = SwissTournament(list(reversed(list(quality))), seed=7)
    while not t.done:
        t.record({(a, b): 1.0 - combine_orders(judge(b, a), judge(a, b)) for a, b in t.pairs()})
    assert t.ratings == pytest.approx(base)


def test_a_judge_that_always_picks_the_first_shown_idea_moves_no_rating() -> None:
    t = run_swiss(["a", "b", "c", "d"], lambda first, second: 1.0, seed=0)
    assert all(r == pytest.approx(1000.0) for r in t.ratings.values())


def test_bootstrap_interval_contains_the_point_and_has_settings() -> None:
    quality = {f"m{m}-i{i}": float(m) for m in range(2) for i in range(4)}
    group = {p: p.split("-")[0] for p in quality}
    t = run_swiss(list(quality), _quality_judge(quality), k=16, start=1500, seed=0)
    ci = bootstrap_leagues({"q": [(list(quality), t.matches)]}, group, k=16, start=1500, n_boot=200)["q"]
    for est in ci.values():
        assert est.lo <= est.value <= est.hi and not math.isnan(est.lo)
    assert ci["m1"].value > 1500 > ci["m0"].value
    assert ci["m1"].value + ci["m0"].value == pytest.approx(3000)  # ELO is zero-sum


def test_record_refuses_out_of_range_scores() -> None:
    t = SwissTournament(["a", "b"])
    with pytest.raises(ValueError):
        t.record({("a", "b"): 2.0})


def test_bootstrap_leagues_per_dimension_and_overall() -> None:
    # two topics, each one match won by method x; dimension 'b' the other way round
    la = [(["x1", "y1"], [Match("x1", "y1", 1.0)]), (["x2", "y2"], [Match("x2", "y2", 1.0)])]
    lb = [(["x1", "y1"], [Match("x1", "y1", 0.0)]), (["x2", "y2"], [Match("x2", "y2", 0.0)])]
    group = {"x1": "x", "x2": "x", "y1": "y", "y2": "y"}
    out = bootstrap_leagues({"a": la, "b": lb}, group, k=32, start=1000, n_boot=50)
    assert out["a"]["x"].value == 1016.0 and out["b"]["x"].value == 984.0
    assert out["overall"]["x"].value == 1000.0 and out["overall"]["y"].value == 1000.0
    assert out["a"]["x"].lo == out["a"]["x"].hi == 1016.0  # one match per league: every resample is the same


def test_method_elo_rates_the_methods_as_players_by_hand() -> None:
    """SoIQ's ELO: the match outcomes update each METHOD's rating (not the mean of its ideas' ratings)."""
    from motivgraph.agents.evaluation.metrics.elo import bootstrap_method_elo, method_matches

    group_of = {"s1": "soiq", "s2": "soiq", "i1": "ideagent"}
    # topic 1: s1 beats i1, then s1 vs s2 (same method: no information about the method)
    leagues = {"novelty": [(["s1", "s2", "i1"], [Match("i1", "s1", 0.0), Match("s1", "s2", 1.0)])]}
    assert method_matches(leagues["novelty"], group_of) == [Match("ideagent", "soiq", 0.0)]
    est = bootstrap_method_elo(leagues, group_of, k=32, start=1000, n_boot=50, seed=1)
    assert est["novelty"]["soiq"].value == 1016.0 and est["novelty"]["ideagent"].value == 984.0
    assert est["overall"]["soiq"].value == 1016.0 and est["novelty"]["soiq"].n == 1
    assert est["novelty"]["soiq"].lo <= 1016.0 <= est["novelty"]["soiq"].hi
    # the per-idea average differs: soiq's ideas are s1 (won twice) and s2 (lost), ideagent's only i1
    per_idea = group_elo(elo_ratings(["s1", "s2", "i1"], leagues["novelty"][0][1]), group_of)
    assert per_idea["soiq"] != est["novelty"]["soiq"].value


def test_method_elo_carries_ratings_across_topics_and_resamples_for_an_interval() -> None:
    from motivgraph.agents.evaluation.metrics.elo import bootstrap_method_elo

    group_of = {f"{m}{t}{i}": m for m in ("a", "b") for t in range(3) for i in range(2)}
    leagues = {"experiment": [([f"a{t}0", f"a{t}1", f"b{t}0", f"b{t}1"],
                               [Match(f"a{t}0", f"b{t}0", 1.0), Match(f"a{t}1", f"b{t}1", 0.5),
                                Match(f"a{t}0", f"b{t}1", 0.0)]) for t in range(3)]}
    est = bootstrap_method_elo(leagues, group_of, n_boot=200, seed=3)
    a, b = est["experiment"]["a"], est["experiment"]["b"]
    assert a.value + b.value == pytest.approx(2000.0) and a.n == 9  # zero-sum, nine cross-method matches
    assert a.lo < a.hi and a.lo <= a.value <= a.hi  # resampling the matches gives a real interval
