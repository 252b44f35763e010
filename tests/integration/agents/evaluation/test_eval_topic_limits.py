"""A topic over the run limit (#42 item 5): `eval` gives a clean usage error (exit 2) naming the topic and the limit,
in the dry run and the real run, from --topic and from a topics file -- as `ideate` does -- and creates nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app

LONG = "sparse attention kernels for long documents " * 14  # > 500 characters


@pytest.fixture
def env(settings, monkeypatch):
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", "scripted:unused")
    return settings


@pytest.mark.parametrize("dry", [True, False])
def test_a_long_topic_string_is_a_usage_error(env, dry):
    args = ["eval", "--topic", LONG, "--methods", "stateless", *(["--dry-run"] if dry else [])]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    out = " ".join(res.output.split())
    assert "too long" in out and "at most 500" in out and "Traceback" not in out
    assert not env.runs_dir.exists() or not any(env.runs_dir.iterdir())


def test_a_long_topic_in_a_topics_file_is_a_usage_error(env, tmp_path: Path):
    f = tmp_path / "topics.jsonl"
    f.write_text(json.dumps({"topic_id": "T9", "topic_name": LONG, "background_papers": [
        {"paper_id": "b0", "title": "Background 0", "abstract": "Sparse kernels."}]}) + "\n")
    res = CliRunner().invoke(app, ["eval", "--topics", str(f), "--methods", "stateless", "--dry-run"])
    assert res.exit_code == 2, res.output
    assert "topic T9 is too long" in " ".join(res.output.split())


def test_ideate_refuses_the_same_topic_with_the_same_code(env):
    res = CliRunner().invoke(app, ["ideate", "--method", "stateless", LONG, "--dry-run"])
    assert res.exit_code == 2, res.output
