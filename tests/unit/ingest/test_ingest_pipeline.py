"""Walker, ledger, cache and the pipeline on generated bad input (no graph: a recording sink)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from motivgraph.ingest.cache import ParsedCache
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.models import Paper
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.ingest.sinks import SinkResult
from motivgraph.ingest.summary import DocOutcome
from motivgraph.ingest.walker import walk
from motivgraph.settings import IngestSettings, Settings
from tests.fixtures.ingest.pdfgen import write_encrypted, write_image_only, write_paper, write_truncated


class Sink:
    def __init__(self, status: str = "stored") -> None:
        self.papers: list[Paper] = []
        self.status = status

    async def process(self, paper: Paper) -> SinkResult:
        self.papers.append(paper)
        if "FAILME" in paper.title:
            return SinkResult(status="failed", error="extractor rejected the paper")
        return SinkResult(status=self.status, counts={"triples": 3})  # type: ignore[arg-type]


def _settings(tmp_path: Path, **ingest: object) -> Settings:
    return Settings(  # type: ignore[call-arg]
        data_dir=tmp_path / "data", ingest=IngestSettings(parser="pdf", **ingest), _env_file=None  # type: ignore[arg-type]
    )


def test_walk_files_folders_globs(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    write_paper(tmp_path / "a" / "one.pdf")
    write_paper(tmp_path / "a" / "b" / "two.PDF", title="Another generated paper")
    (tmp_path / "a" / "notes.txt").write_text("x")
    (tmp_path / "a" / "b" / "fig.png").write_bytes(b"\x89PNG")
    r = walk([tmp_path / "a"])
    assert sorted(p.name for p in r.pdfs) == ["one.pdf", "two.PDF"] and r.non_pdf_skipped == 2
    r = walk([str(tmp_path / "a" / "**" / "*.pdf"), tmp_path / "a" / "one.pdf", tmp_path / "nope"])
    assert [p.name for p in r.pdfs] == ["one.pdf"]  # glob is case-sensitive; same file listed once
    assert r.missing == [str(tmp_path / "nope")]


def test_ledger_transitions_and_report(tmp_path: Path) -> None:
    led = Ledger(tmp_path / "l.sqlite")
    assert led.register("s1", "/a.pdf", 10) and not led.register("s1", "/copy/a.pdf", 10)
    led.register("s2", "/b.pdf", 10)
    led.mark("s1", "parsed", paper_id="p1", parser="pdf")
    led.mark("s1", "stored", counts={"papers": 1})
    led.fail("s2", "encrypted PDF (password required)", "encrypted PDF")
    led.fail("s2", "encrypted PDF (password required)", "encrypted PDF")
    assert led.counts() == {"queued": 0, "parsed": 0, "extracted": 0, "stored": 1, "failed": 1}
    row = led.get("s1")
    assert row and (row.state, row.paper_id, row.parser, row.counts) == ("stored", "p1", "pdf", {"papers": 1})
    fails = led.failures_by_reason()
    assert list(fails) == ["encrypted PDF"] and fails["encrypted PDF"][0].attempts == 2
    assert led.duplicates() == [("/copy/a.pdf", "s1")]
    assert led.requeue_failed() == 1 and led.get("s2").state == "queued"  # type: ignore[union-attr]
    led.close()
    # durable: a new connection sees the same state
    led2 = Ledger(tmp_path / "l.sqlite")
    assert led2.counts()["stored"] == 1
    led2.close()


def test_cache_roundtrip_and_corrupt_entry(tmp_path: Path) -> None:
    c = ParsedCache(tmp_path)
    p = Paper(paper_id="sha256:" + "d" * 64, title="T", sha256="d" * 64)
    assert c.get("d" * 64, ("pdf-abc",)) is None and "d" * 64 not in c
    c.put(p, "pdf-abc")
    assert c.get("d" * 64, ("pdf-abc",)) == p and "d" * 64 in c and c.has("d" * 64, ("x-1", "pdf-abc"))
    (tmp_path / "dd" / ("d" * 64 + ".pdf-abc.json")).write_text("{broken")
    assert c.get("d" * 64, ("pdf-abc",)) is None


def test_cache_serves_a_parse_only_to_the_parser_that_made_it(tmp_path: Path) -> None:
    c = ParsedCache(tmp_path)
    sha = "e" * 64
    old = Paper(paper_id="sha256:" + sha, title="Old parse", sha256=sha)
    new = Paper(paper_id="sha256:" + sha, title="New parse", sha256=sha)
    (tmp_path / "ee").mkdir()
    (tmp_path / "ee" / f"{sha}.json").write_text(old.model_dump_json())  # the layout before tags
    assert c.get(sha, ("pdf-111111111111",)) is None  # an ingest never takes a parse of unknown origin
    assert c.get(sha) == old and sha in c  # re-extraction reads what the graph was built from
    c.put(new, "pdf-222222222222")
    assert c.get(sha, ("grobid-111111111111", "pdf-222222222222")) == new  # the first there is
    assert c.get(sha, ("grobid-222222222222",)) is None
    assert c.get(sha) == new  # the newest parse of any parser
    with pytest.raises(ValueError, match="cache tag"):
        c.put(new, "../escape")


def test_a_parse_tag_follows_the_parser_its_code_and_page_limit() -> None:
    from motivgraph.ingest.parsers import accepted_tags, code_fingerprint, grobid_tag, offline_tag

    s60, s20 = IngestSettings(max_pages=60), IngestSettings(max_pages=20)
    assert offline_tag(s60) == offline_tag(IngestSettings(max_pages=60)) and offline_tag(s60).startswith("pdf-")
    assert offline_tag(s20) != offline_tag(s60)  # fewer pages read: another parse
    g1 = IngestSettings(grobid_url="http://grobid-a:8070")
    g2 = IngestSettings(grobid_url="http://grobid-b:8070")
    assert grobid_tag(g1) != grobid_tag(g2)  # another server: another parse
    assert accepted_tags(g1, "auto") == (grobid_tag(g1), offline_tag(g1))
    assert accepted_tags(g1, "pdf") == (offline_tag(g1),) and accepted_tags(s60, "auto") == (offline_tag(s60),)
    assert code_fingerprint(("tei",)) != code_fingerprint(("pdf",)) == code_fingerprint(("pdf",))


async def test_bad_inputs_are_recorded_and_the_batch_goes_on(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    good = write_paper(src / "good.pdf")
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "good.pdf").write_bytes(good.read_bytes())
    (inp / "good-copy.pdf").write_bytes(good.read_bytes())  # duplicate by content
    write_paper(inp / "second.pdf", title="A second generated paper")
    (inp / "empty.pdf").write_bytes(b"")
    write_truncated(inp / "truncated.pdf", write_paper(src / "long.pdf", filler_pages=4))
    write_encrypted(inp / "encrypted.pdf", good)
    (inp / "text.pdf").write_text("this is a text file named .pdf\n" * 20)
    write_image_only(inp / "scanned.pdf", good)
    (inp / "readme.md").write_text("not a pdf")
    s = _settings(tmp_path)
    sink = Sink()
    summary = await ingest_async([inp], s, sink=sink, concurrency=2)
    assert summary.found == 8 and summary.non_pdf_skipped == 1 and summary.duplicates == 1
    assert summary.processed == 7 and summary.ok == 2 and summary.failed == 5
    led = Ledger.for_data_dir(s.data_dir)
    reasons = {Path(r.path).name: r.reason for rows in led.failures_by_reason().values() for r in rows}
    assert reasons == {
        "empty.pdf": "empty file",
        "truncated.pdf": "not a PDF / damaged PDF",
        "encrypted.pdf": "encrypted PDF",
        "text.pdf": "not a PDF / damaged PDF",
        "scanned.pdf": "no text layer (scanned)",
    }
    errors = {Path(r.path).name: r.error for r in led.rows("failed")}
    assert "qpdf --decrypt" in errors["encrypted.pdf"] and "OCR" in errors["scanned.pdf"]
    assert [Path(p).name for p, _ in led.duplicates()] == ["good.pdf"]  # good-copy.pdf sorts first
    led.close()
    # re-run: nothing is parsed again, failures are skipped unless asked
    sink2 = Sink()
    again = await ingest_async([inp], s, sink=sink2)
    assert again.processed == 0 and again.already_done == 2 and again.skipped_failed == 5
    retry = await ingest_async([inp], s, sink=sink2, retry_failed=True)
    assert retry.processed == 5 and retry.failed == 5
    assert Ledger.for_data_dir(s.data_dir).rows("failed")[0].attempts == 2


async def test_hundreds_of_pages_page_cap_and_timeout(tmp_path: Path) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    write_paper(inp / "huge.pdf", filler_pages=300)
    write_paper(inp / "small.pdf", title="A small generated paper")
    # page cap: the long document is parsed from its first pages only
    s = _settings(tmp_path, max_pages=4)
    sink = Sink()
    summary = await ingest_async([inp], s, sink=sink, concurrency=1)
    assert summary.ok == 2
    huge = next(p for p in sink.papers if p.source_path and p.source_path.endswith("huge.pdf"))
    assert huge.page_count and huge.page_count > 300 and huge.section("introduction")
    # time limit: a whole-document parse cannot finish in 50 ms; it is killed, the batch goes on
    s2 = Settings(data_dir=tmp_path / "data2", ingest=IngestSettings(parser="pdf", max_pages=1000,  # type: ignore[call-arg]
                                                                       doc_timeout_s=0.05), _env_file=None)
    summary = await ingest_async([inp / "huge.pdf"], s2, sink=Sink(), concurrency=1)
    assert summary.failed == 1
    row = Ledger.for_data_dir(s2.data_dir).rows("failed")[0]
    assert row.reason == "timeout" and "MOTIVGRAPH_INGEST_DOC_TIMEOUT_S" in (row.error or "")
    s2.ingest.doc_timeout_s = 120
    summary = await ingest_async([inp / "small.pdf"], s2, sink=Sink(), concurrency=1)
    assert summary.ok == 1  # a fresh worker replaced the killed one


async def test_file_disappears_mid_run(tmp_path: Path) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    write_paper(inp / "a.pdf")
    write_paper(inp / "b.pdf", title="The paper that goes away")

    class DeleteOnStart:
        def start(self, total: int, parser: str) -> None:
            os.remove(inp / "b.pdf")  # after walking and hashing, before parsing

        def advance(self, outcome: DocOutcome) -> None:
            pass

    s = _settings(tmp_path)
    summary = await ingest_async([inp], s, sink=Sink(), concurrency=1, progress=DeleteOnStart())
    assert summary.ok == 1 and summary.failed == 1
    row = Ledger.for_data_dir(s.data_dir).rows("failed")[0]
    assert row.reason == "file disappeared" and row.path.endswith("b.pdf")


async def test_sink_states_limit_and_dry_run(tmp_path: Path) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    for i in range(3):
        write_paper(inp / f"p{i}.pdf", title=f"Generated paper number {i}")
    write_paper(inp / "bad.pdf", title="FAILME generated paper")
    s = _settings(tmp_path)
    dry = await ingest_async([inp], s, sink=Sink(), dry_run=True)
    assert dry.to_process == 4 and not (s.data_dir / "ingest" / "parsed").exists()
    assert Ledger.for_data_dir(s.data_dir).counts()["queued"] == 0
    first = await ingest_async([inp], s, sink=Sink(status="extracted"), limit=2)
    assert first.processed == 2
    # bad.pdf sorts first: run 1 did bad (failed) and p0 (extracted). "extracted" is not final, so
    # run 2 hands p0 to the sink again (sinks are idempotent) along with p1 and p2
    rest = await ingest_async([inp], s, sink=Sink(status="extracted"))
    assert rest.processed == 3 and rest.from_cache == 1 and rest.parsed == 2
    led = Ledger.for_data_dir(s.data_dir)
    assert led.counts()["extracted"] == 3 and led.counts()["failed"] == 1
    assert led.rows("failed")[0].error == "extractor rejected the paper"


async def test_a_changed_parser_parses_again_instead_of_reading_the_old_parse(tmp_path: Path) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    write_paper(inp / "p0.pdf", title="Generated paper number zero")
    s = _settings(tmp_path)
    first = await ingest_async([inp], s, sink=Sink(status="extracted"))
    assert first.parsed == 1 and first.from_cache == 0
    again = await ingest_async([inp], s, sink=Sink(status="extracted"))  # not final: handed to the sink again
    assert again.parsed == 0 and again.from_cache == 1  # the same parser: its parse is reused
    s.ingest.max_pages = 1  # another parse of the same file (e.g. a new parser version): not the cached one
    changed = await ingest_async([inp], s, sink=Sink(status="extracted"))
    assert changed.parsed == 1 and changed.from_cache == 0


def test_one_entry_and_a_built_parser() -> None:
    """#44: no sync/async twins (run_ingest, plan), and the pipeline takes the parser built -- never a name it
    resolves late."""
    import inspect

    from motivgraph.ingest import pipeline
    from motivgraph.ingest import plan as plan_module

    assert not hasattr(pipeline, "run_ingest") and not hasattr(plan_module, "plan")
    params = inspect.signature(pipeline.execute).parameters
    assert [params["parser"].annotation, params["sink"].annotation] == ["DocumentParser", "PaperSink"]
    assert params["parser"].default is inspect.Parameter.empty and "store" not in params


@pytest.mark.parametrize("name", ["auto"])
async def test_auto_without_grobid_says_offline(tmp_path: Path, name: str) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    write_paper(inp / "a.pdf")
    summary = await ingest_async([inp], _settings(tmp_path), sink=Sink(), parser=name)  # type: ignore[arg-type]
    assert summary.parser.startswith("offline (pypdfium2)") and "not configured" in summary.parser


async def test_a_stop_mid_batch_cancels_the_rest_and_resumes(tmp_path: Path) -> None:
    from motivgraph.errors import BudgetExceeded

    inp = tmp_path / "in"
    inp.mkdir()
    for i in range(5):
        write_paper(inp / f"p{i}.pdf", title=f"Generated paper number {i}")

    class StopAfterOne:
        def __init__(self) -> None:
            self.n = 0

        async def process(self, paper: Paper) -> SinkResult:
            self.n += 1
            if self.n == 2:
                raise BudgetExceeded("budget spent")
            return SinkResult()

    s = _settings(tmp_path)
    with pytest.raises(BudgetExceeded):
        await ingest_async([inp], s, sink=StopAfterOne(), concurrency=2)
    counts = Ledger.for_data_dir(s.data_dir).counts()
    assert counts["failed"] == 0 and counts["stored"] >= 1 and counts["stored"] < 5
    done = await ingest_async([inp], s, sink=Sink(), concurrency=2)
    assert done.ok + done.already_done == 5 and Ledger.for_data_dir(s.data_dir).counts()["stored"] == 5


def test_the_pipeline_is_entered_from_the_composition_root_only() -> None:
    """#44: ingest has one owner. The project enters ingest/pipeline.py through `execute` from the composition root
    (miner/ingest_job.py) and `ingest_async` from the benchmark; sinks, summary and the transient-failure policy are
    modules of their own, so nothing else reaches into the pipeline (scripts/ingest_flow_count.py counts it)."""
    import ast

    root = Path(__file__).resolve().parents[3]
    found: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if rel.parts[0] in ("tests", "build") or rel.parts[0].startswith("."):
            continue
        names = {a.name for node in ast.walk(ast.parse(path.read_bytes()))
                 if isinstance(node, ast.ImportFrom) and node.module == "motivgraph.ingest.pipeline"
                 for a in node.names}
        if names:
            found[str(rel)] = names
    assert found == {"miner/ingest_job.py": {"execute"}, "bench/bench_ingest.py": {"ingest_async"}}
