"""random_nodes: reproducible random nodes or P→C→S triples, optionally far from a topic.

With `far_from`, candidates are drawn from the store (the same seeded sampling), scored against
the topic with the vectors the index already holds (no re-embedding), and only those whose cosine
similarity is at most `max_similarity` are kept; the draw is widened a few times when too few pass.
"""

from __future__ import annotations

import secrets

import numpy as np

from motivgraph.api.contract.models import RandomNode, RandomNodesRequest, RandomNodesResult, TripleOut
from motivgraph.api.services.briefs import brief, triple_out
from motivgraph.api.services.context import ToolContext

OVERSAMPLE = (4, 16, 64)  # candidates drawn per wanted item, widened while too few pass


def _seed(req: RandomNodesRequest) -> int:
    return req.seed if req.seed is not None else secrets.randbelow(2**31)


def random_nodes(ctx: ToolContext, req: RandomNodesRequest) -> RandomNodesResult:
    seed = _seed(req)
    if req.mode == "triples":
        return _random_triples(ctx, req, seed)
    store = ctx.store
    if req.far_from is None:
        # keys only, then the briefs from the worker's node cache (the graph is read for the ones it lacks)
        keys = store.random_node_keys(req.n, req.types, seed=seed)
        briefs = ctx.briefs(keys)
        nodes = [RandomNode(**briefs[k].model_dump()) for k in keys if k in briefs]
        note = None if len(nodes) == req.n else f"the graph holds only {len(nodes)} matching nodes"
        return RandomNodesResult(mode="nodes", seed=seed, nodes=nodes, note=note)

    ctx.ready_index()
    topic = ctx.queries.embed(req.far_from)
    picked: list[RandomNode] = []
    seen: set[str] = set()
    total_seen = 0
    for factor in OVERSAMPLE:
        want = min(req.n * factor, 5000)
        recs = store.random_nodes(want, req.types, seed=seed)
        vecs = ctx.node_search.vectors_for([r.key for r in recs])
        for r in recs:
            if r.key in seen:
                continue
            seen.add(r.key)
            v = vecs.get(r.key)
            if v is None:  # not indexed yet: its distance is unknown, so it cannot be vouched for
                continue
            sim = float(np.dot(v, topic))
            if sim <= req.max_similarity:
                picked.append(RandomNode(**brief(r).model_dump(), similarity=round(sim, 4)))
                if len(picked) == req.n:
                    break
        total_seen = len(seen)
        if len(picked) == req.n or len(recs) < want:
            break
    note = None
    if len(picked) < req.n:
        note = (f"only {len(picked)} of {total_seen} sampled nodes are at most {req.max_similarity} similar to the "
                "topic; raise max_similarity for more")
    return RandomNodesResult(mode="nodes", seed=seed, nodes=picked, note=note)


def _random_triples(ctx: ToolContext, req: RandomNodesRequest, seed: int) -> RandomNodesResult:
    store = ctx.store
    if req.far_from is None:
        views = store.random_triples(req.n, seed=seed)
        triples = [triple_out(t) for t in views]
        note = None if len(triples) == req.n else f"the graph holds only {len(triples)} triples"
        return RandomNodesResult(mode="triples", seed=seed, triples=triples, note=note)

    ctx.ready_index()
    topic = ctx.queries.embed(req.far_from)
    picked: list[TripleOut] = []
    seen: set[str] = set()
    for factor in OVERSAMPLE:
        want = min(req.n * factor, 2000)
        views = store.random_triples(want, seed=seed)
        keys = {n.key for t in views for n in (t.problem, t.challenge, t.solution)}
        vecs = ctx.node_search.vectors_for(list(keys))
        for t in views:
            if t.key in seen:
                continue
            seen.add(t.key)
            vs = [vecs.get(n.key) for n in (t.problem, t.challenge, t.solution)]
            if any(v is None for v in vs):
                continue
            # a triple is far when none of its three nodes is near the topic
            if max(float(np.dot(v, topic)) for v in vs) <= req.max_similarity:  # type: ignore[arg-type]
                picked.append(triple_out(t))
                if len(picked) == req.n:
                    break
        if len(picked) == req.n or len(views) < want:
            break
    note = None
    if len(picked) < req.n:
        note = (f"only {len(picked)} sampled triples have every node at most {req.max_similarity} similar to the "
                "topic; raise max_similarity for more")
    return RandomNodesResult(mode="triples", seed=seed, triples=picked, note=note)
