"""Issue 12 ingest defects against the real embedded FalkorDB: the DB killed mid-ingest (#1) and
derived artefacts repaired by a re-run that has nothing left to process (#5).

Committed first as strict expected failures; the fixes turned them green (see the git history).
"""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.ingest.summary import DocOutcome
from motivgraph.settings import IngestSettings, Settings
from tests.fixtures.ingest.pdfgen import write_paper


def _papers(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        write_paper(folder / f"p{i}.pdf", title=f"Generated store fault paper number {i}")
    return folder


class KillDBAfterFirst:
    """Progress hook: kill -9 the embedded redis-server once the first document is stored."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.killed = 0

    def start(self, total: int, parser: str) -> None:
        pass

    def advance(self, outcome: DocOutcome) -> None:
        if not self.killed:
            pid = int((self.settings.data_dir / "falkordb" / "falkordb.pid").read_text())
            os.kill(pid, signal.SIGKILL)
            self.killed = pid


async def test_db_killed_mid_ingest_is_restarted_and_nothing_is_lost(settings: Settings, tmp_path: Path) -> None:
    settings.ingest = IngestSettings(parser="pdf")
    inp = _papers(tmp_path / "in", 4)
    hook = KillDBAfterFirst(settings)
    summary = await ingest_async([inp], settings, concurrency=1, progress=hook)
    assert hook.killed
    led = Ledger.for_data_dir(settings.data_dir)
    assert led.counts()["failed"] == 0 and led.counts()["stored"] == 4
    led.close()
    assert summary.failed == 0
    from motivgraph.graph import open_store

    st = open_store(settings)
    try:
        assert len(list(st.iter_papers())) == 4
    finally:
        st.close()


def test_rerun_with_nothing_to_do_repairs_the_paper_and_node_indexes(settings: Settings, tmp_path: Path) -> None:
    inp = _papers(tmp_path / "in", 2)
    env = {
        "MOTIVGRAPH_DATA_DIR": str(settings.data_dir),
        "MOTIVGRAPH_INGEST_PARSER": "pdf",
        "MOTIVGRAPH_LLM_MODEL": "",
    }
    runner = CliRunner()
    r = runner.invoke(app, ["ingest", str(inp)], env=env)
    assert r.exit_code == 0, r.output
    index_root = settings.data_dir / "index"
    assert index_root.is_dir(), r.output
    # the state of a run killed after its last document but before the derived indexes were written
    shutil.rmtree(index_root)
    r = runner.invoke(app, ["ingest", str(inp)], env=env)
    assert r.exit_code == 0, r.output
    from motivgraph.graph.runtime import Runtime

    rt = Runtime(settings)
    try:
        assert rt.paper_index.status().state == "ok", rt.paper_index.status().message
        assert rt.node_index.status().state == "ok", rt.node_index.status().message
        assert rt.paper_index.status().counts.get("paper", 0) == 2
    finally:
        rt.close()


async def test_store_steps_outside_documents_reconnect_too(settings: Settings) -> None:
    """The DB dying while the command opens its sink or repairs the indexes is no failure either: the
    step reconnects (restarting the embedded DB) and runs again (found by bench/chaos.py kill_db)."""
    from motivgraph.graph.runtime import Runtime
    from motivgraph.ingest.transient import store_step

    settings.ingest.transient_backoff_s = 0.01
    rt = Runtime(settings)
    try:
        rt.store.ping()
        os.kill(int((settings.data_dir / "falkordb" / "falkordb.pid").read_text()), signal.SIGKILL)
        notes: list[str] = []
        stats = await store_step(lambda: rt.store.stats(), settings, notes.append)
        assert stats.nodes is not None and any("reconnecting" in n for n in notes)
    finally:
        rt.close()
