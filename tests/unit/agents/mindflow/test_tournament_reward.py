"""Anchor tournament (scores, strict tie-break, position swap) and reward / advantage."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from motivgraph.agents.mindflow.config import DIMENSIONS
from motivgraph.agents.mindflow.reward import advantages, flow_costs, rewards
from motivgraph.agents.mindflow.tournament import JudgeOutcome, anchor_tournament, wins_both_orders


def strength_judge(strength: dict[str, list[int]], calls: list[tuple[str, str]] | None = None) -> Any:
    """Idea 'q' holds per-dimension strengths; the higher wins a dimension, ties go to the first shown."""

    async def judge(a: dict[str, Any], b: dict[str, Any]) -> JudgeOutcome:
        if calls is not None:
            calls.append((a["id"], b["id"]))
        sa, sb = strength[a["id"]], strength[b["id"]]
        return JudgeOutcome({d: "A" if sa[i] >= sb[i] else "B" for i, d in enumerate(DIMENSIONS)})

    return judge


def ideas(*ids: str) -> list[dict[str, Any]]:
    return [{"id": i} for i in ids]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_scores_against_anchor_and_strict_ranks() -> None:
    s = {"anc": [5] * 6, "x": [9] * 6, "y": [9, 9, 9, 9, 1, 1], "z": [1] * 6}
    res = run(anchor_tournament(ideas("anc", "x", "y", "z"), 0, strength_judge(s), np.random.default_rng(0)))
    assert res.scores == [3, 6, 4, 0]  # anchor 3/6 by definition
    assert res.ranks == [2, 0, 1, 3]
    assert res.usage.calls == 0 and len(res.comparisons) == 3  # K−1 comparisons, no ties


def test_ties_broken_head_to_head_copeland() -> None:
    # x and y both beat the anchor on 4 of 6; head-to-head y beats x
    s = {"anc": [5] * 6, "x": [6, 6, 6, 6, 1, 1], "y": [7, 7, 7, 7, 1, 1], "w": [0] * 6}
    calls: list[tuple[str, str]] = []
    res = run(anchor_tournament(ideas("anc", "x", "y", "w"), 0, strength_judge(s, calls), np.random.default_rng(3)))
    assert res.scores[1] == res.scores[2] == 4
    assert res.ranks[2] < res.ranks[1] < res.ranks[0] < res.ranks[3]
    assert sorted(res.ranks) == [0, 1, 2, 3]
    assert len(calls) == 4  # 3 anchor comparisons + 1 tie-break
    assert res.copeland == {1: -1, 2: 1}


def test_cycle_and_draw_resolved_by_seeded_coin() -> None:
    # a, b, c tie against the anchor and form a rock-paper-scissors cycle head-to-head
    s = {"anc": [5] * 6, "a": [9, 9, 9, 1, 1, 1], "b": [9, 9, 9, 1, 1, 1], "c": [9, 9, 9, 1, 1, 1]}

    async def cyc(first: dict[str, Any], second: dict[str, Any]) -> JudgeOutcome:
        pair = (first["id"], second["id"])
        if "anc" in pair:
            return await strength_judge(s)(first, second)
        beats = {("a", "b"), ("b", "c"), ("c", "a")}
        winner_first = pair in beats
        return JudgeOutcome(dict.fromkeys(DIMENSIONS, "A" if winner_first else "B"))

    grp = ideas("anc", "a", "b", "c")
    seen = set()
    for seed in range(12):
        res = run(anchor_tournament(grp, 0, cyc, np.random.default_rng(seed)))
        assert sorted(res.ranks) == [0, 1, 2, 3]  # strict whatever happens
        assert res.coin_broken  # the cycle needed the coin
        again = run(anchor_tournament(grp, 0, cyc, np.random.default_rng(seed)))
        assert again.ranks == res.ranks  # same seed, same order
        seen.add(tuple(res.ranks))
    assert len(seen) > 1  # the coin really decides


def test_position_swap_cancels_a_first_position_bias() -> None:
    async def always_first(a: dict[str, Any], b: dict[str, Any]) -> JudgeOutcome:
        return JudgeOutcome(dict.fromkeys(DIMENSIONS, "A"))

    grp = ideas("anc", "p", "q", "r")
    fixed = run(anchor_tournament(grp, 0, always_first, np.random.default_rng(0), swap="fixed"))
    assert fixed.scores[1:] == [6, 6, 6]  # without the swap every candidate wins everything
    total = []
    shown_first = []
    rng = np.random.default_rng(7)
    for _ in range(300):
        res = run(anchor_tournament(grp, 0, always_first, rng))
        total += res.scores[1:]
        shown_first += [c.shown_first == c.x for c in res.comparisons if c.kind == "anchor"]
    assert 0.4 < np.mean(shown_first) < 0.6
    assert np.mean(total) == pytest.approx(3.0, abs=0.35)  # a biased judge averages out to the anchor's 3


def test_both_orders_neutralises_position_bias() -> None:
    async def always_first(a: dict[str, Any], b: dict[str, Any]) -> JudgeOutcome:
        return JudgeOutcome(dict.fromkeys(DIMENSIONS, "A"))

    share, _usage = run(wins_both_orders(always_first, {"id": "x"}, {"id": "y"}))
    assert share == 0.5
    s = {"x": [9] * 6, "y": [1] * 6}
    share, _ = run(wins_both_orders(strength_judge(s), {"id": "x"}, {"id": "y"}))
    assert share == 1.0


def test_judge_missing_a_dimension_is_an_error() -> None:
    async def partial(a: dict[str, Any], b: dict[str, Any]) -> JudgeOutcome:
        return JudgeOutcome({"significance": "A"})

    with pytest.raises(ValueError, match="problem_novelty"):
        run(anchor_tournament(ideas("anc", "x"), 0, partial, np.random.default_rng(0)))


def test_reward_formula_and_advantage() -> None:
    r = rewards([0, 1, 2, 3], [0.0, 0.0, 0.0, 0.0], 0.1)
    assert r == pytest.approx([1.0, 2 / 3, 1 / 3, 0.0])
    r = rewards([2, 0, 3, 1], [1.0, 0.5, 2.0, 0.5], 0.2)
    assert r == pytest.approx([1 / 3 - 0.2, 1 - 0.1, 0 - 0.4, 2 / 3 - 0.1])
    a = advantages(r)
    assert sum(a) == pytest.approx(0.0)
    assert a == pytest.approx([x - np.mean(r) for x in r])
    an = advantages(r, normalize=True)
    assert np.std(an) == pytest.approx(1.0)
    assert advantages([0.5, 0.5], normalize=True) == [0.0, 0.0]


def test_reward_rejects_non_strict_ranks() -> None:
    with pytest.raises(ValueError, match="strict"):
        rewards([0, 0, 1], [0, 0, 0], 0.1)


def test_flow_costs_modes() -> None:
    assert flow_costs("tokens", tokens=[100, 300]) == pytest.approx([0.5, 1.5])
    assert flow_costs("tokens", tokens=[0, 0]) == [0.0, 0.0]
    assert flow_costs("ops", n_ops=[7, 14], layers=4, operators=7) == pytest.approx([0.25, 0.5])
    with pytest.raises(ValueError):
        flow_costs("dollars", tokens=[1])
