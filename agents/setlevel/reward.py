"""R_set, the set-level reward, with its two judges (our own prompts).

- Quality q(u) = I(u): an impact judge compares the card with an anchor idea in BOTH presentation
  orders; in each order a win counts 1, a "tie" 0.5 and a loss 0 (the seed's {0, 0.5, 1}), and I(u) is
  the mean of the two orders. The seed anchors on the
  held-out gold idea of the instance; an `ideate` run has none, so the anchor is the configured
  `gold_idea` when given, else the first source document (an established, published idea) -- an
  approximation, recorded on the run as `anchor`.
- Distance d(u, v) = mean over problem gap, core claim and method of (5 - s) / 4, s the judge's 1..5
  similarity of that field (one call per pair).
- R_set = sum_i q_i * min_{j<i} d_ij in the order written (no discount, unnormalised) + 0.05 for a
  schema-valid set; an invalid set is 0 and no judge is asked.

The judges are the run's `setlevel.judge` role (MOTIVGRAPH_LLM_ROLES), standing in for the seed's
SciJudge-30B (impact) and gpt-oss-120b (distance).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from motivgraph.agents.evaluation.judges import idea_block
from motivgraph.agents.evaluation.metrics.creative_utility import (
    SIMILARITY_FIELDS,
    field_distance,
    impact_value,
    r_set,
)

IMPACT_SYSTEM = """You judge research ideas by their likely long-term scientific impact: which of two ideas,
if carried out well, would the field build on more. Ignore writing style and length; judge the idea.
Answer with the letter of the idea with more impact ("A" or "B"), or "tie" when you cannot separate them."""

SIMILARITY_SYSTEM = """You compare two research idea cards field by field. For each of problem_gap, core_claim
and method give a similarity from 1 to 5: 1 = unrelated, 2 = same broad area only, 3 = related but a clearly
different direction, 4 = largely the same with a different detail, 5 = the same (a paraphrase).
Judge what is said, not the wording."""


class ImpactVerdict(BaseModel):
    winner: Literal["A", "B", "tie"]
    rationale: str = ""


class FieldSimilarity(BaseModel):
    problem_gap: int = Field(ge=1, le=5)
    core_claim: int = Field(ge=1, le=5)
    method: int = Field(ge=1, le=5)
    rationale: str = ""

    def distance(self) -> float:
        return field_distance([getattr(self, f) for f in SIMILARITY_FIELDS])


def card_text(card: dict[str, str]) -> str:
    return "\n".join(f"{k}: {card.get(k, '')}" for k in ("title", "problem_gap", "core_claim", "method"))


def _blocks(a: str, b: str) -> str:
    return f"{idea_block('Idea A', a)}\n\n{idea_block('Idea B', b)}"  # the evaluation judges' convention


def impact_messages(topic: str, a: str, b: str) -> list[tuple[str, str]]:
    return [("system", IMPACT_SYSTEM), ("human", f"Topic: {topic}\n\n{_blocks(a, b)}")]


def similarity_messages(a: str, b: str) -> list[tuple[str, str]]:
    return [("system", SIMILARITY_SYSTEM), ("human", _blocks(a, b))]


Ask = Callable[[list[tuple[str, str]], type[Any]], Awaitable[Any]]


class SetScore(BaseModel):
    """What R_set is made of, recorded on the run."""

    valid: bool
    reason: str | None = None
    quality: list[float] = Field(default_factory=list, description="I(u) per card, in the order written.")
    distance: list[list[float]] = Field(default_factory=list, description="K x K judged distances.")
    r_set: float = 0.0


async def score_set(ask: Ask, topic: str, cards: Sequence[dict[str, str]], anchor: str, *, valid: bool,
                    reason: str | None, bonus: float) -> SetScore:
    """R_set of one set: 0 without a judge call when the gate failed, else both judges."""
    if not valid:
        return SetScore(valid=False, reason=reason, r_set=0.0)
    texts = [card_text(c) for c in cards]

    async def quality(t: str) -> float:
        first, second = await asyncio.gather(ask(impact_messages(topic, t, anchor), ImpactVerdict),
                                             ask(impact_messages(topic, anchor, t), ImpactVerdict))
        return impact_value({"A": "idea", "B": "gold", "tie": "tie"}[first.winner],
                            {"B": "idea", "A": "gold", "tie": "tie"}[second.winner])

    async def dist(i: int, j: int) -> tuple[int, int, float]:
        sim = await ask(similarity_messages(texts[i], texts[j]), FieldSimilarity)
        return i, j, sim.distance()

    pairs = list(itertools.combinations(range(len(texts)), 2))
    q, ds = await asyncio.gather(asyncio.gather(*(quality(t) for t in texts)),
                                 asyncio.gather(*(dist(i, j) for i, j in pairs)))
    d = [[0.0] * len(texts) for _ in texts]
    for i, j, v in ds:
        d[i][j] = d[j][i] = v
    return SetScore(valid=True, quality=list(q), distance=d, r_set=r_set(list(q), d, valid=True, bonus=bonus))
