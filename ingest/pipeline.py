"""Ingest execution: `execute(plan, parser, sink)` carries out a plan (ingest/plan.py) in typed stages, with resume.

The stages, each one function or method below: `register` (the plan's ledger writes) → per document `load` (the
parsed cache, or the parser) → `identify` (which paper it is, ledger marked parsed) → `deliver` (the sink) →
`report` (the summary tallied from the outcomes). The parser and the sink come in built (the composition root,
miner/ingest_job.py, or `ingest_async` makes them once); the pipeline decides neither. Every state change is
committed to the ledger as it happens, so a re-run after Ctrl-C or kill -9 continues from the last completed step
and reaches the same end state.

Failures come in two kinds (`motivgraph.outbound.is_transient`): a bad document is recorded as failed and the batch
goes on; a transient failure (store unreachable, LLM endpoint or GROBID down, network, spent budget) never marks a
document failed -- the batch pauses, reconnects and retries the document (ingest/transient.py), and after
`ingest.transient_max_consecutive` consecutive ones it stops with IngestInterrupted ("re-run to resume"). A clean
stop (RunStopped: a spent budget, the extraction gate) stops at once, also resumable.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from motivgraph.aio import gather_all
from motivgraph.errors import IngestError, IngestInterrupted, MotivGraphError, RunStopped
from motivgraph.graph import open_store
from motivgraph.ingest import paper_merge
from motivgraph.ingest.cache import ParsedCache
from motivgraph.ingest.identity import PaperKeys
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.models import NOT_A_PAPER, Paper
from motivgraph.ingest.parser_choice import parse_needed, resolve_parser
from motivgraph.ingest.parsers import accepted_tags, cache_tag
from motivgraph.ingest.plan import IngestPlan, InputKind, WorkItem, input_kinds, plan_async
from motivgraph.ingest.sinks import GraphPaperSink, NullSink, PaperSink
from motivgraph.ingest.summary import (
    DocOutcome,
    IngestProgress,
    IngestSummary,
    classify_failure,
    dry_run_summary,
    tally,
)
from motivgraph.ingest.transient import TransientGate, embedded_store_recovery
from motivgraph.settings import Settings
from motivgraph.sources.semantic_scholar import SemanticScholarClient

if TYPE_CHECKING:
    from motivgraph.choices import ParserName
    from motivgraph.graph.base import GraphStore
    from motivgraph.ingest.parsers import DocumentParser

log = logging.getLogger(__name__)


# -- stage: register ----------------------------------------------------------------------------------------------


def register(ledger: Ledger, p: IngestPlan) -> None:
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


# -- stages per document: load → identify → deliver -------------------------------------------------------------


@dataclass
class DocumentStages:
    """The per-document stages of one run, over what the run holds open: its ledger, the parsed cache (and the
    tags of the parses it may take from it), the parser, the sink and the metadata client."""

    settings: Settings
    kinds: dict[str, InputKind]
    ledger: Ledger
    cache: ParsedCache
    tags: tuple[str, ...]
    parser: DocumentParser
    sink: PaperSink
    s2: SemanticScholarClient | None

    async def load(self, item: WorkItem, out: DocOutcome) -> Paper:
        """The document as a Paper: its parse from the cache, or loaded (parsed) now and cached."""
        kind = self.kinds[item.kind]
        paper = self.cache.get(item.key, self.tags) if kind.needs_parser else None
        out.from_parse_cache = paper is not None
        if paper is not None:
            return paper
        paper = await kind.load(item, self.parser, self.settings)
        paper.source_path = item.display  # storable text even when the name is not UTF-8
        if kind.needs_parser:
            if self.s2 is not None:
                await _fill_metadata(paper, self.s2)
            # the one reshaping a parse needs here: its on-disk copy (JSON) for resumes and re-extraction; the
            # Paper object itself goes on through the stages
            await asyncio.to_thread(self.cache.put, paper, cache_tag(paper, self.settings.ingest))
            out.parsed = True
            out.pages = min(paper.page_count or 0, self.settings.ingest.max_pages)
        return paper

    def identify(self, item: WorkItem, paper: Paper, out: DocOutcome) -> None:
        """Which paper the document is (ingest.identity); the ledger marks it parsed, with its notes."""
        _resolve_identity(self.ledger, item, paper, out)
        self.ledger.set_notes(item.key, _doc_notes(paper, out))
        self.ledger.mark(item.key, "parsed", paper_id=paper.paper_id, parser=paper.parser)
        out.notes = list(paper.notes)

    async def deliver(self, item: WorkItem, paper: Paper, out: DocOutcome) -> None:
        """Hand the paper to the sink; the ledger records what the sink did."""
        res = await self.sink.process(paper)
        if res.status == "failed":
            raise IngestError(res.error or "the extraction stage failed")
        self.ledger.mark(item.key, res.status, counts=res.counts)
        out.state = res.status

    async def attempt(self, item: WorkItem, out: DocOutcome) -> None:
        """One try at the whole document (idempotent: a transient failure runs it again)."""
        paper = await self.load(item, out)
        self.identify(item, paper, out)
        await self.deliver(item, paper, out)

    async def one(self, item: WorkItem, gate: TransientGate) -> DocOutcome:
        """The document's outcome: done, or failed for a reason of its own. Transient failures pause and retry."""
        out = DocOutcome(item.display, item.key, "queued")
        try:
            await gate.run(lambda: self.attempt(item, out), item.display)
            return out
        except (asyncio.CancelledError, RunStopped, IngestInterrupted):
            raise  # a clean stop or a lasting outage stops the run; the document stays resumable
        except Exception as e:  # a permanent failure: this document is the problem
            reason = classify_failure(e)
            if reason == "internal error":
                log.exception("unexpected error on %s", item.display)
            self.ledger.fail(item.key, f"{e}", reason)
            out.state, out.reason, out.error = "failed", reason, str(e)
            return out


async def run_documents(stages: DocumentStages, todo: Sequence[WorkItem], gate: TransientGate, conc: int,
                        progress: IngestProgress | None, finished: list[DocOutcome]) -> list[DocOutcome]:
    """Every document through the stages, `conc` at a time. On a stop (Ctrl-C, a clean stop, a lasting outage) the
    other documents stop where they are -- the ledger holds their last completed step -- and the stop propagates;
    `finished` holds what finished, in order, so a stopped run still reports it."""
    work_sem = asyncio.Semaphore(conc)

    async def guarded(item: WorkItem) -> DocOutcome:
        async with work_sem:
            o = await stages.one(item, gate)
        finished.append(o)
        if progress:
            progress.advance(o)
        return o

    return await gather_all(*(guarded(t) for t in todo))


# -- the pipeline ---------------------------------------------------------------------------------------------------


async def execute(
    p: IngestPlan,
    parser: DocumentParser,
    sink: PaperSink,
    *,
    concurrency: int | None = None,
    progress: IngestProgress | None = None,
    recover: Callable[[], Awaitable[None]] | None = None,
    note: Callable[[str], None] | None = None,
) -> IngestSummary:
    """Carry out a plan: register it in the ledger, then load, identify and deliver every document to `sink`.

    The caller owns `parser` and `sink` (and closes them). `recover` is called after a transient failure, before
    the retry (default: restart the embedded DB if it is the backend), then the sink's own `recover()` if it has
    one. A stop raises with the stopped run's true counts attached as `summary`."""
    t0 = time.perf_counter()
    settings = p.settings
    summary = IngestSummary.of_plan(p)
    ledger = Ledger.for_data_dir(settings.data_dir)
    try:
        register(ledger, p)
        need_parse = parse_needed(p)
        summary.parser = _parser_label(p, parser, need_parse)
        recoveries: list[Callable[[], Awaitable[None]]] = [recover or embedded_store_recovery(settings, None)]
        sink_recover = getattr(sink, "recover", None)
        if sink_recover is not None:
            recoveries.append(sink_recover)
        gate = TransientGate(settings, recoveries, note)
        # one client for the whole run, so its rate limit and circuit breaker cover every document
        s2 = SemanticScholarClient(settings.s2, settings.cache_dir) if settings.s2.enabled and need_parse else None
        stages = DocumentStages(settings, {k.name: k for k in input_kinds().values()}, ledger,
                                ParsedCache.for_data_dir(settings.data_dir),
                                accepted_tags(settings.ingest, p.parser), parser, sink, s2)
        if progress:
            progress.start(len(p.todo), summary.parser)
        finished: list[DocOutcome] = []
        try:
            outcomes = await run_documents(stages, p.todo, gate, concurrency or settings.ingest.concurrency,
                                           progress, finished)
        except MotivGraphError as e:
            # the true counts of a stopped run (what finished, the pauses): its --json summary says them
            report(summary, finished, gate, ledger, t0)
            e.summary = summary  # type: ignore[attr-defined]
            raise
        finally:
            if s2 is not None:
                await s2.aclose()
        for u in p.unreadable:
            o = DocOutcome(u.path, u.key, "failed", reason=u.reason, error=u.error)
            outcomes.append(o)
            if progress:
                progress.advance(o)
        report(summary, outcomes, gate, ledger, t0)
    finally:
        ledger.close()
    return summary


def _parser_label(p: IngestPlan, parser: DocumentParser, need_parse: bool) -> str:
    """The summary's parser line: the parser that runs, or why none is needed."""
    if need_parse:
        return parser.description
    parsable = any(k.needs_parser for k in input_kinds().values() if k.name in p.kinds)
    return "none needed (all parsed papers cached)" if parsable else "none needed"


def report(summary: IngestSummary, outcomes: Sequence[DocOutcome], gate: TransientGate, ledger: Ledger,
           t0: float) -> None:
    """The report stage: the outcomes tallied, the pauses taken, the ledger's states, the time spent."""
    summary.transient_pauses = gate.pauses
    tally(summary, outcomes)
    summary.states = ledger.counts()
    summary.elapsed_s = time.perf_counter() - t0


async def ingest_async(
    paths: Sequence[str | Path],
    settings: Settings,
    *,
    sink: PaperSink | None = None,
    parser: ParserName | None = None,
    concurrency: int | None = None,
    limit: int | None = None,
    dry_run: bool = False,
    retry_failed: bool = False,
    progress: IngestProgress | None = None,
    store: GraphStore | None = None,
) -> IngestSummary:
    """Plan, resolve the parser once, execute into `sink` (default: Paper nodes into `store`, opened from the
    settings when not given); with dry_run, the plan's report. The entry for callers that bring their own sink
    (tests, benchmarks); `motivgraph ingest` composes the same parts in miner/ingest_job.py."""
    t0 = time.perf_counter()
    p = await plan_async(paths, settings, parser=parser, retry_failed=retry_failed, limit=limit,
                         concurrency=concurrency)
    if dry_run:
        s = dry_run_summary(p)
        s.elapsed_s = time.perf_counter() - t0
        return s
    own_store = sink is None and p.todo and store is None
    if own_store:
        store = await asyncio.to_thread(open_store, settings)  # schema ensured once, here
    if sink is None:
        # nothing to do: no store to reach (the unreadable inputs are recorded all the same)
        sink = GraphPaperSink(store) if store is not None and p.todo else NullSink()
    doc_parser = await resolve_parser(p, workers=concurrency)
    try:
        return await execute(p, doc_parser, sink, concurrency=concurrency, progress=progress,
                             recover=embedded_store_recovery(settings, store))
    finally:
        await doc_parser.aclose()
        if own_store and store is not None:
            await asyncio.to_thread(store.close)


# -- what the stages use --------------------------------------------------------------------------------------------


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
