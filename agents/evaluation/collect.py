"""Gathering the evidence of one topic: embeddings and every judgment the metrics need.

Numbers are computed later by the pure metric functions (aggregate.py); this module only asks the
panel (both presentation orders for every pairwise question) and embeds texts.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from motivgraph.agents.core import IdeaRecord
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.judges import (
    PAIR_DIMENSIONS,
    AxisRelations,
    DirectScores,
    GateScores,
    PairVerdict,
    Panel,
    ReferenceVerdict,
    Signature,
    diversity_prompt,
    gates_prompt,
    pairwise_prompt,
    reference_prompt,
    score_prompt,
    signature_prompt,
)
from motivgraph.agents.evaluation.metrics.diversity import cosine_distance_matrix, embedding_diversity
from motivgraph.agents.evaluation.metrics.elo import Match, SwissTournament, combine_orders
from motivgraph.agents.evaluation.metrics.novelty import field_novelty
from motivgraph.agents.evaluation.metrics.reference import DIMENSIONS, Vote
from motivgraph.agents.evaluation.metrics.yield_ import pair_diversity
from motivgraph.agents.evaluation.topics import EvalTopic

_SIDE = {"A": 1.0, "B": 0.0, "tie": 0.5}


@dataclass
class IdeaItem:
    idea_id: str
    method: str
    topic_id: str
    record: IdeaRecord

    @property
    def text(self) -> str:
        return self.record.text()


@dataclass
class TopicEvidence:
    topic: EvalTopic
    items: list[IdeaItem]
    scores: dict[str, list[DirectScores | None]] = field(default_factory=dict)  # per judge (None: unusable)
    gates: dict[str, list[GateScores | None]] = field(default_factory=dict)
    votes: dict[str, list[Vote]] = field(default_factory=dict)
    signatures: dict[str, Signature] = field(default_factory=dict)
    pair_div: dict[frozenset[str], list[float]] = field(default_factory=dict)  # per judge and order
    leagues: dict[str, tuple[list[str], list[Match]]] = field(default_factory=dict)
    pair_votes: dict[str, list[tuple[str, float, float]]] = field(default_factory=dict)  # dim -> (judge, ab, ba)
    # diversity pairs in both orders: (judge, relations with a shown first, relations with b shown first)
    div_relations: list[tuple[str, dict[str, str], dict[str, str]]] = field(default_factory=list)
    diversity: dict[str, dict[str, float]] = field(default_factory=dict)  # method -> field -> value
    novelty: dict[str, dict[str, float]] = field(default_factory=dict)  # idea -> field -> value
    emb_distance: dict[str, np.ndarray] = field(default_factory=dict)  # method -> K x K cosine distance
    # Creative Utility, paper terms (cu_collect.py): idea -> [(strict win, idea words, gold words)] per judge
    # and reference; pair -> per-field 1..5 similarities per judge and order
    cu_impact: dict[str, list[tuple[float, int, int]]] = field(default_factory=dict)
    cu_fields: dict[frozenset[str], list[list[int]]] = field(default_factory=dict)
    references: list[tuple[str, str]] = field(default_factory=list)

    def by_method(self) -> dict[str, list[IdeaItem]]:
        out: dict[str, list[IdeaItem]] = {}
        for it in self.items:
            out.setdefault(it.method, []).append(it)
        return out


async def _none() -> None:
    return None


class Collector:
    def __init__(self, panel: Panel, config: EvalConfig, embed: Callable[[list[str]], np.ndarray] | None,
                 progress: Callable[[str, int], None] | None = None) -> None:
        self.panel = panel
        self.config = config
        self.embed = embed
        self.progress = progress or (lambda phase, n: None)

    # -------------------------------------------------------------------- embeddings (no LLM)
    def embeddings(self, ev: TopicEvidence) -> None:
        if self.embed is None or not ev.items:
            return
        fields = {"all": [it.text for it in ev.items], "motivation": [it.record.motivation or it.text
                                                                      for it in ev.items],
                  "method": [it.record.method or it.text for it in ev.items]}
        vecs = {f: np.asarray(self.embed(t)) for f, t in fields.items()}
        idx = {it.idea_id: n for n, it in enumerate(ev.items)}
        if self.config.on("diversity"):
            for m, its in ev.by_method().items():
                rows = [idx[i.idea_id] for i in its]
                ev.diversity[m] = {"diversity": embedding_diversity(vecs["all"][rows]),
                                   "diversity_motivation": embedding_diversity(vecs["motivation"][rows]),
                                   "diversity_method": embedding_diversity(vecs["method"][rows])}
                ev.emb_distance[m] = cosine_distance_matrix(vecs["all"][rows])
        if self.config.on("novelty") and ev.topic.background:
            papers = np.asarray(self.embed([p.text(1500) for p in ev.topic.background]))
            k = self.config.novelty_k
            for it in ev.items:
                i = idx[it.idea_id]
                f = field_novelty(vecs["motivation"][i], vecs["method"][i], papers, k=k)
                ev.novelty[it.idea_id] = {"novelty_motivation": f["motivation"], "novelty_method": f["method"],
                                          "novelty": f["overall"]}

    # -------------------------------------------------------------------- per idea
    async def per_idea(self, ev: TopicEvidence) -> None:
        topic = ev.topic.topic

        async def one(it: IdeaItem) -> None:
            key = {"topic_id": it.topic_id, "idea": it.idea_id}
            want_sig = self.config.on("yield") or (self.config.on("cu") and self.config.cu_distance == "judge")
            scores, gates, sig = await asyncio.gather(
                self.panel.ask("score", score_prompt(topic, it.text), DirectScores, key)
                if self.config.on("scores") else _none(),
                self.panel.ask("gates", gates_prompt(topic, it.text), GateScores, key)
                if self.config.on("gates") or self.config.on("yield") else _none(),
                self.panel.ask_one(self.panel.judges[0], "signature", signature_prompt(it.text), Signature, key)
                if want_sig else _none())
            if scores is not None:
                ev.scores[it.idea_id] = scores
            if gates is not None:
                ev.gates[it.idea_id] = gates
            if sig is not None:
                ev.signatures[it.idea_id] = sig
            self.progress("ideas", 1)

        await asyncio.gather(*(one(it) for it in ev.items))

    # -------------------------------------------------------------------- within-method pairs, both orders
    async def diversity_pairs(self, ev: TopicEvidence) -> None:
        if not (self.config.on("yield") or (self.config.on("cu") and self.config.cu_distance == "judge")):
            return

        async def pair(a: IdeaItem, b: IdeaItem) -> None:
            sa, sb = ev.signatures.get(a.idea_id), ev.signatures.get(b.idea_id)
            if sa is None or sb is None:  # a decomposition failed: this pair has no judged diversity
                return
            key = {"topic_id": a.topic_id, "a": a.idea_id, "b": b.idea_id}
            ab, ba = await asyncio.gather(
                self.panel.ask("diversity", diversity_prompt(a.text, sa, b.text, sb), AxisRelations, key),
                self.panel.ask("diversity", diversity_prompt(b.text, sb, a.text, sa), AxisRelations,
                               {**key, "a": b.idea_id, "b": a.idea_id}))
            for judge, x, y in zip(self.panel.names, ab, ba, strict=True):
                if x is not None and y is not None:
                    ev.div_relations.append((judge, x.model_dump(), y.model_dump()))
            vals = [pair_diversity(r.model_dump()) for r in ab + ba if r is not None]
            if vals:
                ev.pair_div[frozenset((a.idea_id, b.idea_id))] = vals

        jobs = [pair(a, b) for its in ev.by_method().values() for a, b in itertools.combinations(its, 2)]
        await asyncio.gather(*jobs)

    # -------------------------------------------------------------------- reference-based, both orders
    async def reference(self, ev: TopicEvidence) -> None:
        six_for_cu = self.config.on("cu") and self.config.cu_quality == "reference_share"
        if not (self.config.on("reference") or six_for_cu) or not ev.references:
            return
        topic = ev.topic.topic

        async def one(it: IdeaItem, rid: str, rtext: str) -> None:
            key = {"topic_id": it.topic_id, "idea": it.idea_id, "reference": rid}
            first, second = await asyncio.gather(
                self.panel.ask("reference", reference_prompt(topic, it.text, rtext), ReferenceVerdict,
                               {**key, "idea_first": True}),
                self.panel.ask("reference", reference_prompt(topic, rtext, it.text), ReferenceVerdict,
                               {**key, "idea_first": False}))
            votes = ev.votes.setdefault(it.idea_id, [])
            for judge, v1, v2 in zip(self.panel.names, first, second, strict=True):
                if v1 is None or v2 is None:  # both orders or neither: an unpaired vote would carry position bias
                    continue
                for d in DIMENSIONS:
                    w1, w2 = getattr(v1, d), getattr(v2, d)
                    votes.append(Vote(d, {"A": "idea", "B": "reference", "tie": "tie"}[w1], judge, rid, True))
                    votes.append(Vote(d, {"B": "idea", "A": "reference", "tie": "tie"}[w2], judge, rid, False))

        await asyncio.gather(*(one(it, rid, rt) for it in ev.items for rid, rt in ev.references))
        self.progress("references", len(ev.items))

    # -------------------------------------------------------------------- Swiss tournaments, both orders
    async def tournaments(self, ev: TopicEvidence, seed: int) -> None:
        if not self.config.on("elo") or len(ev.items) < 2:
            return
        text = {it.idea_id: it.text for it in ev.items}
        topic = ev.topic.topic

        async def dimension(dim: str) -> None:
            t = SwissTournament([it.idea_id for it in ev.items], k=self.config.elo_k, start=self.config.elo_start,
                                rounds=self.config.elo_rounds, seed=seed)
            log = ev.pair_votes.setdefault(dim, [])
            while not t.done:
                pairs = t.pairs()

                async def match(a: str, b: str) -> tuple[tuple[str, str], float | None]:
                    key = {"topic_id": ev.topic.topic_id, "dimension": dim, "round": t.round_no + 1}
                    ab, ba = await asyncio.gather(
                        self.panel.ask("pairwise", pairwise_prompt(topic, dim, text[a], text[b]), PairVerdict,
                                       {**key, "first": a, "second": b}),
                        self.panel.ask("pairwise", pairwise_prompt(topic, dim, text[b], text[a]), PairVerdict,
                                       {**key, "first": b, "second": a}))
                    scores = []
                    for judge, x, y in zip(self.panel.names, ab, ba, strict=True):
                        if x is None or y is None:
                            continue
                        log.append((judge, _SIDE[x.winner], _SIDE[y.winner]))
                        scores.append(combine_orders(_SIDE[x.winner], _SIDE[y.winner]))
                    return (a, b), (sum(scores) / len(scores) if scores else None)

                results = await asyncio.gather(*(match(a, b) for a, b in pairs))
                t.record({p: s for p, s in results if s is not None})  # an unjudged match is not played
            ev.leagues[dim] = (list(t.players), list(t.matches))

        await asyncio.gather(*(dimension(d) for d in PAIR_DIMENSIONS))
        self.progress("tournaments", 1)
