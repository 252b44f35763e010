"""What an ingest run reports: each document's outcome, the progress hook, and the run's summary (built from the
plan, then tallied from the outcomes). Nothing here reads or writes a document."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from motivgraph.errors import ExternalServiceError, MotivGraphError, ParseError
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.plan import input_kinds

if TYPE_CHECKING:
    from motivgraph.ingest.plan import IngestPlan


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

    @classmethod
    def of_plan(cls, p: IngestPlan) -> IngestSummary:
        """What the plan found, before any document is done (a run stopped before its first document says this)."""
        return cls(found=p.found, found_by_kind=dict(p.found_by_kind), documents_by_kind=dict(p.documents_by_kind),
                   non_pdf_skipped=p.non_pdf_skipped, missing=list(p.missing), skipped=list(p.skipped),
                   duplicates=len(p.duplicates), copies=list(p.copies), already_done=p.already_done,
                   skipped_failed=p.skipped_failed, to_process=p.to_process)


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


def tally(summary: IngestSummary, outcomes: Sequence[DocOutcome]) -> None:
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


def dry_run_summary(p: IngestPlan) -> IngestSummary:
    """What `execute(p)` would do, for the dry-run report (nothing is written)."""
    led_path = p.settings.data_dir / "ingest" / "ledger.sqlite"
    states: dict[str, int] = {}
    if led_path.exists():
        led = Ledger(led_path)
        try:
            states = led.counts()
        finally:
            led.close()
    needs_parser = any(k.needs_parser for k in input_kinds().values() if k.name in p.kinds)
    summary = IngestSummary.of_plan(p)
    summary.parser = p.parser if needs_parser or not p.todo else "none needed"
    summary.to_process, summary.dry_run, summary.states = p.to_process + len(p.unreadable), True, states
    return summary
