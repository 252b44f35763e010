"""Ingest execution: a plan (ingest/plan.py) → ledger → (cache | load/parse) → sink, with resume.

`plan()` decides what to do without writing anything; `execute(plan, sink)` does it. The
per-document work is a pure function of one input (parse or load) followed by a sink: the default
sink upserts the Paper node into the graph; the miner plugs in its own sink that extracts triples.
Every state change is committed to the ledger as it happens, so a re-run after Ctrl-C or kill -9
continues from the last completed step and reaches the same end state.

Failures come in two kinds (`motivgraph.outbound.is_transient`): a bad document is recorded as
failed and the batch goes on; a transient failure (store unreachable, LLM endpoint or GROBID
down, network, spent budget) never marks a document failed — the batch pauses, reconnects
(restarting the embedded database if it died) and retries the document, and after
`ingest.transient_max_consecutive` consecutive transient failures it stops with IngestInterrupted
("re-run to resume"). A spent budget stops at once (BudgetExceeded), also resumable.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from pydantic import BaseModel, Field

from motivgraph.errors import (
    ExternalServiceError,
    IngestError,
    IngestInterrupted,
    MotivGraphError,
    ParseError,
    RunStopped,
)
from motivgraph.graph import open_store
from motivgraph.graph.embedded import EmbeddedFalkorDB
from motivgraph.ingest import paper_merge
from motivgraph.ingest.cache import ParsedCache
from motivgraph.ingest.identity import PaperKeys
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.models import NOT_A_PAPER, Paper
from motivgraph.ingest.parsers import DocumentParser, ParserName, accepted_tags, cache_tag, make_parser
from motivgraph.ingest.plan import IngestPlan, WorkItem, input_kinds, plan_async
from motivgraph.outbound import describe, is_transient
from motivgraph.settings import Settings
from motivgraph.sources.semantic_scholar import SemanticScholarClient

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore

log = logging.getLogger(__name__)
T = TypeVar("T")


class SinkResult(BaseModel):
    status: Literal["extracted", "stored", "failed"] = "stored"
    counts: dict[str, int] = Field(default_factory=dict)
    error: str | None = None


class PaperSink(Protocol):
    """What happens to a parsed Paper. Must be idempotent: a resumed run may call it again.

    A sink may also define `async def recover(self) -> None`, called after a transient failure
    before the document is retried (e.g. to reopen a connection)."""

    async def process(self, paper: Paper) -> SinkResult: ...


class GraphPaperSink:
    """Default sink: upsert the Paper node into the graph."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    async def process(self, paper: Paper) -> SinkResult:
        await asyncio.to_thread(self.store.upsert_papers, [paper.to_record()])
        # "papers upserted", not "created": a resumed run must record the same counts
        return SinkResult(status="stored", counts={"papers": 1})


class NullSink:
    """Parse only (benchmarks, `--dry-run`-like checks): nothing is written anywhere."""

    async def process(self, paper: Paper) -> SinkResult:
        return SinkResult(status="stored", counts={})


@dataclass
class DocOutcome:
    path: str  # the path text (reversible escaped form, see motivgraph.fsutil)
    sha256: str  # the ledger key
    state: str
    reason: str | None = None
    error: str | None = None
    parsed: bool = False  # parsed in this run
    from_parse_cache: bool = False  # its parse came from the parsed cache
    pages: int = 0
    notes: list[str] = field(default_factory=list)  # Paper.notes (e.g. "abstract only: ...")
    paper_id: str | None = None
    same_paper_as: str | None = None  # the stored paper this document turned out to be (ingest.identity)
    probable_duplicates: list[tuple[str, str]] = field(default_factory=list)  # (other paper id, why): kept apart


class IngestProgress(Protocol):
    def start(self, total: int, parser: str) -> None: ...

    def advance(self, outcome: DocOutcome) -> None: ...


@dataclass
class IngestSummary:
    parser: str = ""
    found: int = 0
    found_by_kind: dict[str, int] = field(default_factory=dict)  # input kind name -> files found
    documents_by_kind: dict[str, int] = field(default_factory=dict)  # input kind name -> documents (PDFs, records)
    non_pdf_skipped: int = 0  # files of no input kind
    missing: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path text, why): FIFOs, dangling links
    duplicates: int = 0
    copies: list[tuple[str, str]] = field(default_factory=list)  # (copy, first): which document each duplicate is
    already_done: int = 0
    skipped_failed: int = 0
    to_process: int = 0
    processed: int = 0
    ok: int = 0
    failed: int = 0
    parsed: int = 0
    from_cache: int = 0
    pages: int = 0
    transient_pauses: int = 0
    elapsed_s: float = 0.0
    dry_run: bool = False
    states: dict[str, int] = field(default_factory=dict)
    outcomes: list[DocOutcome] = field(default_factory=list)
    notes: dict[str, int] = field(default_factory=dict)  # documents per Paper note
    same_paper: int = 0  # documents of a paper already stored under another id (joined it, ingest.identity)
    # (path, paper id, other paper id, why): probable duplicates with conflicting ids, kept apart
    probable_duplicates: list[tuple[str, str, str, str]] = field(default_factory=list)


def classify_failure(exc: BaseException) -> str:
    """A short reason kind for grouping failures in `ingest report`."""
    msg = str(exc).lower()
    for key, kind in (
        ("empty file", "empty file"),
        ("encrypted", "encrypted PDF"),
        ("no text layer", "no text layer (scanned)"),
        ("timed out", "timeout"),
        ("disappeared", "file disappeared"),
        ("larger than", "file too large"),
        ("out of memory", "out of memory"),
        ("process died", "parser crashed"),
        ("not a readable pdf", "not a PDF / damaged PDF"),
        ("grobid", "GROBID error"),
        ("no title, abstract or body", "empty document"),
    ):
        if key in msg:
            return kind
    if isinstance(exc, ExternalServiceError):
        return "external service"
    if isinstance(exc, ParseError):
        return "parse error"
    if isinstance(exc, MotivGraphError):
        return "ingest error"
    return "internal error"


def ledger_for(settings: Settings) -> Ledger:
    return Ledger.for_data_dir(settings.data_dir)


def cache_for(settings: Settings) -> ParsedCache:
    return ParsedCache(settings.data_dir / "ingest" / "parsed")


async def _fill_metadata(paper: Paper, s2: SemanticScholarClient) -> None:
    """Semantic Scholar title match (optional, online). Never raises: ingest goes on without it."""
    if not paper.title:
        return
    try:
        hit = await s2.match_title(paper.title)
    except MotivGraphError as e:
        log.info("Semantic Scholar unavailable for %r: %s", paper.title[:60], e)
        return
    if hit is None:
        return
    paper.year = paper.year or hit.year
    paper.venue = paper.venue or hit.venue
    if not paper.authors:
        paper.authors = [a for a in hit.author_names if a]
    paper.doi = paper.doi or hit.doi
    paper.arxiv_id = paper.arxiv_id or hit.arxiv_id
    # paper_id stays as parsed: it must not depend on whether the API answered this time


# -- transient failures: pause, reconnect, retry, or stop cleanly -------------------------------------------------


def embedded_store_recovery(settings: Settings, store: GraphStore | None) -> Callable[[], Awaitable[None]]:
    """Reconnect to the graph: (re)start the embedded FalkorDB when it is the configured backend
    (a no-op when it is alive), then ping. Raises when the store is still unreachable."""

    async def recover() -> None:
        if settings.graph.backend != "neo4j" and not settings.graph.falkordb_url:
            await asyncio.to_thread(EmbeddedFalkorDB(settings.data_dir).start)
        if store is not None and hasattr(store, "ping"):
            await asyncio.to_thread(store.ping)

    return recover


class TransientGate:
    """One pause for the whole batch: the first step to meet a transient failure waits (backoff),
    recovers and reopens the gate; steps that failed during the same outage just retry. Used per
    document by `execute` and per paper by the re-processing jobs (`miner.reextract`)."""

    def __init__(self, settings: Settings, recover: Sequence[Callable[[], Awaitable[None]]],
                 progress_note: Callable[[str], None] | None) -> None:
        self.max_consecutive = settings.ingest.transient_max_consecutive
        self.base_s = settings.ingest.transient_backoff_s
        self.recover = list(recover)
        self.note = progress_note
        self.consecutive = 0
        self.generation = 0
        self.pauses = 0
        self._lock = asyncio.Lock()
        self._open = asyncio.Event()
        self._open.set()

    async def wait_open(self) -> int:
        await self._open.wait()
        return self.generation

    def succeeded(self) -> None:
        self.consecutive = 0

    async def failed(self, exc: BaseException, generation: int, what: str) -> None:
        async with self._lock:
            if generation != self.generation:
                return  # recovered since this attempt began: just retry
            self.consecutive += 1
            if self.consecutive > self.max_consecutive:
                raise IngestInterrupted(
                    f"stopped after {self.max_consecutive} consecutive transient failures (last: {describe(exc)}, "
                    f"on {what}); no document was marked failed — re-run the same command to resume"
                ) from exc
            self._open.clear()
            self.pauses += 1
            wait = min(60.0, self.base_s * 2 ** (self.consecutive - 1))
            msg = (f"transient failure ({describe(exc)}); pausing {wait:.1f}s, then reconnecting "
                   f"({self.consecutive}/{self.max_consecutive})")
            log.warning(msg)
            if self.note:
                self.note(msg)
            try:
                await asyncio.sleep(wait)
                for fn in self.recover:
                    try:
                        await fn()
                    except Exception as e:  # still down: the retry fails again and counts
                        log.warning("reconnect failed: %s", describe(e))
            finally:
                self.generation += 1
                self._open.set()

    async def run(self, step: Callable[[], Awaitable[T]], what: str) -> T:
        """Run `step` until it succeeds: a transient failure pauses, recovers and retries (or raises
        IngestInterrupted when they keep coming); any other error propagates unchanged. `step` must be
        idempotent. A clean stop (RunStopped: a spent budget, the extraction gate) stops at once."""
        while True:
            generation = await self.wait_open()
            try:
                result = await step()
            except (asyncio.CancelledError, RunStopped, IngestInterrupted):
                raise
            except Exception as e:
                if not is_transient(e):
                    raise
                await self.failed(e, generation, what)  # pauses, or raises IngestInterrupted
                continue
            self.succeeded()
            return result


async def store_step(fn: Callable[[], T], settings: Settings, note: Callable[[str], None] | None = None,
                     what: str = "a graph store step") -> T:
    """Run a store-bound step outside any document (opening a sink, planning, repairing indexes) in a
    thread under the same policy as the documents: a transient failure reconnects (restarting the
    embedded DB) with backoff and runs it again, or stops with IngestInterrupted ("re-run to resume")."""
    gate = TransientGate(settings, [embedded_store_recovery(settings, None)], note)
    return await gate.run(lambda: asyncio.to_thread(fn), what)


def _resolve_identity(ledger: Ledger, item: WorkItem, paper: Paper, out: DocOutcome) -> None:
    """Give the paper the id of the paper it is (ingest.identity): a paper met before as another document
    (a JSON record and a PDF of it; a preprint and its DOI) joins that paper; a probable duplicate with
    conflicting ids keeps its own id and is logged and recorded for `ingest report`. The paper then takes
    the best-known value of each field over all its documents, with their provenance (ingest.paper_merge)."""
    keys = PaperKeys.of(paper.paper_id, paper.doi, paper.arxiv_id, paper.title, paper.authors)
    res, _ = ledger.resolve_paper(item.key, item.display, keys, paper.year, year_from_record=paper.parser == "json")
    if res.merged_into is not None:
        log.info("%s is the paper stored as %s (same %s)", item.display, res.merged_into, res.via)
    for other, why in res.conflicts:
        log.warning("%s: probable duplicate of %s, not merged: %s", item.display, other, why)
    paper.paper_id = res.paper_id
    # every field from its best source, whichever document of the paper came first (ingest.paper_merge)
    merged = ledger.merge_paper_fields(res.paper_id, paper_merge.field_values(paper), paper.parser,
                                       paper_merge.source_label(paper.parser, item.where))
    paper_merge.apply(paper, merged)
    out.paper_id, out.same_paper_as, out.probable_duplicates = res.paper_id, res.merged_into, list(res.conflicts)


def _doc_notes(paper: Paper, out: DocOutcome) -> list[tuple[str, str]]:
    """What `ingest report` says about a document besides its state: the paper it joined, its parse's notes
    (read only up to the page limit, abstract only) and why it was judged not a paper."""
    notes: list[tuple[str, str]] = []
    if out.same_paper_as is not None:
        notes.append(("merged", f"merged with {out.same_paper_as}"))
    notes += [("note", n) for n in paper.notes if not (paper.not_a_paper and n == NOT_A_PAPER)]
    if paper.not_a_paper:
        notes.append(("not a paper", paper.not_a_paper))
    return notes


# -- execution ------------------------------------------------------------------------------------------------------


def _record_plan(ledger: Ledger, p: IngestPlan) -> None:
    """The plan's ledger writes: requeue, new documents, moved files, copies, unreadable inputs."""
    if p.retry_failed:
        ledger.requeue_failed()
    for key in p.readable_again:
        ledger.forget(key)  # was unreadable; now it has a content key of its own
    for item in p.todo:
        if item.state is None:
            ledger.register(item.key, item.display, item.size)
    for item in p.moved:
        ledger.update_path(item.key, item.display)
    for path_text, key in p.duplicates:
        ledger.register(key, path_text, None)  # known key: records the path as a copy
    for u in p.unreadable:
        ledger.record_failure(u.key, u.path, u.error, u.reason)
    if p.skipped:
        ledger.record_skipped(p.skipped)


async def execute(
    p: IngestPlan,
    sink: PaperSink | None = None,
    *,
    parser: ParserName | DocumentParser | None = None,
    concurrency: int | None = None,
    progress: IngestProgress | None = None,
    store: GraphStore | None = None,
    recover: Callable[[], Awaitable[None]] | None = None,
    note: Callable[[str], None] | None = None,
) -> IngestSummary:
    """Carry out a plan: register it in the ledger, then load/parse and sink every document.

    Without a sink, Paper nodes are upserted into `store` (opened from settings when not given).
    `recover` is called after a transient failure, before the retry (default: restart the embedded
    DB if it is the backend, ping the store; plus the sink's own `recover()` if it has one)."""
    t0 = time.perf_counter()
    settings = p.settings
    conc = concurrency or settings.ingest.concurrency
    summary = IngestSummary(
        found=p.found, found_by_kind=dict(p.found_by_kind), documents_by_kind=dict(p.documents_by_kind),
        non_pdf_skipped=p.non_pdf_skipped, missing=list(p.missing), skipped=list(p.skipped),
        duplicates=len(p.duplicates), copies=list(p.copies), already_done=p.already_done,
        skipped_failed=p.skipped_failed,
        to_process=p.to_process,
    )
    kinds = {k.name: k for k in input_kinds().values()}
    ledger = ledger_for(settings)
    try:
        _record_plan(ledger, p)
        cache = cache_for(settings)
        # the parses this run may take from the cache: those its parser choice would make today
        tags = accepted_tags(settings.ingest, parser if parser is None or isinstance(parser, str) else parser.name)
        need_parse = any(kinds[i.kind].needs_parser and not cache.has(i.key, tags) for i in p.todo)
        own_parser = parser is None or isinstance(parser, str)
        doc_parser: DocumentParser | None = None
        if need_parse:
            if parser is None or isinstance(parser, str):
                doc_parser = await make_parser(settings.ingest, parser, workers=conc)
            else:
                doc_parser = parser
            summary.parser = doc_parser.description
        else:
            parsable = any(kinds[i.kind].needs_parser for i in p.todo)
            summary.parser = "none needed (all parsed papers cached)" if parsable else "none needed"
        own_store = False
        if sink is None and p.todo:
            if store is None:
                store = await asyncio.to_thread(open_store, settings)  # schema ensured once, here
                own_store = True
            sink = GraphPaperSink(store)
        recoveries: list[Callable[[], Awaitable[None]]] = [recover or embedded_store_recovery(settings, store)]
        sink_recover = getattr(sink, "recover", None)
        if sink_recover is not None:
            recoveries.append(sink_recover)
        gate = TransientGate(settings, recoveries, note)
        # one client for the whole run, so its rate limit and circuit breaker cover every document
        s2 = SemanticScholarClient(settings.s2, settings.cache_dir) if settings.s2.enabled and need_parse else None
        if progress:
            progress.start(len(p.todo), summary.parser)

        async def attempt(item: WorkItem, out: DocOutcome) -> None:
            kind = kinds[item.kind]
            paper = cache.get(item.key, tags) if kind.needs_parser else None
            out.from_parse_cache = paper is not None
            if paper is None:
                paper = await kind.load(item, doc_parser, settings)
                paper.source_path = item.display  # storable text even when the name is not UTF-8
                if kind.needs_parser:
                    if s2 is not None:
                        await _fill_metadata(paper, s2)
                    await asyncio.to_thread(cache.put, paper, cache_tag(paper, settings.ingest))
                    out.parsed = True
                    out.pages = min(paper.page_count or 0, settings.ingest.max_pages)
            _resolve_identity(ledger, item, paper, out)
            ledger.set_notes(item.key, _doc_notes(paper, out))
            ledger.mark(item.key, "parsed", paper_id=paper.paper_id, parser=paper.parser)
            out.notes = list(paper.notes)
            assert sink is not None
            res = await sink.process(paper)
            if res.status == "failed":
                raise IngestError(res.error or "the extraction stage failed")
            ledger.mark(item.key, res.status, counts=res.counts)
            out.state = res.status

        async def one(item: WorkItem) -> DocOutcome:
            out = DocOutcome(item.display, item.key, "queued")
            try:
                await gate.run(lambda: attempt(item, out), item.display)  # transient failures: pause and retry
                return out
            except (asyncio.CancelledError, RunStopped, IngestInterrupted):
                raise  # a spent budget or a lasting outage stops the run; the document stays resumable
            except Exception as e:  # a permanent failure: this document is the problem
                reason = classify_failure(e)
                if reason == "internal error":
                    log.exception("unexpected error on %s", item.display)
                ledger.fail(item.key, f"{e}", reason)
                out.state, out.reason, out.error = "failed", reason, str(e)
                return out

        work_sem = asyncio.Semaphore(conc)

        finished: list[DocOutcome] = []  # in the order they finished: a stopped run still reports them

        async def guarded(item: WorkItem) -> DocOutcome:
            async with work_sem:
                o = await one(item)
            finished.append(o)
            if progress:
                progress.advance(o)
            return o

        tasks = [asyncio.create_task(guarded(t)) for t in p.todo]
        try:
            outcomes = await asyncio.gather(*tasks)
        except BaseException as e:
            # Ctrl-C, a spent budget, a lasting outage: stop the other documents where they are (the
            # ledger already holds their last completed step) before the parser and store close
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if isinstance(e, MotivGraphError):
                # the true counts of a stopped run (what finished, the pauses): its --json summary says them
                summary.transient_pauses = gate.pauses
                _tally(summary, finished)
                summary.states = ledger.counts()
                summary.elapsed_s = time.perf_counter() - t0
                e.summary = summary  # type: ignore[attr-defined]
            raise
        finally:
            summary.transient_pauses = gate.pauses
            if doc_parser is not None and own_parser:
                await doc_parser.aclose()
            if own_store and store is not None:
                await asyncio.to_thread(store.close)
            if s2 is not None:
                await s2.aclose()
        for u in p.unreadable:
            o = DocOutcome(u.path, u.key, "failed", reason=u.reason, error=u.error)
            outcomes.append(o)
            if progress:
                progress.advance(o)
        _tally(summary, outcomes)
        summary.states = ledger.counts()
    finally:
        ledger.close()
    summary.elapsed_s = time.perf_counter() - t0
    return summary


def _tally(summary: IngestSummary, outcomes: Sequence[DocOutcome]) -> None:
    """Add the documents' outcomes to the summary's counts."""
    for o in outcomes:
        summary.processed += 1
        if o.state == "failed":
            summary.failed += 1
        else:
            summary.ok += 1
        summary.parsed += int(o.parsed)
        # records (paper JSON) are read, never parsed: neither "parsed now" nor "from cache"
        summary.from_cache += int(o.from_parse_cache)
        summary.pages += o.pages
        for why in o.notes:
            summary.notes[why] = summary.notes.get(why, 0) + 1
        summary.same_paper += int(o.same_paper_as is not None)
        summary.probable_duplicates += [(o.path, o.paper_id or "", other, why)
                                        for other, why in o.probable_duplicates]
    summary.outcomes += list(outcomes)


def dry_run_summary(p: IngestPlan, parser: ParserName | DocumentParser | None = None) -> IngestSummary:
    """What `execute(p)` would do, for the dry-run report (nothing is written)."""
    settings = p.settings
    led_path = settings.data_dir / "ingest" / "ledger.sqlite"
    states: dict[str, int] = {}
    if led_path.exists():
        led = Ledger(led_path)
        try:
            states = led.counts()
        finally:
            led.close()
    kinds = input_kinds()
    needs_parser = any(k.needs_parser for k in kinds.values() if k.name in p.kinds)
    return IngestSummary(
        parser=str(parser if isinstance(parser, str) else getattr(parser, "name", settings.ingest.parser))
        if needs_parser or not p.todo else "none needed",
        found=p.found, found_by_kind=dict(p.found_by_kind), documents_by_kind=dict(p.documents_by_kind),
        non_pdf_skipped=p.non_pdf_skipped, missing=list(p.missing), skipped=list(p.skipped),
        duplicates=len(p.duplicates), copies=list(p.copies), already_done=p.already_done,
        skipped_failed=p.skipped_failed,
        to_process=p.to_process + len(p.unreadable), dry_run=True, states=states,
    )


async def ingest_async(
    paths: Sequence[str | Path],
    settings: Settings,
    *,
    sink: PaperSink | None = None,
    parser: ParserName | DocumentParser | None = None,
    concurrency: int | None = None,
    limit: int | None = None,
    dry_run: bool = False,
    retry_failed: bool = False,
    progress: IngestProgress | None = None,
    store: GraphStore | None = None,
) -> IngestSummary:
    """`plan` then `execute` (or, with dry_run, the plan's report)."""
    t0 = time.perf_counter()
    p = await plan_async(paths, settings, retry_failed=retry_failed, limit=limit, concurrency=concurrency)
    if dry_run:
        s = dry_run_summary(p, parser)
        s.elapsed_s = time.perf_counter() - t0
        return s
    return await execute(p, sink, parser=parser, concurrency=concurrency, progress=progress, store=store)


def run_ingest(
    paths: Sequence[str | Path],
    settings: Settings,
    *,
    sink: PaperSink | None = None,
    parser: ParserName | DocumentParser | None = None,
    concurrency: int | None = None,
    limit: int | None = None,
    dry_run: bool = False,
    retry_failed: bool = False,
    progress: IngestProgress | None = None,
    store: GraphStore | None = None,
) -> IngestSummary:
    """Synchronous entry point (scripts, tests). See `ingest_async`."""
    return asyncio.run(
        ingest_async(
            paths, settings, sink=sink, parser=parser, concurrency=concurrency, limit=limit, dry_run=dry_run,
            retry_failed=retry_failed, progress=progress, store=store,
        )
    )


__all__ = [
    "DocOutcome", "GraphPaperSink", "IngestProgress", "IngestSummary", "NullSink",
    "PaperSink", "SinkResult", "TransientGate", "classify_failure", "dry_run_summary", "execute", "ingest_async",
    "run_ingest", "store_step",
]
