"""Creative Utility with gamma = 0.9 in greedy order, R_set, and the paper's quality and distance terms,
pinned by hand."""

import math

import pytest

from motivgraph.agents.evaluation.metrics.creative_utility import (
    creative_utility,
    cu_of_order,
    field_distance,
    field_distance_matrix,
    greedy_order,
    impact_value,
    length_controlled,
    r_set,
    strict_impact,
)

Q = [0.9, 0.8, 0.5]
D = [[0.0, 0.1, 1.0], [0.1, 0.0, 1.0], [1.0, 1.0, 0.0]]


def test_greedy_order_takes_the_far_idea_before_the_near_duplicate() -> None:
    # first: best quality (0); then 2 (0.5*1.0=0.5) beats 1 (0.8*0.1=0.08)
    assert greedy_order(Q, D) == [0, 2, 1]


def test_cu_greedy_vs_written_order_by_hand() -> None:
    den = 1 + 0.9 + 0.81
    greedy = (0.9 + 0.9 * 0.5 + 0.81 * 0.8 * 0.1) / den  # = 1.4148 / 2.71
    written = (0.9 + 0.9 * 0.8 * 0.1 + 0.81 * 0.5 * 1.0) / den  # = 1.377 / 2.71
    assert creative_utility(Q, D, gamma=0.9) == pytest.approx(greedy)
    assert creative_utility(Q, D) == pytest.approx(0.522066, abs=1e-6)
    assert cu_of_order(Q, D, [0, 1, 2]) == pytest.approx(written)
    assert greedy > written  # order matters


def test_cu_single_idea_and_gamma_one() -> None:
    assert creative_utility([0.4], [[0.0]]) == pytest.approx(0.4)
    assert cu_of_order(Q, D, [0, 2, 1], gamma=1.0) == pytest.approx((0.9 + 0.5 + 0.08) / 3)
    assert math.isnan(cu_of_order([], [], []))


def test_cu_refuses_bad_shapes_and_gamma() -> None:
    with pytest.raises(ValueError):
        creative_utility([0.1, 0.2], [[0.0]])
    with pytest.raises(ValueError):
        cu_of_order(Q, D, [0], gamma=0.0)


# ---------------------------------------------------------------- the paper's quality and distance terms

# Four ideas; per pair the (problem gap, core claim, method) similarities on 1..5, chosen so that every
# pair's distance differs and a swapped index or similarity-as-distance changes the answer.
SIMS = {(0, 1): [[5, 5, 5]], (0, 2): [[1, 1, 1]], (0, 3): [[3, 2, 1]],
        (1, 2): [[2, 2, 2]], (1, 3): [[4, 4, 4]], (2, 3): [[1, 3, 5]]}
# strict wins against two gold references: idea 0 wins both, 1 one, 2 none, 3 one
WINS = [[("idea", "idea"), ("idea", "idea")], [("idea", "idea"), ("idea", "gold")],
        [("gold", "tie"), ("tie", "tie")], [("idea", "tie"), ("idea", "idea")]]


def test_impact_counts_orders_and_strict_needs_both() -> None:
    assert impact_value("idea", "idea") == 1.0 and impact_value("idea", "gold") == 0.5
    # the seed's {0, 0.5, 1}: a tie is half a win in its order (it used to count nothing)
    assert impact_value("tie", "tie") == 0.5 and impact_value("idea", "tie") == 0.75
    assert impact_value("gold", "tie") == 0.25 and impact_value("gold", "gold") == 0.0
    assert strict_impact("idea", "idea") == 1.0 and strict_impact("idea", "tie") == 0.0
    with pytest.raises(ValueError):
        impact_value("A", "idea")


def test_field_distance_is_five_minus_s_over_four_and_always_in_unit_interval() -> None:
    assert field_distance([3, 2, 1]) == pytest.approx((0.5 + 0.75 + 1.0) / 3)
    assert field_distance([5, 5, 5]) == 0.0 and field_distance([1, 1, 1]) == 1.0
    for a in range(1, 6):
        for b in range(1, 6):
            for c in (1, 2.5, 5):
                assert 0.0 <= field_distance([a, b, c]) <= 1.0
    for bad in ([0, 3, 3], [6, 1, 1], []):
        with pytest.raises(ValueError):
            field_distance(bad)


def test_cu_with_the_papers_terms_by_hand() -> None:
    q = [sum(strict_impact(*o) for o in w) / len(w) for w in WINS]
    assert q == [1.0, 0.5, 0.0, 0.5]
    d = field_distance_matrix(4, SIMS)
    assert d[0][3] == d[3][0] == pytest.approx(0.75) and d[2][3] == pytest.approx(0.5) and d[0][1] == 0.0
    assert all(0.0 <= x <= 1.0 for row in d for x in row)
    # greedy: 0 (best q); then 3 (0.5*0.75 = 0.375 beats 1: 0.5*0 and 2: 0*1); then 1 (0.5*min(0, 0.25) = 0,
    # tie with 2 at 0 -> lower index); then 2
    assert greedy_order(q, d) == [0, 3, 1, 2]
    assert creative_utility(q, d) == pytest.approx((1 + 0.9 * 0.375) / (1 + 0.9 + 0.81 + 0.729))  # 0.388921
    assert creative_utility(q, d) == pytest.approx(0.388921, abs=1e-6)


def test_field_distance_matrix_averages_judgments_and_leaves_missing_pairs_nan() -> None:
    d = field_distance_matrix(3, {(0, 1): [[5, 5, 5], [1, 1, 1]]})
    assert d[0][1] == d[1][0] == 0.5 and math.isnan(d[0][2]) and d[2][2] == 0.0
    with pytest.raises(ValueError):
        field_distance_matrix(2, {(0, 2): [[1, 1, 1]]})


def test_r_set_uses_the_written_order_no_discount_and_the_bonus_by_hand() -> None:
    q = [0.5, 1.0, 0.5]
    d = [[0.0, 0.25, 1.0], [0.25, 0.0, 0.5], [1.0, 0.5, 0.0]]
    # 0.5 * 1 + 1.0 * d10 + 0.5 * min(d20, d21) + bonus = 0.5 + 0.25 + 0.25 + 0.05
    assert r_set(q, d) == pytest.approx(1.05)
    assert r_set(q, d, bonus=0.0) == pytest.approx(1.0)
    assert r_set(q, d, valid=False) == 0.0
    # CU of the same set orders greedily and discounts: a different number
    assert creative_utility(q, d) != pytest.approx(r_set(q, d, bonus=0.0) / 3)


def test_length_controlled_win_reweights_wins_by_what_length_alone_adds() -> None:
    e = math.e
    # longer ideas (x = +1) win 3 of 4, shorter (x = -1) 1 of 4: the fit is a = 0, b = ln 3
    wins = [1, 1, 1, 0, 1, 0, 0, 0]
    idea = [100 * e] * 4 + [100 / e] * 4
    lc = length_controlled(wins, idea, [100] * 8)
    # a win weighs sigma(a) / sigma(a + b*x): long 0.5 / 0.75 = 2/3, short 0.5 / 0.25 = 2 -> clipped to 1;
    # a loss stays 0 whatever its length
    assert lc == pytest.approx([2 / 3, 2 / 3, 2 / 3, 0.0, 1.0, 0.0, 0.0, 0.0], abs=2e-3)
    assert length_controlled([0, 0, 0], [10, 100, 1000], [100, 100, 100]) == [0.0, 0.0, 0.0]
    # no length difference: the strict wins unchanged
    assert length_controlled([1, 0, 1], [50, 60, 70], [50, 60, 70]) == [1, 0, 1]
    with pytest.raises(ValueError):
        length_controlled([1], [0], [10])
