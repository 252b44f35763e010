"""Quality gates, eight-axis diversity and Yield = exact maximum clique, pinned by hand."""

import networkx as nx
import pytest

from motivgraph.agents.evaluation.metrics.yield_ import (
    AXES,
    Gates,
    diversity_graph,
    max_clique,
    pair_diversity,
    topics_with_yield,
    yield_,
    yield_surface,
)


def test_pair_diversity_from_axis_relations_by_hand() -> None:
    assert pair_diversity({a: "same" for a in AXES}) == 0.0
    assert pair_diversity({a: "distinct" for a in AXES}) == 9.0
    # every axis counts once (IDEAgent seed; the core axes are not doubled): the three core axes distinct
    # (3 x 3 = 9), the five others same: 9 * 9 / (3 * 8) = 27/8 (doubling them gave 54/11)
    rel = {a: "same" for a in AXES} | {"failure_mode": "distinct", "causal_diagnosis": "distinct",
                                       "intervention": "distinct"}
    assert pair_diversity(rel) == pytest.approx(27 / 8)
    # any three axes distinct give the same score: no axis weighs more than another
    other = {a: "same" for a in AXES} | {a: "distinct" for a in AXES[-3:]}
    assert pair_diversity(other) == pytest.approx(27 / 8)
    # all 'related' (2): 9 * 2*8 / 24 = 6
    assert pair_diversity({a: "related" for a in AXES}) == pytest.approx(6.0)


def test_pair_diversity_refuses_missing_or_unknown_relations() -> None:
    with pytest.raises(ValueError, match="missing"):
        pair_diversity({"failure_mode": "same"})
    with pytest.raises(ValueError, match="relation"):
        pair_diversity({a: "different" for a in AXES})


def _case():
    # a: best quality, diverse only from b; c, d, e pairwise diverse (a triangle) but close to a and b.
    ideas = ["a", "b", "c", "d", "e", "f"]
    gates = {i: Gates(8, 8, 8) for i in ideas} | {"f": Gates(3, 8, 8)}  # f fails the NB gate
    div = {frozenset(p): 9.0 for p in [("a", "b"), ("c", "d"), ("c", "e"), ("d", "e"), ("f", "c"), ("f", "d"),
                                       ("f", "e")]}
    return ideas, gates, div


def _greedy_clique(g: nx.Graph, order: list[str]) -> list[str]:
    """Greedy pick in `order` (e.g. by quality): each idea compatible with all taken so far -- the contrast
    that shows why Yield is the exact maximum clique."""
    picked: list[str] = []
    for n in order:
        if n in g and all(g.has_edge(n, p) for p in picked):
            picked.append(n)
    return picked


def test_yield_is_the_maximum_clique_where_greedy_is_not() -> None:
    ideas, gates, div = _case()
    g = diversity_graph(ideas, gates, div, 6, 6, 6, 6)
    assert "f" not in g  # gate-failing ideas never count
    assert _greedy_clique(g, ["a", "b", "c", "d", "e"]) == ["a", "b"]  # greedy by quality: size 2
    assert max_clique(g) == ["c", "d", "e"]
    assert yield_(ideas, gates, div) == 3  # the defaults: IDEAgent's main table, NB>=7 S>=7 C>=6 D>=7
    # with the NB gate lowered f joins: c, d, e, f are pairwise diverse
    assert yield_(ideas, gates, div, k=3) == 4


def test_yield_threshold_tau_and_empty() -> None:
    ideas, gates, div = _case()
    assert yield_(ideas, gates, {k: 5.0 for k in div}, tau=6) == 1  # no edge: any single idea
    assert yield_(ideas, {i: Gates(0, 0, 0) for i in ideas}, div, k=9) == 0


def test_yield_surface_rows_k_columns_l() -> None:
    ideas = ["x", "y"]
    gates = {"x": Gates(9, 2, 9), "y": Gates(4, 9, 9)}
    div = {frozenset(("x", "y")): 7.0}
    s = yield_surface(ideas, gates, div, ks=[0, 5], ls=[0, 5], m=0, tau=6)
    # k=0,l=0: both pass, diverse -> 2; k=0,l=5: only y -> 1; k=5,l=0: only x -> 1; k=5,l=5: none -> 0
    assert s == [[2, 1], [1, 0]]


def test_topics_with_yield_counts() -> None:
    assert topics_with_yield([0, 1, 3, 2, 1]) == {1: 4, 2: 2, 3: 1}


def test_yield_defaults_are_ideagents_main_table() -> None:
    """NB >= 7, S >= 7, C >= 6, D >= 7: an idea at 6/9 non-obviousness fails, a pair at D = 6.5 is not diverse."""
    ideas = ["x", "y"]
    assert yield_(ideas, {"x": Gates(6, 9, 9), "y": Gates(9, 9, 9)}, {frozenset(ideas): 9.0}) == 1
    assert yield_(ideas, {"x": Gates(7, 7, 6), "y": Gates(7, 7, 6)}, {frozenset(ideas): 7.0}) == 2
    assert yield_(ideas, {"x": Gates(7, 7, 6), "y": Gates(7, 7, 6)}, {frozenset(ideas): 6.5}) == 1
