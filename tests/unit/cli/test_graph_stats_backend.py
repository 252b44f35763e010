"""`graph stats` reads the node index of the configured index backend (graph/search_backends.node_index_status):
with MOTIVGRAPH_INDEX_BACKEND=neo4j the state of Neo4j's vector indexes -- what `reindex --check` and /health
report -- not the data folder's FAISS index (which after `graph push` does not exist and read as missing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.graph.grouped_index import IndexStatus
from motivgraph.graph.models import GraphStats
from motivgraph.graph.runtime import Runtime


class _Store:
    backend = "neo4j"

    def stats(self) -> GraphStats:
        return GraphStats(nodes={"Problem": 1, "Challenge": 1, "Solution": 1}, relationships={}, triples=1,
                          node_version=3)

    def node_version(self) -> int:
        return 3

    def close(self) -> None:
        pass


def test_graph_stats_reads_the_configured_index_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import motivgraph.graph.neo4j_search as NS

    asked: list[Any] = []

    def status(self: Any) -> IndexStatus:
        asked.append(self)
        return IndexStatus(state="ok", path="neo4j", message="ok")

    monkeypatch.setattr(NS.Neo4jNodeVectors, "__init__", lambda self, *a, **k: None)  # no Neo4j server here
    monkeypatch.setattr(NS.Neo4jNodeVectors, "status", status)
    monkeypatch.setattr(Runtime, "store", property(lambda _self: _Store()))
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "d"), "MOTIVGRAPH_INDEX_BACKEND": "neo4j",
           "MOTIVGRAPH_GRAPH_BACKEND": "neo4j"}
    r = CliRunner().invoke(app, ["graph", "stats", "--json"], env=env)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert asked and data["index"]["nodes"] == "ok" and data["index_backend"] == "neo4j"
