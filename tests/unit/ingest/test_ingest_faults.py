"""Issue 12 ingest defects: transient faults, hostile file names, unreadable inputs, worker lifetime.

Each test here was committed first as a strict expected failure and turned green by the fix that
followed it (see `git log -- tests/unit/ingest/test_ingest_faults.py`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from motivgraph.errors import BackendUnavailable, LLMError, MotivGraphError
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.models import Paper
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.ingest.sinks import SinkResult
from motivgraph.settings import IngestSettings, Settings
from tests.fixtures.ingest.pdfgen import write_paper

REPO = Path(__file__).resolve().parents[3]


def _settings(tmp_path: Path, **ingest: object) -> Settings:
    return Settings(  # type: ignore[call-arg]
        data_dir=tmp_path / "data", ingest=IngestSettings(parser="pdf", **ingest), _env_file=None  # type: ignore[arg-type]
    )


def _papers(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        write_paper(folder / f"p{i}.pdf", title=f"Generated fault paper number {i}")
    return folder


class OutageSink:
    """Stores papers; raises `error` on calls number first..first+calls-1 (a store or LLM outage)."""

    def __init__(self, error: Exception, first: int = 2, calls: int = 1) -> None:
        self.error, self.first, self.calls = error, first, calls
        self.n = 0
        self.stored: list[str] = []
        self.recovered = 0

    async def process(self, paper: Paper) -> SinkResult:
        self.n += 1
        if self.first <= self.n < self.first + self.calls:
            raise self.error
        self.stored.append(paper.paper_id)
        return SinkResult(status="stored", counts={"papers": 1})

    async def recover(self) -> None:
        self.recovered += 1


# -- defect 1: a transient failure never marks a document failed ----------------------------------------------


async def test_store_outage_pauses_reconnects_and_loses_nothing(tmp_path: Path) -> None:
    inp = _papers(tmp_path / "in", 4)
    s = _settings(tmp_path)
    sink = OutageSink(BackendUnavailable("Cannot reach FalkorDB: Connection refused"), first=2, calls=2)
    summary = await ingest_async([inp], s, sink=sink, concurrency=1)
    counts = Ledger.for_data_dir(s.data_dir).counts()
    assert counts["failed"] == 0 and counts["stored"] == 4
    assert summary.failed == 0 and len(set(sink.stored)) == 4 and sink.recovered >= 1


def _llm_down() -> LLMError:
    # what LLMClient raises when its own retries ran out on a dead endpoint: the cause is a connection error
    try:
        try:
            raise ConnectionError("Connection refused")
        except ConnectionError as e:
            raise LLMError("LLM extractor (openai:x) failed after 6 attempts: ConnectionError") from e
    except LLMError as err:
        return err


async def test_llm_outage_is_transient(tmp_path: Path) -> None:
    inp = _papers(tmp_path / "in", 3)
    s = _settings(tmp_path)
    sink = OutageSink(_llm_down(), first=1, calls=1)
    await ingest_async([inp], s, sink=sink, concurrency=1)
    assert Ledger.for_data_dir(s.data_dir).counts() == {"queued": 0, "parsed": 0, "extracted": 0, "stored": 3,
                                                         "failed": 0}


async def test_lasting_outage_stops_cleanly_and_the_same_command_resumes(tmp_path: Path) -> None:
    inp = _papers(tmp_path / "in", 5)
    s = _settings(tmp_path)
    s.ingest.transient_max_consecutive = 3
    s.ingest.transient_backoff_s = 0.01
    sink = OutageSink(BackendUnavailable("Cannot reach FalkorDB"), first=2, calls=10_000)
    with pytest.raises(MotivGraphError, match="re-run"):
        await ingest_async([inp], s, sink=sink, concurrency=2)
    led = Ledger.for_data_dir(s.data_dir)
    assert led.counts()["failed"] == 0 and led.counts()["stored"] == 1
    led.close()
    done = await ingest_async([inp], s, sink=OutageSink(RuntimeError("unused"), first=10_000), concurrency=2)
    assert done.ok == 4 and done.already_done == 1
    assert Ledger.for_data_dir(s.data_dir).counts()["stored"] == 5


async def test_a_bad_document_is_still_a_permanent_failure(tmp_path: Path) -> None:
    """The other half of the taxonomy (passes before and after): a per-document error is recorded."""
    inp = _papers(tmp_path / "in", 2)
    (inp / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    s = _settings(tmp_path)
    summary = await ingest_async([inp], s, sink=OutageSink(RuntimeError("unused"), first=10_000), concurrency=1)
    assert summary.failed == 1 and summary.ok == 2


# -- defect 2: non-UTF-8 file names ---------------------------------------------------------------------------


async def test_non_utf8_file_name_is_ingested_and_reported(tmp_path: Path) -> None:
    inp = _papers(tmp_path / "in", 1)
    raw = os.fsencode(inp) + b"/caf\xe9 \\x41.pdf"  # Latin-1 byte and a literal backslash sequence
    write_paper(Path(os.fsdecode(raw)), title="A paper with a Latin-1 file name")
    bad = os.fsencode(inp) + b"/\xff\xfe.pdf"
    Path(os.fsdecode(bad)).write_bytes(b"not a pdf")
    s = _settings(tmp_path)
    summary = await ingest_async([inp], s, sink=OutageSink(RuntimeError("unused"), first=10_000), concurrency=1)
    assert summary.ok == 2 and summary.failed == 1
    led = Ledger.for_data_dir(s.data_dir)
    shown = sorted(r.path for r in led.rows())
    assert any(p.endswith("/caf\\xe9 \\\\x41.pdf") for p in shown), shown  # shown escaped, backslash doubled
    json.dumps(shown, ensure_ascii=False).encode("utf-8")  # the stored form is valid UTF-8 text
    from motivgraph.fsutil import path_from_text

    assert {os.fsencode(path_from_text(p)) for p in shown} >= {raw, bad}  # reversible: the exact bytes come back
    failed = led.rows("failed")
    assert len(failed) == 1 and os.fsencode(path_from_text(failed[0].path)) == bad
    led.close()
    again = await ingest_async([inp], s, sink=OutageSink(RuntimeError("unused"), first=10_000))
    assert again.processed == 0 and again.already_done == 2


# -- defect 7 (files): unreadable files and folders, FIFOs, dangling links --------------------------------------

_UNREADABLE_CHILD = r"""
import asyncio, json, os, sys
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.ingest.ledger import Ledger
from motivgraph.settings import IngestSettings, Settings
from motivgraph.ingest.sinks import SinkResult

class S:
    async def process(self, paper):
        return SinkResult(status="stored", counts={})

s = Settings(data_dir=sys.argv[2], ingest=IngestSettings(parser="pdf"), _env_file=None)
summ = asyncio.run(ingest_async([sys.argv[1]], s, sink=S(), concurrency=1))
led = Ledger.for_data_dir(s.data_dir)
print(json.dumps({
    "ok": summ.ok, "failed": summ.failed, "missing": summ.missing,
    "skipped": [[p, why] for p, why in summ.skipped],
    "rows": {os.path.basename(r.path): [r.state, r.reason, r.error] for r in led.rows()},
}))
"""


def _no_dac_override() -> None:
    """preexec: drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding set, so a root test run
    is refused mode-000 files like any user (the exec'd child keeps uid 0 and can still read the stdlib)."""
    if os.getuid() != 0:
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_unreadable_files_and_folders_are_recorded_fifos_and_dangling_links_listed(tmp_path: Path) -> None:
    inp = _papers(tmp_path / "in", 1)
    write_paper(inp / "locked.pdf", title="A paper nobody may read")
    (inp / "locked.pdf").chmod(0)
    closed = inp / "closed"
    closed.mkdir()
    write_paper(closed / "inside.pdf", title="A paper in a closed folder")
    closed.chmod(0)
    os.mkfifo(inp / "pipe.pdf")
    (inp / "dangling.pdf").symlink_to(inp / "gone.pdf")
    data = tmp_path / "data"
    try:
        out = subprocess.run(
            [sys.executable, "-c", _UNREADABLE_CHILD, str(inp), str(data)], capture_output=True, text=True,
            timeout=300, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, check=False,
            preexec_fn=_no_dac_override,
        )
    finally:
        closed.chmod(0o755)
        (inp / "locked.pdf").chmod(0o644)
    assert out.returncode == 0, out.stderr[-3000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["ok"] == 1 and res["failed"] == 2 and res["missing"] == []
    assert res["rows"]["locked.pdf"][0] == "failed" and "permission" in res["rows"]["locked.pdf"][1].lower()
    assert res["rows"]["closed"][0] == "failed" and "permission" in res["rows"]["closed"][1].lower()
    skipped = {Path(p).name: why for p, why in res["skipped"]}
    assert set(skipped) == {"pipe.pdf", "dangling.pdf"}
    assert "FIFO" in skipped["pipe.pdf"] and "dangling" in skipped["dangling.pdf"]


# -- defect 8: parser workers die with their parent ---------------------------------------------------------------

_POOL_CHILD = r"""
import asyncio, os, sys
from motivgraph.ingest.workers import ProcessParserPool

async def main():
    pool = ProcessParserPool(1)
    # one parse first: the worker is past its start-up (where it arms the parent-death signal)
    await pool.parse(sys.argv[1], max_pages=2, sha256=None, source_path=sys.argv[1], timeout=120)
    for w in pool._all:
        print(w.proc.pid, flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux-only")
def test_parser_workers_die_with_their_parent(tmp_path: Path) -> None:
    pdf = write_paper(tmp_path / "warmup.pdf")
    proc = subprocess.Popen([sys.executable, "-c", _POOL_CHILD, str(pdf)], stdout=subprocess.PIPE, text=True, cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.stdout is not None
    worker = int(proc.stdout.readline())
    try:
        # a stopped worker stands for one busy in a long parse: it will not notice the closed pipe
        os.kill(worker, signal.SIGSTOP)
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10  # a bound for the kernel to deliver the signal, not a speed check
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(worker)
    finally:
        if _alive(worker):
            os.kill(worker, signal.SIGKILL)


async def test_the_worker_hands_back_the_paper_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """#44: a parse crosses the process boundary once (the pipe pickles the Paper); no JSON text is made in the
    worker and validated again here."""
    from motivgraph.ingest.models import Paper
    from motivgraph.ingest.workers import ProcessParserPool

    def no_json(*_a: object, **_kw: object) -> Paper:
        raise AssertionError("the parse came back as JSON text")

    monkeypatch.setattr(Paper, "model_validate_json", no_json)
    pdf = write_paper(tmp_path / "a.pdf")
    pool = ProcessParserPool(1)
    try:
        paper = await pool.parse(str(pdf), max_pages=2, sha256="k", source_path=str(pdf), timeout=120)
    finally:
        await pool.aclose()
    assert isinstance(paper, Paper) and paper.sections
