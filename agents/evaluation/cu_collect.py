"""The judgments behind Creative Utility's paper terms (set-level seed, Section 4 and Appendix C).

- quality `impact`: every idea against every gold (target) idea of its topic, by the impact judge, in
  both presentation orders, per panel judge; an outcome is a strict win (both orders) or not. The
  outcomes are length-controlled later, over the whole pool (aggregate.py).
- distance `fields`: every pair of a method's ideas on a topic, by the field-similarity judge (1..5 on
  problem gap, core claim and method), in both orders, per panel judge.

The same prompts as the set-level ideator's R_set judges (agents/setlevel/reward.py), so the training
signal and the evaluation measure ask the same questions. A CU needs a set: with fewer than two ideas
per method nothing is asked (the real-model test's single ideas stay as cheap as before).
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from motivgraph.agents.core import IdeaRecord
from motivgraph.agents.evaluation.metrics.creative_utility import SIMILARITY_FIELDS, strict_impact
from motivgraph.agents.setlevel.reward import (
    FieldSimilarity,
    ImpactVerdict,
    card_text,
    impact_messages,
    similarity_messages,
)


def _msgs(pairs: list[tuple[str, str]]) -> list[Any]:
    return [SystemMessage(content=c) if r == "system" else HumanMessage(content=c) for r, c in pairs]


def idea_card(rec: IdeaRecord) -> dict[str, str]:
    """Any method's idea as an idea card: motivation is the problem gap, the abstract (else the title)
    the core claim, the method the method."""
    return {"title": rec.title, "problem_gap": rec.motivation, "core_claim": rec.abstract or rec.title,
            "method": rec.method}


def words(text: str) -> int:
    """Length for the length control: words (a tokenizer-free proxy for tokens, the same for every idea)."""
    return max(1, len(text.split()))


async def collect_cu(panel: Any, ev: Any, *, quality: str, distance: str, min_ideas: int = 2) -> None:
    """Fill ev.cu_impact (idea -> [(strict win, idea words, gold words)]) and ev.cu_fields
    (pair -> [[s_gap, s_claim, s_method]]) for the paper's CU terms that the config asks for."""
    groups = [its for its in ev.by_method().values() if len(its) >= min_ideas]
    topic = ev.topic.topic

    async def impact(it: Any, rid: str, rtext: str) -> None:
        card = card_text(idea_card(it.record))
        key = {"topic_id": it.topic_id, "idea": it.idea_id, "reference": rid}
        first, second = await asyncio.gather(
            panel.ask("impact", _msgs(impact_messages(topic, card, rtext)), ImpactVerdict, {**key, "idea_first": True}),
            panel.ask("impact", _msgs(impact_messages(topic, rtext, card)), ImpactVerdict,
                      {**key, "idea_first": False}))
        out = ev.cu_impact.setdefault(it.idea_id, [])
        for v1, v2 in zip(first, second, strict=True):
            if v1 is None or v2 is None:  # both orders or neither: one order alone carries position bias
                continue
            w = strict_impact({"A": "idea", "B": "gold", "tie": "tie"}[v1.winner],
                              {"B": "idea", "A": "gold", "tie": "tie"}[v2.winner])
            out.append((w, words(card), words(rtext)))

    async def similarity(a: Any, b: Any) -> None:
        ca, cb = card_text(idea_card(a.record)), card_text(idea_card(b.record))
        key = {"topic_id": a.topic_id, "a": a.idea_id, "b": b.idea_id}
        ab, ba = await asyncio.gather(
            panel.ask("similarity", _msgs(similarity_messages(ca, cb)), FieldSimilarity, key),
            panel.ask("similarity", _msgs(similarity_messages(cb, ca)), FieldSimilarity,
                      {**key, "a": b.idea_id, "b": a.idea_id}))
        sims = [[getattr(r, f) for f in SIMILARITY_FIELDS] for r in ab + ba if r is not None]
        if sims:
            ev.cu_fields[frozenset((a.idea_id, b.idea_id))] = sims

    jobs = []
    if quality == "impact":
        jobs += [impact(it, rid, rt) for its in groups for it in its for rid, rt in ev.references]
    if distance == "fields":
        jobs += [similarity(a, b) for its in groups for a, b in itertools.combinations(its, 2)]
    await asyncio.gather(*jobs)
