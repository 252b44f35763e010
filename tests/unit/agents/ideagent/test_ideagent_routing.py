"""Every routing branch, the gate, soundness aggregation, Q and the refinement rules — pure."""

from __future__ import annotations

import pytest
from ideagent_factories import CFG, archive_with, draft, scores

from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.routing import (
    Duplicates,
    Refusal,
    Route,
    gate,
    needs_refinement,
    pairwise_verdict,
    pivot_needed,
    refine_precheck,
    route,
    weakest_lineage,
)
from motivgraph.agents.ideagent.scores import aggregate_soundness

# -- soundness panel ----------------------------------------------------------------------


def test_soundness_is_rescaled_sum_of_the_panel():
    p = aggregate_soundness([9, 9, 9, 9, 9], CFG)
    assert p.score == pytest.approx(100.0) and not p.disputed and not p.invalid
    p = aggregate_soundness([6, 7, 5, 8, 4], CFG)
    assert p.score == pytest.approx(100 / 45 * 30)


def test_one_low_judgment_disputes_three_invalidate():
    p = aggregate_soundness([9, 9, 9, 9, 3], CFG)
    assert p.disputed and not p.invalid and p.low_votes == 1
    p = aggregate_soundness([3, 2, 9, 9, 9], CFG)
    assert p.disputed and not p.invalid
    p = aggregate_soundness([3, 2, 1, 9, 9], CFG)
    assert p.invalid and p.disputed and p.low_votes == 3


def test_panel_size_and_range_are_checked():
    with pytest.raises(ValueError, match="expected M=5"):
        aggregate_soundness([5, 5, 5], CFG)
    with pytest.raises(ValueError, match=r"0\.\.9"):
        aggregate_soundness([5, 5, 5, 5, 10], CFG)


def test_panel_size_is_a_setting():
    cfg = IdeagentConfig(panel_size=3, invalid_votes=2, _env_file=None)  # type: ignore[call-arg]
    p = aggregate_soundness([3, 3, 9], cfg)
    assert p.invalid and p.score == pytest.approx(100 / 27 * 15)


def test_invalid_votes_cannot_exceed_panel():
    with pytest.raises(ValueError, match="invalid_votes"):
        IdeagentConfig(panel_size=2, invalid_votes=3, _env_file=None)  # type: ignore[call-arg]


# -- gate and Q ---------------------------------------------------------------------------


def test_q_weights_and_feasibility_tie_break():
    s = scores(n=80, s=70, c=50)
    assert s.q(CFG) == pytest.approx(0.7 * 80 + 0.2 * s.S + 0.1 * 50)
    a, b = scores(n=70, c=70, s=80, f=10), scores(n=70, c=70, s=80, f=90)
    assert a.q(CFG) == b.q(CFG) and b.rank(CFG) > a.rank(CFG)


def test_gate_thresholds_and_feasibility_not_gated():
    assert gate(scores(n=60, c=60, s=60, f=0), CFG).passed
    g = gate(scores(n=59, c=75, s=75), CFG)
    assert not g.passed and g.shortfall == pytest.approx(1) and g.failures == ("N 59.0 < 60",)
    assert not gate(scores(c=40), CFG).passed


def test_gate_fails_disputed_even_with_high_scores():
    g = gate(scores(judgments=[9, 9, 9, 9, 2]), CFG)
    assert not g.passed and g.disputed and g.repairable(CFG)
    g = gate(scores(judgments=[9, 9, 1, 2, 3]), CFG)
    assert not g.passed and g.invalid and not g.repairable(CFG)


# -- routing: one test per branch ---------------------------------------------------------


def test_pure_history_duplicate_is_rejected():
    a = archive_with(draft("s0.d0", "L0"))
    d = route(scores(), Duplicates(history=("s9.d0",)), a, CFG, repair_available=True)
    assert d.route is Route.REJECT_HISTORY and d.route.joins_family


def test_history_plus_one_active_is_treated_as_the_active_lineage():
    a = archive_with(draft("s0.d0", "L0", scores(n=65)))
    d = route(scores(n=90), Duplicates(active=("L0",), history=("s9.d0",)), a, CFG, repair_available=True)
    assert d.route is Route.REPLACE_ACTIVE and d.target == "L0"


def test_multi_active_duplicate_is_rejected():
    a = archive_with(draft("s0.d0", "L0"), draft("s1.d0", "L1"))
    d = route(scores(n=99), Duplicates(active=("L0", "L1")), a, CFG, repair_available=True)
    assert d.route is Route.REJECT_MULTI_ACTIVE


def test_single_active_duplicate_with_higher_q_replaces():
    a = archive_with(draft("s0.d0", "L0", scores(n=65)))
    d = route(scores(n=85), Duplicates(active=("L0",)), a, CFG, repair_available=True)
    assert d.route is Route.REPLACE_ACTIVE and d.target == "L0" and d.route.accepted


def test_single_active_duplicate_without_higher_q_keeps_incumbent():
    a = archive_with(draft("s0.d0", "L0", scores(n=85)))
    d = route(scores(n=70), Duplicates(active=("L0",)), a, CFG, repair_available=True)
    assert d.route is Route.KEEP_ACTIVE and d.target == "L0" and not d.route.joins_family
    same = route(scores(n=85), Duplicates(active=("L0",)), a, CFG, repair_available=True)
    assert same.route is Route.KEEP_ACTIVE  # equal Q and F: the incumbent stays


def test_single_active_duplicate_failing_gate_keeps_incumbent_even_with_higher_q():
    a = archive_with(draft("s0.d0", "L0", scores(n=61, s=61, c=61)))
    d = route(scores(n=95, judgments=[9, 9, 9, 9, 1]), Duplicates(active=("L0",)), a, CFG, repair_available=True)
    assert d.route is Route.KEEP_ACTIVE


def test_duplicate_is_the_judges_list_not_a_d_threshold():
    a = archive_with(draft("s0.d0", "L0"))
    d = route(scores(d=95), Duplicates(active=("L0",)), a, CFG, repair_available=True)
    assert d.route in (Route.KEEP_ACTIVE, Route.REPLACE_ACTIVE)


def test_low_diversity_without_duplicate_is_rejected_not_repaired():
    a = archive_with(draft("s0.d0", "L0"))
    d = route(scores(d=59, n=55), Duplicates(), a, CFG, repair_available=True)
    assert d.route is Route.REJECT_LOW_D


def test_within_margin_goes_to_repair_once():
    a = archive_with()
    d = route(scores(n=41), Duplicates(), a, CFG, repair_available=True)
    assert d.route is Route.REPAIR
    d = route(scores(n=41), Duplicates(), a, CFG, repair_available=False)
    assert d.route is Route.REJECT_GATE and "repair already used" in d.reason


def test_disputed_but_otherwise_passing_is_repaired():
    d = route(scores(judgments=[8, 8, 8, 8, 2]), Duplicates(), archive_with(), CFG, repair_available=True)
    assert d.route is Route.REPAIR and "disputed" in d.reason


def test_invalid_is_rejected_without_repair():
    d = route(scores(judgments=[8, 8, 3, 3, 2]), Duplicates(), archive_with(), CFG, repair_available=True)
    assert d.route is Route.REJECT_GATE and "invalid" in d.reason


def test_beyond_margin_is_rejected():
    d = route(scores(c=39), Duplicates(), archive_with(), CFG, repair_available=True)
    assert d.route is Route.REJECT_GATE and "margin" in d.reason


def test_margin_is_a_setting():
    cfg = IdeagentConfig(repair_margin=5, _env_file=None)  # type: ignore[call-arg]
    assert route(scores(n=54), Duplicates(), archive_with(), cfg, repair_available=True).route is Route.REJECT_GATE
    assert route(scores(n=55), Duplicates(), archive_with(), cfg, repair_available=True).route is Route.REPAIR


def test_accept_into_free_capacity():
    d = route(scores(), Duplicates(), archive_with(draft("s0.d0", "L0")), CFG, repair_available=True)
    assert d.route is Route.ACCEPT


def test_full_archive_replaces_weakest_only_with_higher_q():
    a = archive_with(draft("s0.d0", "L0", scores(n=80)), draft("s1.d0", "L1", scores(n=65)), capacity=2)
    assert weakest_lineage(a, CFG) == "L1"
    d = route(scores(n=70), Duplicates(), a, CFG, repair_available=True)
    assert d.route is Route.REPLACE_WEAKEST and d.target == "L1"
    d = route(scores(n=64), Duplicates(), a, CFG, repair_available=True)
    assert d.route is Route.REJECT_FULL and not d.route.joins_family


# -- refinement ---------------------------------------------------------------------------


def test_refinement_trigger_uses_soft_targets():
    assert needs_refinement(scores(n=90, s=80, c=80), CFG) == []
    assert len(needs_refinement(scores(n=89, s=75, c=79), CFG)) == 3


def test_refinement_budget_shrinks_with_repair():
    assert CFG.refinements_allowed(0) == 2 and CFG.refinements_allowed(1) == 1


def test_refine_precheck_reasons_in_order():
    parent = scores(n=70)
    assert refine_precheck(parent, scores(n=80), Duplicates(), CFG) is None
    assert refine_precheck(parent, scores(n=80, judgments=[9, 9, 9, 9, 2]), Duplicates(), CFG) is Refusal.GATE
    assert refine_precheck(parent, scores(n=80, d=50), Duplicates(), CFG) is Refusal.DIVERSITY
    assert refine_precheck(parent, scores(n=80), Duplicates(active=("L2",)), CFG) is Refusal.DIVERSITY
    assert refine_precheck(parent, scores(n=80), Duplicates(history=("s5.d0",)), CFG) is Refusal.DIVERSITY
    assert refine_precheck(parent, scores(n=70), Duplicates(), CFG) is Refusal.QUALITY


def test_pairwise_needs_both_wins():
    assert pairwise_verdict([True, True]) is None
    assert pairwise_verdict([True, False]) is Refusal.PAIRWISE
    assert pairwise_verdict([False, True]) is Refusal.PAIRWISE
    assert pairwise_verdict([]) is Refusal.PAIRWISE


def test_pivot_after_history_death_or_known_family():
    assert pivot_needed(Route.REJECT_HISTORY, False)
    assert pivot_needed(Route.REJECT_GATE, True)
    assert not pivot_needed(Route.REJECT_GATE, False)
    assert not pivot_needed(Route.ACCEPT, False) and not pivot_needed(None, False)
