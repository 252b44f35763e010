"""`GraphStore.remove_paper` on the real FalkorDB and node deletion from the FAISS index: what one
paper contributed goes (STATES, sources, aliases, triples, orphan nodes, parents left childless, their
vectors), what other papers state stays, a second call changes nothing, and readers of the index
never see half a deletion."""

from __future__ import annotations

from motivgraph.graph.models import NodeIn, ParentIn, TripleIn
from motivgraph.graph.runtime import Runtime


def _t(paper: str, i: int, p: NodeIn, c: str, s: str) -> TripleIn:
    return TripleIn(paper_id=paper, index=i, problem=p, challenge=NodeIn(name=c, description=f"{c} desc"),
                    solution=NodeIn(name=s, description=f"{s} desc"), extractor="llm")


def test_remove_paper_takes_out_exactly_its_contribution(store, settings, embedder) -> None:  # type: ignore[no-untyped-def]
    prob = NodeIn(name="Graph learning", description="Learning on graphs.")
    store.upsert_triples([
        _t("A", 0, prob, "Label noise on nodes", "Robust loss"),
        _t("B", 0, NodeIn(name="Learning on graphs", description="x", key="problem:graph learning"),
           "Oversmoothing", "Robust loss"),
    ])
    store.add_parents([ParentIn(type="challenge", parent=NodeIn(name="Data quality issues"), level=1,
                                children=["challenge:label noise on nodes"])])
    store.add_parents([ParentIn(type="challenge", parent=NodeIn(name="Learning difficulties"), level=2,
                                children=["challenge:data quality issues"])])
    assert "Learning on graphs" in store.get_node("problem:graph learning").node.aliases
    rt = Runtime(settings)
    idx = rt.node_index
    idx.rebuild()
    old_groups = idx._groups  # a reader holding the live generation
    v0 = store.node_version()
    assert store.stats().triples == 2

    res = store.remove_paper("B")
    assert res.states_removed == 3 and res.triples_removed == 1 and res.aliases_removed == 1
    assert res.nodes_removed == ["challenge:oversmoothing"] and res.paper_removed
    node = store.get_node("problem:graph learning").node
    assert node.aliases == [] and node.sources == ["A"]
    assert store.get_node("solution:robust loss").node.sources == ["A"]
    assert store.stats().triples == 1 and store.get_paper("B") is None
    assert [t.challenge.key for t in store.paper_triples("A")] == ["challenge:label noise on nodes"]
    assert store.find_nodes("Learning on graphs", ["problem"]) == []  # the alias no longer resolves
    assert store.node_version() > v0
    assert idx.remove(res.nodes_removed, from_version=v0) == 1
    assert idx.status().state == "ok"
    hits = idx.search("Oversmoothing: Oversmoothing desc", k=10, types=["challenge"])
    assert "challenge:oversmoothing" not in {h.key for h in hits}
    assert "challenge:oversmoothing" in old_groups["challenge"].pos  # the old generation is untouched

    # removing A empties the graph of nodes; the parents left childless go level by level
    v1 = store.node_version()
    res = store.remove_paper("A", drop_paper=False)
    assert set(res.nodes_removed) == {"problem:graph learning", "challenge:label noise on nodes",
                                      "solution:robust loss", "challenge:data quality issues",
                                      "challenge:learning difficulties"}
    stats = store.stats()
    assert sum(stats.nodes[k] for k in ("Problem", "Challenge", "Solution")) == 0 and stats.triples == 0
    assert sum(stats.relationships.values()) == 0 and store.get_paper("A") is not None
    idx.remove(res.nodes_removed, from_version=v1)
    assert len(idx) == 0 and idx.status().state == "ok"
    # idempotent: nothing left to take out
    again = store.remove_paper("A")
    assert again.nodes_removed == [] and again.states_removed == 0 and again.paper_removed
    rt.close()
