"""`motivgraph extract` shows each triple's quotes with where they were found (#39): the offline extractor on
a generated two-page paper; every quote is located, with its section and page, and --json carries them."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.cli import app
from tests.fixtures.ingest.pdfgen import write_paper


def test_extract_reports_located_quotes(tmp_path: Path) -> None:
    pdf = write_paper(tmp_path / "paper.pdf", filler_pages=1)
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "d"), "MOTIVGRAPH_LLM_MODEL": ""}
    res = CliRunner().invoke(app, ["extract", str(pdf), "--offline", "--json"], env=env)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["triples"] and len(out["evidence"]) == len(out["triples"])
    for ev in out["evidence"]:
        for element in ("problem", "challenge", "solution"):
            assert ev[element] and any(q["verified"] for q in ev[element])
            for q in ev[element]:
                assert q["verified"] and q["page"] >= 1 and q["start"] < q["end"] and q["section"]
    table = CliRunner().invoke(app, ["extract", str(pdf), "--offline"], env={**env, "COLUMNS": "300"})
    assert table.exit_code == 0 and "\u201c" in table.output and "unverified" not in table.output
