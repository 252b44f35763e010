"""Ingest orchestration: walk → hash/dedupe → ledger → (cache | parse) → sink, with resume.

The per-document work is a pure function of one PDF (parse) followed by a sink: the default sink
upserts the Paper node into the graph; the miner plugs in its own sink that extracts triples.
Every state change is committed to the ledger as it happens, so a re-run after Ctrl-C or kill -9
continues from the last completed step and reaches the same end state.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, Field

from motivgraph.errors import BudgetExceeded, ExternalServiceError, IngestError, MotivGraphError, ParseError
from motivgraph.ingest.cache import ParsedCache
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.models import Paper
from motivgraph.ingest.parsers import DocumentParser, ParserName, make_parser
from motivgraph.ingest.walker import sha256_file, walk
from motivgraph.settings import Settings
from motivgraph.sources.semantic_scholar import SemanticScholarClient

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore

log = logging.getLogger(__name__)


class SinkResult(BaseModel):
    status: Literal["extracted", "stored", "failed"] = "stored"
    counts: dict[str, int] = Field(default_factory=dict)
    error: str | None = None


class PaperSink(Protocol):
    """What happens to a parsed Paper. Must be idempotent: a resumed run may call it again."""

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
    path: str
    sha256: str
    state: str
    reason: str | None = None
    error: str | None = None
    parsed: bool = False  # parsed in this run (False: came from the cache)
    pages: int = 0


class IngestProgress(Protocol):
    def start(self, total: int, parser: str) -> None: ...

    def advance(self, outcome: DocOutcome) -> None: ...


@dataclass
class IngestSummary:
    parser: str = ""
    found: int = 0
    non_pdf_skipped: int = 0
    missing: list[str] = field(default_factory=list)
    duplicates: int = 0
    already_done: int = 0
    skipped_failed: int = 0
    to_process: int = 0
    processed: int = 0
    ok: int = 0
    failed: int = 0
    parsed: int = 0
    from_cache: int = 0
    pages: int = 0
    elapsed_s: float = 0.0
    dry_run: bool = False
    states: dict[str, int] = field(default_factory=dict)
    outcomes: list[DocOutcome] = field(default_factory=list)


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
    t0 = time.perf_counter()
    conc = concurrency or settings.ingest.concurrency
    summary = IngestSummary(dry_run=dry_run)
    walked = walk(paths)
    summary.found = len(walked.pdfs)
    summary.non_pdf_skipped = walked.non_pdf_skipped
    summary.missing = walked.missing

    # hash every file (dedupe by content); threads overlap the disk reads
    sem = asyncio.Semaphore(max(2, conc))

    async def hash_one(p: Path) -> tuple[Path, str | None, int | None]:
        async with sem:
            try:
                return p, await asyncio.to_thread(sha256_file, p), p.stat().st_size
            except OSError:
                return p, None, None

    hashed = await asyncio.gather(*(hash_one(p) for p in walked.pdfs))
    unique: dict[str, tuple[Path, int | None]] = {}
    vanished: list[Path] = []
    for p, sha, size in hashed:
        if sha is None:
            vanished.append(p)
            continue
        if sha in unique:
            summary.duplicates += 1
            continue
        unique[sha] = (p, size)
    summary.missing.extend(f"{p} (vanished before it could be read)" for p in vanished)

    ledger = ledger_for(settings)
    try:
        if retry_failed and not dry_run:
            ledger.requeue_failed()
        todo: list[tuple[str, Path, int | None]] = []
        for sha, (p, size) in unique.items():
            row = ledger.get(sha)
            if row is None:
                if not dry_run:
                    ledger.register(sha, str(p), size)
                todo.append((sha, p, size))
            else:
                if not dry_run and row.path != str(p) and not Path(row.path).exists():
                    ledger.update_path(sha, str(p))  # the file moved; follow it
                if row.state == "stored":
                    summary.already_done += 1
                elif row.state == "failed" and not retry_failed:
                    summary.skipped_failed += 1
                else:
                    todo.append((sha, p, size))
        if not dry_run:
            for p, sha, _ in hashed:
                if sha is not None and unique[sha][0] != p:
                    ledger.register(sha, str(p), None)  # records the duplicate path
        if limit is not None:
            todo = todo[: max(0, limit)]
        summary.to_process = len(todo)
        if dry_run:
            summary.states = ledger.counts()
            summary.parser = str(parser if isinstance(parser, str) else getattr(parser, "name", settings.ingest.parser))
            summary.elapsed_s = time.perf_counter() - t0
            return summary

        cache = cache_for(settings)
        need_parse = any(sha not in cache for sha, _, _ in todo)
        own_parser = not (parser is not None and not isinstance(parser, str))
        doc_parser: DocumentParser | None = None
        if need_parse:
            doc_parser = (
                await make_parser(settings.ingest, parser, workers=conc)  # type: ignore[arg-type]
                if own_parser
                else parser  # type: ignore[assignment]
            )
            summary.parser = doc_parser.description
        else:
            summary.parser = "none needed (all parsed papers cached)"
        own_store = False
        if sink is None:
            if store is None:
                from motivgraph.graph import open_store

                store = await asyncio.to_thread(open_store, settings)
                await asyncio.to_thread(store.ensure_schema)
                own_store = True
            sink = GraphPaperSink(store)
        if progress:
            progress.start(len(todo), summary.parser)

        async def one(sha: str, path: Path, size: int | None) -> DocOutcome:
            out = DocOutcome(str(path), sha, "queued")
            try:
                paper = cache.get(sha)
                if paper is None:
                    if not path.exists():
                        raise ParseError(f"file disappeared before it was parsed: {path}")
                    if size is not None and size > settings.ingest.max_file_mb * 1024 * 1024:
                        raise ParseError(
                            f"file larger than {settings.ingest.max_file_mb:g} MB "
                            "(setting MOTIVGRAPH_INGEST_MAX_FILE_MB)"
                        )
                    assert doc_parser is not None
                    paper = await doc_parser.parse(path, sha)
                    if s2 is not None:
                        await _fill_metadata(paper, s2)
                    await asyncio.to_thread(cache.put, paper)
                    out.parsed = True
                    out.pages = min(paper.page_count or 0, settings.ingest.max_pages)
                ledger.mark(sha, "parsed", paper_id=paper.paper_id, parser=paper.parser)
                res = await sink.process(paper)
                if res.status == "failed":
                    raise IngestError(res.error or "the extraction stage failed")
                ledger.mark(sha, res.status, counts=res.counts)
                out.state = res.status
            except (asyncio.CancelledError, BudgetExceeded):
                raise  # a spent LLM budget stops the run; the document stays "parsed" and resumes next run
            except Exception as e:
                reason = classify_failure(e)
                if reason == "internal error":
                    log.exception("unexpected error on %s", path)
                ledger.fail(sha, f"{e}", reason)
                out.state, out.reason, out.error = "failed", reason, str(e)
            return out

        # one client for the whole run, so its rate limit and circuit breaker cover every document
        s2 = SemanticScholarClient(settings.s2, settings.cache_dir) if settings.s2.enabled else None
        work_sem = asyncio.Semaphore(conc)

        async def guarded(item: tuple[str, Path, int | None]) -> DocOutcome:
            async with work_sem:
                o = await one(*item)
            if progress:
                progress.advance(o)
            return o

        tasks = [asyncio.create_task(guarded(t)) for t in todo]
        try:
            outcomes = await asyncio.gather(*tasks)
        except BaseException:
            # Ctrl-C, a spent budget, ...: stop the other documents where they are (the ledger
            # already holds their last completed step) before the parser and store close
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        finally:
            if doc_parser is not None and own_parser:
                await doc_parser.aclose()
            if own_store and store is not None:
                await asyncio.to_thread(store.close)
            if s2 is not None:
                await s2.aclose()
        for o in outcomes:
            summary.processed += 1
            if o.state == "failed":
                summary.failed += 1
            else:
                summary.ok += 1
            summary.parsed += int(o.parsed)
            summary.from_cache += int(not o.parsed and o.state != "failed")
            summary.pages += o.pages
        summary.outcomes = list(outcomes)
        summary.states = ledger.counts()
    finally:
        ledger.close()
    summary.elapsed_s = time.perf_counter() - t0
    return summary


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
    """Synchronous entry point (CLI, the miner's CLI with its own sink). See `ingest_async`."""
    return asyncio.run(
        ingest_async(
            paths, settings, sink=sink, parser=parser, concurrency=concurrency, limit=limit, dry_run=dry_run,
            retry_failed=retry_failed, progress=progress, store=store,
        )
    )
