"""CLI: `motivgraph ingest --re-extract`, `papers list|delete`, `merges list|undo` — exit codes,
JSON output and one-line errors, over the real store with a scripted model configured through
MOTIVGRAPH_LLM_MODEL=scripted:PATH (the quick start's "set an LLM, then upgrade the triples")."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.cli import app
from tests.reprocess_support import canon, drop_graph, ingest, other_settings, script_file, write_jsonl

REPO = Path(__file__).resolve().parents[3]


def _json(out: str) -> object:
    return json.loads(out[out.index("{") if out.lstrip().startswith("{") else out.index("["):])


def test_reprocess_commands(tmp_path: Path, settings, store) -> None:  # type: ignore[no-untyped-def]
    src = write_jsonl(tmp_path / "papers.jsonl")
    asyncio.run(ingest(settings, src, llm=False))  # the quick start's first ingest: no LLM set
    env = {
        "MOTIVGRAPH_DATA_DIR": str(settings.data_dir),
        "MOTIVGRAPH_GRAPH_FALKORDB_URL": settings.graph.falkordb_url or "",
        "MOTIVGRAPH_GRAPH_NAME": settings.graph.name,
        "MOTIVGRAPH_LLM_MODEL": f"scripted:{script_file(tmp_path / 'model.json')}",
    }
    runner = CliRunner()
    r = runner.invoke(app, ["ingest", "--re-extract", "--only-extractor", "bogus"], env=env)
    assert r.exit_code == 3 and "--only-extractor must be one of" in r.output

    r = runner.invoke(app, ["ingest", "--re-extract", "--only-extractor", "heuristic", "--json"], env=env)
    assert r.exit_code == 0, r.output
    rep = _json(r.stdout)
    assert isinstance(rep, dict) and len(rep["reextracted"]) == 4 and rep["extractor"] == "llm"

    r = runner.invoke(app, ["papers", "list", "--json"], env=env)
    assert r.exit_code == 0, r.output
    papers = _json(r.stdout)
    assert isinstance(papers, list) and {p["extractor"] for p in papers} == {"llm"} and len(papers) == 4

    r = runner.invoke(app, ["merges", "list", "--paper", "id:p2", "--json"], env=env)
    assert r.exit_code == 0, r.output
    merges = _json(r.stdout)
    assert isinstance(merges, list)
    auto = next(m for m in merges if m["decision"] == "auto_merge")
    r = runner.invoke(app, ["merges", "undo", str(auto["id"])], env=env)
    assert r.exit_code == 0, r.output
    assert "papers replayed" in r.output
    r = runner.invoke(app, ["merges", "list"], env=env)
    assert r.exit_code == 0 and "(undone)" in r.output
    assert store.get_node(auto["mention_key"]) is not None
    r = runner.invoke(app, ["merges", "undo", "999999"], env=env)
    assert r.exit_code == 1 and "no decision #999999" in r.output

    r = runner.invoke(app, ["papers", "delete", "id:p0"], env=env)
    assert r.exit_code == 1 and "--yes" in r.output and store.get_paper("id:p0") is not None
    r = runner.invoke(app, ["papers", "delete", "nope", "--yes"], env=env)
    assert r.exit_code == 1 and "no paper 'nope'" in r.output
    r = runner.invoke(app, ["papers", "delete", "10.1234/QUX.5", "--yes", "--json"], env=env)
    assert r.exit_code == 0, r.output
    assert _json(r.stdout)["deleted"] == ["doi:10.1234/qux.5"]  # type: ignore[index]
    assert store.get_paper("doi:10.1234/qux.5") is None


def _env(settings, model: Path) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {
        "MOTIVGRAPH_DATA_DIR": str(settings.data_dir),
        "MOTIVGRAPH_GRAPH_FALKORDB_URL": settings.graph.falkordb_url or "",
        "MOTIVGRAPH_GRAPH_NAME": settings.graph.name,
        "MOTIVGRAPH_LLM_MODEL": f"scripted:{model}",
        "MOTIVGRAPH_INGEST_CONCURRENCY": "1",
    }


def test_kill_9_mid_reextract_then_rerun_equals_fresh_ingest(tmp_path: Path, settings, store) -> None:  # type: ignore[no-untyped-def]
    """#17 Done-when, with a real kill: `kill -9` of the `motivgraph ingest --re-extract` process once
    a paper is back in the graph (read from its job file), then the same command again: the graph
    equals a fresh ingest with the new extractor (canonical export)."""
    src = write_jsonl(tmp_path / "papers.jsonl")
    asyncio.run(ingest(settings, src, llm=False))  # offline triples, as after the quick start's first ingest
    model = script_file(tmp_path / "model.json")
    slow = tmp_path / "slow-model.json"  # the same model, each call 0.5 s: the kill lands mid-job
    slow.write_text(json.dumps({**json.loads(model.read_text()), "latency_s": 0.5}), encoding="utf-8")
    env = {**os.environ, **_env(settings, slow), "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    job_file = settings.data_dir / "miner" / "reprocess_job.json"
    proc = subprocess.Popen([sys.executable, "-m", "motivgraph", "ingest", "--re-extract"], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    job: dict = {}
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                job = json.loads(job_file.read_text(encoding="utf-8"))
            except (FileNotFoundError, ValueError):
                job = {}
            if job.get("done"):  # at least one paper re-extracted and stored
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.01)
    finally:
        if proc.poll() is None and not job.get("done"):
            proc.kill()
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, f"the re-extract ended before the kill point: {err.decode()[-2000:]}"
    left = json.loads(job_file.read_text(encoding="utf-8"))  # the kill came mid-job: the job is kept
    assert 1 <= len(left["done"]) < len(left["order"]) == 4

    r = CliRunner().invoke(app, ["ingest", "--re-extract", "--json"], env=_env(settings, model))
    assert r.exit_code == 0, r.output
    rep = _json(r.stdout)
    assert isinstance(rep, dict) and rep["resumed"] and not rep["failed"] and not job_file.exists()
    assert {t.extractor for p in store.iter_papers() for t in store.paper_triples(p.paper_id)} == {"llm"}

    fresh = other_settings(tmp_path, settings)
    try:
        r = CliRunner().invoke(app, ["ingest", str(src)], env=_env(fresh, model))
        assert r.exit_code == 0, r.output
        assert canon(settings) == canon(fresh)
    finally:
        drop_graph(fresh)
