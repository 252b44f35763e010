"""node_search: semantic match of a query against node name + description (graph/search_backends.py: FAISS or
Neo4j).

A hit takes three shapes, each for a reason: the index's `IndexHit` (graph layer: key, type, name, score; the
index knows no description and no API model), the node's `NodeBrief` from the brief cache that every tool shares
(ToolContext.briefs: the description without a graph round trip), and the published `ScoredNode` (the brief and
its score) inside `NodeSearchResult`. The brief becomes the published hit by its fields, not by a dict and a
second validation of what the cache already holds. Clients see JSON (HTTP) or these objects (in process).
"""

from __future__ import annotations

from motivgraph.api.contract.models import NodeSearchRequest, NodeSearchResult, ScoredNode
from motivgraph.api.services.context import ToolContext


def node_search(ctx: ToolContext, req: NodeSearchRequest) -> NodeSearchResult:
    hits, stale = ctx.search(req.query, req.k, req.types, req.min_score)
    briefs = ctx.briefs(h.key for h in hits)
    out: list[ScoredNode] = []
    for h in hits:
        b = briefs.get(h.key)
        if b is None:  # indexed but gone from the graph (index older than a delete): skip, it is stale
            stale = True
            continue
        out.append(ScoredNode.model_construct(**dict(b), score=round(float(h.score), 4)))
    return NodeSearchResult(query=req.query, hits=out, index_stale=stale)
