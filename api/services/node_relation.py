"""node_relation: per named node, its description, neighbours, P→C→S triples, source papers and the
quotes of those papers that state it (bounded: api.evidence_quotes, api.evidence_quote_chars).

Names resolve through `store.find_nodes` (exact key, or name / alias equal after normalisation, so
case, punctuation and recorded aliases all match). A name that matches several nodes (the same
words used as a problem and as a challenge) returns each of them. Unknown names come back in
`unresolved` with did-you-mean suggestions; when no name resolves at all, NodeNotFound (a 404).
"""

from __future__ import annotations

from motivgraph.api.contract.models import (
    NodeBrief,
    NodeRelation,
    NodeRelationRequest,
    NodeRelationResult,
    PaperBrief,
    QuoteOut,
    Unresolved,
)
from motivgraph.api.services.briefs import brief, triple_out
from motivgraph.api.services.context import ToolContext
from motivgraph.api.services.evidence import node_quotes
from motivgraph.errors import NodeNotFound
from motivgraph.graph.models import NodeDetail

MAX_SUGGESTED_NAMES = 3
"""Unknown names of one request that get did-you-mean suggestions (the rest come back in `unresolved` without)."""


def relation_of(detail: NodeDetail, query: str, max_triples: int = 20, max_neighbours: int = 30,
                evidence: list[QuoteOut] | None = None) -> NodeRelation:
    truncated = False

    def cut(items: list, limit: int) -> list:
        nonlocal truncated
        if len(items) > limit:
            truncated = True
        return items[:limit]

    def refs(items: list) -> list[NodeBrief]:
        return [brief(r) for r in cut(items, max_neighbours)]

    papers = [PaperBrief(paper_id=p.paper_id, title=p.title, year=p.year) for p in detail.papers]
    return NodeRelation(
        query=query,
        node=brief(detail.node, full=True),
        aliases=[a for a in detail.node.aliases if a != detail.node.name],
        parents=refs(detail.parents),
        children=refs(detail.children),
        problems=refs(detail.problems),
        challenges=refs(detail.challenges),
        solutions=refs(detail.solutions),
        triples=[triple_out(t) for t in cut(detail.triples, max_triples)],
        papers=cut(papers, max_neighbours),
        evidence=list(evidence or []),
        truncated=truncated,
    )


def node_relation(ctx: ToolContext, req: NodeRelationRequest) -> NodeRelationResult:
    store = ctx.store
    nodes: list[NodeRelation] = []
    unresolved: list[Unresolved] = []
    seen: set[str] = set()
    for name in dict.fromkeys(req.names):
        records = store.find_nodes(name)
        if not records:
            # did-you-mean is a query embedding and a vector search per name: only the first few unknown names of a
            # request get it, so 20 unknown 300-character names cost a few lookups, not 20 (issue 41)
            suggest = len(unresolved) < MAX_SUGGESTED_NAMES
            unresolved.append(Unresolved(query=name, suggestions=ctx.suggestions(name) if suggest else []))
            continue
        for rec in records:
            if rec.key in seen:
                continue
            seen.add(rec.key)
            # one more than is shown, so `truncated` is known without walking a hub node's whole
            # neighbourhood (and a limit above the store's default cap is honoured, not silently cut)
            detail = store.get_node(rec.key, cap=req.max_neighbours + 1, triples=req.max_triples + 1)
            if detail is not None:
                nodes.append(relation_of(detail, name, req.max_triples, req.max_neighbours))
    if not nodes:
        first = unresolved[0]
        raise NodeNotFound(first.query, first.suggestions, list(unresolved))
    # the quotes of every answered node in one read per label
    api = ctx.settings.api
    per = api.evidence_quotes if req.max_quotes is None else req.max_quotes
    quotes = node_quotes(store, [n.node.key for n in nodes], per=per, chars=api.evidence_quote_chars)
    nodes = [n.model_copy(update={"evidence": quotes.get(n.node.key, [])}) for n in nodes]
    return NodeRelationResult(nodes=nodes, unresolved=unresolved)
