"""transfer_candidates: analogical transfers mined from the graph.

For a topic: challenges near it (targets) → for each, challenges similar to it that are stated
under a *different* problem (sources) → the solutions of a source challenge that are not yet linked
to the target. That is the seed's "ant colony → sensor-network routing" connection: a similar
obstacle met elsewhere, and what solved it there. Ranked by topic_similarity × challenge_similarity.
A source is never in the target's own PARENT_OF hierarchy (an ancestor or a descendant, any depth):
a parent's child is the same obstacle, not a distant one.
"""

from __future__ import annotations

import numpy as np

from motivgraph.api.contract.models import TransferCandidate, TransferRequest, TransferResult
from motivgraph.api.services.briefs import brief
from motivgraph.api.services.context import ToolContext
from motivgraph.graph.models import NodeDetail

SOURCES_PER_TARGET = 10


def transfer_candidates(ctx: ToolContext, req: TransferRequest) -> TransferResult:
    targets, stale = ctx.search(req.topic, req.targets, ["challenge"])
    if not targets:
        return TransferResult(topic=req.topic, candidates=[], index_stale=stale)
    store = ctx.store
    details: dict[str, NodeDetail | None] = {}

    def detail(key: str) -> NodeDetail | None:
        if key not in details:
            details[key] = store.get_node(key)
        return details[key]

    ancestry: dict[str, frozenset[str]] = {}

    def ancestors(key: str) -> frozenset[str]:
        """Every node above `key` along PARENT_OF, any depth (a cycle cannot loop)."""
        if key not in ancestry:
            seen: set[str] = set()
            todo = [key]
            while todo:
                d = detail(todo.pop())
                for p in d.parents if d is not None else ():
                    if p.key not in seen and p.key != key:
                        seen.add(p.key)
                        todo.append(p.key)
            ancestry[key] = frozenset(seen)
        return ancestry[key]

    vecs = ctx.node_search.vectors_for([t.key for t in targets])
    with_vec = [t for t in targets if t.key in vecs]

    similar = (
        ctx.node_search.search_vectors(
            np.stack([vecs[t.key] for t in with_vec]), SOURCES_PER_TARGET + 1, ["challenge"],
            req.min_challenge_similarity, check=False,
        )
        if with_vec
        else []
    )
    best: dict[tuple[str, str], TransferCandidate] = {}
    for target, sources in zip(with_vec, similar, strict=True):
        td = detail(target.key)
        if td is None:
            stale = True
            continue
        t_problems = {p.key for p in td.problems}
        t_solutions = {s.key for s in td.solutions}
        for src in sources:
            if src.key == target.key or src.level > 0:
                continue  # parents carry no solutions of their own
            sd = detail(src.key)
            if sd is None:
                stale = True
                continue
            if target.key in ancestors(src.key) or src.key in ancestors(target.key):
                continue  # the target's own hierarchy: the same obstacle, not met elsewhere
            s_problems = {p.key for p in sd.problems}
            if not s_problems or s_problems & t_problems:
                continue  # the point is a challenge met under another problem
            for sol in sd.solutions:
                if sol.key in t_solutions:
                    continue
                score = float(target.score) * float(src.score)
                key = (target.key, sol.key)
                if key in best and best[key].score >= score:
                    continue
                papers = sorted({p for t in sd.triples if t.challenge.key == src.key and t.solution.key == sol.key
                                 for p in t.papers})
                best[key] = TransferCandidate(
                    target_challenge=brief(td.node),
                    target_problems=[brief(p) for p in td.problems],
                    topic_similarity=round(float(target.score), 4),
                    source_challenge=brief(sd.node),
                    source_problems=[brief(p) for p in sd.problems],
                    challenge_similarity=round(float(src.score), 4),
                    solution=brief(sol),
                    score=round(score, 4),
                    papers=papers,
                )
    ranked = sorted(best.values(), key=lambda c: (-c.score, c.target_challenge.key, c.solution.key))
    return TransferResult(topic=req.topic, candidates=ranked[: req.k], index_stale=stale)
