"""Issue 12 #7 through the CLI: `graph import` reads the file as bytes, so an invalid UTF-8 byte is a bad
line with its number, never a name silently changed to U+FFFD."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app

runner = CliRunner()


@pytest.fixture
def env(settings, store, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no stray .env
    for k in [k for k in os.environ if k.startswith("MOTIVGRAPH_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", settings.graph.falkordb_url)
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_NAME", settings.graph.name)
    return monkeypatch


def test_invalid_utf8_line_is_reported_by_number_and_not_imported(env, store, tmp_path):
    def node(key: str, name: str) -> bytes:
        return json.dumps({"kind": "node", "type": "problem", "key": key, "name": name}).encode()

    body = [
        b'{"kind":"header","format":"motivgraph-graph","version":1}',
        node("problem:tea", "tea"),
        node("problem:cafe", "PLACEHOLDER").replace(b"PLACEHOLDER", b"caf\xe9"),  # Latin-1, not UTF-8
        b'{"kind":"end","counts":{"node":1,"paper":0,"triple":0,"parent":0}}',
    ]
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b"\n".join(body) + b"\n")
    res = runner.invoke(app, ["graph", "import", str(path)])
    assert res.exit_code == 1, res.output
    assert "line 3:" in res.output and "invalid UTF-8" in res.output
    names = [n.name for n in store.iter_nodes()]
    assert names == ["tea"]
