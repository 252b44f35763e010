"""Re-processing commands stopped by a lasting outage (IngestInterrupted: the store or LLM stayed down
through every reconnect) exit 4 — "backend/service unreachable", as `ingest` does — and say that the
same command resumes. The job engine itself is stubbed: only the CLI's mapping is under test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.errors import IngestInterrupted


@pytest.mark.parametrize(("argv", "module", "target"), [
    (["ingest", "--re-extract"], "motivgraph.miner.reextract", "reextract"),
    (["papers", "delete", "doi:10.1/x", "--yes"], "motivgraph.miner.paper_delete", "delete_papers"),
])
def test_outage_stop_exits_4_with_rerun_advice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               argv: list[str], module: str, target: str) -> None:
    import importlib

    job_module = importlib.import_module(module)

    async def stopped(*_a: Any, **_kw: Any) -> None:
        raise IngestInterrupted("stopped after 3 consecutive transient failures (last: BackendUnavailable: "
                                "down, on id:p1); no document was marked failed — re-run the same command to resume")

    monkeypatch.setattr(job_module, target, stopped)
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "MOTIVGRAPH_LLM_MODEL": ""}
    r = CliRunner().invoke(app, argv, env=env)
    assert r.exit_code == 4, r.output
    assert "re-run the same command" in r.output and "Traceback" not in r.output
