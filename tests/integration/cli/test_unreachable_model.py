"""An unreachable model fails fast (#42 item 4): one connect per endpoint up front, exit 4 with the endpoint named
(`llm check`, `ideate`, `eval`); nothing is created or generated first."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.errors import LLMUnreachable
from motivgraph.llm.reach import connect, require_reachable


def _closed_port() -> int:
    with socket.socket() as s:  # bound, then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def down(settings, monkeypatch) -> str:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", "openai:some-model")
    monkeypatch.setenv("MOTIVGRAPH_LLM_BASE_URL", url)
    monkeypatch.setenv("MOTIVGRAPH_LLM_MAX_RETRIES", "0")
    return url


def test_connect_names_the_endpoint():
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    with pytest.raises(LLMUnreachable, match=f"endpoint {url} is unreachable"):
        connect(url, timeout_s=2)
    with pytest.raises(LLMUnreachable, match="role judge"):
        require_reachable([("role judge (openai:x)", url)], timeout_s=2)
    assert require_reachable([("local model", None)]) == []  # nothing to connect to


def test_a_listening_endpoint_passes():
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        url = f"http://127.0.0.1:{srv.getsockname()[1]}/v1"
        assert require_reachable([("a", url), ("b", url)], timeout_s=2) == [url]  # once per endpoint


def test_llm_check_exits_4_naming_the_endpoint(down):
    res = CliRunner().invoke(app, ["llm", "check"])
    assert res.exit_code == 4, res.output
    assert down in " ".join(res.output.split())


def test_ideate_exits_4_before_creating_a_run(down, settings, tmp_path: Path):
    out = tmp_path / "runs"
    res = CliRunner().invoke(app, ["ideate", "--method", "stateless", "sparse attention kernels", "--out", str(out)])
    assert res.exit_code == 4, res.output
    assert down in " ".join(res.output.split())
    assert not out.exists() or not any(out.iterdir())  # no run directory was made


def test_eval_exits_4_before_any_child_run(down, settings, tmp_path: Path):
    topics = tmp_path / "topics.jsonl"
    topics.write_text(json.dumps({"topic_id": "T0", "topic_name": "sparse attention kernels",
                                  "background_papers": [{"paper_id": "b0", "title": "Background 0",
                                                         "abstract": "Sparse kernels."}],
                                  "target_papers": [{"paper_id": "g0", "title": "Target 0",
                                                     "abstract": "Later."}]}) + "\n")
    res = CliRunner().invoke(app, ["eval", "--topics", str(topics), "--methods", "stateless", "--graph", "file",
                                   "--ideas", "1"])
    assert res.exit_code == 4, res.output
    assert down in " ".join(res.output.split())
    runs = settings.runs_dir
    children = [p.name for p in runs.iterdir()] if runs.exists() else []
    assert not [c for c in children if "-stateless-" in c]  # no child run was made
