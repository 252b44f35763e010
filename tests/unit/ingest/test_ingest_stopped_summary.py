"""A run stopped by a lasting store outage still says what it did: the exception carries the summary of the
documents that finished and the pauses it took, and `ingest --json` prints those true counts (not all zeros)."""

from __future__ import annotations

from pathlib import Path

import pytest

from motivgraph.errors import BackendUnavailable, IngestInterrupted
from motivgraph.ingest.pipeline import ingest_async
from tests.unit.ingest.test_ingest_faults import OutageSink, _papers, _settings


async def test_a_run_stopped_by_an_outage_reports_what_it_stored_and_its_pauses(tmp_path: Path) -> None:
    inp = _papers(tmp_path / "in", 5)
    s = _settings(tmp_path)
    s.ingest.transient_max_consecutive = 3
    s.ingest.transient_backoff_s = 0.01
    sink = OutageSink(BackendUnavailable("Cannot reach Neo4j"), first=3, calls=10_000)
    with pytest.raises(IngestInterrupted) as info:
        await ingest_async([inp], s, sink=sink, concurrency=1)
    summary = info.value.summary  # type: ignore[attr-defined]
    assert summary.found == 5 and summary.to_process == 5
    assert summary.ok == 2 and summary.processed == 2 and summary.failed == 0
    assert summary.transient_pauses == 3
    assert summary.states["stored"] == 2 and len(summary.outcomes) == 2
