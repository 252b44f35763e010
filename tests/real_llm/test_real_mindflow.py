"""MindFlow against the real local model (SmolLM2-135M): mechanics only — one short training step
(log line with real tokens, checkpoint, controller) and one idea from a one-layer flow, each ending
`completed` (a failed or crashed run fails the test: support.assert_run_ended_cleanly), real calls
accounted under mindflow.* roles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.real_llm.support import REPO_ROOT, assert_run_ended_cleanly, real_env, run_cli

pytestmark = pytest.mark.real_llm

TOPICS = REPO_ROOT.parent / "shared" / "eval" / "topics.jsonl"


def _two_topics(tmp_path: Path) -> Path:
    if not TOPICS.is_file():
        pytest.skip(f"shared topics file not found at {TOPICS}")
    rows = [json.loads(x) for x in TOPICS.read_text(encoding="utf-8").splitlines() if x.strip()][:2]
    for r in rows:  # keep prompts small for a 135M model on 2 cores
        r["background_papers"] = [{"title": p["title"], "abstract": p.get("abstract", "")[:300]}
                                  for p in r["background_papers"][:2]]
    p = tmp_path / "two_topics.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return p


def test_one_training_step_and_one_idea(local_llm: Path, tmp_path: Path) -> None:
    topics = _two_topics(tmp_path)
    env = real_env(tmp_path / "data", local_llm, MOTIVGRAPH_LLM_MAX_TOKENS="400")
    out = tmp_path / "ctrl"
    r = run_cli(["method", "mindflow", "train", "--topics", str(topics), "--steps", "1", "--group", "2",
                 "--layers", "1", "--threshold", "0.1", "--val-every", "0", "--no-tools", "--out", str(out)], env)
    assert r.returncode == 0, r.stdout + r.stderr
    log = [json.loads(x) for x in (out / "train_log.jsonl").read_text().splitlines() if x.strip()]
    steps = [x for x in log if x["type"] == "step"]
    assert len(steps) == 1 and steps[0]["calls"] >= 1 and steps[0]["tokens"] > 0, log
    assert (out / "checkpoint.npz").is_file() and (out / "controller.npz").is_file()

    runs = tmp_path / "runs"
    r = run_cli(["ideate", "--method", "mindflow", "--background", str(topics), "--topic-id",
                 json.loads(topics.read_text().splitlines()[0])["topic_id"], "--controller", str(out),
                 "--out", str(runs)], env)
    dirs = [d for d in runs.iterdir() if (d / "status.json").is_file()] if runs.is_dir() else []
    assert len(dirs) == 1, r.stdout + r.stderr
    status = assert_run_ended_cleanly(dirs[0])  # a crashed run fails (it used to pass as "failed")
    (idea,) = json.loads((dirs[0] / "ideas.json").read_text())
    assert idea["extra"]["flow"]["steps"]
    usage = status.get("usage") or {}
    assert usage.get("mindflow.ideator", {}).get("calls", 0) >= 1, usage
