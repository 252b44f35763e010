"""`motivgraph ingest … --engine ray`: per-document parse and extraction as Ray tasks, one writer on the driver.

What runs where:
- the driver keeps the plan (walk, hash, dedupe), the ledger, the parsed cache, identity resolution and
  every store write: it runs the same `ingest.pipeline.execute` as the local engine, with two seams
  swapped — the DocumentParser (`RayParser`: each parse is a Ray task) and the sink (`RayExtractionSink`:
  each extraction is a Ray task, whose result the local MinerSink resolves and writes through its own
  `commit`). So the progress bar, summary, ledger/resume, budget and the transient/permanent failure
  taxonomy are the local engine's, and the graph is the same;
- a Ray worker parses (the offline parser in a child process with the per-document timeout and memory
  cap, or GROBID) and extracts (the offline extractor or the LLM miner). Its parser, LLM client and
  embedder live as long as the worker process and are reused by every task of the same run.

Failures travel back as values (`Failure`), classified on the worker, where the whole exception chain is
still there: a transient one (LLM endpoint, GROBID or network down, spent budget) raises on the driver
as a transient error, so the pipeline's TransientGate pauses and retries the document as it does locally;
a permanent one fails the document with its own error class and message. A worker process that dies
mid-task (killed, out of memory) is Ray's to handle: the task is re-run up to `ray.max_retries` times,
then the document is recorded as failed.

Concurrency: Ray's scheduler places the tasks (one CPU per parse or offline extraction). LLM and GROBID
calls are capped across the whole cluster by the one driver that submits every task of a run
(`ray.llm_concurrency`, `ray.grobid_concurrency`): a provider's rate limit is global, not per worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motivgraph import plugins
from motivgraph.embeddings import get_embedder
from motivgraph.errors import (
    BackendUnavailable,
    BudgetExceeded,
    ExternalServiceError,
    IngestError,
    LLMError,
    MotivGraphError,
    ParseError,
    RunStopped,
)
from motivgraph.ingest.models import Paper
from motivgraph.ingest.parsers import make_parser
from motivgraph.ingest.sinks import SinkResult
from motivgraph.llm.usage import RoleUsage, Usage
from motivgraph.miner.evidence import verify_result
from motivgraph.miner.extract import LLMExtractor
from motivgraph.miner.heuristic import HeuristicExtractor
from motivgraph.miner.sink import MinerSink
from motivgraph.outbound import is_transient
from motivgraph.ray_cluster import RayInfo, import_ray, ray_session

if TYPE_CHECKING:
    from motivgraph.choices import ParserName
    from motivgraph.ingest.parsers import DocumentParser
    from motivgraph.ingest.plan import WorkItem
    from motivgraph.ingest.sinks import PaperSink
    from motivgraph.ingest.summary import DocOutcome, IngestProgress
    from motivgraph.miner.schemas import ExtractionResult
    from motivgraph.miner.sink import MinerSink
    from motivgraph.settings import Settings

log = logging.getLogger(__name__)

# An LLM extraction waits on the network: a quarter of a CPU each, so the cluster-wide cap
# (ray.llm_concurrency), not the CPU count, bounds the calls in flight. Parsing and the offline
# extractor are CPU-bound: one CPU each.
_LLM_TASK_CPUS = 0.25


@dataclass(frozen=True)
class RunInputs:
    """What every task of one run needs; put in the object store once per run."""

    token: str  # one run: a worker's cached parser/extractor belong to it
    settings: Settings
    parser: ParserName  # the parser the driver resolved
    extractor: str | None  # "llm" | "heuristic" | None (no extraction)
    run_id: str | None  # the driver's LLM run id, so the usage log tells one run's calls together


@dataclass(frozen=True)
class Failure:
    """An exception of a task, classified where its cause chain is still whole."""

    kind: str  # "budget" | "transient" | "extraction" (an unusable LLM reply) | "permanent"
    cls: str  # module:qualname of the exception
    message: str

    @classmethod
    def of(cls, e: BaseException) -> Failure:
        name = f"{type(e).__module__}:{type(e).__qualname__}"
        if isinstance(e, RunStopped):  # a clean stop (a spent budget, the gate): the driver stops resumably
            return cls("budget", name, str(e))
        if is_transient(e):
            return cls("transient", name, str(e))
        return cls("extraction" if isinstance(e, LLMError) else "permanent", name, str(e))

    def exception(self) -> BaseException:
        """The driver-side exception: the same class where it can be rebuilt from its message."""
        if self.kind == "budget":
            return BudgetExceeded(self.message)
        if self.kind == "transient":
            return ExternalServiceError(f"{self.message} (on a Ray worker)")
        qualname = self.cls.partition(":")[2]
        try:
            exc_cls = plugins.resolve(self.cls)
            if isinstance(exc_cls, type) and issubclass(exc_cls, MotivGraphError):
                return exc_cls(self.message)
        except Exception:  # not importable or not constructible from a message: keep the name in the text
            log.debug("cannot rebuild %s on the driver", self.cls)
        return RuntimeError(f"{qualname or self.cls}: {self.message}")  # a bug: "internal error", as locally


# -- worker side: one state per worker process, per run -------------------------------------------------------------


class _WorkerState:
    """A worker's parser, extractor and event loop for one run (built on first use, reused by its tasks)."""

    def __init__(self, job: RunInputs) -> None:
        self.job = job
        self.loop = asyncio.new_event_loop()  # the parser's process pool and the LLM client bind to one loop
        self.parser: DocumentParser | None = None
        self.extractor: Any = None
        self.client: Any = None

    def parse(self, path: Path, sha256: str) -> Paper:
        return self.loop.run_until_complete(self._parse(path, sha256))

    async def _parse(self, path: Path, sha256: str) -> Paper:
        if self.parser is None:
            # one child process: the timeout and memory cap of the local engine, one parse per worker at a time
            self.parser = await make_parser(
                self.job.settings.ingest,
                self.job.parser,
                workers=1,
            )
        return await self.parser.parse(path, sha256)

    def extract(self, paper: Paper, budget_usd: float | None) -> tuple[ExtractionResult, dict[str, Any]]:
        settings = self.job.settings
        if self.extractor is None:
            embedder = get_embedder(settings.embedding)
            if self.job.extractor == "llm":
                from motivgraph.llm import LLMClient  # local: offline ingest loads no LangChain

                self.client = LLMClient(settings, budget_usd=budget_usd, run_id=self.job.run_id)
                self.extractor = LLMExtractor(self.client, settings.miner, embedder)
            else:
                self.extractor = HeuristicExtractor(embedder, settings.miner)
        if self.client is not None:
            # this task's usage alone, against what is left of the run's budget (the driver adds it up)
            self.client.usage, self.client.budget_usd = Usage(), budget_usd
        try:
            result = self.loop.run_until_complete(self.extractor.extract(paper))
            # the quotes checked here, against the parse the worker holds (#39): the driver gets them with the result
            result.evidence = verify_result(paper, result)
        finally:
            usage = self.client.usage.to_dict() if self.client is not None else {}
        return result, usage

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.parser is not None:
                self.loop.run_until_complete(self.parser.aclose())
        with contextlib.suppress(Exception):
            if self.client is not None:
                self.client.close()
        self.loop.close()


_STATE: _WorkerState | None = None


def _state(job: RunInputs) -> _WorkerState:
    """This worker's state for `job`: a worker that served another run closes that run's parser first."""
    global _STATE
    if _STATE is None or _STATE.job.token != job.token:
        if _STATE is not None:
            _STATE.close()
        _STATE = _WorkerState(job)
    return _STATE


def parse_task(job: RunInputs, path: Path, sha256: str) -> Paper | Failure:
    try:
        return _state(job).parse(path, sha256)
    except Exception as e:
        return Failure.of(e)


def extract_task(job: RunInputs, paper: Paper, budget_usd: float | None) -> tuple[ExtractionResult | Failure, dict]:
    state = _state(job)
    try:
        return state.extract(paper, budget_usd)
    except Exception as e:
        usage = state.client.usage.to_dict() if state.client is not None else {}
        return Failure.of(e), usage


# -- driver side ----------------------------------------------------------------------------------------------------


_REMOTE: dict[str, Any] = {}


def _remote(fn: Any) -> Any:
    """`fn` as a Ray remote function (made once per process; Ray imported only for the Ray engine)."""
    name = fn.__name__
    if name not in _REMOTE:
        _REMOTE[name] = import_ray().remote(fn)
    return _REMOTE[name]


async def await_task(ref: Any, what: str, retries: int) -> Any:
    """The result of a task, with Ray's own failures in the ingest taxonomy: a worker that died on every
    try fails the document (permanent); a cluster that is gone is transient (pause, reconnect, retry)."""
    ray = import_ray()
    try:
        return await ref
    except asyncio.CancelledError:
        ray.cancel(ref, force=True)  # the run stops (Ctrl-C, budget): do not leave the task running
        raise
    except ray.exceptions.OutOfMemoryError as e:
        raise ParseError(f"out of memory on a Ray worker while {what} (Ray's memory monitor killed it)") from e
    except ray.exceptions.WorkerCrashedError as e:
        tries = f"{retries + 1} time(s) (setting MOTIVGRAPH_RAY_MAX_RETRIES)"
        if what == "parsing":  # `ingest report` groups it with the local engine's crashed parsers
            raise ParseError(
                f"the Ray worker process died while parsing, {tries}; the document may exhaust "
                "memory or crash its parser"
            ) from e
        raise IngestError(f"the Ray worker died while {what}, {tries}") from e
    except ray.exceptions.RayTaskError as e:  # an exception escaped a task (they return failures): a bug
        raise RuntimeError(f"Ray task failed while {what}: {e}") from e
    except ray.exceptions.RayError as e:
        raise BackendUnavailable(f"the Ray cluster failed while {what}: {e}") from e


class RayParser:
    """DocumentParser whose every parse is a Ray task running the parser the driver chose."""

    def __init__(self, job_ref: Any, name: ParserName, description: str, retries: int, grobid_cap: int | None) -> None:
        self.name = name
        self.description = description
        self.retries = retries
        self._job = job_ref
        self._cap = asyncio.Semaphore(grobid_cap) if grobid_cap else None

    async def parse(self, path: Path, sha256: str) -> Paper:
        async with self._cap if self._cap is not None else contextlib.nullcontext():
            ref = _remote(parse_task).options(num_cpus=1, max_retries=self.retries).remote(self._job, path, sha256)
            out = await await_task(ref, "parsing", self.retries)
        if isinstance(out, Failure):
            raise out.exception()
        return out

    async def aclose(self) -> None:
        """Nothing held here: the workers' parsers end with their run (or with the local Ray)."""


class PlanOrder:
    """The writer's turn: papers are resolved and written in the plan's order, whatever order the workers
    finish in, so a Ray ingest writes the graph a sequential local run (`--concurrency 1`) writes — the
    resolver keeps the first-written name of nodes it merges, so the order is part of the result.

    A paper's place is found by its content key (`Paper.sha256`, the plan's key of a parsed document); a
    paper without one (a paper-JSON record: several share one file, and its key is not on the Paper) is
    written when it is ready. A document leaves the line when its outcome is reported (`finished`),
    stored or failed, so a failed one never holds the others up."""

    def __init__(self, todo: Sequence[WorkItem]) -> None:
        self._by_key = {it.key: i for i, it in enumerate(todo)}
        self._done = [asyncio.Event() for _ in todo]
        self._low = 0  # every document before it has finished

    def place(self, paper: Paper) -> int | None:
        return self._by_key.get(paper.sha256) if paper.sha256 is not None else None

    async def turn(self, place: int | None) -> None:
        while place is not None and self._low < place:
            await self._done[self._low].wait()

    def finished(self, key: str) -> None:
        i = self._by_key.get(key)
        if i is None:
            return
        self._done[i].set()
        while self._low < len(self._done) and self._done[self._low].is_set():
            self._low += 1


class _OrderedProgress:
    """The run's progress display, also telling the writer's turn that a document is finished."""

    def __init__(self, order: PlanOrder, inner: IngestProgress | None) -> None:
        self.order, self.inner = order, inner

    def start(self, total: int, parser: str) -> None:
        if self.inner is not None:
            self.inner.start(total, parser)

    def advance(self, outcome: DocOutcome) -> None:
        self.order.finished(outcome.sha256)
        if self.inner is not None:
            self.inner.advance(outcome)


class RayExtractionSink:
    """PaperSink: the extraction as a Ray task, then the MinerSink's own commit (resolve, write, index) on
    the driver — one writer, in the plan's order (PlanOrder), so each paper sees the nodes the previous
    one wrote, as in a sequential local run."""

    def __init__(
        self, inner: MinerSink, job_ref: Any, retries: int, llm_cap: int | None, order: PlanOrder | None = None
    ) -> None:
        self.inner = inner
        self.order = order
        self.retries = retries
        self._job = job_ref
        self._llm = inner.mode == "llm"
        self._cap = asyncio.Semaphore(llm_cap) if self._llm and llm_cap else None
        recover = getattr(inner, "recover", None)
        if recover is not None:
            self.recover = recover

    def _remaining_budget(self) -> float | None:
        """What is left of the run's LLM budget; BudgetExceeded (resumable) when it is spent."""
        client = self.inner.client
        if client is None or client.budget_usd is None:
            return None
        spent = client.usage.cost_usd
        if spent >= client.budget_usd:
            raise BudgetExceeded(
                f"LLM budget of ${client.budget_usd:.4f} reached (spent ${spent:.4f}) before an extractor call; "
                "re-run the same command with a higher --budget-usd / MOTIVGRAPH_LLM_BUDGET_USD to resume"
            )
        return client.budget_usd - spent

    def _add_usage(self, usage: dict[str, dict]) -> None:
        if self.inner.client is None:
            return
        for role, fields in usage.items():
            if role != "total":
                self.inner.client.usage.role(role).add(RoleUsage(**fields))

    async def process(self, paper: Paper) -> SinkResult:
        t0 = time.perf_counter()
        async with self._cap if self._cap is not None else contextlib.nullcontext():
            budget = self._remaining_budget()
            task = _remote(extract_task).options(num_cpus=_LLM_TASK_CPUS if self._llm else 1, max_retries=self.retries)
            out, usage = await await_task(task.remote(self._job, paper, budget), "extracting", self.retries)
        self._add_usage(usage)
        if isinstance(out, Failure):
            if out.kind == "extraction":
                return self.inner.extraction_failed(paper, out.message)
            raise out.exception()
        self.inner.stats.extract_s += time.perf_counter() - t0
        if self.order is not None:
            await self.order.turn(self.order.place(paper))
        return await self.inner.commit(paper, out)


@dataclass
class RayEngine:
    """The seams `execute` runs with on Ray, for one command."""

    info: RayInfo
    parser: RayParser
    in_flight: int
    job_ref: Any
    retries: int
    llm_cap: int
    order: PlanOrder

    @property
    def label(self) -> str:
        return f"engine: {self.info.label}"

    def sink(self, sink: PaperSink) -> PaperSink:
        if isinstance(sink, MinerSink):
            return RayExtractionSink(sink, self.job_ref, self.retries, self.llm_cap, self.order)
        return sink  # Paper nodes only (--no-extract): an upsert per paper, whose order does not matter

    def progress(self, progress: IngestProgress | None) -> IngestProgress:
        return _OrderedProgress(self.order, progress)


@contextlib.asynccontextmanager
async def ray_engine(
    settings: Settings,
    todo: Sequence[WorkItem],
    *,
    parser: ParserName,
    extractor: str | None,
    run_id: str | None,
) -> AsyncIterator[RayEngine]:
    """Start (or join) Ray for one ingest and build its seams. The parser is chosen on the driver (GROBID
    checked once, as locally) so every worker runs the same one and the summary names it."""

    chosen = await make_parser(settings.ingest, parser, workers=1)
    name, description = chosen.name, chosen.description
    await chosen.aclose()  # only its choice is used here: the offline pool starts no process before a parse
    cfg = settings.ray
    with ray_session(cfg) as info:
        ray = import_ray()
        job_ref = ray.put(RunInputs(uuid.uuid4().hex, settings, name, extractor, run_id))
        grobid_cap = (cfg.grobid_concurrency or settings.ingest.grobid_concurrency) if name != "pdf" else None
        yield RayEngine(
            info=info,
            parser=RayParser(job_ref, name, f"{description}, on {info.label}", cfg.max_retries, grobid_cap),
            in_flight=cfg.in_flight or 4 * info.cpus,
            job_ref=job_ref,
            retries=cfg.max_retries,
            llm_cap=cfg.llm_concurrency or settings.llm.concurrency,
            order=PlanOrder(todo),
        )


__all__ = ["Failure", "RayEngine", "RayExtractionSink", "RayParser", "RunInputs", "ray_engine"]
