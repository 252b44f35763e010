"""Fixtures of the end-to-end suites: `neo4j_settings`, the settings of one real Neo4j per session
(tests/neo4j_support.py says which), with graph.backend = neo4j; `push_to_neo4j`, `motivgraph graph push` as a
user runs it, from the embedded test graph into that Neo4j."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from motivgraph.settings import Settings
from tests.neo4j_support import neo4j_session


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    with neo4j_session(tmp_path_factory.mktemp("neo4j-e2e")) as settings:
        yield settings


@pytest.fixture
def push_to_neo4j(settings: Settings, neo4j_settings: Settings, monkeypatch: pytest.MonkeyPatch,
                  tmp_path: Path) -> Callable[..., None]:
    """Run `motivgraph graph push --replace [extra…]` from the embedded graph of the `store` fixture into the
    session's Neo4j, with the settings in the environment as a user sets them; fails on a non-zero exit."""

    def push(*extra: str) -> None:
        from typer.testing import CliRunner

        from motivgraph.cli import app

        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
        monkeypatch.setenv("MOTIVGRAPH_GRAPH_BACKEND", "falkordb")
        monkeypatch.setenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", str(settings.graph.falkordb_url))
        monkeypatch.setenv("MOTIVGRAPH_GRAPH_NAME", settings.graph.name)
        neo = neo4j_settings.neo4j
        monkeypatch.setenv("MOTIVGRAPH_NEO4J_PASSWORD", neo.password.get_secret_value())
        res = CliRunner().invoke(app, ["graph", "push", "--neo4j-uri", str(neo.uri), "--neo4j-user", neo.user,
                                       "--database", neo.database, "--replace", *extra])
        assert res.exit_code == 0, res.output

    return push
