"""graph/compare.py on the embedded FalkorDB: a copy compares identical, and every kind of loss or change
in the copy is reported. Also the copy's node `sources` (the papers stating a node), which the export does
not carry: an import used to write them empty, so removing one paper from a pushed graph deleted nodes
that other papers still state."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from motivgraph.graph.base import GraphStore
from motivgraph.graph.compare import compare_stores
from motivgraph.graph.interchange import copy_graph, export_lines, import_lines
from motivgraph.graph.models import NodeIn, PaperRecord, TripleIn
from motivgraph.settings import Settings
from tests.integration.graph.test_interchange import _drop, _other, fill_small_graph

SHARED = "solution:sparse attention"  # stated by both papers of fill_small_graph


@pytest.fixture
def copy(settings: Settings, falkordb_server) -> Iterator[GraphStore]:
    _, st = _other(settings, falkordb_server.url)
    yield st
    _drop(st)


def test_a_copy_keeps_the_papers_stating_each_node(store, copy):
    fill_small_graph(store)
    assert sorted(store.get_nodes([SHARED])[0].sources) == ["arxiv:2401.00001", "doi:10.1/x"]
    assert copy_graph(store, copy, replace=True).ok
    assert {n.key: sorted(n.sources) for n in copy.iter_nodes()} == {
        n.key: sorted(n.sources) for n in store.iter_nodes()}
    cmp = compare_stores(store, copy)
    assert cmp.ok, cmp.summary()
    assert cmp.nodes_compared == 10 and cmp.nodes_sampled == 10 and cmp.relationships_compared > 20

    # what the empty sources broke: taking one paper out deleted the node the other paper still states
    copy.remove_paper("arxiv:2401.00001")
    assert copy.get_nodes([SHARED])[0] is not None
    assert copy.get_nodes([SHARED])[0].sources == ["doi:10.1/x"]


def test_a_merging_import_keeps_the_sources_the_graph_had(store, copy):
    fill_small_graph(store)
    copy.upsert_papers([PaperRecord(paper_id="other:1", title="Elsewhere")])
    copy.upsert_triples([TripleIn(paper_id="other:1", index=0, problem=NodeIn(name="Low-resource NER"),
                                  challenge=NodeIn(name="Label scarcity"), solution=NodeIn(name="Sparse attention"))])
    report = import_lines(copy, list(export_lines(store)))
    assert report.ok
    assert sorted(copy.get_nodes([SHARED])[0].sources) == ["arxiv:2401.00001", "doi:10.1/x", "other:1"]


@pytest.mark.parametrize("change, expect", [
    ("MATCH (n:Challenge {key: 'challenge:label scarcity'}) DETACH DELETE n", "missing from the copy"),
    ("MATCH (n:Solution {key: 'solution:sparse attention'}) SET n.aliases = []", "field aliases"),
    ("MATCH (n:Problem {key: 'problem:low resource ner'}) SET n.description = 'other'", "field description"),
    ("MATCH (:Paper)-[st:STATES {role: 'solution'}]->(:Solution {key: 'solution:sparse attention'}) "
     "SET st.mention = 'changed'", "triples of paper"),
    # a quote lost or altered in the copy
    ("MATCH (:Paper)-[st:STATES {role: 'challenge'}]->(:Challenge {key: 'challenge:quadratic attention cost'}) "
     "SET st.quote_pages = [7, 0]", "triples of paper"),
    ("MATCH (:Challenge)-[e:SOLVED_BY]->(:Solution {key: 'solution:memory tokens'}) SET e.sources = []",
     "relationships of"),
    ("MATCH (:Challenge {key: 'challenge:resource limits'})-[e:PARENT_OF]->"
     "(:Challenge {key: 'challenge:label scarcity'}) DELETE e", "count relationships:PARENT_OF"),
    ("MATCH (p:Paper {paper_id: 'doi:10.1/x'}) SET p.year = 1999", "field year"),
])
def test_every_change_in_the_copy_is_reported(store, copy, change, expect):
    fill_small_graph(store)
    assert copy_graph(store, copy, replace=True).ok
    copy._write(change)  # type: ignore[attr-defined]
    cmp = compare_stores(store, copy)
    assert not cmp.ok
    assert any(expect in d for d in cmp.differences), cmp.differences
