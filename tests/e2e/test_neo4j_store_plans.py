"""The reads the tools make of the Neo4j store are index lookups on the real server, never label scans.

Every statement the store sends for node_relation (find_nodes by name, alias and key; get_node of each
type), random_nodes, random_triples, get_nodes, the triple pages (a cursor walk and each key filter),
a paper's triples and papers_stating is recorded and EXPLAINed on a real Neo4j 5.26
(tests/neo4j_support.py): no plan may scan a label or all nodes. A name lookup used to scan all three
labels (`$norm IN n.norm_aliases`: Neo4j's range indexes do not index list elements): 18.6 ms p50 at 5.4k
nodes against FalkorDB's 1.6 ms (bench/bench_neo4j.py). Substring filters (page_triples by name text) scan
by design and are left out.
"""

from __future__ import annotations

from typing import Any

import pytest

from motivgraph.graph import open_store
from motivgraph.graph.models import TripleFilter
from tests.integration.graph.test_interchange import fill_small_graph

pytestmark = [pytest.mark.e2e, pytest.mark.neo4j]

SCANS = {"NodeByLabelScan", "AllNodesScan", "UnionNodeByLabelsScan", "IntersectionNodeByLabelsScan"}


def _operators(plan: Any) -> list[str]:
    out = [str(plan["operatorType"]).split("@")[0]]
    for child in plan.get("children", []):
        out += _operators(child)
    return out


def test_tool_reads_are_index_lookups(neo4j_settings):
    store = open_store(neo4j_settings)
    store.clear()
    try:
        fill_small_graph(store)
        sent: list[tuple[str, dict[str, Any]]] = []
        read = store._read

        def recording(query: str, params: dict[str, Any] | None = None) -> Any:
            sent.append((query, dict(params or {})))
            return read(query, params)

        store._read = recording  # type: ignore[method-assign]
        assert [n.key for n in store.find_nodes("Sparse attn.")] == ["solution:sparse attention"]  # an alias
        assert [n.key for n in store.find_nodes("long document summarisation")]  # a name
        assert store.find_nodes("challenge:label scarcity")  # a key
        assert store.find_nodes("nothing of the kind") == []
        for key in ("problem:low resource ner", "challenge:label scarcity", "solution:sparse attention"):
            assert store.get_node(key) is not None
        store.get_nodes(["problem:low resource ner", "solution:memory tokens"])
        store.random_nodes(3, seed=1)
        store.random_triples(2, seed=1)
        page = store.page_triples(limit=1)
        store.page_triples(cursor=page.next_cursor, limit=1)
        for flt in (TripleFilter(problem="problem:low resource ner"),
                    TripleFilter(challenge="challenge:label scarcity"),
                    TripleFilter(solution="solution:sparse attention"), TripleFilter(paper_id="doi:10.1/x"),
                    TripleFilter(parent="challenge:resource limits")):
            assert store.page_triples(flt).items, flt
        store.paper_triples("doi:10.1/x")
        store.papers_stating(["solution:sparse attention"])
        store._read = read  # type: ignore[method-assign]

        scans = []
        with store.driver.session(database=store.database) as session:
            for query, params in sent:
                ops = _operators(session.run("EXPLAIN " + query, params).consume().plan)
                if SCANS & set(ops):
                    scans.append(f"{sorted(SCANS & set(ops))} in:\n{query.strip()}")
        assert not scans, "\n\n".join(scans)
        assert len(sent) > 20
    finally:
        store.clear()
        store.close()
