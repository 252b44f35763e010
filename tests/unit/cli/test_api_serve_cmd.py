"""`motivgraph serve`: help text, and a clear exit (code 4) when the graph cannot be reached."""

from __future__ import annotations

from typer.testing import CliRunner

from motivgraph.cli import app


def test_serve_help():
    r = CliRunner().invoke(app, ["serve", "--help"])
    assert r.exit_code == 0
    for opt in ("--host", "--port", "--workers"):
        assert opt in r.output


def test_serve_refuses_when_graph_down(tmp_path, monkeypatch):
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", f"unix://{tmp_path}/nobody.sock")
    r = CliRunner().invoke(app, ["serve", "--port", "18999"])
    assert r.exit_code == 4
    assert "graph unreachable" in r.output
