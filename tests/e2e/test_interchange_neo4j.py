"""`graph push` end to end: the embedded graph copied into a real Neo4j exports to the same bytes.

Runs on the real Neo4j of tests/neo4j_support.py, like the conformance suite.
"""

from __future__ import annotations

import pytest

from motivgraph.graph import open_store
from motivgraph.graph.interchange import copy_graph, export_lines
from tests.integration.graph.test_interchange import fill_small_graph

pytestmark = [pytest.mark.e2e, pytest.mark.neo4j]


def test_copy_into_neo4j_round_trips(store, neo4j_settings):
    fill_small_graph(store)
    target = open_store(neo4j_settings)
    try:
        report = copy_graph(store, target, replace=True)
        assert report.ok
        assert list(export_lines(target)) == list(export_lines(store))
    finally:
        target.clear()
        target.close()


def test_push_command(store, neo4j_settings, push_to_neo4j):
    fill_small_graph(store)
    push_to_neo4j()
    target = open_store(neo4j_settings)
    try:
        assert list(export_lines(target)) == list(export_lines(store))
    finally:
        target.clear()
        target.close()
