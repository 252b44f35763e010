"""CLI: `motivgraph ingest` with the offline miner (banner, report), `extract`, `parents build`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "pdf"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus PDFs not found at {CORPUS}")


def test_cli_offline_ingest_extract_and_parents(tmp_path, settings, store) -> None:  # type: ignore[no-untyped-def]
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    for name in ("sp_fader11.pdf", "sp_roark13.pdf"):
        shutil.copy(CORPUS / name, pdfs / name)
    env = {
        "MOTIVGRAPH_DATA_DIR": str(settings.data_dir),
        "MOTIVGRAPH_GRAPH_FALKORDB_URL": settings.graph.falkordb_url or "",
        "MOTIVGRAPH_GRAPH_NAME": settings.graph.name,
        "MOTIVGRAPH_INGEST_PARSER": "pdf",
        "MOTIVGRAPH_LLM_MODEL": "",
    }
    runner = CliRunner()
    r = runner.invoke(app, ["ingest", str(pdfs)], env=env)
    assert r.exit_code == 0, r.output
    assert "OFFLINE heuristic" in r.output and "MOTIVGRAPH_LLM_MODEL" in r.output
    assert "miner report" in r.output and "triples stored" in r.output
    assert store.stats().triples >= 2

    r = runner.invoke(app, ["extract", str(pdfs / "sp_fader11.pdf"), "--json"], env=env)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout[r.stdout.index("{"):])
    assert data["extractor"] == "heuristic" and data["triples"]
    assert data["triples"][0]["problem"]["name"] == "Open Information Extraction"

    r = runner.invoke(app, ["parents", "build", "--type", "challenge", "--levels", "1"], env=env)
    assert r.exit_code == 0, r.output
    assert "offline parent addition" in r.output and "parent nodes" in r.output

    r = runner.invoke(app, ["parents", "build", "--type", "solution"], env=env)  # a usage error naming the choices
    assert r.exit_code == 2 and "'solution' is not one of 'problem', 'challenge'" in " ".join(
        re.sub("[│╭╮╰╯─]", " ", r.output).split())
