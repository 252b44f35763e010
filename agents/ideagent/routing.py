"""Pure routing decisions: the gate, what happens to a scored draft, whether and how a refinement
replaces its parent. No LLM, no I/O: every branch is unit-tested with plain numbers.

Routing of a scored draft (first rule that applies):
  1. duplicates history only (no active idea)           -> reject (history duplicate)
  2. duplicates two or more active ideas                -> reject (cannot belong to one lineage)
  3. duplicates exactly one active idea                 -> same lineage: replace it if the draft
                                                           passes the gate with a higher Q (ties
                                                           by F), the newcomer inheriting the
                                                           lineage; else keep the incumbent
  4. no duplicate but D < tau_D                         -> reject (low diversity)
  5. fails N/S/C/disputed, not invalid, every shortfall
     within the repair margin, a repair still allowed  -> repair
  6. fails the gate otherwise                           -> reject (gate)
  7. passes, A not full                                 -> accept (new lineage)
  8. passes, A full                                     -> replace the weakest active idea when its
                                                           Q (ties by F) is higher, else reject
A qualified newcomer that loses its comparison (3 or 8) moves to history; so does every incumbent
it replaces.

Which incumbent a newcomer competes with when A is full: the English summary says "its closest match
in the active set, as identified by the Diversity Judge", the Chinese review says the weakest active
idea. We follow the review (rule 8 = weakest) because the judge's matches are its near-duplicate
lists: a newcomer with exactly one active match is already handled by rule 3 (whether A is full or
not -- the same lineage, and the inheritance the English text describes belongs to that case), and
a newcomer that reaches rule 8 has no active match, so "its closest match" is undefined there;
evicting the weakest is defined for every full archive and raises the set's lowest Q.
A "duplicate" is the diversity judge's verdict (its near-duplicate lists), never a threshold on D.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from motivgraph.agents.ideagent.archive import Archive
from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.scores import Scores


class Route(StrEnum):
    REJECT_HISTORY = "reject_history_duplicate"
    REJECT_MULTI_ACTIVE = "reject_multi_active_duplicate"
    REPLACE_ACTIVE = "replace_active_duplicate"
    KEEP_ACTIVE = "keep_active_incumbent"
    REJECT_LOW_D = "reject_low_diversity"
    REPAIR = "repair"
    REJECT_GATE = "reject_gate"
    ACCEPT = "accept"
    REPLACE_WEAKEST = "replace_weakest"
    REJECT_FULL = "reject_archive_full"

    @property
    def accepted(self) -> bool:
        return self in (Route.ACCEPT, Route.REPLACE_ACTIVE, Route.REPLACE_WEAKEST)

    @property
    def joins_family(self) -> bool:
        """Rejections that describe a failure of the idea (and so a pattern to avoid). A draft that
        only lost a fair Q comparison (keep, archive full) joins no family (see `qualified_loser`)."""
        return self in (Route.REJECT_HISTORY, Route.REJECT_MULTI_ACTIVE, Route.REJECT_LOW_D, Route.REJECT_GATE)

    def qualified_loser(self, g: GateResult | None) -> bool:
        """A newcomer that passed the gate and lost only its Q comparison (to the active duplicate it
        matched, or to the weakest idea of a full archive): it moves to history. A duplicate that fails
        the gate is no qualified idea and is dropped."""
        return self is Route.REJECT_FULL or (self is Route.KEEP_ACTIVE and g is not None and g.passed)


class Refusal(StrEnum):
    """Why a refinement child did not replace its parent (the four reasons of the seed)."""

    GATE = "gate"
    DIVERSITY = "diversity"
    QUALITY = "quality_not_higher"
    PAIRWISE = "pairwise_lost"


@dataclass(frozen=True)
class Duplicates:
    """The diversity judge's near-duplicate lists, restricted to ids that exist."""

    active: tuple[str, ...] = ()  # lineage ids of active ideas
    history: tuple[str, ...] = ()  # draft ids in history
    families: tuple[str, ...] = ()  # rejection family ids whose pattern the draft repeats


@dataclass(frozen=True)
class GateResult:
    passed: bool
    failures: tuple[str, ...]  # e.g. ("N 52 < 60", "disputed")
    shortfall: float  # largest points missing on N/S/C (0 when none fails)
    invalid: bool
    disputed: bool

    def repairable(self, cfg: IdeagentConfig) -> bool:
        return not self.passed and not self.invalid and self.shortfall <= cfg.repair_margin


def gate(s: Scores, cfg: IdeagentConfig, *, with_diversity: bool = False) -> GateResult:
    """N >= tau_N, S >= tau_S, C >= tau_C, not disputed, not invalid (and D >= tau_D when asked).
    Feasibility is recorded, never gated."""
    checks = [("N", s.non_obviousness, cfg.min_non_obviousness), ("S", s.S, cfg.min_soundness),
              ("C", s.clarity, cfg.min_clarity)]
    failures = [f"{k} {v:.1f} < {t:g}" for k, v, t in checks if v < t]
    shortfall = max([t - v for _, v, t in checks if v < t], default=0.0)
    if with_diversity and s.diversity < cfg.min_diversity:
        failures.append(f"D {s.diversity:.1f} < {cfg.min_diversity:g}")
    if s.soundness.invalid:
        failures.append(f"invalid ({s.soundness.low_votes} judgments <= {cfg.disputed_at_or_below})")
    elif s.soundness.disputed:
        failures.append(f"disputed ({s.soundness.low_votes} judgment <= {cfg.disputed_at_or_below})")
    return GateResult(passed=not failures, failures=tuple(failures), shortfall=shortfall,
                      invalid=s.soundness.invalid, disputed=s.soundness.disputed)


@dataclass(frozen=True)
class Decision:
    route: Route
    reason: str
    target: str | None = None  # the lineage replaced / kept / evicted
    gate: GateResult | None = None
    details: dict[str, object] = field(default_factory=dict)


def route(scores: Scores, dups: Duplicates, archive: Archive, cfg: IdeagentConfig, *,
          repair_available: bool) -> Decision:
    """Where a freshly scored draft goes (see the module docstring for the rules)."""
    g = gate(scores, cfg)
    if dups.history and not dups.active:
        return Decision(Route.REJECT_HISTORY, f"repeats superseded idea(s) {', '.join(dups.history)}", gate=g)
    if len(dups.active) >= 2:
        return Decision(Route.REJECT_MULTI_ACTIVE, f"duplicates several active ideas ({', '.join(dups.active)})",
                        gate=g)
    if len(dups.active) == 1:
        target = dups.active[0]
        incumbent = archive.active[target]
        assert incumbent.scores is not None
        if not g.passed:
            return Decision(Route.KEEP_ACTIVE, f"duplicates {target} but fails the gate ({'; '.join(g.failures)})",
                            target=target, gate=g)
        if scores.rank(cfg) > incumbent.scores.rank(cfg):
            return Decision(Route.REPLACE_ACTIVE, f"better version of {target} (Q {scores.q(cfg):.1f} > "
                            f"{incumbent.scores.q(cfg):.1f})", target=target, gate=g)
        return Decision(Route.KEEP_ACTIVE, f"duplicates {target} without a higher Q ({scores.q(cfg):.1f} <= "
                        f"{incumbent.scores.q(cfg):.1f})", target=target, gate=g)
    if scores.diversity < cfg.min_diversity:
        return Decision(Route.REJECT_LOW_D, f"no duplicate but D {scores.diversity:.0f} < {cfg.min_diversity:g}",
                        gate=g)
    if not g.passed:
        if g.repairable(cfg) and repair_available:
            return Decision(Route.REPAIR, f"within the repair margin: {'; '.join(g.failures)}", gate=g)
        why = ("invalid" if g.invalid else "repair already used" if g.repairable(cfg)
               else f"beyond the {cfg.repair_margin:g}-point margin")
        return Decision(Route.REJECT_GATE, f"fails the gate ({'; '.join(g.failures)}; {why})", gate=g)
    if not archive.full:
        return Decision(Route.ACCEPT, "passes every gate; room in the active archive", gate=g)
    weakest = weakest_lineage(archive, cfg)
    w = archive.active[weakest].scores
    assert w is not None
    if scores.rank(cfg) > w.rank(cfg):
        return Decision(Route.REPLACE_WEAKEST, f"archive full; Q {scores.q(cfg):.1f} beats the weakest ({weakest}, "
                        f"Q {w.q(cfg):.1f})", target=weakest, gate=g)
    return Decision(Route.REJECT_FULL, f"archive full; Q {scores.q(cfg):.1f} does not beat the weakest ({weakest}, "
                    f"Q {w.q(cfg):.1f})", target=weakest, gate=g)


def weakest_lineage(archive: Archive, cfg: IdeagentConfig) -> str:
    """The active lineage with the lowest (Q, F); ties by lineage id so the choice is reproducible."""
    def key(lin: str) -> tuple[float, float, str]:
        s = archive.active[lin].scores
        assert s is not None
        return (*s.rank(cfg), lin)

    return min(archive.active, key=key)


def needs_refinement(s: Scores, cfg: IdeagentConfig) -> list[str]:
    """The soft targets an accepted idea still misses (empty: no refinement)."""
    misses = []
    if s.non_obviousness < cfg.soft_non_obviousness:
        misses.append(f"non-obviousness {s.non_obviousness:.0f} < {cfg.soft_non_obviousness:g}")
    if s.soundness.score < cfg.soft_soundness:
        misses.append(f"soundness {s.S:.0f} < {cfg.soft_soundness:g}")
    if s.clarity < cfg.soft_clarity:
        misses.append(f"clarity {s.clarity:.0f} < {cfg.soft_clarity:g}")
    return misses


def refine_precheck(parent: Scores, child: Scores, dups: Duplicates, cfg: IdeagentConfig) -> Refusal | None:
    """The three checks before the pairwise comparison: the child passes the gate, keeps its
    diversity against the other lineages (no duplicate there, D >= tau_D) and raises Q."""
    if not gate(child, cfg).passed:
        return Refusal.GATE
    if dups.active or dups.history or child.diversity < cfg.min_diversity:
        return Refusal.DIVERSITY
    if round(child.q(cfg), 6) <= round(parent.q(cfg), 6):
        return Refusal.QUALITY
    return None


def pairwise_verdict(child_wins: list[bool]) -> Refusal | None:
    """The child must win every blind comparison (parent-first and child-first)."""
    return None if child_wins and all(child_wins) else Refusal.PAIRWISE


def pivot_needed(last_route: Route | None, joined_known_family: bool) -> bool:
    """After a lineage dies of a history duplicate or of a failure pattern already on record, the
    next seed prompt demands a different mechanism/problem."""
    return last_route == Route.REJECT_HISTORY or (
        last_route is not None and last_route.joins_family and joined_known_family)
