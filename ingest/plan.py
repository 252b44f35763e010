"""What an ingest run will do, decided before anything is written: walk → key (hash) → dedupe →
ledger → the work list. `plan_async()` is read-only, so `--dry-run` is simply a plan that is not executed.

Inputs come in kinds (`InputKind`): the built-in kind is the PDF file, keyed by the sha256 of its
bytes. Another kind (e.g. paper JSON records, keyed by a stable record id) is an "input_kinds" part of the one
extension mechanism (`motivgraph/plugins.py`: built-in, an installed package's entry point, or
`plugins.register("input_kinds", name, kind)` for this process) and is walked, keyed, deduplicated, resumed and
reported like PDFs; only `keys()` (what documents a file holds) and `load()` (one document → Paper) are its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motivgraph import plugins
from motivgraph.errors import ParseError
from motivgraph.fsutil import path_from_text, path_to_text
from motivgraph.hookspecs import InputKindHook
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.walker import sha256_file, walk
from motivgraph.settings import Settings

if TYPE_CHECKING:
    from motivgraph.choices import ParserName
    from motivgraph.ingest.models import Paper
    from motivgraph.ingest.parsers import DocumentParser

log = logging.getLogger(__name__)


# -- input kinds ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DocKey:
    """One document inside an input file: its ledger key, the bytes it stands for, and a locator."""

    key: str
    size: int | None = None
    # kind-specific locator; None for a whole-file document. Line-based kinds give the 1-based line number,
    # or a tuple that starts with it (WorkItem.where shows it to the user).
    ref: Any = None


# An input kind is a part of the one extension mechanism; its Protocol is the kernel's (typed there without the ingest
# types the kernel cannot import: keys() gives DocKeys, load() takes a WorkItem and the run's DocumentParser).
InputKind = InputKindHook


class PdfInput:
    """PDF files, one paper each, keyed by the sha256 of their bytes and read by the run's parser."""

    name = "pdf"
    suffixes: tuple[str, ...] = (".pdf",)
    needs_parser = True

    def keys(self, path: Path) -> list[DocKey]:
        size = path.stat().st_size
        if size == 0:
            # Every empty file has the same sha256: keyed by content, all but one were listed as "duplicates"
            # of the first and never reported. Each is its own (failed) document, keyed by its path.
            return [DocKey(f"empty:{path_to_text(path)}", 0)]
        return [DocKey(sha256_file(path), size)]

    async def load(self, item: WorkItem, parser: DocumentParser | None, settings: Settings) -> Paper:
        if not item.path.exists():
            raise ParseError(f"file disappeared before it was parsed: {item.display}")
        if item.size is not None and item.size > settings.ingest.max_file_mb * 1024 * 1024:
            raise ParseError(
                f"file larger than {settings.ingest.max_file_mb:g} MB (setting MOTIVGRAPH_INGEST_MAX_FILE_MB)"
            )
        assert parser is not None
        return await parser.parse(item.path, item.key)


PDF_INPUT = PdfInput()


def input_kinds() -> dict[str, InputKind]:
    """Every input kind by the suffix it claims (lower case, with the dot)."""
    out: dict[str, InputKind] = {}
    for kind in plugins.load_all("input_kinds").values():
        out.update({suffix.lower(): kind for suffix in kind.suffixes})
    return out


def kind_of(path: Path) -> InputKind | None:
    name = path.name.lower()
    kinds = input_kinds()
    for suffix in sorted(kinds, key=len, reverse=True):  # longest first: ".paper.json" before ".json"
        if name.endswith(suffix):
            return kinds[suffix]
    return None


# -- the plan -------------------------------------------------------------------------------------------------------


@dataclass
class WorkItem:
    key: str  # ledger key (sha256 of a PDF's bytes, a record id, or path:<path> for an unreadable input)
    kind: str
    path: Path  # the OS path (undecodable bytes as surrogate escapes)
    size: int | None = None
    ref: Any = None
    state: str | None = None  # ledger state before this run; None when new

    @property
    def display(self) -> str:
        """The path as stored in the ledger and shown to the user (reversible escaped text)."""
        return path_to_text(self.path)

    @property
    def where(self) -> str:
        """The document for a person: its path, and its line when the file holds several documents."""
        line = self.ref[0] if isinstance(self.ref, tuple) and self.ref else self.ref
        return f"{self.display}:{line}" if isinstance(line, int) else self.display


@dataclass
class Unreadable:
    key: str  # path:<path text>
    path: str  # path text
    reason: str  # reason kind, e.g. "unreadable (permission denied)"
    error: str


@dataclass
class IngestPlan:
    """Everything `execute()` needs, and everything a dry run reports."""

    settings: Settings
    # the parser asked for (the setting unless the command names one): which parses the run takes from the cache,
    # decided here so that a resume whose documents are all parsed needs no parser at all
    parser: ParserName
    retry_failed: bool = False
    found: int = 0  # input files found by the walk
    found_by_kind: dict[str, int] = field(default_factory=dict)  # input kind name -> files found
    documents_by_kind: dict[str, int] = field(default_factory=dict)  # input kind name -> documents (PDFs, records)
    non_pdf_skipped: int = 0  # files of no input kind (the name predates paper JSON input)
    missing: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path text, why): FIFOs, dangling links
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (path text, key) of a copy of a known doc
    copies: list[tuple[str, str]] = field(default_factory=list)  # (copy, first) as WorkItem.where, for the user
    already_done: int = 0
    skipped_failed: int = 0
    unreadable: list[Unreadable] = field(default_factory=list)  # recorded as failures by execute()
    readable_again: list[str] = field(default_factory=list)  # path: keys whose file can be read now
    todo: list[WorkItem] = field(default_factory=list)
    moved: list[WorkItem] = field(default_factory=list)  # known documents whose file moved

    @property
    def to_process(self) -> int:
        return len(self.todo)

    @property
    def kinds(self) -> set[str]:
        return {i.kind for i in self.todo}


def unreadable_key(path_text: str) -> str:
    return f"path:{path_text}"


def _unreadable_reason(e: OSError, folder: bool) -> str:
    what = "folder" if folder else "file"
    why = (e.strerror or type(e).__name__).lower() if isinstance(e, OSError) else str(e)
    return f"unreadable {what} ({why})"


def _open_ledger_readonly(settings: Settings) -> Ledger | None:
    path = settings.data_dir / "ingest" / "ledger.sqlite"
    return Ledger(path) if path.exists() else None


async def plan_async(
    paths: Sequence[str | Path],
    settings: Settings,
    *,
    parser: ParserName | None = None,
    retry_failed: bool = False,
    limit: int | None = None,
    concurrency: int | None = None,
) -> IngestPlan:
    """Walk, key (hash) every input, dedupe by key and compare with the ledger. Writes nothing."""
    kinds = input_kinds()
    walked = walk(paths, suffixes=tuple(kinds))
    out = IngestPlan(settings=settings, parser=parser or settings.ingest.parser, retry_failed=retry_failed,
                     found=len(walked.pdfs), non_pdf_skipped=walked.non_pdf_skipped, missing=list(walked.missing),
                     skipped=walked.skipped)
    for folder, why in walked.unreadable:
        text = path_to_text(folder)
        reason = "unreadable folder (" + why.split(": ", 1)[-1] + ")"
        out.unreadable.append(Unreadable(unreadable_key(text), text, reason, f"{why}: {text}"))

    sem = asyncio.Semaphore(max(2, concurrency or settings.ingest.concurrency))

    async def keys_of(p: Path) -> tuple[Path, InputKind, list[DocKey] | OSError]:
        kind = kind_of(p)
        assert kind is not None  # the walk only returns claimed suffixes
        async with sem:
            try:
                return p, kind, await asyncio.to_thread(kind.keys, p)
            except OSError as e:
                return p, kind, e

    keyed = await asyncio.gather(*(keys_of(p) for p in walked.pdfs))
    unique: dict[str, WorkItem] = {}
    copies: list[WorkItem] = []
    readable: set[str] = set()
    for p, kind, res in keyed:
        out.found_by_kind[kind.name] = out.found_by_kind.get(kind.name, 0) + 1
        if not isinstance(res, OSError):
            out.documents_by_kind[kind.name] = out.documents_by_kind.get(kind.name, 0) + len(res)
        text = path_to_text(p)
        if isinstance(res, FileNotFoundError):
            out.missing.append(f"{text} (vanished before it could be read)")
            continue
        if isinstance(res, OSError):
            out.unreadable.append(Unreadable(unreadable_key(text), text, _unreadable_reason(res, False), str(res)))
            continue
        readable.add(unreadable_key(text))
        for dk in res:
            item = WorkItem(dk.key, kind.name, p, dk.size, dk.ref)
            if dk.key in unique:
                copies.append(item)
            else:
                unique[dk.key] = item

    ledger = _open_ledger_readonly(settings)
    try:
        for u in list(out.unreadable):
            row = ledger.get(u.key) if ledger else None
            if row is not None and row.state == "failed" and not retry_failed:
                out.unreadable.remove(u)  # recorded by an earlier run; --retry-failed tries it again
                out.skipped_failed += 1
        for item in unique.values():
            row = ledger.get(item.key) if ledger else None
            if row is None:
                out.todo.append(item)
                continue
            item.state = row.state
            if row.path != item.display and not Path(path_from_text(row.path)).exists():
                out.moved.append(item)  # the file moved; the ledger follows it
            if row.state == "stored":
                out.already_done += 1
            elif row.state == "failed" and not retry_failed:
                out.skipped_failed += 1
            else:
                out.todo.append(item)
        if ledger is not None:
            out.readable_again = [k for k in readable if ledger.get(k) is not None]
        for c in copies:
            first = unique[c.key]
            out.duplicates.append((c.display, c.key))
            out.copies.append((c.where, first.where))
            log.debug("%s is a copy of %s", c.display, first.display)
    finally:
        if ledger is not None:
            ledger.close()
    if limit is not None:
        out.todo = out.todo[: max(0, limit)]
    return out
