"""Under --json a command's stdout holds exactly one JSON document on every path: a command error (a bad or
unreachable --ray-address) prints `{"error", "kind", "exit_code"}` there, with the same exit code as without
--json; the red line for a person stays on stderr."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.cli import app
from tests.fixtures.ingest.pdfgen import write_paper


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again: nothing listens there


def test_command_errors_under_json_are_one_json_document_on_stdout(tmp_path: Path) -> None:
    pdf = write_paper(tmp_path / "a.pdf")
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "MOTIVGRAPH_LLM_MODEL": ""}
    runner = CliRunner()
    r = runner.invoke(app, ["ingest", str(pdf), "--ray-address", "127.0.0.1:6379", "--json"], env=env)
    assert r.exit_code == 3, r.output
    err = json.loads(r.stdout)
    assert err["exit_code"] == 3 and "--engine ray" in err["error"] and err["kind"] == "ConfigError"
    assert "--engine ray" in r.stderr

    addr = f"127.0.0.1:{_free_port()}"
    r = runner.invoke(app, ["ingest", str(pdf), "--engine", "ray", "--ray-address", addr, "--json"], env=env)
    assert r.exit_code == 4, r.output
    err = json.loads(r.stdout)
    assert err["exit_code"] == 4 and addr in err["error"]

    r = runner.invoke(app, ["ingest", str(pdf), "--engine", "ray", "--ray-address", addr], env=env)
    assert r.exit_code == 4 and r.stdout == ""  # without --json stdout stays empty: the error is on stderr


def test_the_exit_code_table_says_ingest_exits_1_while_documents_are_outstanding() -> None:
    import re

    text = (Path(__file__).resolve().parents[3] / "docs" / "command-line.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\d)` \| ([^|]+) \|", text, flags=re.M))
    assert "ingest report" in rows["1"] and "still failed" in rows["1"] and "re-run" in rows["1"]
