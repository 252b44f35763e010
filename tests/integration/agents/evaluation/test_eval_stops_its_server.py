"""`motivgraph eval` ends with the local model servers it started (#42 item 3): a graph build's (or a method's,
or a judge's) local: server that the eval spawned is stopped when the eval ends -- normally or by an error --
while a server that was running before the eval is the user's and keeps running.

The server is a real process: a small HTTP stand-in for llama_cpp.server (same argv markers, /openapi.json and
/v1/models), so start, reuse, the state file and the stop are the platform's own code paths."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from motivgraph.agents.evaluation import cli as eval_cli
from motivgraph.cli import app
from motivgraph.errors import ConfigError
from motivgraph.llm import local
from motivgraph.llm.local import LocalModel, LocalServer, _pid_alive
from motivgraph.terminal import EXIT_CONFIG

FAKE_SERVER = '''
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
port, model = int(sys.argv[sys.argv.index("--port") + 1]), sys.argv[sys.argv.index("--model-id") + 1]
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        body = {"/openapi.json": {}, "/v1/models": {"data": [{"id": model}]}}.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(body or {}).encode())
    def log_message(self, *a):
        pass
HTTPServer(("127.0.0.1", port), H).serve_forever()
'''


@pytest.fixture
def fake_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LocalModel:
    script = tmp_path / "fake_llama_server.py"
    script.write_text(FAKE_SERVER)

    def command(self: LocalServer, port: int, api_key: str) -> list[str]:
        return [sys.executable, str(script), "llama_cpp.server", "--port", str(port), "--model-id", self.model.name]

    monkeypatch.setattr(LocalServer, "_command", command)
    monkeypatch.setattr(local, "find_spec", lambda name: object())  # llama-cpp-python need not be installed
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    return LocalModel("tiny", gguf.resolve(), 2048, 256)


def _topics(tmp_path: Path) -> Path:
    f = tmp_path / "topics.jsonl"
    f.write_text(json.dumps({"topic_id": "T0", "topic_name": "Sparse rewards in reinforcement learning",
                             "background_papers": [{"paper_id": "b1", "title": "Shaping", "abstract": "Shaping."}],
                             "target_papers": [{"paper_id": "g1", "title": "Later", "abstract": "Later."}]}) + "\n")
    return f


def _eval(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, execute: Any) -> Any:
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", "deepseek:deepseek-chat")
    monkeypatch.setattr(eval_cli, "_execute", execute)  # the evaluation itself: starts what it needs
    return CliRunner().invoke(app, ["eval", "--topics", str(_topics(tmp_path)), "--methods", "setlevel",
                                    "--ideas", "1", "--panel-size", "1"])


def test_the_server_an_eval_starts_ends_with_it(settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                fake_server: LocalModel) -> None:
    seen: dict[str, Any] = {}

    async def execute(_settings: Any, _run: Any) -> None:  # a graph build that needs the local model
        srv = LocalServer(fake_server, settings.data_dir / "llm", port=0, start_timeout_s=30)
        st, reused = srv.start()
        seen.update(pid=st.pid, port=st.port, reused=reused, statefile=srv.statefile)
        assert _pid_alive(st.pid, st.port)
        raise ConfigError("the judge model is not configured")  # the eval ends by an error: still stopped

    r = _eval(settings, tmp_path, monkeypatch, execute)
    assert r.exit_code == EXIT_CONFIG, r.output
    assert seen["reused"] is False
    assert not _pid_alive(seen["pid"], seen["port"])  # the server process is gone
    assert not seen["statefile"].exists()  # and `llm status` lists nothing left behind
    assert "stopped the local model server(s) this evaluation started: tiny" in r.output


def test_a_server_running_before_the_eval_keeps_running(settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        fake_server: LocalModel) -> None:
    users = LocalServer(fake_server, settings.data_dir / "llm", port=0, start_timeout_s=30)
    before, _ = users.start()  # the user's server (as `ideate` or `llm start` leaves it)
    seen: dict[str, Any] = {}

    async def execute(_settings: Any, run: Any) -> None:
        st, reused = LocalServer(fake_server, settings.data_dir / "llm", port=0).start()
        seen.update(pid=st.pid, reused=reused)
        (run.path / "summary.md").write_text("# Evaluation\n")  # what a finished evaluation leaves

    try:
        r = _eval(settings, tmp_path, monkeypatch, execute)
        assert r.exit_code == 0, r.output
        assert seen == {"pid": before.pid, "reused": True}  # the eval used the user's server
        assert _pid_alive(before.pid, before.port) and users.running() is not None  # and left it running
        assert "stopped the local model server" not in r.output
    finally:
        users.stop()
