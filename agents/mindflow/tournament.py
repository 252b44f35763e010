"""Anchor tournament: a strict ranking of a group of K ideas from K−1 comparisons with an anchor.

Each non-anchor idea is compared with the anchor idea on six dimensions (config.DIMENSIONS), one
win/loss vote per dimension; the presentation order of every comparison is a seeded coin, so a
judge that favours the first (or second) position cannot favour one candidate systematically. The
anchor scores 3 of 6 by definition. Ideas with equal scores are ordered by head-to-head
comparisons among themselves (Copeland: wins − losses, a 3–3 split is a draw); what is still tied
(draws, cycles) is ordered by a seeded coin. The result is a strict ranking, 0 = best.

The judge is any `async (first, second) -> JudgeOutcome` (votes per dimension: "A" = first shown,
"B" = second); `LLMJudge` asks a model.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import numpy as np
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from motivgraph.agents.mindflow import prompts
from motivgraph.agents.mindflow.config import DIMENSIONS
from motivgraph.agents.mindflow.llmcall import Ask, CallUsage

ANCHOR_SCORE = len(DIMENSIONS) // 2


@dataclass
class JudgeOutcome:
    votes: dict[str, str]  # dimension -> "A" (first shown) | "B" (second shown)
    usage: CallUsage = field(default_factory=CallUsage)
    rationale: str = ""


JudgeFn = Callable[[dict[str, Any], dict[str, Any]], Awaitable[JudgeOutcome]]
# The tournament never looks inside an idea: it only hands pairs to the judge. Training ranks groups where a
# flow may have produced no idea (None), with a judge that knows how a missing idea scores (train._none_safe).
IdeaT = TypeVar("IdeaT")
PairJudge = Callable[[IdeaT, IdeaT], Awaitable[JudgeOutcome]]  # JudgeFn over any idea type


@dataclass
class Comparison:
    x: int  # idea indices in the group
    y: int
    shown_first: int  # which of x/y was presented as A
    x_wins: int  # dimensions won by x
    votes: dict[str, str]  # dimension -> index of the winner ("x"/"y" resolved to ints below)
    kind: str  # "anchor" or "tiebreak"

    def to_dict(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "shown_first": self.shown_first, "x_wins": self.x_wins,
                "votes": self.votes, "kind": self.kind}


@dataclass
class TournamentResult:
    scores: list[int]  # wins out of 6 against the anchor (anchor: 3)
    ranks: list[int]  # strict, 0 = best
    anchor: int
    comparisons: list[Comparison] = field(default_factory=list)
    copeland: dict[int, int] = field(default_factory=dict)  # tie-break scores of tied ideas
    coin_broken: list[list[int]] = field(default_factory=list)  # groups a coin had to order
    usage: CallUsage = field(default_factory=CallUsage)

    def to_dict(self) -> dict[str, Any]:
        return {"scores": self.scores, "ranks": self.ranks, "anchor": self.anchor,
                "comparisons": [c.to_dict() for c in self.comparisons], "copeland": self.copeland,
                "coin_broken": self.coin_broken, "judge_calls": self.usage.calls,
                "judge_tokens": self.usage.tokens}


async def _compare(judge: PairJudge[IdeaT], ideas: Sequence[IdeaT], x: int, y: int, rng: np.random.Generator,
                   swap: str, kind: str) -> tuple[Comparison, CallUsage]:
    x_first = True if swap == "fixed" else bool(rng.integers(0, 2))
    first, second = (x, y) if x_first else (y, x)
    out = await judge(ideas[first], ideas[second])
    missing = [d for d in DIMENSIONS if out.votes.get(d) not in ("A", "B")]
    if missing:
        raise ValueError(f"judge gave no A/B vote for {', '.join(missing)}")
    winners = {d: first if out.votes[d] == "A" else second for d in DIMENSIONS}
    x_wins = sum(1 for w in winners.values() if w == x)
    return Comparison(x, y, first, x_wins, {d: str(w) for d, w in winners.items()}, kind), out.usage


async def anchor_tournament(ideas: Sequence[IdeaT], anchor: int, judge: PairJudge[IdeaT], rng: np.random.Generator,
                            *, swap: Literal["random", "fixed"] = "random") -> TournamentResult:
    """Score every idea against `ideas[anchor]`, break ties head-to-head, return a strict ranking."""
    k = len(ideas)
    if k < 2 or not 0 <= anchor < k:
        raise ValueError("a tournament needs at least two ideas and a valid anchor index")
    res = TournamentResult(scores=[0] * k, ranks=[0] * k, anchor=anchor)
    h2h: dict[tuple[int, int], int] = {}  # (i, j) -> dimensions i won against j
    for i in range(k):
        if i == anchor:
            res.scores[i] = ANCHOR_SCORE
            continue
        comp, usage = await _compare(judge, ideas, i, anchor, rng, swap, "anchor")
        res.comparisons.append(comp)
        res.usage.add(usage)
        res.scores[i] = comp.x_wins
        h2h[(i, anchor)], h2h[(anchor, i)] = comp.x_wins, len(DIMENSIONS) - comp.x_wins
    coin = rng.permutation(k)  # drawn once per tournament: reproducible whatever the tie pattern
    order_key: dict[int, tuple[int, int, int]] = {}
    for score in sorted(set(res.scores), reverse=True):
        tied = [i for i in range(k) if res.scores[i] == score]
        copeland = dict.fromkeys(tied, 0)
        if len(tied) > 1:
            for i, j in itertools.combinations(tied, 2):
                if (i, j) not in h2h:
                    comp, usage = await _compare(judge, ideas, i, j, rng, swap, "tiebreak")
                    res.comparisons.append(comp)
                    res.usage.add(usage)
                    h2h[(i, j)], h2h[(j, i)] = comp.x_wins, len(DIMENSIONS) - comp.x_wins
                if h2h[(i, j)] > h2h[(j, i)]:
                    copeland[i] += 1
                    copeland[j] -= 1
                elif h2h[(i, j)] < h2h[(j, i)]:
                    copeland[j] += 1
                    copeland[i] -= 1
            res.copeland.update(copeland)
            by_cope: dict[int, list[int]] = {}
            for i in tied:
                by_cope.setdefault(copeland[i], []).append(i)
            res.coin_broken += [sorted(g) for g in by_cope.values() if len(g) > 1]
        for i in tied:
            order_key[i] = (-score, -copeland[i], int(coin[i]))
    for rank, i in enumerate(sorted(range(k), key=lambda j: order_key[j])):
        res.ranks[i] = rank
    return res


async def wins_both_orders(judge: PairJudge[IdeaT], x: IdeaT, y: IdeaT
                           ) -> tuple[float, CallUsage]:
    """Share of the 2 × 6 votes `x` wins against `y` when judged in both presentation orders
    (the evaluation protocol's order swap: a position-biased judge cannot move it)."""
    usage = CallUsage()
    won = 0
    for first, second, x_is in ((x, y, "A"), (y, x, "B")):
        out = await judge(first, second)
        usage.add(out.usage)
        won += sum(1 for d in DIMENSIONS if out.votes.get(d) == x_is)
    return won / (2 * len(DIMENSIONS)), usage


# ---------------------------------------------------------------------------------- LLM judge


class Verdict(BaseModel):
    """One comparison: for each dimension, which proposal is better (A or B)."""

    problem_novelty: Literal["A", "B"] = Field(description="Is the problem itself new?")
    significance: Literal["A", "B"] = Field(description="Does solving it matter?")
    timeliness: Literal["A", "B"] = Field(description="Is it the right problem now, given the literature?")
    technical_novelty: Literal["A", "B"] = Field(description="Is the method new?")
    effectiveness: Literal["A", "B"] = Field(description="Will the method likely work and the plan show it?")
    feasibility: Literal["A", "B"] = Field(description="Can it be done with realistic resources?")
    # no maxLength: llama.cpp turns it into a grammar of that many repetitions (and its server dies)
    rationale: str = Field("", description="One or two sentences on the main differences.")


class LLMJudge:
    """Pairwise judge for one topic over an `ask` (llmcall.client_ask(client, "mindflow.judge"))."""

    def __init__(self, ask: Ask, topic_text: str, background: str = "") -> None:
        self.ask, self.topic, self.background = ask, topic_text, background

    async def __call__(self, first: dict[str, Any], second: dict[str, Any]) -> JudgeOutcome:
        msgs = [SystemMessage(content=prompts.JUDGE_SYSTEM),
                HumanMessage(content=prompts.judge_user(self.topic, self.background, first, second))]
        verdict, usage = await self.ask(msgs, Verdict)
        return JudgeOutcome({d: getattr(verdict, d) for d in DIMENSIONS}, usage, verdict.rationale)
