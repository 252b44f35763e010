"""The GraphStore conformance suite against a real Neo4j 5.

Runs when MOTIVGRAPH_NEO4J_URI is set (with MOTIVGRAPH_NEO4J_USER / _PASSWORD / _DATABASE; the
database is wiped of MotivGraph labels before every test), or when a Docker engine is reachable
(a neo4j:5 container via testcontainers). Skipped otherwise, with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from motivgraph.graph.base import GraphStore
from motivgraph.settings import GraphSettings, Neo4jSettings, Settings
from tests.integration.graph.test_store_conformance import TestConformance as _Conformance

pytestmark = pytest.mark.e2e

NEO4J_IMAGE = "neo4j:5.26-community"


def _docker_reason() -> str | None:
    """None when a Docker engine answers; otherwise why Neo4j cannot be started here."""
    try:
        import docker
    except ImportError:
        return "MOTIVGRAPH_NEO4J_URI is not set and the docker/testcontainers packages are not installed"
    try:
        client = docker.from_env(timeout=5)
        client.ping()
        client.close()
    except Exception as e:
        return f"MOTIVGRAPH_NEO4J_URI is not set and no Docker engine is reachable ({type(e).__name__})"
    return None


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    data_dir = tmp_path_factory.mktemp("neo4j-e2e")
    if os.environ.get("MOTIVGRAPH_NEO4J_URI"):
        env = Settings()
        yield Settings(data_dir=data_dir, graph=GraphSettings(backend="neo4j"), neo4j=env.neo4j,  # type: ignore[call-arg]
                       _env_file=None)
        return
    reason = _docker_reason()
    if reason:
        pytest.skip(reason)
    from testcontainers.neo4j import Neo4jContainer

    password = "motivgraph-test"
    with Neo4jContainer(NEO4J_IMAGE, password=password) as container:
        neo = Neo4jSettings(uri=container.get_connection_url(), user="neo4j", password=password,  # type: ignore[arg-type]
                            database="neo4j")
        yield Settings(data_dir=data_dir, graph=GraphSettings(backend="neo4j"), neo4j=neo,  # type: ignore[call-arg]
                       _env_file=None)


@pytest.fixture
def gstore(neo4j_settings: Settings) -> Iterator[GraphStore]:
    from motivgraph.graph import open_store

    store = open_store(neo4j_settings)
    store.clear()
    try:
        yield store
    finally:
        store.close()


class TestNeo4jConformance(_Conformance):
    """Every conformance test, on Neo4j."""


def test_push_settings_shape(neo4j_settings: Settings) -> None:
    # The settings the suite runs with are what `motivgraph graph push` would use.
    s: Any = neo4j_settings
    assert s.graph.backend == "neo4j" and s.neo4j.uri
