"""Creative Utility with gamma = 0.9 in greedy order, pinned by hand."""

import math

import pytest

from motivgraph.agents.evaluation.metrics.creative_utility import creative_utility, cu_of_order, greedy_order

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
