"""A short evaluation against the real local model (SmolLM2-135M): 2 topics, 2 methods, 1 idea.
Mechanics only: the evaluation ends `completed` with a whole report (shortfalls and unusable judge
replies reported, not fatal); a failed or crashed evaluation fails the test; never left running; real calls are
accounted per evaluation role."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.real_llm.support import REPO_ROOT, assert_run_ended_cleanly, real_env, run_cli

pytestmark = pytest.mark.real_llm

TOPICS = REPO_ROOT.parent / "shared" / "eval" / "topics.jsonl"


def _two_small_topics(dest: Path) -> Path:
    rows = [json.loads(x) for x in TOPICS.read_text(encoding="utf-8").splitlines() if x.strip()][:2]
    for r in rows:  # abstracts only, few papers: prompts a 135M model can hold
        r["background_papers"] = [{"paper_id": p["paper_id"], "title": p["title"], "abstract": p["abstract"][:600]}
                                  for p in r["background_papers"][:2]]
        r["target_papers"] = [{"paper_id": p["paper_id"], "title": p["title"], "abstract": p["abstract"][:600]}
                              for p in r["target_papers"][:1]]
    f = dest / "two_topics.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return f


def test_short_evaluation_ends_cleanly(local_llm: Path, tmp_path: Path) -> None:
    if not TOPICS.is_file():
        pytest.skip(f"LOUD SKIP: shared topics file not found at {TOPICS}")
    env = real_env(tmp_path / "data", local_llm, MOTIVGRAPH_LLM_MAX_TOKENS="350")
    r = run_cli(["eval", "--topics", str(_two_small_topics(tmp_path)), "--methods", "setlevel,stateless",
                 "--ideas", "1", "--graph", "file", "--n-boot", "20",
                 # the small config this test always ran with, not the papers' protocol (3 judges, 5 runs):
                 "--panel-size", "1", "--max-runs", "3",
                 "--config", 'stateless={"ideator_tool_calls": 0}'], env)
    runs = tmp_path / "data" / "runs"
    evals = [d for d in runs.iterdir() if (d / "status.json").is_file()
             and json.loads((d / "status.json").read_text()).get("method") == "eval"] if runs.is_dir() else []
    assert len(evals) == 1, r.stdout + r.stderr
    status = json.loads((evals[0] / "status.json").read_text())
    # a recorded end that is not an error: a crashed evaluation fails this test (it used to pass as "failed")
    assert status["status"] == "completed" and not status.get("error"), status
    assert r.returncode == 0, r.stdout + r.stderr
    check = run_cli(["eval", "--check", evals[0].name], env)  # the report recomputes from its records
    assert check.returncode == 0, check.stdout + check.stderr
    children = [d for d in runs.iterdir() if (d / "status.json").is_file()
                and json.loads((d / "status.json").read_text()).get("parent") == evals[0].name]
    assert children, "the evaluation ran no method"
    for child in children:  # every method run ended cleanly; a rejection names its reason
        assert_run_ended_cleanly(child)
    usage = status.get("usage") or {}
    assert any(k.startswith("eval.") and v.get("calls", 0) >= 1 for k, v in usage.items()), usage
    _report_traces_to_judgments(evals[0])
    # the dry run times the local model (two short completions) and turns the estimate's tokens into time
    dry = run_cli(["eval", "--topics", str(_two_small_topics(tmp_path)), "--methods", "setlevel,stateless",
                   "--ideas", "1", "--graph", "file", "--panel-size", "1", "--dry-run"], env)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert "time: about" in dry.stdout and "local:smollm2: local," in dry.stdout, dry.stdout
    assert "Yield gates" in dry.stdout and "orders" in dry.stdout, dry.stdout


def _report_traces_to_judgments(out: Path) -> None:
    """The replies table counts exactly the judgments recorded; every direct score in ideas.csv is the mean
    of its recorded judgments (a real model's replies, unusable ones included)."""
    import csv

    recs = [json.loads(x) for x in (out / "judgments.jsonl").read_text().splitlines() if x.strip()]
    counted: dict[tuple[str, str], list[int]] = {}
    for r in recs:
        cell = counted.setdefault((r["kind"], r["judge"]), [0, 0])
        cell[0] += 1
        cell[1] += "failed" in r
    with (out / "tables" / "replies.csv").open() as fh:
        table = {(r["kind"], r["judge"]): [int(r["asked"]), int(r["unusable"])] for r in csv.DictReader(fh)}
    assert table == counted
    with (out / "ideas.csv").open() as fh:
        for row in csv.DictReader(fh):
            vals = [r["result"]["novelty"] for r in recs if r["kind"] == "score" and r.get("idea") == row["idea_id"]
                    and "result" in r]
            if vals:
                assert abs(float(row["score_novelty"]) - sum(vals) / len(vals)) < 1e-4  # the CSV's 4 decimals
            else:
                assert row["score_novelty"] == ""
