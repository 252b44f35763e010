"""Machine-safe output: after a cold start of the embedded store every `--json` command prints exactly one
JSON document on stdout; log lines go to stderr with ISO-8601 timestamps; the ML libraries' progress bars
("Loading weights") stay off unless --verbose. Input checks: missing paths and empty globs are errors;
a taken port is reported before "serving on"; the data dir in use is named; empty-graph advice says ingest."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.llm import reset_scripted_models
from tests.fixtures.ingest.pdfgen import write_paper
from tests.fixtures.runs import write_finished_run

runner = CliRunner()
ISO_LOG = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d (DEBUG|INFO|WARNING|ERROR|CRITICAL) \S+: ")
US_DATE = re.compile(r"\b\d\d/\d\d/\d\d\b")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.chdir(tmp_path)  # no stray .env
    for var in list(os.environ):
        if var.startswith("MOTIVGRAPH_"):
            monkeypatch.delenv(var, raising=False)
    reset_scripted_models()
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"default": {"content": "pong"}}))
    return {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "MOTIVGRAPH_INGEST_PARSER": "pdf",
            "MOTIVGRAPH_LOG_LEVEL": "INFO", "MOTIVGRAPH_LLM_MODEL": "", "COLUMNS": "80",
            "_SCRIPT": str(script)}


def _json(args: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> object:
    res = runner.invoke(app, args, env={k: v for k, v in env.items() if not k.startswith("_")})
    assert res.exit_code in ok, f"{args}: exit {res.exit_code}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"
    try:
        data = json.loads(res.stdout)
    except json.JSONDecodeError as e:
        raise AssertionError(f"`motivgraph {' '.join(args)}` stdout is not JSON ({e}):\n{res.stdout[:2000]}") from e
    for line in res.stderr.splitlines():
        assert not US_DATE.search(line), line
        if " INFO " in line or " WARNING " in line:
            assert ISO_LOG.match(line), f"log line without an ISO timestamp: {line!r}"
    return data


def test_every_json_command_after_a_cold_start(env: dict[str, str], tmp_path: Path) -> None:
    papers = tmp_path / "papers"
    papers.mkdir()
    write_paper(papers / "a.pdf")
    write_paper(papers / "b.pdf", title="Learning Robust Classifiers from Noisy Crowd Labels")
    data_dir = Path(env["MOTIVGRAPH_DATA_DIR"])
    plain = {k: v for k, v in env.items() if not k.startswith("_")}
    assert not data_dir.exists()
    # cold: no data dir, no embedded server yet; the first command starts it, logging at INFO (to stderr)
    res = runner.invoke(app, ["graph", "stats", "--json"], env=plain)
    assert res.exit_code == 0 and json.loads(res.stdout)["triples"] == 0, res.output
    assert any(ISO_LOG.match(ln) for ln in res.stderr.splitlines()), res.stderr  # the start was logged, on stderr
    res = runner.invoke(app, ["graph", "stats"], env=plain)
    assert "motivgraph ingest" in res.stderr and "reindex" not in res.stderr  # empty graph: ingest first
    res = runner.invoke(app, ["search", "label noise"], env=plain)
    assert res.exit_code == 1 and "motivgraph ingest" in res.stderr and "reindex" not in res.stderr

    # a real process (its own embedding model load): stdout is one JSON document, no progress bar on stderr
    penv = {k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}
    penv.update(plain)
    penv.pop("HF_HUB_DISABLE_PROGRESS_BARS", None)
    p = subprocess.run([sys.executable, "-m", "motivgraph", "ingest", str(papers), "--json"], env=penv,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    run = json.loads(p.stdout)
    assert run["summary"]["ok"] == 2 and run["extractor"] == "heuristic" and run["derived"] is not None
    assert "Loading weights" not in p.stderr and "it/s]" not in p.stderr, p.stderr
    assert all(ISO_LOG.match(ln) for ln in p.stderr.splitlines() if " INFO " in ln), p.stderr

    for args in (["search", "robust classifiers", "--json"], ["graph", "stats", "--json"], ["reindex", "--json"],
                 ["reindex", "--check", "--json"], ["parents", "build", "--offline", "--json"],
                 ["ingest", "status", "--json"], ["ingest", "report", "--json"], ["config", "show", "--json"],
                 ["db", "status", "--json"], ["llm", "roles", "--json"], ["llm", "usage", "--json"],
                 ["llm", "status", "--json"], ["runs", "list", "--json"]):
        _json(args, env)
    env_llm = {**env, "MOTIVGRAPH_LLM_MODEL": f"scripted:{env['_SCRIPT']}"}
    check = _json(["llm", "check", "--json"], env_llm)
    assert isinstance(check, dict) and check["ok"] and check["reply"] == "pong"
    roles = _json(["llm", "roles", "--json"], env_llm)
    assert isinstance(roles, list) and all(r["model"] for r in roles)
    run_dir = write_finished_run(data_dir / "runs")
    shown = _json(["runs", "show", run_dir.id, "--json"], env)
    assert isinstance(shown, dict) and shown["ideas"][0]["title"].startswith("Curriculum")
    listed = _json(["runs", "list", "--json"], env)
    assert isinstance(listed, list) and [r["id"] for r in listed] == [run_dir.id]


def test_missing_paths_and_empty_globs_are_errors(env: dict[str, str], tmp_path: Path) -> None:
    e = {k: v for k, v in env.items() if not k.startswith("_")}
    for args in (["ingest", str(tmp_path / "does" / "not" / "exist")], ["ingest", str(tmp_path / "*.pdf")]):
        res = runner.invoke(app, args, env=e)
        assert res.exit_code == 3, res.output
        assert "Nothing to ingest" in res.stderr and "motivgraph ingest" in res.stderr
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("x")
    res = runner.invoke(app, ["ingest", str(tmp_path / "empty")], env=e)
    assert res.exit_code == 3 and "No PDF files found" in res.stderr
    assert not Path(e["MOTIVGRAPH_DATA_DIR"]).exists()  # refused before anything was created


def test_serve_on_a_taken_port(env: dict[str, str]) -> None:
    e = {k: v for k, v in env.items() if not k.startswith("_")}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        res = runner.invoke(app, ["serve", "--port", str(port), "--no-check"], env=e)
    assert res.exit_code == 4, res.output
    assert "already in use" in res.stderr and "--port" in res.stderr
    assert "serving on" not in res.output


def test_the_data_dir_in_use_is_named(env: dict[str, str], tmp_path: Path) -> None:
    e = {k: v for k, v in env.items() if not k.startswith("_")}
    res = runner.invoke(app, ["db", "upgrade"], env=e)
    assert res.exit_code == 0, res.output
    assert f"data dir: {e['MOTIVGRAPH_DATA_DIR']}" in res.stderr
    res = runner.invoke(app, ["db", "upgrade"], env=e)  # it exists now: nothing to announce
    assert "created data dir" not in res.stderr
    home = tmp_path / "home"
    e2 = {k: v for k, v in e.items() if k != "MOTIVGRAPH_DATA_DIR"}
    res = runner.invoke(app, ["db", "upgrade"], env={**e2, "HOME": str(home)})
    assert res.exit_code == 0, res.output
    assert f"data dir: {home / '.motivgraph'} (the default; set MOTIVGRAPH_DATA_DIR" in res.stderr
