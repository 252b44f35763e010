"""`motivgraph ideate` end to end: streaming output, run directory, failure and --resume."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from motivgraph.agents.core.rundir import RunDir
from motivgraph.cli import app
from motivgraph.llm import reset_scripted_models
from tests.integration.agents.soiq.soiq_support import build_graph, idea_dict, idea_text


@pytest.fixture
def cli_env(settings, store, embedder, monkeypatch, tmp_path):
    build_graph(settings, store, embedder)
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", settings.graph.falkordb_url)
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_NAME", settings.graph.name)
    monkeypatch.setenv("MOTIVGRAPH_LLM_CACHE", "false")
    monkeypatch.setenv("MOTIVGRAPH_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("MOTIVGRAPH_AGENTS_REQUIRE_RANDOM_DRAW", "false")
    monkeypatch.delenv("MOTIVGRAPH_API_URL", raising=False)

    def use_script(replies, name):
        p = tmp_path / name
        p.write_text(json.dumps({"replies": replies}))
        reset_scripted_models()
        monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", f"scripted:{p}")

    return use_script


def test_ideate_streams_dialogue_and_writes_run(cli_env, tmp_path):
    cli_env([
        {"content": "", "tool_calls": [{"name": "node_search", "args": {"query": "oversmoothing"}}]},
        idea_text(idea_dict(cite=""), "Exploration done."),
        "Aspect: Feasibility. Which datasets exactly?",
        idea_text(idea_dict(cite="", extra="datasets named"), "Cora and ogbn-arxiv."),
        "Convincing. <ACCEPT>",
    ], "a.json")
    out = tmp_path / "runs"
    res = CliRunner().invoke(app, ["ideate", "oversmoothing in deep GNNs", "--ideas", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    for text in ("researcher", "mentor", "node_search", "Oversmoothing in deep message passing",
                 "aspect: Feasibility", "decision: ACCEPT", "grounding", "1 accepted"):
        assert text in res.output, text
    (run,) = RunDir.list(out)
    assert run.status()["status"] == "completed"
    assert run.ideas()[0]["abstract"].endswith("datasets named")
    assert (run.path / "repro.json").is_file() and "Reproducibility" in (run.path / "summary.md").read_text()


def test_ideate_failure_then_resume(cli_env, tmp_path):
    cli_env([idea_text(idea_dict(cite="")), "Aspect: Rationality. Why?", {"error": "server", "status": 500}],
            "b1.json")
    out = tmp_path / "runs"
    res = CliRunner().invoke(app, ["ideate", "oversmoothing in deep GNNs", "--ideas", "1", "--out", str(out)])
    assert res.exit_code != 0
    (run,) = RunDir.list(out)
    assert run.status()["status"] == "failed"
    assert f"--resume {run.id}" in " ".join(res.output.split())
    # the checkpoint is before round 1: the mentor asks again, then the researcher answers
    cli_env(["Aspect: Rationality. Why?", idea_text(idea_dict(cite="", extra="answered")), "<ACCEPT>"], "b2.json")
    res = CliRunner().invoke(app, ["ideate", "--resume", run.id, "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "resuming" in res.output
    assert run.status()["status"] == "completed"
    assert run.ideas()[0]["abstract"].endswith("answered")


def test_ideate_bad_options(cli_env, tmp_path):
    cli_env(["unused"], "c.json")
    res = CliRunner().invoke(app, ["ideate", "graphs", "--ablations", "no_brain", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "no_mentor" in res.output
    res = CliRunner().invoke(app, ["ideate", "graphs", "--no-such-flag", "1", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "--tool-mode" in res.output  # names the method's flags
    res = CliRunner().invoke(app, ["ideate", "graphs", "--method", "no_such_method", "--out", str(tmp_path)])
    assert res.exit_code == 3
    res = CliRunner().invoke(app, ["ideate", "--resume", "missing-run", "--out", str(tmp_path)])
    assert res.exit_code == 1 and "no run" in res.output


def test_ideate_without_llm_names_the_setting(cli_env, monkeypatch, tmp_path):
    monkeypatch.delenv("MOTIVGRAPH_LLM_MODEL", raising=False)
    res = CliRunner().invoke(app, ["ideate", "graphs", "--out", str(tmp_path / "runs")])
    assert res.exit_code == 3 and "MOTIVGRAPH_LLM_MODEL" in res.output
    assert not (tmp_path / "runs").exists()  # nothing half-created
