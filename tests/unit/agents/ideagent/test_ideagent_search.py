"""The search loop driven by the scripted world: every routing branch end to end, the archives'
contents after each decision, lineage inheritance, refinement outcomes, pivot directives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.method import archive_summary
from motivgraph.agents.ideagent.scripted_world import World, default_scores, revision_delta
from motivgraph.agents.ideagent.search import (
    IdeagentSearch,
    SearchState,
    family_label,
    lineage_history,
    no_idea_detail,
)
from motivgraph.llm import LLMClient, ScriptedChatModel
from motivgraph.settings import Settings

GOOD = {"N": 92, "C": 85, "F": 50, "panel": [8, 8, 8, 8, 8], "D": 90}  # passes, above soft targets
OK = {"N": 70, "C": 70, "F": 50, "panel": [7, 7, 7, 7, 7], "D": 80}  # passes, below soft targets
BAD = {"N": 30, "C": 30, "F": 50, "panel": [5, 5, 5, 5, 5], "D": 80}  # beyond the repair margin


class Run:
    def __init__(self, tmp: Path, plan: dict[str, Any], seeds: int, capacity: int = 2, **cfg: Any) -> None:
        self.settings = Settings(data_dir=tmp, _env_file=None)  # type: ignore[call-arg]
        self.settings.llm.cache = False
        self.world = World(plan)
        self.model = ScriptedChatModel(default=self.world)
        self.llm = LLMClient(self.settings, model=self.model)
        self.cfg = IdeagentConfig(seeds=seeds, _env_file=None, **cfg)  # type: ignore[call-arg]
        self.events: list[dict[str, Any]] = []
        self.search = IdeagentSearch(llm=self.llm, cfg=self.cfg, topic="t", background="bg", capacity=capacity,
                                     emit=self.events.append)

    async def __call__(self) -> SearchState:
        st = await self.search.run()
        self.llm.close()
        return st


def decisions(st: SearchState) -> list[tuple[str, str]]:
    return [(d["draft"], d["route"]) for d in st.decisions]


def after(st: SearchState, draft: str, route: str | None = None) -> dict[str, Any]:
    row = next(d for d in st.decisions if d["draft"] == draft and (route is None or d["route"] == route))
    return row["archive"]


def ideator_prompts(run: Run) -> list[str]:
    return [str(c[-1].content) for c in run.model.calls if "ROLE: ideator" in str(c[0].content)]


async def test_history_replace_and_pure_history_reject(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s01.d0": "b", "s02.d0": "c", "s03.d0": "d"},
            "scores": {"a": GOOD, "b": {**GOOD, "N": 97, "active": ["L00"]},
                       "c": {**GOOD, "history": ["s00.d0"]}, "d": GOOD}}
    run = Run(tmp_path, plan, seeds=4, capacity=2)
    st = await run()
    assert decisions(st) == [("s00.d0", "accept"), ("s01.d0", "replace_active_duplicate"),
                             ("s02.d0", "reject_history_duplicate"), ("s03.d0", "accept")]
    assert after(st, "s00.d0") == {"active": {"L00": "s00.d0"}, "repair_queue": [], "history": [], "families": {}}
    # the newcomer inherits the incumbent's lineage; the incumbent moves to history
    assert after(st, "s01.d0")["active"] == {"L00": "s01.d0"} and after(st, "s01.d0")["history"] == ["s00.d0"]
    assert st.decisions[1]["inherited_lineage"] == "L00" and st.decisions[1]["seed_lineage"] == "L01"
    assert after(st, "s02.d0")["families"] == {"F1": ["s02.d0"]}
    assert after(st, "s03.d0")["active"] == {"L00": "s01.d0", "L03": "s03.d0"}
    assert [d.id for d in lineage_history(st, "L00")] == ["s00.d0", "s01.d0"]
    prompts = ideator_prompts(run)
    assert "CHANGE DIRECTION" in prompts[3] and "superseded" in prompts[3]
    assert not any("CHANGE DIRECTION" in p for p in prompts[:3])


async def test_multi_active_duplicate_rejected(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s01.d0": "b", "s02.d0": "c"},
            "scores": {"a": GOOD, "b": GOOD, "c": {**GOOD, "N": 99, "active": ["L00", "L01"]}}}
    st = await Run(tmp_path, plan, seeds=3)()
    assert decisions(st)[-1] == ("s02.d0", "reject_multi_active_duplicate")
    assert after(st, "s02.d0") == {"active": {"L00": "s00.d0", "L01": "s01.d0"}, "repair_queue": [], "history": [],
                                   "families": {"F1": ["s02.d0"]}}


async def test_single_active_duplicate_keeps_stronger_incumbent(tmp_path):
    """The qualified newcomer that loses to its duplicate moves to history (lost to the incumbent);
    a duplicate that fails the gate is no qualified idea and is dropped."""
    plan = {"drafts": {"s00.d0": "a", "s01.d0": "b", "s02.d0": "c"},
            "scores": {"a": GOOD, "b": {**GOOD, "N": 91, "active": ["L00"]},
                       "c": {**BAD, "active": ["L00"]}}}
    st = await Run(tmp_path, plan, seeds=3, extra_drafts_per_seed=0)()
    assert decisions(st) == [("s00.d0", "accept"), ("s01.d0", "keep_active_incumbent"),
                             ("s02.d0", "keep_active_incumbent")]
    assert after(st, "s01.d0") == {"active": {"L00": "s00.d0"}, "repair_queue": [], "history": ["s01.d0"],
                                   "families": {}}
    lost = st.archive.history[0].retired
    assert lost is not None and (lost.why, lost.against) == ("lost", "s00.d0") and "without a higher Q" in lost.reason
    assert st.decisions[1]["lost_to"] == "s00.d0"
    assert after(st, "s02.d0")["history"] == ["s01.d0"]  # failed the gate: not in history


async def test_full_archive_replaces_weakest_then_rejects_weaker(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s01.d0": "b", "s02.d0": "c", "s03.d0": "d"},
            "scores": {"a": {**GOOD, "N": 95}, "b": {**GOOD, "N": 90}, "c": {**GOOD, "N": 93},
                       "d": {**GOOD, "N": 91}}}
    st = await Run(tmp_path, plan, seeds=4, capacity=2)()
    assert decisions(st) == [("s00.d0", "accept"), ("s01.d0", "accept"), ("s02.d0", "replace_weakest"),
                             ("s03.d0", "reject_archive_full")]
    assert after(st, "s02.d0")["active"] == {"L00": "s00.d0", "L02": "s02.d0"}
    assert after(st, "s02.d0")["history"] == ["s01.d0"]
    assert after(st, "s03.d0")["families"] == {}  # lost on Q, not a failure pattern
    # ... but kept in history, with why and against whom, beside the idea it evicted
    assert after(st, "s03.d0")["history"] == ["s01.d0", "s03.d0"]
    h = {d.id: d.retired for d in st.archive.history}
    assert h["s01.d0"] is not None and (h["s01.d0"].why, h["s01.d0"].against) == ("superseded", "s02.d0")
    assert h["s03.d0"] is not None and (h["s03.d0"].why, h["s03.d0"].against) == ("lost", "s02.d0")
    summary = archive_summary(st, IdeagentConfig(seeds=4, _env_file=None))  # type: ignore[call-arg]
    assert "- s03.d0 [L03] Idea d: a mechanism for the topic: lost to s02.d0 (archive full;" in summary
    assert "- s01.d0 [L01] Idea b: a mechanism for the topic: superseded by s02.d0 (archive full;" in summary


async def test_a_draft_repeating_a_losing_newcomer_is_a_history_duplicate(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s01.d0": "b", "s02.d0": "c"},
            "scores": {"a": GOOD, "b": {**GOOD, "N": 91, "active": ["L00"]}, "c": {**GOOD, "history": ["s01.d0"]}}}
    st = await Run(tmp_path, plan, seeds=3)()
    assert decisions(st)[-1] == ("s02.d0", "reject_history_duplicate")


async def test_low_diversity_rejected(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s01.d0": "b"}, "scores": {"a": GOOD, "b": {**GOOD, "D": 40}}}
    st = await Run(tmp_path, plan, seeds=2)()
    assert decisions(st)[-1] == ("s01.d0", "reject_low_diversity")
    assert after(st, "s01.d0")["families"] == {"F1": ["s01.d0"]}


async def test_repair_success(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s00.d1": "a1"},
            "scores": {"a": {**GOOD, "N": 50}, "a1": GOOD}}
    run = Run(tmp_path, plan, seeds=1)
    st = await run()
    assert decisions(st) == [("s00.d0", "repair"), ("s00.d1", "accept")]
    assert after(st, "s00.d0", "repair")["repair_queue"] == ["s00.d0"]
    assert after(st, "s00.d1") == {"active": {"L00": "s00.d1"}, "repair_queue": [], "history": [], "families": {}}
    assert st.drafts[1].parent == "s00.d0" and st.drafts[1].lineage == "L00" and st.drafts[1].kind == "repair"
    revision = ideator_prompts(run)[1]
    assert "Idea a" in revision and "CRITIC DIRECTIVE" in revision


async def test_repair_failure_rejected_into_family(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s00.d1": "a1"},
            "scores": {"a": {**GOOD, "N": 50}, "a1": {**GOOD, "N": 55}}}
    st = await Run(tmp_path, plan, seeds=1)()
    assert decisions(st) == [("s00.d0", "repair"), ("s00.d1", "reject_gate")]
    assert "repair already used" in st.decisions[-1]["reason"]
    assert after(st, "s00.d1") == {"active": {}, "repair_queue": [], "history": [], "families": {"F1": ["s00.d1"]}}


async def test_disputed_repaired_and_invalid_rejected(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s00.d1": "a1", "s01.d0": "b"},
            "scores": {"a": {**GOOD, "panel": [8, 8, 8, 8, 2]}, "a1": GOOD,
                       "b": {**GOOD, "panel": [8, 8, 3, 2, 1]}}}
    st = await Run(tmp_path, plan, seeds=2)()
    assert decisions(st) == [("s00.d0", "repair"), ("s00.d1", "accept"), ("s01.d0", "reject_gate")]
    assert "disputed" in st.decisions[0]["reason"] and "invalid" in st.decisions[-1]["reason"]


async def test_known_failure_family_triggers_pivot(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s01.d0": "b", "s02.d0": "c"},
            "scores": {"a": BAD, "b": {**BAD, "family": "F1"}, "c": GOOD}}
    run = Run(tmp_path, plan, seeds=3)
    st = await run()
    assert after(st, "s01.d0")["families"] == {"F1": ["s00.d0", "s01.d0"]}
    assert st.decisions[1]["known_family"] is True and st.decisions[0]["known_family"] is False
    prompts = ideator_prompts(run)
    assert "CHANGE DIRECTION" not in prompts[1]  # first failure of a new pattern: no pivot
    assert "CHANGE DIRECTION" in prompts[2] and "failure pattern already on record" in prompts[2]


async def test_family_rule_reason_needs_no_llm(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s01.d0": "b"}, "scores": {"a": BAD, "b": BAD}}
    run = Run(tmp_path, plan, seeds=2, family_rule="reason")
    st = await run()
    assert after(st, "s01.d0")["families"] == {"F1": ["s00.d0", "s01.d0"]}
    assert not any(r.startswith("diversity judge (rejection") for r in run.world.roles_seen)


async def test_refine_accepted_supersedes_parent(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s00.d1": "a1"},
            "scores": {"a": OK, "a1": {**GOOD, "wins": [True, True]}}}
    st = await Run(tmp_path, plan, seeds=1)()
    assert decisions(st) == [("s00.d0", "accept"), ("s00.d1", "refine_accepted")]
    assert after(st, "s00.d1") == {"active": {"L00": "s00.d1"}, "repair_queue": [], "history": ["s00.d0"],
                                   "families": {}}
    assert st.decisions[-1]["pairwise_child_wins"] == [True, True]


@pytest.mark.parametrize(("child", "reason"), [
    ({**GOOD, "panel": [8, 8, 8, 8, 2]}, "gate"),
    ({**GOOD, "D": 40}, "diversity"),
    ({**GOOD, "active": ["L00"]}, "diversity"),
    ({**OK, "N": 69}, "quality_not_higher"),
    ({**GOOD, "wins": [True, False]}, "pairwise_lost"),
    ({**GOOD, "wins": [False, True]}, "pairwise_lost"),
])
async def test_refine_refusals(tmp_path, child, reason):
    plan = {"drafts": {"s00.d0": "z", "s01.d0": "a", "s01.d1": "a1", "s01.d2": "a2"},
            "scores": {"z": GOOD, "a": OK, "a1": child, "a2": child}}
    st = await Run(tmp_path, plan, seeds=2)()
    assert decisions(st) == [("s00.d0", "accept"), ("s01.d0", "accept"), ("s01.d1", f"refine_refused_{reason}"),
                             ("s01.d2", f"refine_refused_{reason}")]
    assert after(st, "s01.d2") == {"active": {"L00": "s00.d0", "L01": "s01.d0"}, "repair_queue": [], "history": [],
                                   "families": {}}


async def test_one_refinement_after_a_repair(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s00.d1": "a1", "s00.d2": "a2"},
            "scores": {"a": {**OK, "N": 50}, "a1": OK, "a2": {**OK, "N": 69}}}
    st = await Run(tmp_path, plan, seeds=1)()
    assert decisions(st) == [("s00.d0", "repair"), ("s00.d1", "accept"),
                             ("s00.d2", "refine_refused_quality_not_higher")]
    assert len(st.drafts) == 3  # at most two extra drafts per seed


async def test_inherited_lineage_is_refined_under_the_incumbents_lineage(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s00.d1": "a1", "s00.d2": "a2", "s01.d0": "b", "s01.d1": "b1"},
            "scores": {"a": {**OK, "N": 65}, "a1": {**OK, "N": 64}, "a2": {**OK, "N": 64},
                       "b": {**OK, "N": 75, "active": ["L00"]}, "b1": {**GOOD, "wins": [True, True]}}}
    st = await Run(tmp_path, plan, seeds=2)()
    assert ("s01.d0", "replace_active_duplicate") in decisions(st)
    assert ("s01.d1", "refine_accepted") in decisions(st)
    assert st.archive.snapshot()["active"] == {"L00": "s01.d1"}
    assert [d.id for d in st.archive.history] == ["s00.d0", "s01.d0"]
    assert st.drafts[-1].lineage == "L00" and st.drafts[-1].parent == "s01.d0"


def soundness_calls(run: Run) -> list[tuple[str, Any]]:
    """(prompt, seed sent) of every real soundness call the model received."""
    return [(str(c[0].content) + str(c[-1].content), kw.get("seed")) for c, kw in zip(
        run.model.calls, run.model.call_kwargs, strict=True) if "ROLE: soundness" in str(c[0].content)]


async def test_soundness_panel_is_independent_seeded_samples_of_one_prompt(tmp_path):
    """M samples of one identical prompt, told apart by their seeds, so the LLM cache (on here) keeps them
    M real calls; the same run seed replays them from the cache, another run seed draws new ones."""
    plan = {"drafts": {"s00.d0": "a"}, "scores": {"a": {**GOOD, "panel": [9, 6, 3]}}}

    def run_with(sample_seed: int) -> Run:
        run = Run(tmp_path, plan, seeds=1, panel_size=3, invalid_votes=2, extra_drafts_per_seed=0)
        run.settings.llm.cache = True
        run.llm = LLMClient(run.settings, model=run.model)
        run.search = IdeagentSearch(llm=run.llm, cfg=run.cfg, topic="t", background="bg", capacity=2,
                                    sample_seed=sample_seed)
        return run

    first = run_with(0)
    st = await first()
    calls = soundness_calls(first)
    assert len(calls) == 3 and len({p for p, _ in calls}) == 1  # one prompt ...
    assert sorted(seed for _, seed in calls) == [0, 1, 2]  # ... three samples
    s = st.drafts[0].scores
    assert s is not None and sorted(s.soundness.judgments) == [3, 6, 9] and s.soundness.disputed
    again = run_with(0)
    st2 = await again()
    assert soundness_calls(again) == []  # replayed from the cache, sample by sample
    assert st2.drafts[0].scores is not None and sorted(st2.drafts[0].scores.soundness.judgments) == [3, 6, 9]
    other = run_with(1)
    await other()
    assert sorted(seed for _, seed in soundness_calls(other)) == [3, 4, 5]  # another run seed: new samples


async def test_default_world_runs_ten_seeds_with_invariants(tmp_path):
    run = Run(tmp_path, {}, seeds=10, capacity=3)
    st = await run()
    assert st.next_seed == 10 and len(st.archive.active) <= 3
    routes = {d["route"] for d in st.decisions}
    assert "accept" in routes and len(st.drafts) <= 30
    st.archive.check()
    ideator_calls = len(ideator_prompts(run))
    assert 10 <= ideator_calls <= 30


async def test_invariants_are_checked_at_every_decision(tmp_path, monkeypatch):
    from motivgraph.agents.ideagent.archive import Archive

    checks = {"n": 0}
    real = Archive.check

    def counting(self):  # type: ignore[no-untyped-def]
        checks["n"] += 1
        real(self)

    monkeypatch.setattr(Archive, "check", counting)
    st = await Run(tmp_path, {}, seeds=4, capacity=2)()
    assert checks["n"] >= len(st.decisions) + 1  # once at start, once per recorded decision


async def test_broken_invariant_stops_the_search(tmp_path, monkeypatch):
    from motivgraph.agents.ideagent.archive import Archive
    from motivgraph.errors import ArchiveInvariantError

    def broken_accept(self, draft):  # type: ignore[no-untyped-def]
        self.active[draft.lineage] = draft  # forgets ever_active: history bookkeeping breaks
        self.history.append(draft)

    monkeypatch.setattr(Archive, "accept", broken_accept)
    with pytest.raises(ArchiveInvariantError):
        await Run(tmp_path, {"drafts": {"s00.d0": "a"}, "scores": {"a": GOOD}}, seeds=1)()


async def test_repair_is_not_compared_with_its_own_queued_parent(tmp_path):
    plan = {"drafts": {"s00.d0": "z", "s01.d0": "a", "s01.d1": "a1"},
            "scores": {"z": GOOD, "a": {**GOOD, "N": 50}, "a1": GOOD}}
    run = Run(tmp_path, plan, seeds=2)
    st = await run()
    assert ("s01.d1", "accept") in decisions(st)
    div = [str(c[-1].content) for c in run.model.calls if "ROLE: diversity judge." in str(c[0].content)]
    repair_view = next(d for d in div if "problem of a1" in d.split("\n\n")[0])
    assert "problem of a\n" not in repair_view and "[s01.d0]" not in repair_view
    assert "[L00]" in repair_view  # the other lineage is still there


async def test_failed_repair_is_rejected_at_the_gate_with_the_reason(tmp_path):
    """A repair that does not lift the draft over the gate: the revision is filed under a rejection
    family with "repair already used"; it was never qualified, so it is not in history."""
    plan = {"drafts": {"s00.d0": "a", "s00.d1": "a1"},
            "scores": {"a": {**OK, "N": 50}, "a1": {**OK, "N": 48}}}  # the revision lowers N
    st = await Run(tmp_path, plan, seeds=1)()
    assert decisions(st) == [("s00.d0", "repair"), ("s00.d1", "reject_gate")]
    row = st.decisions[-1]
    assert "N 48.0 < 60" in row["reason"] and "repair already used" in row["reason"]
    assert after(st, "s00.d1") == {"active": {}, "repair_queue": [], "history": [], "families": {"F1": ["s00.d1"]}}


def test_scripted_revisions_can_lower_or_raise_scores():
    """The default world's revisions move N and C both ways, so a repair or refinement is not a success by
    construction (before, every revision added 8 points to both)."""
    deltas = [revision_delta(f"t{i}.d1", axis) for i in range(200) for axis in ("N", "C")]
    assert min(deltas) < 0 < max(deltas) and sum(1 for x in deltas if x < 0) > 40
    assert revision_delta("t1.d0", "N") == 0  # a first draft is not a revision
    base, rev = default_scores("t7.d0"), default_scores("t7.d1")
    assert rev["N"] == max(0, min(98, base["N"] + revision_delta("t7.d1", "N")))  # the seed draft's score, moved


async def test_no_idea_headline_counts_drafts_and_the_gates_they_failed(tmp_path):
    plan = {"drafts": {"s00.d0": "a", "s01.d0": "b"},
            "scores": {"a": BAD, "b": {**BAD, "C": 75, "panel": [5, 5, 5, 5, 3]}}}
    run = Run(tmp_path, plan, seeds=2)
    st = await run()
    assert not st.archive.active
    # a: N 30, C 30, S 55.6; b: N 30, S 51.1 and one judgment <= 3 (disputed)
    assert no_idea_detail(st, run.cfg) == ("2 drafts written, none passed the gates (N < 60 in 2, S < 60 in 2, "
                                           "C < 60 in 1, disputed soundness in 1)")
    assert no_idea_detail(None, run.cfg) == "no idea was written"
    assert no_idea_detail(run.search.new_state(), run.cfg) == "no idea was written"


async def test_a_family_is_shown_by_its_label_never_a_schema_name(tmp_path):
    """A judge answering the schema's class name as the pattern: the family takes the routing reason."""
    plan = {"drafts": {"s00.d0": "a", "s01.d0": "b"},
            "scores": {"a": {**BAD, "pattern": "FamilyVerdict"}, "b": {**BAD, "pattern": "vague causal chain"}}}
    run = Run(tmp_path, plan, seeds=2)
    st = await run()
    f1, f2 = st.archive.families
    assert f1.pattern.startswith("fails the gate (N 30.0 < 60") and f2.pattern == "vague causal chain"
    summary = archive_summary(st, run.cfg)
    assert "FamilyVerdict" not in summary and "- F1 (1): fails the gate" in summary
    assert family_label("  FamilyVerdict ", "why") == "why" and family_label("a.b_c", "why") == "why"
    assert family_label("reuses a benchmark leak", "why") == "reuses a benchmark leak"


async def test_repair_queue_persists_across_seeds_and_a_resume(tmp_path):
    """A repair that could not be written leaves its draft queued in the checkpointed state; a run resumed
    from that checkpoint repairs it at the next seed's start (second attempt), before the new seed."""
    plan = {"drafts": {"s00.d0": "a", "s00.d1": "a1", "s01.d0": "b"}, "unwritable": ["s00.d1"],
            "scores": {"a": {**OK, "N": 50}, "a1": GOOD, "b": {**GOOD, "N": 91}}}
    saved: list[str] = []
    run = Run(tmp_path, plan, seeds=1)
    run.search._checkpoint = lambda st: saved.append(st.model_dump_json())
    st0 = await run()
    assert decisions(st0)[:2] == [("s00.d0", "repair"), ("s00.d1", "repair_deferred")]
    # a one-seed run drains the queue at its end: the second attempt wrote the repair
    assert ("s00.d1", "accept") in decisions(st0) and st0.archive.repair_queue == []
    # resume from the checkpoint saved after seed 0 (queue still holding s00.d0) with a second seed
    after_seed0 = SearchState.model_validate_json(saved[0])
    assert after_seed0.archive.snapshot()["repair_queue"] == ["s00.d0"] and after_seed0.next_seed == 1
    assert after_seed0.repair_retries == {"s00.d0": 1}
    run2 = Run(tmp_path / "r2", plan, seeds=2)
    st = await run2.search.run(after_seed0)
    assert decisions(st)[2:4] == [("s00.d1", "accept"), ("s01.d0", "accept")]
    assert st.archive.snapshot()["active"] == {"L00": "s00.d1", "L01": "s01.d0"}
    assert st.archive.repair_queue == [] and st.repair_retries == {}
    retried = [p for p in ideator_prompts(run2) if "Draft s00.d1" in p]
    assert len(retried) == 1 and "second attempt" in retried[0]


async def test_a_repair_unwritable_twice_is_rejected_with_the_reason(tmp_path):
    plan = {"drafts": {"s00.d0": "a"}, "unwritable": ["s00.d1"], "scores": {"a": {**OK, "N": 50}}}
    run = Run(tmp_path, plan, seeds=1)
    orig = run.world._ideator
    run.world._ideator = lambda user: {"title": "unusable"} if "Draft s00.d1" in user else orig(user)  # type: ignore
    st = await run()
    assert decisions(st) == [("s00.d0", "repair"), ("s00.d1", "repair_deferred"), ("s00.d0", "reject_gate")]
    assert "could not be written twice" in st.decisions[-1]["reason"]
    assert st.archive.repair_queue == [] and st.archive.snapshot()["families"] == {"F1": ["s00.d0"]}
