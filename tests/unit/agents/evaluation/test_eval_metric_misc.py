"""Grounding shares, Cohen's kappa, cost and bootstrap means, pinned by hand."""

import math

import pytest

from motivgraph.agents.evaluation.metrics.agreement import cohen_kappa
from motivgraph.agents.evaluation.metrics.cost import Cost, from_usage, per_idea, summed
from motivgraph.agents.evaluation.metrics.grounding import Fidelity
from motivgraph.agents.evaluation.metrics.stats import bootstrap, mean, mean_ci, percentile


def test_grounding_shares() -> None:
    f = Fidelity(links=3, links_resolved=2, citations=4, citations_matched=2)
    assert f.link_share == pytest.approx(2 / 3) and f.citation_share == 0.5
    empty = Fidelity(0, 0, 0, 0)
    assert math.isnan(empty.link_share) and math.isnan(empty.citation_share)


def test_cohen_kappa_by_hand() -> None:
    # 10 items: agree yes 4, agree no 3, a-yes/b-no 2, a-no/b-yes 1
    a = ["y"] * 4 + ["n"] * 3 + ["y"] * 2 + ["n"]
    b = ["y"] * 4 + ["n"] * 3 + ["n"] * 2 + ["y"]
    # po = 0.7; a: y 6 n 4; b: y 5 n 5; pe = (6*5 + 4*5)/100 = 0.5 -> kappa 0.4
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa([1, 2, 3], [1, 2, 3]) == 1.0
    assert cohen_kappa(["x", "x"], ["x", "x"]) == 1.0


def test_quadratic_kappa_by_hand() -> None:
    a, b = [0, 1, 2], [0, 2, 2]
    # range 2; observed weights: 0, 1/4, 0 -> do = 1/12; expected over all 9 pairs:
    # a x b = (0,0)0 (0,2)1 (0,2)1 (1,0).25 (1,2).25 (1,2).25 (2,0)1 (2,2)0 (2,2)0 -> 3.75/9
    assert cohen_kappa(a, b, weights="quadratic") == pytest.approx(1 - (1 / 12) / (3.75 / 9))
    with pytest.raises(ValueError):
        cohen_kappa([1], [1, 2])


def test_cost_sums_usage_roles_and_splits_per_idea() -> None:
    usage = {"eval.judge": {"calls": 3, "input_tokens": 300, "output_tokens": 30, "cost_usd": 0.3},
             "ideator": {"calls": 1, "input_tokens": 100, "output_tokens": 10, "cost_usd": 0.1},
             "total": {"calls": 99}}
    c = from_usage(usage)
    assert c.as_dict() == {"calls": 4, "input_tokens": 400, "output_tokens": 40, "cost_usd": 0.4}
    assert per_idea(c, 2).as_dict() == {"calls": 2, "input_tokens": 200, "output_tokens": 20, "cost_usd": 0.2}
    assert summed([c, Cost(1, 1, 1, 1.0)]).calls == 5


def test_stats() -> None:
    assert mean([1, 2, 3]) == 2 and math.isnan(mean([]))
    assert percentile([0, 10], 0.25) == 2.5
    e = mean_ci([1.0, 2.0, 3.0, float("nan")], n_boot=300)
    assert e.value == 2.0 and e.n == 3 and 1.0 <= e.lo <= 2.0 <= e.hi <= 3.0
    assert bootstrap([5.0], mean).as_dict() == {"value": 5.0, "lo": 5.0, "hi": 5.0, "n": 1}
