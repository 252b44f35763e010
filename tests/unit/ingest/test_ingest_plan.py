"""plan_async() is read-only and complete; execute() carries it out; a new input kind plugs in by registration."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from motivgraph import plugins
from motivgraph.errors import ParseError
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.models import Paper
from motivgraph.ingest.parser_choice import resolve_parser
from motivgraph.ingest.pipeline import execute
from motivgraph.ingest.plan import DocKey, IngestPlan, WorkItem, plan_async
from motivgraph.ingest.sinks import SinkResult
from motivgraph.ingest.summary import IngestSummary
from motivgraph.settings import IngestSettings, Settings
from tests.fixtures.ingest.pdfgen import write_paper


class Sink:
    def __init__(self) -> None:
        self.papers: list[Paper] = []

    async def process(self, paper: Paper) -> SinkResult:
        self.papers.append(paper)
        return SinkResult(status="stored", counts={"papers": 1})


async def _execute(p: IngestPlan, sink: Sink) -> IngestSummary:
    """execute() with the parser the plan asks for, closed after the run (as the composition root does)."""
    parser = await resolve_parser(p)
    try:
        return await execute(p, parser, sink)
    finally:
        await parser.aclose()


def _settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", ingest=IngestSettings(parser="pdf"), _env_file=None)  # type: ignore[call-arg]


async def test_plan_writes_nothing_and_execute_follows_it(tmp_path: Path) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    a = write_paper(inp / "a.pdf")
    (inp / "copy.pdf").write_bytes(a.read_bytes())
    write_paper(inp / "b.pdf", title="A second planned paper")
    s = _settings(tmp_path)
    p = await plan_async([inp], s)
    assert not s.data_dir.exists()  # read-only: not even the ledger file
    assert p.found == 3 and p.to_process == 2 and [Path(x).name for x, _ in p.duplicates] == ["copy.pdf"]
    summary = await _execute(p, Sink())
    assert summary.ok == 2 and summary.duplicates == 1
    again = await plan_async([inp], s)
    assert again.to_process == 0 and again.already_done == 2
    limited = await plan_async([inp], s, retry_failed=True, limit=0)
    assert limited.to_process == 0


async def test_each_empty_file_is_its_own_failure_and_link_loops_are_skipped(tmp_path: Path) -> None:
    """Two empty PDFs share a sha256; keyed by content, the second was a silent "duplicate" of the first.
    A link that leads back to itself (ELOOP) is listed as skipped, never recorded as an unreadable input."""
    inp = tmp_path / "in"
    (inp / "sub").mkdir(parents=True)
    (inp / "empty1.pdf").write_bytes(b"")
    (inp / "empty2.pdf").write_bytes(b"")
    (inp / "loop.pdf").symlink_to("loop.pdf")
    (inp / "sub" / "up").symlink_to("up")
    write_paper(inp / "real.pdf")
    s = _settings(tmp_path)
    p = await plan_async([inp], s)
    assert p.duplicates == [] and p.unreadable == []
    assert sorted(why for _, why in p.skipped) == ["symbolic link loop", "symbolic link loop"]
    assert p.found == 3 and p.to_process == 3
    summary = await _execute(p, Sink())
    assert summary.ok == 1 and summary.failed == 2
    led = Ledger.for_data_dir(s.data_dir)
    failed = sorted(Path(r.path).name for r in led.rows(state="failed"))
    led.close()
    assert failed == ["empty1.pdf", "empty2.pdf"]


class JsonLinesKind:
    """A record input as another issue adds it: one Paper per JSON line, keyed by a stable record id."""

    name = "test_records"
    suffixes = (".records.jsonl",)
    needs_parser = False

    def keys(self, path: Path) -> list[DocKey]:
        out = []
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip():
                out.append(DocKey(f"rec:{json.loads(line)['id']}", len(line), n))
        return out

    async def load(self, item: WorkItem, parser: object, settings: Settings) -> Paper:
        rec = json.loads(item.path.read_text().splitlines()[item.ref - 1])
        if not rec.get("title"):
            raise ParseError(f"record {rec['id']} (line {item.ref}) has no title")
        return Paper(paper_id=f"rec:{rec['id']}", title=rec["title"], abstract=rec.get("abstract", ""), parser="json")


@pytest.fixture
def records_kind() -> Iterator[None]:
    with plugins.registered("input_kinds", JsonLinesKind.name, JsonLinesKind()):
        yield


async def test_a_new_input_kind_plugs_into_plan_and_execute(tmp_path: Path, records_kind: None) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    write_paper(inp / "a.pdf")
    recs = [{"id": "r1", "title": "Record one"}, {"id": "r2", "title": ""}, {"id": "r1", "title": "Record one"}]
    (inp / "papers.records.jsonl").write_text("\n".join(json.dumps(r) for r in recs))
    s = _settings(tmp_path)
    p = await plan_async([inp], s)
    assert sorted(i.key for i in p.todo if i.kind == "test_records") == ["rec:r1", "rec:r2"]
    assert len(p.duplicates) == 1  # the repeated record id
    sink = Sink()
    summary = await _execute(p, sink)
    assert summary.ok == 2 and summary.failed == 1
    led = Ledger.for_data_dir(s.data_dir)
    failed = led.rows("failed")
    assert [r.sha256 for r in failed] == ["rec:r2"] and "no title" in (failed[0].error or "")
    led.close()
    again = await plan_async([inp], s)
    assert again.to_process == 0 and again.already_done == 2 and again.skipped_failed == 1


async def test_a_duplicate_record_is_named_by_file_and_line_and_records_are_not_from_cache(tmp_path: Path) -> None:
    recs = [{"paper_id": f"2101.0000{i}", "title": f"A paper on topic {i} for the plan test",
             "abstract": "We study a problem. " * 5} for i in (1, 2)]
    f = tmp_path / "papers.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in (recs[0], recs[1], recs[0])) + "\n")
    s = _settings(tmp_path)
    p = await plan_async([f], s)
    from motivgraph.fsutil import path_to_text

    assert p.copies == [(f"{path_to_text(f)}:3", f"{path_to_text(f)}:1")]
    summary = await _execute(p, Sink())
    assert summary.ok == 2 and summary.copies == p.copies
    # records are read, not parsed: neither "parsed now" nor "from cache", and no parser is named
    assert (summary.parsed, summary.from_cache, summary.parser) == (0, 0, "none needed")


def test_a_directory_symlink_loop_is_reported_not_silently_skipped(tmp_path: Path) -> None:
    from motivgraph.ingest.walker import walk

    inp = tmp_path / "in"
    (inp / "sub").mkdir(parents=True)
    (inp / "a.pdf").write_bytes(b"%PDF-1.4")
    (inp / "sub" / "back").symlink_to("..", target_is_directory=True)
    res = walk([inp])
    assert [p.name for p in res.pdfs] == ["a.pdf"]  # each folder walked once
    [(path, why)] = res.skipped
    assert path.endswith("sub/back") and "loop" in why and str(inp) in why
