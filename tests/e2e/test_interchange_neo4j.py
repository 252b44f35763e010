"""`graph push` end to end: the embedded graph copied into a real Neo4j exports to the same bytes.

Runs on the real Neo4j of tests/neo4j_support.py, like the conformance suite.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
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


def test_push_command(store, settings, neo4j_settings, monkeypatch, tmp_path):
    fill_small_graph(store)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_BACKEND", "falkordb")
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", settings.graph.falkordb_url)
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_NAME", settings.graph.name)
    neo = neo4j_settings.neo4j
    monkeypatch.setenv("MOTIVGRAPH_NEO4J_PASSWORD", neo.password.get_secret_value())
    res = CliRunner().invoke(
        app, ["graph", "push", "--neo4j-uri", neo.uri, "--neo4j-user", neo.user, "--database", neo.database,
              "--replace"],
    )
    assert res.exit_code == 0, res.output
    target = open_store(neo4j_settings)
    try:
        assert list(export_lines(target)) == list(export_lines(store))
    finally:
        target.clear()
        target.close()
