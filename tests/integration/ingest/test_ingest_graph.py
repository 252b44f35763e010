"""Ingest into the real embedded FalkorDB: Paper nodes, kill -9 resume, and the CLI."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.graph.base import GraphStore
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.settings import GraphSettings, IngestSettings, Settings
from tests.fixtures.ingest.pdfgen import write_encrypted, write_paper

REPO = Path(__file__).resolve().parents[3]
PDF_DIR = REPO.parent / "shared" / "corpus" / "pdf"


def _corpus(d: Path, n: int) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        write_paper(d / f"paper{i:02d}.pdf", title=f"Generated paper number {i} about graphs")
    write_encrypted(d / "locked.pdf", d / "paper00.pdf")
    (d / "empty.pdf").write_bytes(b"")
    return d


@pytest.mark.skipif(not PDF_DIR.is_dir(), reason=f"PDF corpus not found at {PDF_DIR}")
async def test_default_sink_stores_paper_nodes(settings: Settings, store: GraphStore) -> None:
    settings.ingest = IngestSettings(parser="pdf")
    files = [PDF_DIR / "sp_P07-1088.pdf", PDF_DIR / "sp_map-reduce.pdf", PDF_DIR / "sp_coordinate_calibrator.pdf"]
    summary = await ingest_async(files, settings, store=store, concurrency=2)
    assert summary.ok == 2 and summary.failed == 1
    led = Ledger.for_data_dir(settings.data_dir)
    stored = led.rows("stored")
    assert len(stored) == 2
    for row in stored:
        rec = store.get_paper(row.paper_id or "")
        assert rec is not None and rec.sha256 == row.sha256 and rec.source_path == row.path
    titles = sorted(p.title for p in store.iter_papers())
    assert titles == [
        "MapReduce: Simplified Data Processing on Large Clusters",
        "Sparse Information Extraction: Unsupervised Language Models to the Rescue",
    ]
    led.close()


_CHILD = textwrap.dedent(
    """
    import asyncio, sys, time
    from motivgraph.ingest.pipeline import ingest_async
    from motivgraph.ingest.sinks import GraphPaperSink
    from motivgraph.graph import open_store
    from motivgraph.settings import GraphSettings, IngestSettings, Settings

    s = Settings(data_dir=sys.argv[2], ingest=IngestSettings(parser="pdf"),
                 graph=GraphSettings(falkordb_url=sys.argv[3], name=sys.argv[4]), _env_file=None)
    store = open_store(s)

    class SlowSink(GraphPaperSink):
        async def process(self, paper):
            await asyncio.sleep(0.3)  # give the parent time to kill us mid-batch
            return await super().process(paper)

    asyncio.run(ingest_async([sys.argv[1]], s, sink=SlowSink(store), concurrency=1))
    """
)


def _graph_state(store: GraphStore) -> list[tuple[str, str, str | None]]:
    return sorted((p.paper_id, p.title, p.sha256) for p in store.iter_papers())


def _ledger_state(data_dir: Path) -> list[tuple[object, ...]]:
    led = Ledger.for_data_dir(data_dir)
    try:
        return [(sha, state, pid, reason) for sha, state, pid, reason in led.snapshot()]
    finally:
        led.close()


async def test_kill_9_mid_run_resumes_to_the_same_end_state(
    tmp_path: Path, settings: Settings, store: GraphStore
) -> None:
    corpus = _corpus(tmp_path / "corpus", 12)
    settings.ingest = IngestSettings(parser="pdf")
    url, name = settings.graph.falkordb_url, settings.graph.name
    assert url
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(corpus), str(settings.data_dir), url, name],
        env=env, cwd=str(REPO), start_new_session=True,
    )
    db = settings.data_dir / "ingest" / "ledger.sqlite"
    stored_at_kill = 0
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists():
                try:
                    with sqlite3.connect(db) as c:
                        stored_at_kill = c.execute("SELECT COUNT(*) FROM documents WHERE state='stored'").fetchone()[0]
                except sqlite3.Error:
                    stored_at_kill = 0
                if stored_at_kill >= 4:
                    break
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the child and its parser workers
        proc.wait()
    assert 4 <= stored_at_kill < 12, "the kill must land mid-batch"
    mid = dict((sha, state) for sha, state, _, _ in _ledger_state(settings.data_dir))
    assert "queued" in mid.values() or "parsed" in mid.values()

    # resume in-process with the same command
    resumed = await ingest_async([corpus], settings, store=store, concurrency=2)
    assert resumed.parsed + resumed.from_cache == resumed.ok
    assert resumed.already_done >= 4

    # reference: one uninterrupted run into a fresh data dir and graph
    ref = Settings(  # type: ignore[call-arg]
        data_dir=tmp_path / "ref", ingest=IngestSettings(parser="pdf"),
        graph=GraphSettings(falkordb_url=url, name=name + "_ref"), _env_file=None,
    )
    from motivgraph.graph import open_store

    ref_store = open_store(ref)
    try:
        await ingest_async([corpus], ref, store=ref_store, concurrency=2)
        assert _ledger_state(settings.data_dir) == _ledger_state(ref.data_dir)
        assert _graph_state(store) == _graph_state(ref_store)
        assert len(_graph_state(store)) == 12
    finally:
        drop = getattr(ref_store, "drop_graph", None)
        drop() if drop else ref_store.clear()
        ref_store.close()
    # every document parsed at most once across the killed run and the resume
    parsed_files = list((settings.data_dir / "ingest" / "parsed").rglob("*.json"))
    assert len(parsed_files) == 12


def test_cli_ingest_status_report_parse(tmp_path: Path, settings: Settings, store: GraphStore) -> None:
    corpus = _corpus(tmp_path / "corpus", 2)
    (corpus / "notes.txt").write_text("skip me")
    env = {
        "MOTIVGRAPH_DATA_DIR": str(settings.data_dir),
        "MOTIVGRAPH_GRAPH_FALKORDB_URL": settings.graph.falkordb_url or "",
        "MOTIVGRAPH_GRAPH_NAME": settings.graph.name,
        "MOTIVGRAPH_INGEST_PARSER": "pdf",
    }
    runner = CliRunner()
    r = runner.invoke(app, ["ingest", "--dry-run", str(corpus)], env=env)
    assert r.exit_code == 0, r.output
    assert "to process" in r.output and "other files skipped" in r.output

    r = runner.invoke(app, ["ingest", str(corpus), "--concurrency", "2"], env=env)
    assert r.exit_code == 1, r.output  # two bad files: the command reports failure
    assert "ingest summary" in r.output and "offline (pypdfium2)" in r.output
    assert len(list(store.iter_papers())) == 2

    r = runner.invoke(app, ["ingest", "status", "--json"], env=env)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["states"]["stored"] == 2 and data["states"]["failed"] == 2

    r = runner.invoke(app, ["ingest", "report"], env=env)
    # two documents are still failed: the report's exit code says something is outstanding
    assert r.exit_code == 1 and "encrypted PDF" in r.output and "empty file" in r.output
    assert "locked.pdf" in r.output

    r = runner.invoke(app, ["ingest", "report", "--json"], env=env)
    rep = json.loads(r.stdout)
    assert set(rep["failures"]) == {"encrypted PDF", "empty file"} and rep["outstanding"]["failed"] == 2

    r = runner.invoke(app, ["ingest", "run", str(corpus), "--retry-failed"], env=env)
    assert r.exit_code == 1 and "already stored" in r.output

    r = runner.invoke(app, ["parse", str(corpus / "paper01.pdf"), "--json"], env=env)
    assert r.exit_code == 0, r.output
    paper = json.loads(r.output)
    assert paper["title"] == "Generated paper number 1 about graphs"
    assert [s["role"] for s in paper["sections"]][:2] == ["introduction", "method"]

    r = runner.invoke(app, ["parse", str(corpus / "locked.pdf")], env=env)
    assert r.exit_code == 1 and "encrypted" in r.output

    r = runner.invoke(app, ["ingest", "--parser", "nope", str(corpus)], env=env)
    assert r.exit_code == 2 and "'nope' is not one of 'auto', 'grobid', 'pdf'" in " ".join(
        re.sub("[│╭╮╰╯─]", " ", r.output).split())
