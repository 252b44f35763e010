"""`motivgraph search` searches where the tools do: the node search backend chosen by
MOTIVGRAPH_INDEX_BACKEND (graph/search_backends.open_node_search), not always the FAISS index."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.graph.runtime import Runtime
from motivgraph.graph.vector_index import IndexHit


class _Embedder:
    dim = 4

    def embed(self, texts: Sequence[str], **_kw: Any) -> np.ndarray:
        return np.ones((len(texts), self.dim), dtype=np.float32) / 2.0


class _Backend:
    """Stands in for the Neo4j vector search (no Neo4j server here)."""

    name = "neo4j"

    def __init__(self) -> None:
        self.calls: list[tuple[int, Any, Any, bool]] = []

    def ensure_ready(self) -> None:
        pass

    def search_vectors(self, vectors: np.ndarray, k: int, types: Any = None,
                       min_score: Any = None, *, check: bool) -> list[list[IndexHit]]:
        self.calls.append((k, types, min_score, check))
        return [[IndexHit(key="problem:label noise", type="problem", name="Label noise", score=0.9)]]


def test_search_uses_the_configured_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import motivgraph.graph.search_backends as SB

    backend = _Backend()
    chosen: list[str] = []

    def fake_open(rt: Runtime) -> _Backend:
        chosen.append(rt.settings.index.backend)
        return backend

    monkeypatch.setattr(SB, "open_node_search", fake_open)
    monkeypatch.setattr(Runtime, "embedder", property(lambda _self: _Embedder()))
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "d"), "MOTIVGRAPH_INDEX_BACKEND": "neo4j",
           "MOTIVGRAPH_GRAPH_BACKEND": "neo4j"}
    r = CliRunner().invoke(app, ["search", "noisy labels", "-t", "problem", "-k", "3", "--json"], env=env)
    assert r.exit_code == 0, r.output
    assert chosen == ["neo4j"] and backend.calls == [(3, ["problem"], None, False)]  # readiness checked once, not again
    assert [h["key"] for h in json.loads(r.stdout)] == ["problem:label noise"]


def test_neo4j_index_backend_on_another_store_is_a_config_error(tmp_path: Path) -> None:
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "d"), "MOTIVGRAPH_INDEX_BACKEND": "neo4j"}
    r = CliRunner().invoke(app, ["search", "noisy labels"], env=env)
    assert r.exit_code == 3 and "MOTIVGRAPH_GRAPH_BACKEND=neo4j" in r.output, r.output
