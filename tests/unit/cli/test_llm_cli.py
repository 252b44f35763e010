"""`motivgraph llm check|roles|usage`, driven end to end by a scripted model file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.llm import reset_scripted_models

runner = CliRunner()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.chdir(tmp_path)  # no stray .env
    for var in ("MOTIVGRAPH_LLM_MODEL", "MOTIVGRAPH_LLM_BASE_URL", "MOTIVGRAPH_LLM_API_KEY", "MOTIVGRAPH_LLM_ROLES"):
        monkeypatch.delenv(var, raising=False)
    reset_scripted_models()
    return {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data")}


def test_check_without_model_names_the_setting(env: dict[str, str]) -> None:
    res = runner.invoke(app, ["llm", "check"], env=env)
    assert res.exit_code == 3
    assert "MOTIVGRAPH_LLM_MODEL" in res.output


def test_check_then_usage_with_scripted_model(env: dict[str, str], tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": "pong"}]))
    env["MOTIVGRAPH_LLM_MODEL"] = f"scripted:{script}"
    res = runner.invoke(app, ["llm", "check"], env=env)
    assert res.exit_code == 0, res.output
    assert "'pong'" in res.output
    res = runner.invoke(app, ["llm", "usage", "--json"], env=env)
    rows = json.loads(res.output)
    assert [(r["role"], r["calls"], r["cache_hits"]) for r in rows] == [("default", 1, 0)]
    assert rows[0]["input_tokens"] > 0


def test_check_reports_provider_failure(env: dict[str, str], tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"error": "server", "status": 500}] * 3))
    env.update({"MOTIVGRAPH_LLM_MODEL": f"scripted:{script}", "MOTIVGRAPH_LLM_MAX_RETRIES": "0"})
    res = runner.invoke(app, ["llm", "check", "--role", "mentor"], env=env)
    assert res.exit_code == 1
    assert "HTTP 500" in res.output


def test_roles_table(env: dict[str, str]) -> None:
    env["MOTIVGRAPH_LLM_MODEL"] = "vllm:qwen"
    env["MOTIVGRAPH_LLM_ROLES"] = json.dumps({"mentor": {"model": "ollama:llama3.1"}})
    res = runner.invoke(app, ["llm", "roles"], env={**env, "COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    lines = {line.split("│")[1].strip(): line for line in res.output.splitlines() if line.count("│") > 3}
    assert "ollama:llama3.1" in lines["mentor"] and "11434" in lines["mentor"]
    assert "vllm:qwen" in lines["extractor"]


def test_usage_json_before_any_call_is_an_empty_list(env: dict[str, str]) -> None:
    # no LLM cache yet (an offline ingest no longer opens one): --json still prints one JSON document
    res = runner.invoke(app, ["llm", "usage", "--json"], env=env)
    assert res.exit_code == 0 and json.loads(res.stdout) == []
    res = runner.invoke(app, ["llm", "usage"], env=env)
    assert res.exit_code == 0 and "No LLM calls recorded yet" in res.stdout


def test_piped_table_is_not_cut_to_80_columns(env: dict[str, str], tmp_path: Path) -> None:
    """Piped into a file or another program, a table keeps whole cells (Rich lays out 80 columns without a tty)."""
    import os
    import subprocess
    import sys

    model = "vllm:" + "a-very-long-model-name-" * 5 + "end"
    run_env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "MOTIVGRAPH_LLM_ROLES")}
    run_env.update(env, MOTIVGRAPH_LLM_MODEL=model)
    r = subprocess.run([sys.executable, "-m", "motivgraph", "llm", "roles"], env=run_env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert any(model in line for line in r.stdout.splitlines()), r.stdout
