"""The ingest command renders what the pipeline decided: skipped special files, escaped names, dry run."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.cli import app
from tests.fixtures.ingest.pdfgen import write_paper


def test_dry_run_lists_skipped_inputs_and_shows_undecodable_names_escaped(tmp_path: Path) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    write_paper(Path(os.fsdecode(os.fsencode(inp) + b"/r\xe9sum\xe9.pdf")))
    os.mkfifo(inp / "pipe.pdf")
    (inp / "gone.pdf").symlink_to(inp / "nowhere.pdf")
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "MOTIVGRAPH_INGEST_PARSER": "pdf", "MOTIVGRAPH_LLM_MODEL": ""}
    r = CliRunner().invoke(app, ["ingest", str(inp), "--dry-run"], env=env)
    assert r.exit_code == 0, r.output
    assert "FIFO" in r.output and "pipe.pdf" in r.output and "dangling" in r.output
    assert "to process" in r.output and "cost $0" in r.output
    assert not (tmp_path / "data" / "ingest" / "ledger.sqlite").exists()  # a dry run writes nothing
