"""Shared fixtures for every test area.

- `settings`: a fresh `Settings` whose data_dir is under the test's tmp_path (no `.env` read;
  the graph section is the default embedded FalkorDB regardless of MOTIVGRAPH_GRAPH_* env).
  An embedded server started for that data dir by the code under test is stopped afterwards
  (and any left in the session's tmp dirs when the session ends).
- `embedder`: the real all-MiniLM-L6-v2 embedder, loaded once per session (offline).
- `falkordb_server`: one embedded FalkorDB (`graph.embedded.EmbeddedFalkorDB`) per session, in a
  tmp dir, stopped at session end. `.url` is its `unix://` URL, `.socket_path` its socket.
- `store`: a `GraphStore` on that server with a unique graph name per test, schema ensured,
  dropped afterwards. Requesting `store` also points `settings` at the same graph
  (`settings.graph.falkordb_url` / `settings.graph.name`), so `Runtime(settings).store`,
  `open_store(settings)` and the API app built from `settings` all see the graph the test wrote.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from motivgraph.settings import GraphSettings, Settings
from tests import leak_check

if TYPE_CHECKING:
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.base import GraphStore
    from motivgraph.graph.embedded import EmbeddedFalkorDB

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"
CORPUS_DIR = SHARED_DIR / "corpus"


leak_check.become_subreaper()  # before any test starts a process: detached servers stay our descendants


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a process the suite started outlives it (tests/leak_check.py); it is killed."""
    left = leak_check.leaked()
    if left:
        lines = "\n".join(f"  pid {pid}: {cmd[:300]}" for pid, cmd in sorted(left.items()))
        session.config.get_terminal_writer().line(
            f"\nFAILED: {len(left)} process(es) started by the suite outlived it (killed now):\n{lines}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """With MOTIVGRAPH_REQUIRE_NEO4J=1 (CI, which starts a Neo4j) a `neo4j`-marked test that skips fails:
    the production store's tests must run, never pass by skipping."""
    report = yield
    if (report.skipped and os.environ.get("MOTIVGRAPH_REQUIRE_NEO4J") == "1"
            and item.get_closest_marker("neo4j") is not None):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.longrepr = f"a Neo4j test skipped with MOTIVGRAPH_REQUIRE_NEO4J=1: {reason}"
    if (report.skipped and os.environ.get("MOTIVGRAPH_REQUIRE_RAY") == "1"
            and item.get_closest_marker("ray") is not None):
        report.outcome = "failed"  # CI installs Ray (setup.sh --with-ray): the Ray engine's tests must run
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.longrepr = f"a Ray test skipped with MOTIVGRAPH_REQUIRE_RAY=1: {reason}"
    return report


@pytest.fixture(autouse=True)
def _no_neo4j_server_warnings(request: pytest.FixtureRequest) -> Iterator[None]:
    """A `neo4j` test fails when the real server answered one of its queries with a warning (a deprecated
    form, an unsupported or slow construct: the driver logs each on `neo4j.notifications`), so a query that
    the next server release will refuse cannot land unnoticed. The store switches off the "does not exist"
    notices of a fresh graph (graph/backends/neo4j.py)."""
    if request.node.get_closest_marker("neo4j") is None:
        yield
        return
    import logging

    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage()[:600])

    handler = Collect(level=logging.WARNING)
    logger = logging.getLogger("neo4j.notifications")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
    assert not seen, "the Neo4j server warned about queries of this test:\n" + "\n".join(seen)


@pytest.fixture(scope="session", autouse=True)
def _stop_embedded_servers_left_running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Servers started by code under test in tmp data dirs (CLI commands, Runtime(settings).store)
    outlive the test; stop them all when the session ends."""
    yield
    from motivgraph.graph.embedded import EmbeddedFalkorDB

    for pidfile in tmp_path_factory.getbasetemp().glob("**/falkordb/falkordb.pid"):
        with contextlib.suppress(Exception):
            EmbeddedFalkorDB(pidfile.parent.parent).stop(timeout_s=10)


@pytest.fixture
def register_part() -> Iterator[Any]:
    """`register_part(kind, name, obj)`: a part of motivgraph/plugins.py for one test, taken back after it."""
    from motivgraph import plugins

    added: list[tuple[Any, str]] = []

    def add(kind: Any, name: str, obj: Any) -> Any:
        plugins.register(kind, name, obj)
        added.append((kind, name))
        return obj

    yield add
    for kind, name in added:
        plugins.unregister(kind, name)


@pytest.fixture
def settings(tmp_path: Path) -> Iterator[Settings]:
    s = Settings(data_dir=tmp_path / "data", graph=GraphSettings(), _env_file=None)  # type: ignore[call-arg]
    yield s
    if (s.data_dir / "falkordb" / "falkordb.pid").exists():  # an embedded server was started for it
        from motivgraph.graph.embedded import EmbeddedFalkorDB

        with contextlib.suppress(Exception):
            EmbeddedFalkorDB(s.data_dir).stop(timeout_s=10)


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    from motivgraph.embeddings import get_embedder
    from motivgraph.settings import EmbeddingSettings

    return get_embedder(EmbeddingSettings())


@pytest.fixture(scope="session")
def falkordb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedFalkorDB]:
    from motivgraph.graph.embedded import EmbeddedFalkorDB

    server = EmbeddedFalkorDB(tmp_path_factory.mktemp("fdb"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def store(settings: Settings, falkordb_server: EmbeddedFalkorDB) -> Iterator[GraphStore]:
    from motivgraph.graph import open_store

    settings.graph.falkordb_url = falkordb_server.url
    settings.graph.name = f"t_{uuid.uuid4().hex[:12]}"
    st = open_store(settings)
    st.ensure_schema()
    try:
        yield st
    finally:
        drop = getattr(st, "drop_graph", None)
        try:
            drop() if drop else st.clear()
        finally:
            st.close()
