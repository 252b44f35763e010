"""Reference-based win rates and MOScore, pinned to hand-computed values."""

import math

import pytest

from motivgraph.agents.evaluation.metrics.reference import (
    DIMENSIONS,
    Vote,
    moscore,
    moscores,
    strict_win_rate,
    win_rates,
)


def test_win_rate_counts_ties_half() -> None:
    votes = [Vote("significance", "idea"), Vote("significance", "tie"), Vote("significance", "reference"),
             Vote("significance", "idea")]
    r = win_rates(votes)
    assert r["significance"] == pytest.approx(2.5 / 4)
    assert math.isnan(r["feasibility"]) and set(r) == set(DIMENSIONS)


def test_strict_win_needs_both_orders() -> None:
    votes = [
        Vote("feasibility", "idea", "j", "r1", True), Vote("feasibility", "idea", "j", "r1", False),  # strict win
        Vote("feasibility", "idea", "j", "r2", True), Vote("feasibility", "reference", "j", "r2", False),  # not
    ]
    assert strict_win_rate(votes) == 0.5


def test_moscore_equal_weights() -> None:
    # s = (0.5, 0.5, 0.5): both means 0.5
    assert moscore([0.5, 0.5, 0.5], [1, 1, 1]) == pytest.approx(0.5)
    # s = (1, 0.25, 0.5), equal weights: arith 7/12, geo (0.125)^(1/3) = 0.5 -> (7/12 + 0.5)/2
    assert moscore([1.0, 0.25, 0.5], [1 / 3] * 3) == pytest.approx((7 / 12 + 0.5) / 2)


def test_moscore_unequal_weights_by_hand() -> None:
    # w = (0.5, 0.25, 0.25), s = (0.8, 0.4, 0.2)
    # arith = 0.4 + 0.1 + 0.05 = 0.55; geo = 0.8^0.5 * 0.4^0.25 * 0.2^0.25 = 0.894427 * 0.795271 * 0.668740
    arith = 0.55
    geo = 0.8**0.5 * 0.4**0.25 * 0.2**0.25
    assert geo == pytest.approx(0.475683, abs=1e-6)
    assert moscore([0.8, 0.4, 0.2], [0.5, 0.25, 0.25]) == pytest.approx((arith + geo) / 2)
    assert moscore([0.8, 0.4, 0.2], [2, 1, 1]) == pytest.approx((arith + geo) / 2)  # weights normalised
    # unequal weights change the result vs equal weights
    assert moscore([0.8, 0.4, 0.2], [1, 1, 1]) != pytest.approx(moscore([0.8, 0.4, 0.2], [0.5, 0.25, 0.25]))


def test_moscore_zero_score_kills_the_geometric_half_and_zero_weight_ignores_it() -> None:
    assert moscore([0.0, 1.0, 1.0], [1, 1, 1]) == pytest.approx((2 / 3 + 0) / 2)
    assert moscore([0.0, 1.0, 1.0], [0, 1, 1]) == pytest.approx(1.0)


def test_moscore_refuses_bad_input() -> None:
    with pytest.raises(ValueError):
        moscore([0.5, 0.5], [1, 1, 1])
    with pytest.raises(ValueError):
        moscore([0.5, 0.5, 0.5], [-1, 1, 1])
    with pytest.raises(ValueError):
        moscore([1.5, 0.5, 0.5], [1, 1, 1])


def test_moscores_split_pd_and_ps() -> None:
    rates = {d: 0.5 for d in DIMENSIONS} | {"problem_novelty": 1.0}
    out = moscores(rates, w_pd=(1, 0, 0), w_ps=(1, 1, 1))
    assert out == pytest.approx({"moscore_pd": 1.0, "moscore_ps": 0.5})
