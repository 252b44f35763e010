"""The composition root of `motivgraph ingest`: it builds the plan, the parser, the extractor and the sink once,
runs the pipeline (`ingest.pipeline.execute(plan, parser, sink)`) and repairs the derived indexes. The CLI renders
the returned `IngestRun`; it decides nothing itself, and nothing below decides what was built here.

Control goes CLI → here → pipeline → stages → sink. This sits in the miner layer because the extraction sink
does; with `extract=False` the ingest layer's GraphPaperSink stores Paper nodes only. One Runtime per command:
the sink, the store the pipeline reconnects after a transient failure, and the index repair all share it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from motivgraph.errors import ExtractionGateStop, IngestInterrupted, RunStopped
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.derived import DerivedReport, repair_derived
from motivgraph.ingest.parser_choice import resolve_parser
from motivgraph.ingest.pipeline import execute
from motivgraph.ingest.plan import IngestPlan, plan_async
from motivgraph.ingest.sinks import GraphPaperSink
from motivgraph.ingest.summary import IngestProgress, IngestSummary, dry_run_summary
from motivgraph.ingest.transient import embedded_store_recovery, store_step
from motivgraph.miner.estimate import IngestEstimate, estimate_plan
from motivgraph.miner.extractor_choice import decide_extractor
from motivgraph.miner.gate import GateDecision, gate_message
from motivgraph.miner.ray_engine import ray_engine
from motivgraph.miner.sink import MinerSink

if TYPE_CHECKING:
    from motivgraph.choices import Engine, ParserName
    from motivgraph.ingest.parsers import DocumentParser
    from motivgraph.ingest.sinks import PaperSink
    from motivgraph.miner.schemas import ExtractorName
    from motivgraph.settings import Settings


@dataclass
class IngestRequest:
    paths: list[str]
    parser: ParserName | None = None
    concurrency: int | None = None
    limit: int | None = None
    dry_run: bool = False
    retry_failed: bool = False
    extract: bool = True
    budget_usd: float | None = None
    engine: Engine = "local"  # "ray": per-document work as Ray tasks (miner/ray_engine.py)


@dataclass
class IngestRun:
    """Everything the CLI shows about one `ingest` command."""

    summary: IngestSummary
    plan: IngestPlan
    extractor: ExtractorName | None = None  # None: no extraction
    banner: str | None = None
    estimate: IngestEstimate | None = None  # dry run with the LLM miner
    miner_rows: list[tuple[str, str]] = field(default_factory=list)
    derived: DerivedReport | None = None
    stopped: RunStopped | IngestInterrupted | None = None  # resumable stop: re-run the same command
    engine: str | None = None  # where the per-document work ran, when not in this process ("engine: Ray ...")
    gate: GateDecision | None = None  # the extraction gate's decision (#39), None: no paper with text was mined
    # the run finished but its extraction is not supported by the papers (a failed gate, or no triple at all
    # from papers with text): the message names the cause and the fix; the CLI exits 6
    extraction_failed: str | None = None


def extraction_verdict(sink: MinerSink, stopped: BaseException | None) -> tuple[GateDecision | None, str | None]:
    """The gate's decision for this run (decided now on what was mined when the run had fewer papers than the
    gate waits for) and, when the extraction is not supported, why: a failed gate that was not accepted, or
    papers with text mined and not one triple stored ("done" with an empty graph is the failure users report)."""
    decision = sink.gate.decide()
    if isinstance(stopped, ExtractionGateStop):
        return decision, None  # the stop itself says it
    if decision is not None and not decision.passed and not decision.accepted:
        return decision, gate_message(decision, sink.gate.model)
    if sink.gate.papers and not sink.stats.triples:
        return decision, (f"no triple was stored from the {sink.gate.papers} paper(s) with text "
                          f"({'; '.join(r for r, _ in sink.stats.no_triple_reasons.most_common(2)) or 'no reason'}). "
                          "Check the extractor with `motivgraph llm check`; a stronger model (MOTIVGRAPH_LLM_MODEL) "
                          "or the offline extractor (MOTIVGRAPH_MINER_EXTRACTOR=heuristic) may read these papers.")
    return decision, None


async def run_ingest_command(
    req: IngestRequest,
    settings: Settings,
    *,
    progress: IngestProgress | None = None,
    note: Callable[[str], None] | None = None,
    on_start: Callable[[IngestRun], None] | None = None,
) -> IngestRun:
    """Plan, then either report the dry run or execute it; repair the derived indexes in every
    non-dry run (also when nothing was left to process). `on_start` sees the run (banner) before the
    first document."""
    p = await plan_async(req.paths, settings, parser=req.parser, retry_failed=req.retry_failed, limit=req.limit,
                         concurrency=req.concurrency)
    mode: ExtractorName | None = None
    client = None
    if req.extract:
        mode, client = decide_extractor(settings, budget_usd=req.budget_usd)
    if req.dry_run:
        run = IngestRun(summary=dry_run_summary(p), plan=p, extractor=mode)
        try:
            if client is not None:
                run.estimate = await estimate_plan(p, client, concurrency=req.concurrency)
        finally:
            if client is not None:
                client.close()
        return run

    rt = Runtime(settings)
    # what the plan found, until execute's summary replaces it: a run stopped before the first document (the
    # store down when the sink opens) still reports what it found
    run = IngestRun(summary=IngestSummary.of_plan(p), plan=p, extractor=mode)
    try:
        sink: MinerSink | GraphPaperSink
        if req.extract:
            chosen = client
            sink = await store_step(lambda: MinerSink(rt, client=chosen, mode=mode), settings, note)
            client = None  # the sink owns it now
            run.banner = sink.banner()
        else:
            sink = GraphPaperSink(await store_step(lambda: rt.store, settings, note))
        try:
            async with contextlib.AsyncExitStack() as stack:
                parser: DocumentParser
                doc_sink: PaperSink = sink
                concurrency = req.concurrency
                if req.engine == "ray" and p.todo:  # nothing to do: no cluster to start
                    run_id = sink.client.run_id if isinstance(sink, MinerSink) and sink.client is not None else None
                    eng = await stack.enter_async_context(
                        ray_engine(settings, p.todo, parser=p.parser, extractor=mode, run_id=run_id))
                    run.engine, parser, doc_sink = eng.label, eng.parser, eng.sink(sink)
                    concurrency, progress = req.concurrency or eng.in_flight, eng.progress(progress)
                else:
                    parser = await resolve_parser(p, workers=concurrency)
                    stack.push_async_callback(parser.aclose)
                if on_start is not None:
                    on_start(run)
                run.summary = await execute(p, parser, doc_sink, concurrency=concurrency, progress=progress,
                                            recover=embedded_store_recovery(settings, rt.store), note=note)
        except (RunStopped, IngestInterrupted) as e:
            run.stopped = e
            # what was done before the stop (execute attaches it): a stopped run's summary is not all zeros
            run.summary = getattr(e, "summary", run.summary)
        finally:
            if isinstance(sink, MinerSink):
                run.gate, run.extraction_failed = extraction_verdict(sink, run.stopped)
                run.miner_rows = sink.report_rows()
                await asyncio.to_thread(sink.close)
        if not isinstance(run.stopped, IngestInterrupted):  # the store is down: the re-run repairs them
            run.derived = await store_step(lambda: repair_derived(rt), settings, note)
    finally:
        if client is not None:
            client.close()
        await asyncio.to_thread(rt.close)
    return run
