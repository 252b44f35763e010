"""`graph push` of a synthetic graph (a few thousand nodes) into a real Neo4j loses and alters nothing.

The embedded graph (bench/synthetic.py at 600 papers, plus the awkward cases of the interchange tests:
aliases, merged spellings, unicode, empty descriptions, two parent levels) is pushed by the command
itself; then graph/compare.py reads both stores: counts per label / relationship type / parents /
triples, every node and paper record field by field, 200 sampled nodes with every relationship and its
properties, 200 sampled papers' triples; and the canonical JSONL export of both graphs must be the same
lines. Runs on the real Neo4j of tests/neo4j_support.py.
"""

from __future__ import annotations

import pytest

from bench.synthetic import FULL, TRIPLES_PER_PAPER, SyntheticGraph
from motivgraph.graph import open_store
from motivgraph.graph.compare import compare_stores
from motivgraph.graph.interchange import export_lines
from tests.integration.graph.test_interchange import fill_small_graph

pytestmark = [pytest.mark.e2e, pytest.mark.neo4j, pytest.mark.slow]

PAPERS = 600


def test_push_of_a_synthetic_graph_loses_nothing(store, neo4j_settings, push_to_neo4j):
    g = SyntheticGraph(scale=PAPERS / (FULL["triple"] // TRIPLES_PER_PAPER), seed=5)
    store.upsert_papers(g.papers)
    for batch in g.triple_batches(500):
        store.upsert_triples(batch)
    store.add_parents(g.parents)
    fill_small_graph(store)
    source = store.stats()
    assert source.triples >= 3000 and sum(source.nodes.values()) >= 3000

    push_to_neo4j("--no-embeddings")

    target = open_store(neo4j_settings)
    try:
        cmp = compare_stores(store, target, sample=200, seed=1)
        assert cmp.ok, cmp.summary()
        assert cmp.counts_equal and all(a > 0 for a, _ in cmp.counts.values()), cmp.counts
        assert cmp.nodes_compared == sum(source.nodes[lb] for lb in ("Problem", "Challenge", "Solution"))
        assert cmp.papers_compared == source.nodes["Paper"]
        assert cmp.nodes_sampled == 200 and cmp.relationships_compared > 600
        assert cmp.papers_sampled == 200 and cmp.triples_compared >= 200 * TRIPLES_PER_PAPER
        a, b = list(export_lines(store)), list(export_lines(target))
        assert len(a) > 5000
        assert a == b
    finally:
        target.clear()
        target.close()
