"""`motivgraph ingest papers.jsonl` end to end as a user runs it: the real CLI in a subprocess, the LLM
miner answered by a scripted model file (MOTIVGRAPH_LLM_MODEL=scripted:FILE), the session's embedded
FalkorDB. A malformed line and a non-paper line are reported by line number and the rest goes on;
the run is killed with SIGKILL part-way and the same command resumes without redoing stored papers.
A topics file (the shape of eval/topics.jsonl) ingests only its background papers. Only the run
that is killed has its own process; the others run the same CLI app in this process (fast)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.graph.base import GraphStore
from motivgraph.settings import Settings
from tests.miner_support import GOOD_TRIPLE, INTRO, reply

REPO = Path(__file__).resolve().parents[3]
N = 6


def _record(i: int) -> dict[str, object]:
    return {"paper_id": f"mt{i}", "title": f"Transfer Learning for Low-Resource Translation, Study {i}",
            "abstract": "We study translation for languages with little parallel data.",
            "introduction": INTRO, "conclusion": "Transfer helps low-resource pairs."}


def _env(settings: Settings, tmp_path: Path, latency_s: float) -> dict[str, str]:
    script = tmp_path / "llm_script.json"
    script.write_text(json.dumps({"default": reply(GOOD_TRIPLE), "latency_s": latency_s}))
    env = dict(os.environ)
    env.update({
        "MOTIVGRAPH_DATA_DIR": str(settings.data_dir),
        "MOTIVGRAPH_GRAPH_FALKORDB_URL": settings.graph.falkordb_url or "",
        "MOTIVGRAPH_GRAPH_NAME": settings.graph.name,
        "MOTIVGRAPH_LLM_MODEL": f"scripted:{script}",
        "MOTIVGRAPH_LLM_ROLES": "{}",
        "PYTHONPATH": str(REPO),
        "COLUMNS": "250",
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
    })
    return env


def _stored(ledger: Path) -> int:
    if not ledger.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{ledger}?mode=ro", uri=True, timeout=1) as c:
            return int(c.execute("SELECT COUNT(*) FROM documents WHERE state = 'stored'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "motivgraph", *args]


def _run_json(args: list[str], env: dict[str, str]) -> tuple[dict[str, object], str]:
    """The CLI in this process (the killed run above is the one that needs its own process)."""
    from motivgraph.llm.factory import reset_scripted_models

    reset_scripted_models()
    r = CliRunner().invoke(app, [*args, "--json"], env=env)
    assert r.exit_code in (0, 1), r.output
    return json.loads(r.stdout), r.stderr


def test_jsonl_with_scripted_llm_bad_lines_and_resume_after_kill_9(
        tmp_path: Path, settings: Settings, store: GraphStore) -> None:
    lines = [json.dumps(_record(i)) for i in range(N)]
    lines.insert(3, "{this is not json")
    lines.insert(5, '["a list, not a paper"]')
    papers = tmp_path / "papers.jsonl"
    papers.write_text("\n".join(lines) + "\n")
    env = _env(settings, tmp_path, latency_s=0.7)
    ledger = settings.data_dir / "ingest" / "ledger.sqlite"
    run = ["ingest", "run", str(papers), "--concurrency", "1"]

    proc = subprocess.Popen(_cli(*run), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and _stored(ledger) < 2 and proc.poll() is None:
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    first = _stored(ledger)
    assert 2 <= first < N, f"the run should have been killed part-way ({first} stored)"

    out, err = _run_json(run, env)
    s = out["summary"]
    assert isinstance(s, dict)
    assert out["extractor"] == "llm" and "scripted:" in err  # the LLM miner ran, and said which model
    assert s["already_done"] >= first  # stored papers are not extracted again
    assert s["states"]["stored"] == N and s["states"]["failed"] == 2, s["states"]
    assert _stored(ledger) == N
    for i in range(N):
        triples = store.paper_triples(f"id:mt{i}")
        assert [t.challenge.name for t in triples] == [GOOD_TRIPLE["challenge"]["name"]], i

    rep = CliRunner().invoke(app, ["ingest", "report"], env=env)
    report = " ".join(rep.output.split())
    # a JSON list on a line is read as records; its string item is not a paper
    assert "line 4: not valid JSON" in report and "line 6, paper 1: not a paper record" in report, report


def test_topics_file_with_scripted_llm_ingests_background_papers_only(
        tmp_path: Path, settings: Settings, store: GraphStore) -> None:
    topic = {"topic_id": "t1", "topic": "low-resource translation",
             "background_papers": [_record(1), _record(2)], "target_papers": [_record(3)]}
    topics = tmp_path / "topics.jsonl"
    topics.write_text(json.dumps(topic) + "\n")
    env = _env(settings, tmp_path, latency_s=0.0)
    out, _ = _run_json(["ingest", "run", str(topics)], env)
    assert out["summary"]["states"]["stored"] == 2  # type: ignore[index]
    assert store.paper_triples("id:mt1") and store.paper_triples("id:mt2")
    assert store.get_paper("id:mt3") is None  # a target paper is held-out truth
