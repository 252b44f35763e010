"""`ingest report` is the record of a run: every document's fate (stored, merged with a paper stored under another
id, read up to the page limit, a duplicate of which file, skipped and why, failed and why), with --json; the exit
codes of `ingest` and `ingest report` say whether anything is still outstanding, also on a re-run that skips the
documents that failed before; a file name with a newline is printed escaped; a directory loop is reported."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.graph.base import GraphStore
from motivgraph.settings import Settings
from tests.fixtures.ingest.pdfgen import write_paper

TITLE = "Mining Research Motivations from Scientific Papers"  # write_paper's, first author Ada Lovelace


def _env(settings: Settings) -> dict[str, str]:
    return {"MOTIVGRAPH_DATA_DIR": str(settings.data_dir),
            "MOTIVGRAPH_GRAPH_FALKORDB_URL": settings.graph.falkordb_url or "",
            "MOTIVGRAPH_GRAPH_NAME": settings.graph.name, "MOTIVGRAPH_INGEST_PARSER": "pdf",
            "MOTIVGRAPH_INGEST_MAX_PAGES": "3", "MOTIVGRAPH_LLM_MODEL": "", "COLUMNS": "250"}


def _corpus(root: Path) -> Path:
    root.mkdir()
    write_paper(root / "good.pdf")
    shutil.copy(root / "good.pdf", root / "second.pdf")  # the same document under a second name
    write_paper(root / "long.pdf", title="Counting Rivers in Long Reports of Many Pages", filler_pages=3)
    (root / "empty.pdf").write_bytes(b"")
    (root / "bad\nname.pdf").write_bytes(b"%PDF-1.4 this is not a readable pdf")
    os.mkfifo(root / "pipe.pdf")
    (root / "sub").mkdir()
    (root / "sub" / "back").symlink_to("..", target_is_directory=True)  # a loop back to the corpus folder
    # the same paper as good.pdf, as a metadata record: joined by its title and first author
    (root / "papers.jsonl").write_text(json.dumps(
        {"paper_id": "rec-1", "title": TITLE, "authors": ["Ada Lovelace"], "year": 2024, "venue": "Journal of Tests",
         "abstract": "We mine research motivations."}) + "\n")
    return root


def _fates(rep: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {Path(r["path"]).name + ("/" if r["fate"] == "skipped" and "loop" in r.get("why", "") else ""): r
            for r in rep["documents"]}


def test_the_report_holds_every_documents_fate_and_the_exit_code_says_what_is_outstanding(
        tmp_path: Path, settings: Settings, store: GraphStore) -> None:
    corpus = _corpus(tmp_path / "corpus")
    env = _env(settings)
    runner = CliRunner()
    r = runner.invoke(app, ["ingest", str(corpus), "--no-extract", "--json", "--concurrency", "1"], env=env)
    assert r.exit_code == 1, r.output  # two documents failed
    summary = json.loads(r.stdout)["summary"]
    assert summary["failed"] == 2 and summary["ok"] == 3 and summary["same_paper"] == 1
    assert any("loop" in s["why"] for s in summary["skipped"])  # the directory loop is reported, not silent
    assert "bad\\nname.pdf" in r.stderr and "bad\nname.pdf" not in r.stderr  # escaped on the terminal

    r = runner.invoke(app, ["ingest", "report", "--json"], env=env)
    assert r.exit_code == 1, r.output
    rep = json.loads(r.stdout)
    fates = _fates(rep)
    assert fates["good.pdf"]["fate"] == "stored"
    assert fates["second.pdf"]["fate"] == "duplicate" and fates["second.pdf"]["duplicate_of"].endswith("good.pdf")
    assert fates["empty.pdf"]["fate"] == "failed" and fates["empty.pdf"]["reason"] == "empty file"
    assert fates["bad\nname.pdf"]["fate"] == "failed"
    assert fates["pipe.pdf"]["fate"] == "skipped" and "FIFO" in fates["pipe.pdf"]["why"]
    assert fates["back/"]["fate"] == "skipped"
    assert any("pages were read" in n["detail"] for n in fates["long.pdf"]["notes"])  # truncated at the limit
    merged = [n for n in fates["papers.jsonl"]["notes"] if n["kind"] == "merged"]
    assert merged and fates["good.pdf"]["paper_id"] in merged[0]["detail"]
    assert rep["outstanding"] == {"failed": 2, "pending": 0}
    assert rep["fates"]["failed"] == 2 and rep["fates"]["duplicate"] == 1 and rep["fates"]["stored"] == 3

    r = runner.invoke(app, ["ingest", "report"], env=env)
    assert r.exit_code == 1
    assert "bad\\nname.pdf" in r.stdout and "bad\nname" not in r.stdout  # one line per document
    assert "duplicate of" in r.stdout and "merged with" in r.stdout and "directory symbolic link loop" in r.stdout
    assert "outstanding: 2 failed" in r.stdout

    # a re-run skips the failed documents: still outstanding, still exit 1
    r = runner.invoke(app, ["ingest", str(corpus), "--no-extract"], env=env)
    assert r.exit_code == 1, r.output
    assert "2 document(s) failed" in r.stderr

