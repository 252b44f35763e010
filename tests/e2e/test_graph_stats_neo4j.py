"""`graph stats` on a real Neo4j with MOTIVGRAPH_INDEX_BACKEND=neo4j reports the node index Neo4j holds -- the
vector indexes `graph push` / `reindex` write -- and agrees with `reindex --check` (#40 item 7: it used to read
the data folder's FAISS index, which does not exist after a push, and call the node index stale or missing)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.settings import Settings
from tests.neo4j_support import indexed_walkthrough_graph

pytestmark = [pytest.mark.e2e, pytest.mark.neo4j]


@pytest.fixture
def indexed_neo4j(neo4j_settings: Settings, embedder: Any) -> Iterator[Any]:
    with indexed_walkthrough_graph(neo4j_settings, embedder) as store:
        yield store


def test_graph_stats_and_reindex_check_agree_on_the_neo4j_index(indexed_neo4j: Any, neo4j_settings: Settings,
                                                                  tmp_path: Path) -> None:
    neo = neo4j_settings.neo4j
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "fresh"),  # no FAISS index here: only Neo4j's can say "ok"
           "MOTIVGRAPH_GRAPH_BACKEND": "neo4j", "MOTIVGRAPH_INDEX_BACKEND": "neo4j",
           "MOTIVGRAPH_NEO4J_URI": str(neo.uri), "MOTIVGRAPH_NEO4J_USER": neo.user,
           "MOTIVGRAPH_NEO4J_PASSWORD": neo.password.get_secret_value(), "MOTIVGRAPH_NEO4J_DATABASE": neo.database}
    stats = CliRunner().invoke(app, ["graph", "stats", "--json"], env=env)
    assert stats.exit_code == 0, stats.output
    check = CliRunner().invoke(app, ["reindex", "--check", "--no-papers", "--json"], env=env)
    data = json.loads(stats.stdout)
    assert data["index"]["nodes"] == "ok" and data["index_backend"] == "neo4j"
    assert json.loads(check.stdout)["nodes"]["state"] == "ok" and check.exit_code == 0, check.output
