"""The resumable job engine under the re-processing of stored papers: re-extraction with the current extractor
(miner/reextract.py, `motivgraph ingest --re-extract`), deletion (miner/paper_delete.py, `papers delete`) and merge
undo (miner/merge_undo.py, `merges undo`) each plan a job here and run it.

A job takes papers' contributions out of the graph (`GraphStore.remove_paper`: STATES edges, the
paper in `sources`, aliases only it gave, triples only it stated, nodes left with no source, parents
left with no child) and their vectors out of the FAISS node index, then puts papers back one at a
time through the miner sink, in their first-ingest order:

- *re-extracted* papers run through the current extractor (from the parsed-document cache, so no PDF
  is parsed again);
- *replayed* papers are resolved and stored again from the extraction they had (`miner.extractions`),
  without asking any extractor. They are the papers stored after the earliest re-processed paper
  that share a node with it, or whose identity decision named one of those nodes as a candidate —
  transitively: what a later paper merged into may not exist (or may be spelt differently) without
  the removed paper, so it is resolved again exactly as a fresh ingest without that paper would.

So re-extracting every paper gives the graph a fresh ingest with the new extractor gives, and
deleting a paper gives the graph a fresh ingest without it.

Resumable: the job (its papers, phase and progress) is a JSON file written atomically after every
step (`<data_dir>/miner/reprocess_job.json`); the ingest ledger shows re-extracted papers as
`parsed` until they are stored again. Every step is idempotent — a paper is taken out again before it
is put back — so after a kill at any point, running the command again finishes the same job.

Failures follow ingest's taxonomy (`motivgraph.outbound.is_transient`) through the same gate
(`ingest.transient.TransientGate`, `store_step`): a transient failure (store or LLM endpoint down)
pauses the job, reconnects — restarting the embedded DB if it died — and retries the step; after
`ingest.transient_max_consecutive` consecutive ones the job stops with IngestInterrupted ("re-run to
resume", exit 4), kept on disk for the re-run.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motivgraph.errors import ConfigError, IngestError
from motivgraph.fsutil import atomic_write, path_from_text
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.cache import ParsedCache
from motivgraph.ingest.derived import DerivedReport, repair_derived
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.models import Paper
from motivgraph.ingest.parsers import cache_tag, make_parser
from motivgraph.ingest.plan import WorkItem, kind_of
from motivgraph.ingest.sinks import SinkResult
from motivgraph.ingest.transient import TransientGate, embedded_store_recovery, store_step
from motivgraph.miner import decisions as D
from motivgraph.miner.decisions import DecisionLog
from motivgraph.miner.extractions import ExtractionStore
from motivgraph.miner.extractor_choice import decide_extractor
from motivgraph.miner.heuristic import HeuristicExtractor
from motivgraph.miner.sink import MinerSink
from motivgraph.outbound import is_transient

if TYPE_CHECKING:
    from motivgraph.graph.base import GraphStore
    from motivgraph.graph.runtime import Runtime
    from motivgraph.ingest.parsers import DocumentParser
    from motivgraph.llm import LLMClient
    from motivgraph.miner.schemas import ExtractionResult, ExtractorName
    from motivgraph.settings import Settings

log = logging.getLogger(__name__)

Note = Callable[[str], None]
JOB_FILE = "reprocess_job.json"
EXTRACTORS = ("llm", "heuristic")
# Decisions whose outcome depended on the candidate node existing (a merge is covered by STATES).
_CANDIDATE_MATTERS = frozenset({D.LLM_APART, D.BAND_NO_LLM, D.HOMONYM, D.APART})


@dataclass
class Job:
    kind: str  # "reextract" | "delete" | "undo"
    reextract: list[str] = field(default_factory=list)  # through the current extractor
    delete: list[str] = field(default_factory=list)  # out for good (Paper node too)
    replay: list[str] = field(default_factory=list)  # back from their stored extraction
    order: list[str] = field(default_factory=list)  # reextract + replay, in first-ingest order
    doc_keys: dict[str, str] = field(default_factory=dict)  # paper id -> ingest ledger key
    removed: bool = False  # phase 1 (take everything out) done
    done: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    only_extractor: str | None = None
    decision_id: int | None = None
    created: str = ""

    @staticmethod
    def path(settings: Settings) -> Path:
        return Path(settings.data_dir) / "miner" / JOB_FILE

    def save(self, settings: Settings) -> None:
        atomic_write(self.path(settings), json.dumps(asdict(self), indent=1, sort_keys=True))

    @classmethod
    def load(cls, settings: Settings) -> Job | None:
        p = cls.path(settings)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            return cls(**data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as e:
            raise IngestError(f"The unfinished re-processing job {p} is unreadable ({e}); delete it and "
                              "run `motivgraph ingest --re-extract` to re-process everything") from e

    def describe(self) -> str:
        if self.kind == "delete":
            return f"delete {', '.join(self.delete)}"
        if self.kind == "undo":
            return f"merges undo {self.decision_id}"
        what = f" --only-extractor {self.only_extractor}" if self.only_extractor else ""
        return f"ingest --re-extract{what}"


@dataclass
class ReprocessReport:
    """Everything the CLI shows about one re-processing command."""

    kind: str
    resumed: bool = False  # an unfinished job was finished first
    extractor: str | None = None
    banner: str | None = None
    reextracted: list[str] = field(default_factory=list)
    replayed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (paper id, why)
    nodes_removed: int = 0
    vectors_removed: int = 0
    aliases_removed: int = 0
    triples_before: int = 0
    triples_after: int = 0
    miner_rows: list[tuple[str, str]] = field(default_factory=list)
    derived: DerivedReport | None = None

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["skipped"] = [{"paper_id": p, "why": w} for p, w in self.skipped]
        d["miner"] = dict(self.miner_rows)
        del d["miner_rows"]
        return d


# -- finding papers ------------------------------------------------------------------------------------------


def doc_keys(settings: Settings, store: GraphStore, paper_ids: Iterable[str]) -> dict[str, str]:
    """paper id -> ingest ledger key (the parsed cache's key), from the ledger or the paper's sha256."""
    wanted = set(paper_ids)
    out: dict[str, str] = {}
    path = Path(settings.data_dir) / "ingest" / "ledger.sqlite"
    if path.exists():
        led = Ledger(path)
        try:
            for row in led.rows():
                if row.paper_id in wanted and row.paper_id not in out and row.state != "failed":
                    out[row.paper_id] = row.sha256
        finally:
            led.close()
    for pid in wanted - set(out):
        rec = store.get_paper(pid)
        if rec is not None and rec.sha256:
            out[pid] = rec.sha256
    return out


def ledger_files(settings: Settings) -> dict[str, Path]:
    """ingest ledger key -> the file it was read from."""
    path = Path(settings.data_dir) / "ingest" / "ledger.sqlite"
    if not path.exists():
        return {}
    led = Ledger(path)
    try:
        return {row.sha256: Path(path_from_text(row.path)) for row in led.rows()}
    finally:
        led.close()


def extractor_of(store: GraphStore, extractions: ExtractionStore, pid: str) -> str | None:
    ext = extractions.extractor_of(pid)
    if ext is not None:
        return ext
    triples = store.paper_triples(pid)
    return triples[0].extractor if triples else None


def _first_ingest_order(extractions: ExtractionStore, decisions: DecisionLog) -> Callable[[str], tuple[int, int]]:
    """Sort key: papers recorded in the extraction store by their first-stored `seq`; papers stored
    before that record existed (all of them earlier) by their first decision in the decision log."""
    seq = extractions.order()
    first: dict[str, int] = {}
    for r in decisions.merges():
        if r["paper_id"] is not None:
            first.setdefault(r["paper_id"], int(r["id"]))

    def key(pid: str) -> tuple[int, int]:
        if pid in seq:
            return (1, seq[pid])
        return (0, first.get(pid, 0))

    return key


def _affected(store: GraphStore, decisions: DecisionLog, seed: set[str]) -> set[str]:
    """Papers (besides `seed`) whose resolution may change when the seed papers' nodes change:
    those stating a node a seed paper states, or whose logged decision kept a mention apart from
    one — transitively."""
    by_candidate: dict[str, set[str]] = {}
    for r in decisions.merges():
        if r["paper_id"] and r["candidate_key"] and r["decision"] in _CANDIDATE_MATTERS:
            by_candidate.setdefault(r["candidate_key"], set()).add(r["paper_id"])
    keys: set[str] = set()
    seen = set(seed)
    frontier = set(seed)
    while frontier:
        new_keys: set[str] = set()
        for pid in frontier:
            for t in store.paper_triples(pid):
                new_keys.update(n.key for n in (t.problem, t.challenge, t.solution) if n.key)
        new_keys -= keys
        keys |= new_keys
        papers = store.papers_stating(sorted(new_keys)) if new_keys else set()
        for k in new_keys:
            papers |= by_candidate.get(k, set())
        frontier = {p for p in papers - seen if store.get_paper(p) is not None}
        seen |= frontier
    return seen - seed


def plan_job(rt: Runtime, kind: str, *, reextract: Sequence[str] = (), delete: Sequence[str] = (),
              replay_seed: Sequence[str] = ()) -> Job:
    """Which papers come out and go back in, in which order (see the module doc)."""
    settings, store = rt.settings, rt.store
    extractions = ExtractionStore.for_data_dir(settings.data_dir)
    decisions = DecisionLog.for_data_dir(settings.data_dir)
    try:
        order_key = _first_ingest_order(extractions, decisions)
        seed = {*reextract, *delete, *replay_seed}
        replay = set(replay_seed)
        if seed:
            start = min(order_key(p) for p in seed)
            replay |= {p for p in _affected(store, decisions, seed) if order_key(p) > start}
        replay -= {*reextract, *delete}
        order = sorted({*reextract, *replay}, key=lambda p: (order_key(p), p))
    finally:
        extractions.close()
        decisions.close()
    return Job(kind=kind, reextract=sorted(reextract), delete=sorted(delete), replay=sorted(replay), order=order,
               doc_keys=doc_keys(settings, store, [*order, *delete]),
               created=datetime.now(UTC).isoformat(timespec="seconds"))


# -- running a job -------------------------------------------------------------------------------------------


def _failed_transiently(task: asyncio.Future[Any]) -> bool:
    """An extraction that ran ahead and already failed on a transient error (an outage the gate has
    since waited out): it is run again rather than counted as a new failure."""
    if not task.done() or task.cancelled():
        return False
    exc = task.exception()
    return exc is not None and is_transient(exc)


class _Runner:
    def __init__(self, rt: Runtime, job: Job, report: ReprocessReport, note: Note | None) -> None:
        self.rt = rt
        self.settings = rt.settings
        self.store = rt.store
        self.job = job
        self.report = report
        self.note = note or (lambda _m: None)
        self.cache = ParsedCache.for_data_dir(self.settings.data_dir)
        self.parser: DocumentParser | None = None  # made on the first paper that must be parsed again

    def remove(self, pid: str, *, drop: bool) -> None:
        """Take one paper out of the graph and its orphaned nodes out of the index and parent runs."""
        v0 = self.store.node_version()
        r = self.store.remove_paper(pid, drop_paper=drop)
        self.report.nodes_removed += len(r.nodes_removed)
        self.report.aliases_removed += r.aliases_removed
        if r.nodes_removed:
            self.report.vectors_removed += self.rt.node_index.remove(r.nodes_removed, from_version=v0)
            decisions = DecisionLog.for_data_dir(self.settings.data_dir)
            try:
                decisions.forget_members(r.nodes_removed)
            finally:
                decisions.close()

    async def load(self, pid: str) -> Paper:
        """The parsed paper: from the parsed-document cache, else parsed again from its file."""
        key = self.job.doc_keys.get(pid)
        paper = self.cache.get(key) if key else None
        if paper is not None:
            return paper

        row = None
        path = Path(self.settings.data_dir) / "ingest" / "ledger.sqlite"
        if key and path.exists():
            led = Ledger(path)
            try:
                row = led.get(key)
            finally:
                led.close()
        file = Path(path_from_text(row.path)) if row is not None else None
        kind = kind_of(file) if file is not None else None
        if file is None or kind is None or not file.exists():
            raise IngestError(f"paper {pid}: no parsed copy in {self.cache.root} and its source file is "
                              f"{'gone' if file is not None else 'unknown'}; ingest the file again")
        dk = next((d for d in await asyncio.to_thread(kind.keys, file) if d.key == key), None)
        if dk is None:
            raise IngestError(f"paper {pid}: {file} no longer holds the document that was ingested")
        if kind.needs_parser and self.parser is None:
            self.parser = await make_parser(self.settings.ingest, None, workers=1)
        item = WorkItem(key, kind.name, file, dk.size, dk.ref)  # type: ignore[arg-type]
        paper = await kind.load(item, self.parser, self.settings)
        paper.source_path = item.display
        if kind.needs_parser:
            await asyncio.to_thread(self.cache.put, paper, cache_tag(paper, self.settings.ingest))
        return paper

    def paper_from_graph(self, pid: str) -> Paper:
        rec = self.store.get_paper(pid)
        if rec is None:
            raise IngestError(f"paper {pid} is no longer in the graph")
        return Paper(paper_id=pid, title=rec.title, abstract=rec.abstract, year=rec.year, venue=rec.venue,
                     authors=rec.authors, sha256=rec.sha256, source_path=rec.source_path)

    async def stored_extraction(self, pid: str, sink: MinerSink) -> ExtractionResult:
        extractions = ExtractionStore.for_data_dir(self.settings.data_dir)
        try:
            result = extractions.get(pid)
        finally:
            extractions.close()
        if result is not None:
            return result
        # stored before extractions were kept: its own extractor again (the LLM's reply is cached)
        paper = await self.load(pid)
        original = extractor_of(self.store, sink.extractions, pid) or "heuristic"
        if original == "llm":
            if sink.mode != "llm":
                raise ConfigError(f"paper {pid} was extracted by the LLM before extractions were kept; set "
                                  "MOTIVGRAPH_LLM_MODEL (its cached reply is reused) to re-process it")
            return await sink.extractor.extract(paper)

        return await HeuristicExtractor(sink.embedder, sink.cfg).extract(paper)

    async def run(self, client: LLMClient | None, mode: ExtractorName | None) -> None:
        job, settings = self.job, self.settings
        ledger = Ledger.for_data_dir(Path(settings.data_dir))
        # transient failures pause, reconnect and retry the step (see the module doc)
        gate = TransientGate(settings, [embedded_store_recovery(settings, self.store)], self.note)
        try:
            if not job.removed:
                # phase 1: everything out first, so no paper is resolved against what is being replaced
                for pid in [*job.delete, *job.order]:
                    await gate.run(partial(asyncio.to_thread, self.remove, pid, drop=pid in job.delete),
                                   f"taking {pid} out")
                if job.delete:
                    await asyncio.to_thread(self.rt.paper_index.remove, job.delete)
                    extractions = ExtractionStore.for_data_dir(settings.data_dir)
                    try:
                        for pid in job.delete:
                            extractions.forget(pid)
                    finally:
                        extractions.close()
                    for pid in job.delete:
                        if pid in job.doc_keys:
                            ledger.forget(job.doc_keys[pid])  # the same file may be ingested again later
                for pid in job.reextract:
                    if pid in job.doc_keys:
                        ledger.mark(job.doc_keys[pid], "parsed")  # pending extraction
                job.removed = True
                job.save(settings)
            todo = [p for p in job.order if p not in job.done and p not in job.failed]
            if not todo:
                return
            chosen = client
            sink = await store_step(lambda: MinerSink(self.rt, client=chosen, mode=mode), settings, self.note)
            client = None  # the sink owns it now
            if job.reextract:  # replays call no extractor: no banner about one
                self.report.extractor = sink.mode
                self.report.banner = sink.banner()
            # extraction does not depend on the graph: it runs ahead, `ingest.concurrency` papers at
            # a time; resolution and writes stay one paper at a time, in order
            sem = asyncio.Semaphore(max(1, settings.ingest.concurrency))

            async def extract(pid: str) -> tuple[Paper, Any]:
                async with sem:
                    paper = await self.load(pid)
                    return paper, await sink.extract(paper)

            ahead = {pid: asyncio.ensure_future(extract(pid)) for pid in todo if pid in job.reextract}
            extracted_now: dict[str, tuple[Paper, Any]] = {}  # kept across retries of the store step

            async def put_back(pid: str) -> SinkResult:
                # a paper half-written by a killed run (or a failed attempt) is taken out again first
                await asyncio.to_thread(self.remove, pid, drop=False)
                if pid not in job.reextract:
                    result = await self.stored_extraction(pid, sink)
                    return await sink.commit(self.paper_from_graph(pid), result)
                if pid not in extracted_now:
                    task = ahead.pop(pid, None)
                    if task is None or _failed_transiently(task):
                        task = asyncio.ensure_future(extract(pid))  # after an outage: extract again
                    extracted_now[pid] = await task
                paper, extracted = extracted_now[pid]
                return extracted if isinstance(extracted, SinkResult) else await sink.commit(paper, extracted)

            try:
                for i, pid in enumerate(todo, 1):
                    what = "re-extracting" if pid in job.reextract else "replaying"
                    self.note(f"[{i}/{len(todo)}] {what} {pid}")
                    res = await gate.run(partial(put_back, pid), pid)
                    extracted_now.pop(pid, None)
                    key = job.doc_keys.get(pid)
                    if res.status == "failed":
                        job.failed[pid] = res.error or "extraction failed"
                        if key:
                            ledger.fail(key, job.failed[pid], "extraction failed")
                    else:
                        job.done.append(pid)
                        if key:
                            ledger.mark(key, "stored", counts=res.counts)
                    job.save(settings)
            finally:
                for task in ahead.values():
                    task.cancel()
                await asyncio.gather(*ahead.values(), return_exceptions=True)
                rows = sink.report_rows()
                if not job.reextract:
                    rows = [(k, "none: replayed from stored extractions" if k == "extractor" else v) for k, v in rows]
                self.report.miner_rows = rows
                await asyncio.to_thread(sink.close)
        finally:
            ledger.close()
            if client is not None:
                client.close()
            if self.parser is not None:
                await self.parser.aclose()


async def _execute(job: Job, rt: Runtime, report: ReprocessReport, *, client: LLMClient | None,
                   mode: ExtractorName | None, note: Note | None) -> None:
    await _Runner(rt, job, report, note).run(client, mode)
    report.reextracted += [p for p in job.reextract if p in job.done]
    report.replayed += [p for p in job.replay if p in job.done]
    report.deleted += job.delete
    report.failed.update(job.failed)
    report.derived = await store_step(lambda: repair_derived(rt), rt.settings, note)
    Job.path(rt.settings).unlink(missing_ok=True)


async def with_job(settings: Settings, kind: str, plan: Callable[[Runtime], Job | None], *,
                    same: Callable[[Job], bool], client: LLMClient | None = None, mode: ExtractorName | None = None,
                    note: Note | None = None) -> ReprocessReport:
    """Finish an unfinished job first (the same request only resumes it), then plan and run this one."""

    rt = Runtime(settings)
    report = ReprocessReport(kind=kind)

    def triples() -> int:
        return rt.store.stats().triples

    try:
        pending = Job.load(settings)
        if pending is not None:
            report.resumed = True
            if note is not None:
                note(f"finishing an unfinished job first: {pending.describe()} ({len(pending.done)} of "
                     f"{len(pending.order)} papers done)")
            given, client = client, None  # the pending job's runner owns (and closes) it
            await _execute(pending, rt, report, client=given, mode=mode, note=note)
            if same(pending):
                report.triples_after = await store_step(triples, settings, note)
                return report
            mode, client = decide_extractor(settings)
        report.triples_before = await store_step(triples, settings, note)
        job = await store_step(lambda: plan(rt), settings, note)
        if job is not None:
            job.save(settings)
            given, client = client, None
            await _execute(job, rt, report, client=given, mode=mode, note=note)
        report.triples_after = await store_step(triples, settings, note)
        return report
    finally:
        if client is not None:
            client.close()
        await asyncio.to_thread(rt.close)


def pending_job(settings: Settings) -> Job | None:
    """The unfinished re-processing job, if a command was interrupted."""
    return Job.load(settings)


__all__ = ["EXTRACTORS", "Job", "Note", "ReprocessReport", "doc_keys", "extractor_of", "ledger_files", "pending_job",
           "plan_job", "with_job"]
