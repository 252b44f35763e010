"""The IDEAgent generation loop: B seeds, one lineage each, with repair, refinement and budget.

Per seed b (processed to the end before seed b+1 starts):
  draft -> stenographer signature -> quality, soundness panel, diversity judge -> routing
  -> [repair: critic directive -> revision of the same lineage -> re-scored, re-routed]
  -> accepted: up to two refinements (one if a repair was used) while below the soft targets
  -> rejected: filed under a rejection family; a history duplicate or a known failure pattern
     makes the next seed's prompt demand a change of mechanism/problem.
At most `extra_drafts_per_seed` repair + refinement drafts per seed.

State is checkpointed after every finished seed (`SearchState`, plain JSON). A run stopped by the
LLM budget (BudgetExceeded, raised by the LLM layer before a paid call) resumes from the last
finished seed; the calls of the interrupted seed are answered from the LLM cache, so the resumed
run reaches the same final set as an uninterrupted one. Draft ids are deterministic for that.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, Field

from motivgraph.agents.ideagent import prompts as P
from motivgraph.agents.ideagent.archive import Archive, Draft, DraftKind, Family, Retirement
from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.judges import IdeaText, Judges, Roles, StructuredLLM, msgs
from motivgraph.agents.ideagent.routing import (
    Decision,
    Duplicates,
    Route,
    gate,
    needs_refinement,
    pairwise_verdict,
    pivot_needed,
    refine_precheck,
    route,
)
from motivgraph.errors import ArchiveInvariantError, BudgetExceeded, JudgeFailure, StructuredOutputError

log = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], object]  # what an emitter returns is not used


class IdeaWriter(Protocol):
    """Writes one idea from the ideator's prompt (the platform's version lets it call tools first)."""

    async def write(self, system: str, user: str, label: str) -> dict[str, Any]: ...


class StructuredWriter:
    """Ideator without tools: one structured call."""

    def __init__(self, llm: StructuredLLM, role: str) -> None:
        self.llm, self.role = llm, role

    async def write(self, system: str, user: str, label: str) -> dict[str, Any]:
        return (await self.llm.structured(self.role, msgs(system, user), IdeaText)).model_dump()


class SearchState(BaseModel):
    """Everything needed to continue a search: the archive, where it stands, every draft so far."""

    archive: Archive
    next_seed: int = 0
    pivot: str | None = None  # the change-direction directive for the next seed, if any
    drafts: list[Draft] = Field(default_factory=list)  # every draft, in order: the lineage histories
    decisions: list[dict[str, Any]] = Field(default_factory=list)  # every routing/refinement decision
    resumed_at: list[int] = Field(default_factory=list)  # seeds at which a run resumed
    # queued draft id -> the draft index its repair failed to be written at; the draft stays in the repair
    # queue (so in the checkpoint) and gets one more attempt at the next seed's start
    repair_retries: dict[str, int] = Field(default_factory=dict)


class IdeagentSearch:
    def __init__(self, *, llm: StructuredLLM, cfg: IdeagentConfig, topic: str, background: str, capacity: int,
                 writer: IdeaWriter | None = None, roles: Roles | None = None, emit: Emit | None = None,
                 checkpoint: Callable[[SearchState], Awaitable[None] | None] | None = None,
                 tools_note: str = "", sample_seed: int = 0) -> None:
        self.cfg, self.topic, self.background, self.capacity = cfg, topic, background, capacity
        self.roles = roles or Roles()
        self.judges = Judges(llm, cfg, background, self.roles, sample_seed=sample_seed)
        self.writer = writer or StructuredWriter(llm, self.roles.ideator)
        self.emit: Emit = emit or (lambda e: None)
        self._checkpoint = checkpoint
        self.system = P.ideator_system(topic, background, tools_note)

    def new_state(self) -> SearchState:
        return SearchState(archive=Archive(capacity=self.capacity))

    # -- the loop ----------------------------------------------------------------------------
    async def run(self, state: SearchState | None = None) -> SearchState:
        """Run (or continue) the search to B seeds. BudgetExceeded propagates with `state` as it
        was after the last finished seed (also passed to the checkpoint callback)."""
        st = state or self.new_state()
        if st.next_seed and (not st.resumed_at or st.resumed_at[-1] != st.next_seed):
            st.resumed_at.append(st.next_seed)
            self.emit({"type": "ideagent.resume", "seed": st.next_seed, "archive": st.archive.snapshot()})
        st.archive.check()
        while st.next_seed < self.cfg.seeds:
            b = st.next_seed
            self.emit({"type": "phase", "phase": f"seed {b + 1}/{self.cfg.seeds}"})
            work = st.model_copy(deep=True)  # the seed runs on a copy: a budget stop mid-seed leaves `st` intact
            await self._seed(work, b)
            work.next_seed = b + 1
            st = work
            await self._save(st)
        if st.archive.repair_queue:  # a repair deferred past the last seed gets its attempt now
            work = st.model_copy(deep=True)
            await self._pending_repairs(work, before_seed=self.cfg.seeds)
            st = work
            await self._save(st)
        self.emit({"type": "ideagent.done", "archive": st.archive.snapshot()})
        return st

    async def _save(self, st: SearchState) -> None:
        if self._checkpoint is not None:
            r = self._checkpoint(st)
            if r is not None:
                await r

    def _step(self, st: SearchState, row: dict[str, Any]) -> None:
        """Record one decision, check the invariants, publish the archive after it."""
        st.archive.check()
        row = {**row, "archive": st.archive.snapshot()}
        st.decisions.append(row)
        self.emit({"type": "ideagent.decision", **row})
        # a one-line note in the generic message form, so any run viewer (CLI, SSE client) shows it
        a = row["archive"]
        self.emit({"type": "message", "role": "assistant", "agent": "router", "note": "routing",
                   "content": f"{row.get('draft')} → {row.get('route')}: {row.get('reason', '')}\n"
                              f"archive: active {a['active']}, history {a['history']}, "
                              f"families {len(a['families'])}"})

    async def _draft(self, st: SearchState, b: int, k: int, kind: DraftKind, lineage: str, user: str,
                     parent: str | None, exclude_lineage: str | None) -> tuple[Draft, Duplicates]:
        label = f"s{b:02d}.d{k}"
        idea = await self.writer.write(self.system, user, label)
        d = Draft(id=label, seed=b, lineage=lineage, parent=parent, kind=kind, idea=idea,
                  signature=await self.judges.signature(idea))
        try:
            scores, dups, dv = await self.judges.evaluate(d, st.archive, exclude_lineage)
        except JudgeFailure as e:  # the draft was written: keep it, unscored, with the judge that failed
            d.outcome = f"judge_failed: {e}"
            st.drafts.append(d)
            self.emit({"type": "ideagent.draft", "draft": d.id, "seed": b, "kind": kind, "lineage": d.lineage,
                       "parent": parent, "idea": idea, "signature": d.signature.model_dump(), "scores": None,
                       "judge_failure": str(e)})
            raise
        d.scores = scores
        st.drafts.append(d)
        sc = scores.summary(self.cfg)
        self.emit({"type": "message", "role": "assistant", "agent": "judges", "note": "scores",
                   "content": f"{d.id} ({kind}, {d.title}): N {sc['N']:.0f} S {sc['S']:.0f} C {sc['C']:.0f} "
                              f"D {sc['D']:.0f} F {sc['F']:.0f} Q {sc['Q']:.1f}"
                              + (" disputed" if sc["disputed"] else "") + (" INVALID" if sc["invalid"] else "")
                              + (f"; duplicates {list(dups.active) + list(dups.history)}"
                                 if dups.active or dups.history else "")})
        self.emit({"type": "ideagent.draft", "draft": d.id, "seed": b, "kind": kind, "lineage": d.lineage,
                   "parent": parent, "idea": idea, "signature": d.signature.model_dump(),
                   "scores": scores.summary(self.cfg), "quality_rationale": scores.quality_rationale,
                   "soundness_rationales": scores.soundness.rationales, "diversity_rationale": dv.rationale,
                   "duplicates": {"active": list(dups.active), "history": list(dups.history),
                                  "families": list(dups.families)}})
        return d, dups

    async def _seed(self, st: SearchState, b: int) -> None:
        cfg, a = self.cfg, st.archive
        await self._pending_repairs(st, before_seed=b)
        lineage = f"L{b:02d}"
        try:
            cur, dups = await self._draft(st, b, 0, "seed", lineage, P.seed_prompt(
                f"s{b:02d}.d0", a, cfg.signature_chars, st.pivot), None, None)
        except StructuredOutputError as e:
            self._step(st, {"seed": b, "draft": f"s{b:02d}.d0", "route": "failed", "reason": str(e)})
            return
        await self._lineage(st, b, cur, dups, k=0, repairs=0)

    async def _lineage(self, st: SearchState, b: int, cur: Draft, dups: Duplicates, *, k: int, repairs: int,
                       retry: bool = False) -> None:
        """Route a scored draft of seed b (its k-th, after `repairs` repairs); repair it while the router
        says so; settle it; refine it when accepted. A repair that could not be written leaves its draft
        in the repair queue (persisted with the search state) for one more attempt at the next seed."""
        cfg, a = self.cfg, st.archive
        while True:
            assert cur.scores is not None
            if retry:  # a queued draft's deferred repair: its routing decision was taken when it was queued
                decision = Decision(Route.REPAIR, "deferred repair", gate=gate(cur.scores, cfg))
            else:
                extra_left = cfg.extra_drafts_per_seed - k
                decision = route(cur.scores, dups, a, cfg,
                                 repair_available=repairs < cfg.max_repairs and extra_left > 0)
                if decision.route is not Route.REPAIR:
                    break
                a.enqueue_repair(cur)
                cur.outcome = Route.REPAIR.value
                self._step(st, self._row(b, cur, decision))
                repairs += 1
                k += 1
            label = f"s{b:02d}.d{k}"
            try:
                failures = list(decision.gate.failures) if decision.gate else []
                directive = (await self.judges.critic(cur, "repair", failures)).directive
                if retry:  # a new request: the unusable replies of the first attempt are cached as they were
                    directive += f"\n{P.REPAIR_RETRY}"
                # judged without its own queued parent: a repair is compared with the other lineages
                child, dups = await self._draft(st, b, k, "repair", cur.lineage, P.revision_prompt(
                    label, "repair", cur, directive), cur.id, cur.lineage)
            except StructuredOutputError as e:
                if retry:
                    a.dequeue_repair(cur.id)
                    reject = Decision(Route.REJECT_GATE, f"its repair could not be written twice ({e})",
                                      gate=gate(cur.scores, cfg))
                    await self._settle(st, b, cur, reject)
                    return
                st.repair_retries[cur.id] = k
                self._step(st, {"seed": b, "draft": label, "lineage": cur.lineage, "route": "repair_deferred",
                                "reason": f"the repair could not be written ({e}); {cur.id} stays queued for one "
                                          "more attempt"})
                return
            a.dequeue_repair(cur.id)
            st.repair_retries.pop(cur.id, None)
            cur, retry = child, False
        joined_known = await self._settle(st, b, cur, decision)
        st.pivot = self._pivot(decision, cur, joined_known)
        if decision.route.accepted:
            await self._refine(st, b, cur.lineage, k, cfg.refinements_allowed(repairs))

    async def _pending_repairs(self, st: SearchState, before_seed: int) -> None:
        """Give every draft still queued from an earlier seed its deferred repair (oldest first), under
        its own seed's draft numbering and repair count."""
        for d in [q for q in st.archive.repair_queue if q.seed < before_seed]:
            k = st.repair_retries.get(d.id)
            if k is None:  # queued without a failed attempt on record (cannot happen through the loop)
                raise ArchiveInvariantError(f"{d.id} is in the repair queue with no repair attempt on record")
            repairs = sum(1 for x in st.drafts if x.seed == d.seed and x.kind == "repair") + 1
            self.emit({"type": "phase", "phase": f"deferred repair of {d.id}"})
            await self._lineage(st, d.seed, d, Duplicates(), k=k, repairs=repairs, retry=True)

    def _row(self, b: int, d: Draft, decision: Decision, **extra: Any) -> dict[str, Any]:
        return {"seed": b, "draft": d.id, "lineage": d.lineage, "route": decision.route.value,
                "reason": decision.reason, "target": decision.target,
                "q": round(d.scores.q(self.cfg), 3) if d.scores else None, **extra}

    async def _settle(self, st: SearchState, b: int, d: Draft, decision: Decision) -> bool:
        """Apply a final routing decision. Returns True when a rejected draft joined a family that
        already existed (a known failure pattern)."""
        a, r = st.archive, decision.route
        d.outcome = r.value
        joined_known = False
        extra: dict[str, Any] = {}
        if r is Route.ACCEPT:
            a.accept(d)
        elif r is Route.REPLACE_ACTIVE:
            assert decision.target is not None
            seed_lineage = d.lineage
            old = a.supersede(decision.target, d, decision.reason)  # the newcomer inherits the incumbent's lineage
            extra.update(superseded=old.id, inherited_lineage=decision.target, seed_lineage=seed_lineage)
        elif r is Route.REPLACE_WEAKEST:
            assert decision.target is not None
            extra["superseded"] = a.evict(decision.target, by=d.id, reason=decision.reason).id
            a.accept(d)
        elif r.qualified_loser(decision.gate):
            # a newcomer that passed the gate and lost only the Q comparison goes to history, with the
            # incumbent it lost to: a later draft repeating it is then a history duplicate
            assert decision.target is not None
            against = a.active[decision.target].id
            a.retire_loser(d, against=against, reason=decision.reason)
            extra.update(history=True, lost_to=against)
        elif r.joins_family:
            known_before = {f.id for f in a.families}
            family_id, pattern = await self._family(d, decision, a)
            fam = a.reject(d, reason=r.value, pattern=pattern, family_id=family_id)
            joined_known = fam.id in known_before
            extra.update(family=fam.id, family_pattern=fam.pattern, known_family=joined_known)
        self._step(st, self._row(b, d, decision, **extra))
        return joined_known

    async def _family(self, d: Draft, decision: Decision, a: Archive) -> tuple[str | None, str]:
        if self.cfg.family_rule == "reason":
            same = next((f for f in a.families if f.reason == decision.route.value), None)
            return (same.id if same else None), decision.route.value.replace("_", " ")
        try:
            v = await self.judges.family(d, decision.reason, a)
        except StructuredOutputError as e:  # the rejection stands; only the grouping is lost
            log.warning("rejection family judgment failed for %s: %s", d.id, e)
            return None, decision.reason
        return v.family, family_label(v.pattern, decision.reason)

    def _pivot(self, decision: Decision, d: Draft, joined_known: bool) -> str | None:
        if not pivot_needed(decision.route, joined_known):
            return None
        why = ("repeated an idea that had already been superseded" if decision.route is Route.REJECT_HISTORY
               else "repeated a failure pattern already on record")
        return (f"The previous lineage ({d.title!r}: {d.signature.problem} / {d.signature.mechanism}) {why}.")

    async def _refine(self, st: SearchState, b: int, lineage: str, k: int, allowed: int) -> None:
        a = st.archive
        for _ in range(allowed):
            if k >= self.cfg.extra_drafts_per_seed:
                break
            parent = a.active.get(lineage)
            if parent is None or parent.scores is None:
                break
            misses = needs_refinement(parent.scores, self.cfg)
            if not misses:
                break
            k += 1
            label = f"s{b:02d}.d{k}"
            try:
                directive = await self.judges.critic(parent, "refine", misses)
                child, dups = await self._draft(st, b, k, "refine", lineage, P.revision_prompt(
                    label, "refine", parent, directive.directive), parent.id, lineage)
            except StructuredOutputError as e:
                self._step(st, {"seed": b, "draft": label, "lineage": lineage, "route": "refine_failed",
                                "reason": str(e)})
                continue
            assert child.scores is not None
            refusal = refine_precheck(parent.scores, child.scores, dups, self.cfg)
            wins: list[bool] = []
            if refusal is None:
                wins = await self.judges.child_wins(parent, child)
                refusal = pairwise_verdict(wins)
            row = {"seed": b, "draft": child.id, "lineage": lineage, "parent": parent.id,
                   "q": round(child.scores.q(self.cfg), 3), "parent_q": round(parent.scores.q(self.cfg), 3),
                   "pairwise_child_wins": wins, "targets_missed": misses}
            if refusal is not None:
                child.outcome = f"refine_refused_{refusal.value}"
                self._step(st, {**row, "route": child.outcome, "reason": refusal.value})
                continue
            a.supersede(lineage, child, "refined: the child passed the gate, raised Q and won both blind comparisons")
            child.outcome = "refine_accepted"
            self._step(st, {**row, "route": "refine_accepted", "reason": "passes the gate, keeps diversity, "
                            "raises Q and wins both blind comparisons", "superseded": parent.id})


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def family_label(pattern: str, fallback: str) -> str:
    """The label a new family is shown by: the judge's pattern when it describes one; `fallback` (the
    routing reason) when the judge gave a bare identifier instead -- small models echo the answer
    schema's name (e.g. "FamilyVerdict"), which names a class, not a failure pattern."""
    p = pattern.strip()
    return fallback if not p or _IDENTIFIER.fullmatch(p) else p


_CARRIED = re.compile(r"^r\d+\.")


def carry_over(fresh: SearchState, earlier: Sequence[SearchState]) -> SearchState:
    """A top-up run's starting state: the archives of the topic's earlier runs, so their ideas are not
    written again. Every idea an earlier run delivered or retired joins this run's history H (as superseded:
    a new draft repeating one is a history duplicate, routed like any other), its losing newcomers stay
    losers, and its rejection families R stay known (a draft sharing a known failure pattern is filed there).
    Ids and lineages are prefixed r<run>. so they never meet this run's own; what an earlier run itself
    carried is not carried twice. The active set A starts empty: this run must still find its own ideas."""
    a = fresh.archive
    for n, st in enumerate(earlier, 1):

        def ren(x: str, n: int = n) -> str:
            return f"r{n}.{x}"

        old = st.archive
        for d in [*old.active.values(), *old.history]:
            if _CARRIED.match(d.id):
                continue
            lost = d.retired is not None and d.retired.why == "lost"
            retired = Retirement(why="lost" if lost else "superseded",
                                 against=ren(d.retired.against) if d.retired is not None else f"run {n}",
                                 reason=(d.retired.reason if d.retired is not None else "delivered")
                                 + f" (earlier run {n} of this topic)")
            a.history.append(d.model_copy(deep=True, update={
                "id": ren(d.id), "lineage": ren(d.lineage), "parent": ren(d.parent) if d.parent else None,
                "retired": retired}))
            if not lost:
                a.ever_active.append(ren(d.id))
        for f in old.families:
            if _CARRIED.match(f.id):
                continue
            a.families.append(Family(id=ren(f.id), pattern=f.pattern, reason=f.reason,
                                     members=[ren(m) for m in f.members], examples=list(f.examples)))
    a.check()
    return fresh


def final_ideas(st: SearchState, cfg: IdeagentConfig) -> list[Draft]:
    """The active set, best first (Q, ties by F)."""
    return sorted(st.archive.active.values(), key=lambda d: d.scores.rank(cfg) if d.scores else (0, 0),
                  reverse=True)


def no_idea_detail(st: SearchState | None, cfg: IdeagentConfig) -> str:
    """Why a finished search holds no idea: "no idea was written" only when no draft was; else how
    many drafts were written and which gates they failed (a draft is counted once per gate it failed)."""
    unwritten = sum(1 for r in (st.decisions if st else []) if r.get("route") in ("failed", "refine_failed"))
    tail = f"; {unwritten} draft(s) could not be written" if unwritten else ""
    if st is None or not st.drafts:
        return "no idea was written" + tail
    unscored = [d for d in st.drafts if d.scores is None]
    if unscored:
        tail += (f"; {len(unscored)} draft(s) written but not scored: their judge failed "
                 f"({str(unscored[-1].outcome or '').removeprefix('judge_failed: ')[:200]})")
    missed: Counter[str] = Counter()
    for d in st.drafts:
        if d.scores is not None:
            missed.update({f.split(" ")[0] for f in gate(d.scores, cfg).failures})
    names = {"N": f"N < {cfg.min_non_obviousness:g}", "S": f"S < {cfg.min_soundness:g}",
             "C": f"C < {cfg.min_clarity:g}", "disputed": "disputed soundness", "invalid": "invalid soundness"}
    why = ", ".join(f"{names.get(k, k)} in {n}" for k, n in sorted(missed.items(), key=lambda kv: (-kv[1], kv[0])))
    n = len(st.drafts)
    return f"{n} draft{'s' if n != 1 else ''} written, none passed the gates ({why or 'see the decisions'}){tail}"


def lineage_history(st: SearchState, lineage: str) -> list[Draft]:
    """Every draft that belonged to `lineage` (including the seed it came from when it inherited it)."""
    return [d for d in st.drafts if d.lineage == lineage]


__all__ = ["BudgetExceeded", "IdeagentSearch", "SearchState", "carry_over", "family_label", "final_ideas",
           "lineage_history", "no_idea_detail"]
