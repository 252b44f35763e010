"""The eval's graph-build model server is the user's (#42 item 3): a local: model's server state for a cached
evaluation graph lives in the user's data dir, where `motivgraph llm status` lists it and `llm stop` stops it --
not under <data_dir>/cache/eval-graphs/<hash>/llm, where nothing ever looked."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.agents.evaluation.topic_graph import topic_settings
from motivgraph.cli import app
from motivgraph.llm.factory import resolve_spec


def test_a_topic_graph_uses_the_users_local_server_dir(settings, tmp_path: Path):
    settings.llm.model = "local:smollm2"
    graph_root = settings.data_dir / "cache" / "eval-graphs" / "abc123"
    ts = topic_settings(settings, graph_root)
    assert ts.data_dir == graph_root.resolve()
    assert ts.llm.local_dir == settings.data_dir / "llm"
    spec = resolve_spec(ts.llm, "extractor", ts.data_dir)
    assert spec.local.dir == (settings.data_dir / "llm").resolve()
    assert not str(spec.local.dir).startswith(str(graph_root.resolve()))


def test_llm_status_lists_the_server_a_graph_build_started(settings, monkeypatch, tmp_path: Path):
    """The server lifecycle on a fake process: the state file the graph build's server writes is the one
    `llm status` reads on the user's data dir (its process gone, it is reported as not running)."""
    settings.llm.model = "local:smollm2"
    ts = topic_settings(settings, settings.data_dir / "cache" / "eval-graphs" / "h1")
    server = resolve_spec(ts.llm, "extractor", ts.data_dir).local
    server.dir.mkdir(parents=True, exist_ok=True)
    server.statefile.write_text(json.dumps({"pid": 2 ** 22 + 7, "port": 8089, "model": server.model.name,
                                            "path": "/x.gguf", "context_window": 2048, "threads": 1,
                                            "api_key": "k", "started": 0.0}))
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", "local:smollm2")
    res = CliRunner().invoke(app, ["llm", "status", "--json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.output)
    assert row["pid"] == 2 ** 22 + 7 and row["running"] is False  # the graph build's server, seen by `llm status`
