"""The set-level schema gate and the idea-type taxonomy.

A set is schema-valid only when it holds K valid cards. A card is valid when every field says something
of its own -- not empty, not a few words, not a placeholder or template slot, not just a field label
(its own or another's) -- and its problem gap and method open with a bracketed label from the taxonomy
(an opportunity pattern and a method paradigm). An invalid set earns reward 0 with the reason named.

The taxonomy is two axes of seven labels plus "Other". The seed names the axes and a few of the labels
(Bridge Opportunity, Evidence Gap, Empirical Mapping) and says what kinds of move a method is
(combining ideas, extending to a new setting, deriving formally, building an artifact); the full list
of its source (TasteGap) is not in the seed, so the remaining labels are ours, in the same spirit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from motivgraph.agents.core.validity import LABEL_WORDS, copied_fields, field_problem

OPPORTUNITY_PATTERNS = (
    "Bridge Opportunity",      # two lines of work that never meet
    "Evidence Gap",            # a belief the field holds without the evidence for it
    "Assumption Challenge",    # a shared assumption that may be wrong
    "Unresolved Tension",      # results or goals that contradict each other
    "Setting Transfer",        # something that works in one setting, untried in another
    "Missing Resource",        # no data, benchmark or tool to study the question
    "Scaling Bottleneck",      # a method that stops working at size, cost or speed
    "Other",
)
METHOD_PARADIGMS = (
    "Empirical Mapping",       # measure a space systematically
    "Method Combination",      # combine ideas from the sources
    "Setting Extension",       # carry a method to a new setting
    "Formal Derivation",       # derive or prove
    "Artifact Construction",   # build a dataset, benchmark or tool
    "Mechanistic Analysis",    # open the box: why something works
    "Intervention Design",     # a new training, inference or control procedure
    "Other",
)

# The card's fields. What makes a field no text of its own (placeholders, template-label echoes, too few
# content words, a copy of another field) is the shared validity gate's (agents/core/validity.py): one gate for
# every method's ideas, set-level's cards included.
FIELDS = ("title", "problem_gap", "core_claim", "method", "inspiration")
FIELD_LABEL_WORDS = LABEL_WORDS

_LABEL_RE = re.compile(r"^\s*\[([^\]]{1,60})\]\s*")


def _norm_label(s: str) -> str:
    return re.sub(r"[^a-z]+", " ", s.lower()).strip()


def match_label(text: str, allowed: Sequence[str]) -> str | None:
    """The allowed label `text` names (case, spaces, hyphens and underscores ignored), else None."""
    key = _norm_label(text)
    for lab in allowed:
        if _norm_label(lab) == key:
            return lab
    return None


def split_label(text: str) -> tuple[str | None, str]:
    """(the bracketed label the field opens with, the rest of the field) -- (None, text) without one."""
    m = _LABEL_RE.match(text or "")
    if not m:
        return None, (text or "").strip()
    return m.group(1).strip(), text[m.end():].strip()


@dataclass(frozen=True)
class CardCheck:
    """One card through the gate: its labels (validated) and why it is invalid (empty when valid)."""

    opportunity: str | None
    paradigm: str | None
    reasons: tuple[str, ...]

    @property
    def valid(self) -> bool:
        return not self.reasons


def check_fields(fields: dict[str, str], *, min_words: int) -> list[str]:
    """Why these card fields are not a real card (empty list: they are). `min_words` content words are
    required of every field but the title (which needs one): words of the field labels do not count,
    so "Problem Gap: the core claim" is an echo, not a field."""
    reasons: list[str] = []
    for name in FIELDS:
        problem = field_problem(name, fields.get(name) or "", min_words=1 if name == "title" else min_words)
        if problem:
            reasons.append(problem)
    reasons += copied_fields(fields, ("problem_gap", "core_claim", "method"))
    return reasons


def check_card(fields: dict[str, str], *, min_words: int) -> CardCheck:
    """The gate for one card: fields (with the taxonomy labels taken off the gap and method) and labels."""
    reasons: list[str] = []
    opp_raw, gap = split_label(fields.get("problem_gap", ""))
    par_raw, method = split_label(fields.get("method", ""))
    opportunity = match_label(opp_raw, OPPORTUNITY_PATTERNS) if opp_raw else None
    paradigm = match_label(par_raw, METHOD_PARADIGMS) if par_raw else None
    if opp_raw is None:
        reasons.append("problem_gap does not open with a bracketed opportunity pattern label")
    elif opportunity is None:
        reasons.append(f"unknown opportunity pattern [{opp_raw}] (allowed: {', '.join(OPPORTUNITY_PATTERNS)})")
    if par_raw is None:
        reasons.append("method does not open with a bracketed method paradigm label")
    elif paradigm is None:
        reasons.append(f"unknown method paradigm [{par_raw}] (allowed: {', '.join(METHOD_PARADIGMS)})")
    reasons += check_fields({**fields, "problem_gap": gap, "method": method}, min_words=min_words)
    return CardCheck(opportunity, paradigm, tuple(reasons))


@dataclass(frozen=True)
class SetGate:
    valid: bool
    reason: str | None  # `schema_invalid: ...` when not valid
    cards: tuple[CardCheck, ...]


def gate_set(cards: Sequence[dict[str, str]], *, k: int, min_words: int) -> SetGate:
    """The schema gate of a set: exactly K cards, all valid. More than K is invalid too: a set is the K ideas
    written together, and extra cards would let a writer pad a set past the K the reward is defined on."""
    checks = tuple(check_card(c, min_words=min_words) for c in cards[:k])
    problems = []
    if len(cards) != k:
        problems.append(f"{len(cards)} card(s) written, exactly {k} required")
    bad = [f"card {n}: {'; '.join(c.reasons)}" for n, c in enumerate(checks, 1) if not c.valid]
    if bad:
        problems.append(f"{len(bad)} of {len(checks)} card(s) invalid ({' | '.join(bad)})")
    if problems:
        return SetGate(False, "schema_invalid: " + "; ".join(problems), checks)
    return SetGate(True, None, checks)
