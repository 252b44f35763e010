"""node_search: semantic match of a query against node name + description (graph/search_backends.py: FAISS or
Neo4j)."""

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
        out.append(ScoredNode(**b.model_dump(), score=round(float(h.score), 4)))
    return NodeSearchResult(query=req.query, hits=out, index_stale=stale)
