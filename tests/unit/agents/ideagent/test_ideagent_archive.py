"""Archive stores, lineage inheritance and the invariants."""

from __future__ import annotations

import pytest
from ideagent_factories import archive_with, draft

from motivgraph.agents.ideagent.archive import Archive, Retirement
from motivgraph.errors import ArchiveInvariantError


def test_supersede_moves_old_to_history_and_newcomer_inherits_lineage():
    a = archive_with(draft("s0.d0", "L0"))
    newcomer = draft("s1.d0", "L1")
    old = a.supersede("L0", newcomer)
    a.check()
    assert old.id == "s0.d0" and newcomer.lineage == "L0"
    assert a.snapshot()["active"] == {"L0": "s1.d0"} and a.snapshot()["history"] == ["s0.d0"]


def test_evict_then_accept_keeps_capacity():
    a = archive_with(draft("s0.d0", "L0"), draft("s1.d0", "L1"), capacity=2)
    with pytest.raises(ArchiveInvariantError, match="full"):
        a.accept(draft("s2.d0", "L2"))
    a.evict("L1", by="s2.d0", reason="stronger newcomer")
    a.accept(draft("s2.d0", "L2"))
    a.check()
    assert set(a.active) == {"L0", "L2"} and [d.id for d in a.history] == ["s1.d0"]


def test_losing_newcomer_goes_to_history_with_why_and_against_whom():
    a = archive_with(draft("s0.d0", "L0"), capacity=1)
    loser = draft("s1.d0", "L1")
    a.retire_loser(loser, against="s0.d0", reason="archive full; Q 70 does not beat the weakest")
    a.check()
    assert a.snapshot()["history"] == ["s1.d0"] and a.snapshot()["active"] == {"L0": "s0.d0"}
    assert loser.retired is not None and (loser.retired.why, loser.retired.against) == ("lost", "s0.d0")
    with pytest.raises(ArchiveInvariantError, match="was active"):
        a.retire_loser(a.active["L0"], against="s1.d0", reason="x")


def test_accept_refuses_second_version_of_a_lineage():
    a = archive_with(draft("s0.d0", "L0"))
    with pytest.raises(ArchiveInvariantError, match="already active"):
        a.accept(draft("s0.d1", "L0"))


def test_families_group_rejections_and_new_patterns_open_families():
    a = Archive(capacity=2)
    f1 = a.reject(draft("s0.d0", "L0"), reason="reject_gate", pattern="vague mechanism", family_id=None)
    f2 = a.reject(draft("s1.d0", "L1"), reason="reject_gate", pattern="x", family_id=f1.id)
    f3 = a.reject(draft("s2.d0", "L2"), reason="reject_low_diversity", pattern="stitching", family_id="F99")
    a.check()
    assert f1 is f2 and f1.members == ["s0.d0", "s1.d0"] and f3.id == "F2" and f3.pattern == "stitching"


def test_repair_queue_round_trip():
    a = Archive(capacity=1)
    d = draft("s0.d0", "L0")
    a.enqueue_repair(d)
    a.check()
    assert a.dequeue_repair("s0.d0") is d and a.repair_queue == []
    with pytest.raises(ArchiveInvariantError):
        a.dequeue_repair("s0.d0")


@pytest.mark.parametrize("breakage", ["over_capacity", "wrong_lineage", "history_extra", "history_missing",
                                      "two_stores", "double_family", "history_unrecorded", "loser_was_active"])
def test_check_detects_each_broken_invariant(breakage):
    a = archive_with(draft("s0.d0", "L0"), capacity=1)
    if breakage == "over_capacity":
        a.active["L1"] = draft("s1.d0", "L1")
        a.ever_active.append("s1.d0")
    elif breakage == "wrong_lineage":
        a.active["L0"] = draft("s0.d0", "L7")
    elif breakage == "history_extra":
        a.history.append(draft("s5.d0", "L5"))
    elif breakage == "history_missing":
        a.ever_active.append("s9.d0")
    elif breakage == "two_stores":
        a.repair_queue.append(a.active["L0"])
    elif breakage == "history_unrecorded":  # superseded, but nothing says why or by whom
        a.supersede("L0", draft("s1.d0", "L1"))
        a.history[0].retired = None
    elif breakage == "loser_was_active":
        a.supersede("L0", draft("s1.d0", "L1"))
        a.history[0].retired = Retirement(why="lost", against="s1.d0", reason="x")  # it was active: superseded
    elif breakage == "double_family":
        a.reject(draft("s2.d0", "L2"), reason="r", pattern="p", family_id=None)
        a.families[0].members.append("s2.d0")
    with pytest.raises(ArchiveInvariantError):
        a.check()


def test_archive_round_trips_through_json():
    a = archive_with(draft("s0.d0", "L0"), capacity=2)
    a.supersede("L0", draft("s1.d0", "L1"))
    a.reject(draft("s2.d0", "L2"), reason="r", pattern="p", family_id=None)
    b = Archive.model_validate_json(a.model_dump_json())
    b.check()
    assert b.snapshot() == a.snapshot()
