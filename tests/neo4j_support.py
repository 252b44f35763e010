"""The real Neo4j the Neo4j tests run against.

`neo4j_session()` gives the settings of one Neo4j server for a test session:

- MOTIVGRAPH_TEST_NEO4J_URI set (CI starts one with `motivgraph neo4j start`): that server, with
  MOTIVGRAPH_TEST_NEO4J_PASSWORD (user neo4j, database neo4j) and MOTIVGRAPH_TEST_NEO4J_HTTP_PORT (its
  Neo4j Browser, default 7474; tests/e2e/test_neo4j_browser_ui.py opens it). A variable of its own, so the
  rest of the suite never sees a Neo4j in its MOTIVGRAPH_NEO4J_* settings. MOTIVGRAPH_NEO4J_URI (with _USER /
  _PASSWORD / _DATABASE) is used the same way when the test one is unset. The database is shared: tests
  wipe MotivGraph's labels.
- otherwise a local Neo4j 5.26 (graph/neo4j_server.py) started in a temp home on free ports and
  stopped when the session ends: it needs Java 17/21 and Maven (the artefacts resolve once).

Where neither can be had the tests skip with the reason — and with MOTIVGRAPH_REQUIRE_NEO4J=1 (CI) a
skipped Neo4j test fails the run instead (tests/conftest.py), so a Neo4j test can never silently skip.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from motivgraph.settings import GraphSettings, Neo4jSettings, Settings

TEST_PASSWORD = "motivgraph-test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def local_server_reason() -> str | None:
    """None when a local Neo4j can be started here; otherwise why not."""
    from motivgraph.errors import ConfigError
    from motivgraph.graph.neo4j_server import find_java

    if not shutil.which("mvn"):
        return "MOTIVGRAPH_NEO4J_URI is not set and Maven (mvn), which resolves the local Neo4j, is not installed"
    try:
        find_java()
    except ConfigError as e:
        return f"MOTIVGRAPH_NEO4J_URI is not set and no Java for a local Neo4j: {e}"
    return None


@contextmanager
def local_server(home: Path, password: str = TEST_PASSWORD) -> Iterator[object]:
    """A fresh local Neo4j in `home` on free ports, stopped on exit (the `Neo4jServer`)."""
    from motivgraph.graph.neo4j_server import Neo4jServer

    server = Neo4jServer(home, password=password, bolt_port=free_port(), http_port=free_port(), heap="512m",
                         pagecache="128m")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def settings_for(server: object, data_dir: Path) -> Settings:
    from motivgraph.graph.neo4j_server import Neo4jServer

    assert isinstance(server, Neo4jServer)
    neo = Neo4jSettings(uri=server.bolt_uri, user=server.user, password=server.password, database="neo4j",
                        http_port=server.http_port)
    return Settings(data_dir=data_dir, graph=GraphSettings(backend="neo4j"), neo4j=neo, _env_file=None)


@contextmanager
def neo4j_session(tmp: Path) -> Iterator[Settings]:
    data_dir = tmp / "data"
    if os.environ.get("MOTIVGRAPH_TEST_NEO4J_URI"):
        neo = Neo4jSettings(uri=os.environ["MOTIVGRAPH_TEST_NEO4J_URI"],
                            password=os.environ.get("MOTIVGRAPH_TEST_NEO4J_PASSWORD", TEST_PASSWORD),
                            http_port=int(os.environ.get("MOTIVGRAPH_TEST_NEO4J_HTTP_PORT", "7474")))
        yield Settings(data_dir=data_dir, graph=GraphSettings(backend="neo4j"), neo4j=neo,
                       _env_file=None)
        return
    if os.environ.get("MOTIVGRAPH_NEO4J_URI"):
        env = Settings()
        yield Settings(data_dir=data_dir, graph=GraphSettings(backend="neo4j"), neo4j=env.neo4j,
                       _env_file=None)
        return
    reason = local_server_reason()
    if reason:
        pytest.skip(reason)
    with local_server(tmp / "neo4j-home") as server:
        yield settings_for(server, data_dir)


@contextmanager
def indexed_walkthrough_graph(settings: Settings, embedder: object) -> Iterator[object]:
    """The docs' walk-through graph written into the Neo4j of `settings`, with its node vector indexes built and
    populated (they fill asynchronously after CREATE); the graph is wiped on exit. Yields the store."""
    import time

    from motivgraph.graph import open_store
    from motivgraph.graph.neo4j_search import Neo4jNodeVectors
    from tests.integration.graph.test_neo4j_browser_queries import fill_walk_through_graph

    store = open_store(settings)
    store.clear()
    try:
        fill_walk_through_graph(store)
        vec = Neo4jNodeVectors(settings, store, embedder)  # type: ignore[arg-type]
        vec.rebuild()
        deadline = time.monotonic() + 60
        while vec.status().state != "ok" and time.monotonic() < deadline:
            time.sleep(0.5)
        assert vec.status().state == "ok", vec.status().message
        yield store
    finally:
        store.clear()
        store.close()
