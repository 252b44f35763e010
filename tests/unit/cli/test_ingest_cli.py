"""The ingest command renders what the pipeline decided: skipped special files, escaped names, dry run."""

from __future__ import annotations

import json
import os
import re
import typing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.choices import Engine
from motivgraph.cli import app
from motivgraph.settings import IngestSettings
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


def test_summary_counts_each_input_kind_in_its_own_words(tmp_path: Path) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    records = [{"paper_id": f"r{i}", "title": f"Record {i}", "abstract": "An abstract."} for i in range(3)]
    (inp / "papers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "MOTIVGRAPH_INGEST_PARSER": "pdf", "MOTIVGRAPH_LLM_MODEL": ""}
    r = CliRunner().invoke(app, ["ingest", str(inp / "papers.jsonl"), "--dry-run"], env=env)
    assert r.exit_code == 0, r.output
    assert "PDF files found" not in r.output and "non-PDF" not in r.output  # paper JSON only
    assert re.search(r"paper JSON files found\W+1 \(3 records\)", r.output), r.output

    write_paper(inp / "a.pdf")
    (inp / "notes.txt").write_text("not a paper")
    r = CliRunner().invoke(app, ["ingest", str(inp), "--dry-run", "--json"], env=env)
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)["summary"]
    assert summary["found_by_kind"] == {"pdf": 1, "paper_json": 1}
    assert summary["documents_by_kind"] == {"pdf": 1, "paper_json": 3}
    r = CliRunner().invoke(app, ["ingest", str(inp), "--dry-run"], env=env)
    assert re.search(r"PDF files found\W+1\b", r.output) and re.search(r"paper JSON files found\W+1 \(3", r.output)
    assert re.search(r"other files skipped \(not PDF or paper JSON\)\W+1\b", r.output), r.output


@pytest.mark.parametrize("command", [["parse"], ["extract"], ["ingest"], ["ingest", "run"]])
def test_a_bad_parser_is_a_usage_error_naming_the_choices(command: list[str], tmp_path: Path) -> None:
    """The choices come from the one declaration the settings use; typer refuses anything else before the
    command starts (exit 2, the valid values named), so nothing is created."""
    pdf = tmp_path / "a.pdf"
    write_paper(pdf)
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "MOTIVGRAPH_LLM_MODEL": ""}
    r = CliRunner().invoke(app, [*command, str(pdf), "--parser", "nope"], env=env)
    out = " ".join(re.sub("[│╭╮╰╯─]", " ", r.output).split())  # typer's error box, unwrapped
    choices = typing.get_args(IngestSettings.model_fields["parser"].annotation)
    assert r.exit_code == 2, out
    assert "'nope' is not one of " + ", ".join(repr(c) for c in choices) in out
    assert not (tmp_path / "data").exists()


def test_parser_and_engine_options_offer_the_declared_choices() -> None:
    r = CliRunner().invoke(app, ["ingest", "run", "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "|".join(typing.get_args(IngestSettings.model_fields["parser"].annotation)) in r.output
    assert "|".join(typing.get_args(Engine)) in r.output
