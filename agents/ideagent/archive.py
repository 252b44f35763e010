"""The four stores of the search and the invariants that must hold after every step.

- active A: the accepted ideas, one per lineage, at most `capacity` (the number of ideas asked for);
- repair queue: drafts that missed the gate by less than the repair margin, waiting for their repair;
- history H: every qualified draft that lost its place -- an active idea superseded (by a better
  version of its lineage, a refinement, or a stronger newcomer when A was full) and a newcomer that
  passed the gate but lost its Q comparison (to the duplicate it matched, or to the weakest idea of a
  full A) -- each recorded with why and against whom; nothing else (a rejected draft goes to a family,
  a refused refinement child is discarded);
- rejection families R: failure *patterns*, each gathering the rejected drafts that share it.

Lineage: a seed's first draft opens a lineage; its repairs and refinements keep it; a newcomer
that replaces the one active idea it duplicates inherits that idea's lineage.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from motivgraph.agents.ideagent.scores import Scores
from motivgraph.agents.ideagent.signature import Signature
from motivgraph.errors import ArchiveInvariantError

DraftKind = Literal["seed", "repair", "refine"]


class Retirement(BaseModel):
    """Why a draft sits in history and which draft it lost to."""

    why: Literal["superseded", "lost"]  # superseded: was active; lost: a qualified newcomer that never was
    against: str  # the draft id that took (or kept) the place
    reason: str


class Draft(BaseModel):
    """One draft the ideator wrote, with what the stenographer and judges made of it."""

    id: str  # "s03.d1": seed 3, second draft of that seed (deterministic: resume relies on it)
    seed: int
    lineage: str
    parent: str | None = None
    kind: DraftKind = "seed"
    idea: dict[str, Any] = Field(default_factory=dict)
    signature: Signature
    scores: Scores | None = None
    outcome: str | None = None  # the routing decision that settled it
    retired: Retirement | None = None  # set when the draft moves to history

    @property
    def title(self) -> str:
        return str(self.idea.get("title") or self.idea.get("Title") or self.id)


class Family(BaseModel):
    """A failure pattern and the rejected drafts that share it."""

    id: str
    pattern: str
    reason: str  # the routing reason of the draft that opened it
    members: list[str] = Field(default_factory=list)  # draft ids
    examples: list[str] = Field(default_factory=list)  # short signature lines for prompts


class Archive(BaseModel):
    """A, the repair queue, H and R, plus the bookkeeping the invariants need."""

    capacity: int = Field(ge=1)
    active: dict[str, Draft] = Field(default_factory=dict)  # lineage -> its current version
    repair_queue: list[Draft] = Field(default_factory=list)
    history: list[Draft] = Field(default_factory=list)
    families: list[Family] = Field(default_factory=list)
    ever_active: list[str] = Field(default_factory=list)  # draft ids that were ever in A, in order

    # -- queries -------------------------------------------------------------------------------
    @property
    def full(self) -> bool:
        return len(self.active) >= self.capacity

    def family(self, family_id: str) -> Family | None:
        return next((f for f in self.families if f.id == family_id), None)

    # -- mutations -----------------------------------------------------------------------------
    def _activate(self, draft: Draft) -> None:
        self.active[draft.lineage] = draft
        if draft.id not in self.ever_active:
            self.ever_active.append(draft.id)

    def accept(self, draft: Draft) -> None:
        """Add a draft of a lineage not yet active, into free capacity."""
        if draft.lineage in self.active:
            raise ArchiveInvariantError(f"lineage {draft.lineage} is already active ({self.active[draft.lineage].id})")
        if self.full:
            raise ArchiveInvariantError(f"the active archive is full ({self.capacity}); {draft.id} cannot join")
        self._activate(draft)

    def supersede(self, lineage: str, newcomer: Draft, reason: str = "a better version of its lineage") -> Draft:
        """Replace lineage's active version by `newcomer` (which takes the lineage); the old one
        moves to history. Returns the superseded draft."""
        old = self.active.get(lineage)
        if old is None:
            raise ArchiveInvariantError(f"lineage {lineage} is not active; nothing to supersede")
        newcomer.lineage = lineage
        del self.active[lineage]
        old.retired = Retirement(why="superseded", against=newcomer.id, reason=reason)
        self.history.append(old)
        self._activate(newcomer)
        return old

    def evict(self, lineage: str, by: str, reason: str) -> Draft:
        """Move lineage's active version to history (the stronger newcomer `by` takes its place)."""
        old = self.active.pop(lineage, None)
        if old is None:
            raise ArchiveInvariantError(f"lineage {lineage} is not active; nothing to evict")
        old.retired = Retirement(why="superseded", against=by, reason=reason)
        self.history.append(old)
        return old

    def retire_loser(self, draft: Draft, against: str, reason: str) -> None:
        """A newcomer that passed the gate but lost its Q comparison to the active draft `against`:
        kept in history (a later draft repeating it is a history duplicate), never discarded."""
        if draft.id in self.ever_active:
            raise ArchiveInvariantError(f"{draft.id} was active; it is superseded, not a losing newcomer")
        draft.retired = Retirement(why="lost", against=against, reason=reason)
        self.history.append(draft)

    def enqueue_repair(self, draft: Draft) -> None:
        self.repair_queue.append(draft)

    def dequeue_repair(self, draft_id: str) -> Draft:
        for i, d in enumerate(self.repair_queue):
            if d.id == draft_id:
                return self.repair_queue.pop(i)
        raise ArchiveInvariantError(f"draft {draft_id} is not in the repair queue")

    def reject(self, draft: Draft, *, reason: str, pattern: str, family_id: str | None,
               example_chars: int = 160) -> Family:
        """File a rejected draft under the family `family_id` (None or unknown: a new family with
        `pattern`). Returns its family."""
        fam = self.family(family_id) if family_id else None
        if fam is None:
            fam = Family(id=f"F{len(self.families) + 1}", pattern=pattern.strip() or reason, reason=reason)
            self.families.append(fam)
        fam.members.append(draft.id)
        if len(fam.examples) < 3:  # a few examples make the pattern concrete; more only grows prompts
            line = f"{draft.signature.problem} / {draft.signature.mechanism}"
            fam.examples.append(line if len(line) <= example_chars else line[: example_chars - 1] + "…")
        return fam

    # -- invariants ----------------------------------------------------------------------------
    def check(self) -> None:
        """Raise ArchiveInvariantError when any invariant is broken:
        - every active entry sits under its own lineage and no lineage holds two active ideas;
        - |A| <= capacity;
        - history holds exactly the drafts that were active once and are no longer, plus the losing
          newcomers that never were (no repeats), each with its retirement record;
        - no draft is in two stores (active, queue, history, families) at once."""
        problems: list[str] = []
        for lineage, d in self.active.items():
            if d.lineage != lineage:
                problems.append(f"active entry {lineage} holds {d.id} of lineage {d.lineage}")
        lineages = [d.lineage for d in self.active.values()]
        if len(lineages) != len(set(lineages)):
            problems.append(f"two active ideas share a lineage: {sorted(lineages)}")
        if len(self.active) > self.capacity:
            problems.append(f"{len(self.active)} active ideas exceed the capacity {self.capacity}")
        active_ids = {d.id for d in self.active.values()}
        hist_ids = [d.id for d in self.history]
        if len(hist_ids) != len(set(hist_ids)):
            problems.append(f"history repeats drafts: {hist_ids}")
        superseded = set(self.ever_active) - active_ids
        losers = {d.id for d in self.history if d.retired is not None and d.retired.why == "lost"}
        if set(hist_ids) != superseded | losers:
            problems.append(f"history {sorted(hist_ids)} is not exactly the superseded drafts {sorted(superseded)} "
                            f"and the losing newcomers {sorted(losers)}")
        if losers & set(self.ever_active):
            problems.append(f"drafts {sorted(losers & set(self.ever_active))} were active yet are filed as lost")
        unrecorded = [d.id for d in self.history if d.retired is None]
        if unrecorded:
            problems.append(f"history drafts {unrecorded} have no record of why and against whom")
        queue_ids = {d.id for d in self.repair_queue}
        family_ids = [m for f in self.families for m in f.members]
        if len(family_ids) != len(set(family_ids)):
            problems.append("a rejected draft sits in two families")
        stores = {"active": active_ids, "queue": queue_ids, "history": set(hist_ids), "families": set(family_ids)}
        names = list(stores)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                both = stores[a] & stores[b]
                if both:
                    problems.append(f"drafts {sorted(both)} are in both {a} and {b}")
        if problems:
            raise ArchiveInvariantError("archive invariant broken: " + "; ".join(problems))

    # -- reporting -----------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """Ids per store (transcript rows, tests)."""
        return {
            "active": {lin: d.id for lin, d in sorted(self.active.items())},
            "repair_queue": [d.id for d in self.repair_queue],
            "history": [d.id for d in self.history],
            "families": {f.id: list(f.members) for f in self.families},
        }
