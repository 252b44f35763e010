"""node_relation on a hub node: the limits a request asks for are the limits it gets (the store is asked
for one more than is shown, so `truncated` is exact), also above the store's default caps."""

from __future__ import annotations

from motivgraph.api.contract.models import NodeRelationRequest
from motivgraph.api.services import ToolService
from motivgraph.api.services.node_relation import node_relation
from motivgraph.graph.models import NodeIn, PaperRecord, TripleIn

HUB = NodeIn(name="Scheduling jobs on shared clusters", description="Placing jobs on machines others use too.")
N = 105  # more than the store's default neighbour cap (100)


def _hub_graph(store) -> None:
    store.upsert_papers([PaperRecord(paper_id="doi:10.1000/hub", title="Hub paper")])
    store.upsert_triples([
        TripleIn(paper_id="doi:10.1000/hub", index=i, problem=HUB,
                 challenge=NodeIn(name=f"Contention pattern number {i}", description=f"Contention kind {i}."),
                 solution=NodeIn(name=f"Placement rule number {i}", description=f"Rule {i}."),
                 section="introduction")
        for i in range(N)
    ])


def _relation(store, settings, **limits):
    svc = ToolService(settings)
    try:
        return node_relation(svc.ctx, NodeRelationRequest(names=[HUB.name], **limits)).nodes[0]
    finally:
        svc.close()


def test_limits_above_the_default_caps_are_honoured(store, settings):
    _hub_graph(store)
    rel = _relation(store, settings, max_neighbours=N, max_triples=N)
    assert len(rel.challenges) == N and len(rel.solutions) == N and len(rel.triples) == N
    assert rel.truncated is False  # everything there is was returned


def test_truncated_is_exact_at_the_limit(store, settings):
    _hub_graph(store)
    rel = _relation(store, settings, max_neighbours=N - 1, max_triples=N)
    assert len(rel.challenges) == N - 1 and rel.truncated is True
    rel = _relation(store, settings, max_neighbours=3, max_triples=2)
    assert len(rel.challenges) == 3 and len(rel.triples) == 2 and rel.truncated is True
    # the shown neighbours are sorted by key, as the store's lists are
    assert [c.key for c in rel.challenges] == sorted(c.key for c in rel.challenges)
