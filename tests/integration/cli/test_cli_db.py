"""`motivgraph db start|stop|status` through typer's CliRunner, on a real embedded server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.graph.embedded import EmbeddedFalkorDB


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    d = tmp_path / "data"
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(d))
    monkeypatch.delenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", raising=False)
    monkeypatch.delenv("MOTIVGRAPH_GRAPH_BACKEND", raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env
    yield d
    EmbeddedFalkorDB(d).stop(timeout_s=20)


def test_db_lifecycle(data_dir: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["db", "status"])
    assert res.exit_code == 4, res.output
    assert "stopped" in res.output

    res = runner.invoke(app, ["db", "start"])
    assert res.exit_code == 0, res.output
    assert "started" in res.output
    server = EmbeddedFalkorDB(data_dir)
    assert server.is_running()

    res = runner.invoke(app, ["db", "start", "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.output)
    assert info["running"] is True and info["reused"] is True and info["pid"] == server.read_pid()

    res = runner.invoke(app, ["db", "status", "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.output)
    assert info["socket"] == str(server.socket_path) and info["data_bytes"] > 0

    res = runner.invoke(app, ["db", "stop"])
    assert res.exit_code == 0, res.output
    assert "stopped" in res.output
    assert not server.is_running()

    res = runner.invoke(app, ["db", "stop"])
    assert res.exit_code == 0 and "not running" in res.output


def test_db_notes_when_another_backend_is_configured(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_BACKEND", "neo4j")
    res = CliRunner().invoke(app, ["db", "status"])
    assert res.exit_code == 4
    assert "Neo4j" in res.output and "manages the embedded" in res.output


def test_db_bad_settings_exit_3(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_BACKEND", "sqlite")
    res = CliRunner().invoke(app, ["db", "start"])
    assert res.exit_code == 3
    assert "MOTIVGRAPH_GRAPH_BACKEND" in res.output


def test_db_help() -> None:
    res = CliRunner().invoke(app, ["db", "--help"])
    assert res.exit_code == 0
    for cmd in ("start", "stop", "status"):
        assert cmd in res.output
