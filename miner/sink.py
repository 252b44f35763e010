"""The miner's ingest sink: extract → resolve → upsert → index, one parsed paper at a time (each new
node's text is embedded once, by the resolver; the index takes those vectors).

The extractor is chosen in one place (miner/extractor_choice.py); the sink says which, plainly, in `banner()`
and in the final report. Extraction runs concurrently (the ingest pipeline's
concurrency); resolution and the graph/index writes are serialised so each paper sees the nodes
the previous one wrote. Re-processing a paper is idempotent: LLM replies come from the cache,
resolution finds the nodes written before, and upserts MERGE.

A paper whose LLM reply stays unusable after the LLM layer's repairs is a per-paper failure
(recorded in the ledger and the decision log); the run goes on. An endpoint that is down or timing
out (a transient failure) is re-raised: the ingest pipeline pauses and retries the paper. A spent budget stops the run
(BudgetExceeded): the papers not yet done stay in the ledger as parsed and the next run resumes.
"""

from __future__ import annotations

import asyncio
import logging
import re
import textwrap
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from motivgraph.errors import BudgetExceeded, LLMError
from motivgraph.graph.models import Evidence, NodeRef, TripleIn
from motivgraph.ingest.sinks import SinkResult
from motivgraph.miner.decisions import DecisionLog
from motivgraph.miner.evidence import QuoteTally, apply_policy, verify_result
from motivgraph.miner.extract import LLMExtractor
from motivgraph.miner.extractions import ExtractionStore
from motivgraph.miner.extractor_choice import OFFLINE_NOTICE, extractor_mode
from motivgraph.miner.gate import ExtractionGate
from motivgraph.miner.heuristic import HeuristicExtractor
from motivgraph.miner.resolve import Resolver
from motivgraph.miner.text import select_input
from motivgraph.outbound import is_transient

if TYPE_CHECKING:
    import numpy as np

    from motivgraph.graph.runtime import Runtime
    from motivgraph.ingest.models import Paper
    from motivgraph.llm import LLMClient
    from motivgraph.miner.schemas import ExtractionResult, ExtractorName
    from motivgraph.settings import MinerSettings

log = logging.getLogger(__name__)


def reason_key(reason: str, width: int = 90) -> str:
    """A no-triple reason as a report key: numbers folded (so equal reasons group), cut at a word boundary."""
    return textwrap.shorten(re.sub(r"\d+", "N", reason), width=width, placeholder=" …")


@dataclass
class MinerStats:
    papers: int = 0
    papers_with_triples: int = 0
    papers_without_triples: int = 0
    failed: int = 0
    triples: int = 0
    rejected: int = 0
    reasked: int = 0
    new_nodes: int = 0
    decisions: Counter[str] = field(default_factory=Counter)
    no_triple_reasons: Counter[str] = field(default_factory=Counter)
    extract_s: float = 0.0
    write_s: float = 0.0
    verify_s: float = 0.0
    quotes: QuoteTally = field(default_factory=QuoteTally)  # of the stored papers' triples (#39)
    unverified_kept: int = 0  # triples stored marked unverified (policy keep)
    unverified_rejected: int = 0  # triples not stored for unverified evidence (policy reject)

    @property
    def merges(self) -> int:
        return sum(self.decisions[k] for k in ("exact", "alias", "auto_merge", "llm_merge"))


def has_text(paper: Paper, cfg: MinerSettings) -> bool:
    """A paper the extractor could read (what the gate counts): a research paper with enough words."""
    return select_input(paper, cfg).unusable_reason is None


class MinerSink:
    """The PaperSink of an ingest with extraction (see module doc)."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        client: LLMClient | None = None,
        mode: ExtractorName | None = None,
        use_index: bool = True,
    ) -> None:
        self.runtime = runtime
        self.settings = runtime.settings
        self.cfg = self.settings.miner
        self.client = client
        self.mode = mode or extractor_mode(self.settings, client)
        if self.mode == "llm" and client is None:
            from motivgraph.llm import get_client  # local: offline ingest loads no LangChain

            self.client = get_client(self.settings, role="extractor")  # ConfigError names the setting
        self.decisions = DecisionLog.for_data_dir(self.settings.data_dir)
        self.extractions = ExtractionStore.for_data_dir(self.settings.data_dir)
        self.store = runtime.store
        self.embedder = runtime.embedder
        self.index = runtime.node_index if use_index else None
        if self.index is not None:
            st = self.index.status()
            if st.state in ("stale", "corrupt") or (st.state == "missing" and any(self.store.stats().nodes.values())):
                log.info("node index %s; rebuilding before ingest", st.state)
                self.index.rebuild()
        self.extractor: LLMExtractor | HeuristicExtractor
        if self.mode == "llm":
            assert self.client is not None
            self.extractor = LLMExtractor(self.client, self.cfg, self.embedder)
        else:
            self.extractor = HeuristicExtractor(self.embedder, self.cfg)
        self.resolver = Resolver(self.store, self.index, self.embedder, self.cfg, self.decisions, self.client)
        self.stats = MinerStats()
        self._held: dict[str, int] = {}  # paper id -> triples the graph holds for it after this run's last write
        model = self.client.model_id("extractor") if self.mode == "llm" and self.client is not None else None
        self.gate = ExtractionGate(self.cfg.gate_papers, self.cfg.gate_min_verified_rate, self.cfg.accept_unverified,
                                   model=model)
        # new nodes buffered before one index write (an append to the live generation: its cost is what it
        # adds; the resolver compares mentions with the buffered ones by brute force until then)
        self.index_flush_nodes = 500
        self._unindexed: list[NodeRef] = []
        self._unindexed_vecs: list[np.ndarray] = []  # the resolver's embeddings of them: never computed twice
        self._indexed_version = self.store.node_version()
        self.run_id = self.client.run_id if self.client is not None else time.strftime("%Y%m%dT%H%M%S")
        self._lock = asyncio.Lock()

    # -- reporting -------------------------------------------------------------------------------
    def banner(self) -> str:
        if self.mode == "llm":
            assert self.client is not None
            budget = f", budget ${self.client.budget_usd:g}" if self.client.budget_usd is not None else ""
            return f"extractor: LLM miner ({self.client.model_id('extractor')}{budget})"
        return OFFLINE_NOTICE

    def report_rows(self) -> list[tuple[str, str]]:
        s = self.stats
        rows = [
            ("extractor", "LLM miner" if self.mode == "llm" else "OFFLINE heuristic (set MOTIVGRAPH_LLM_MODEL)"),
            ("papers extracted", str(s.papers)),
            ("  with triples / none / failed", f"{s.papers_with_triples} / {s.papers_without_triples} / {s.failed}"),
            ("triples stored", str(s.triples)),
            ("triples rejected (rules; logged)", str(s.rejected)),
            ("quotes located (verified rate)", f"{s.quotes.located} / {s.quotes.given}"
             + (f" ({s.quotes.rate:.1%})" if s.quotes.rate is not None else "")),
            (f"triples unverified (policy {self.cfg.unverified})",
             f"{s.unverified_kept} stored marked" if self.cfg.unverified == "keep"
             else f"{s.unverified_rejected} rejected (logged)"),
            ("new nodes", str(s.new_nodes)),
            ("merges (exact/alias/auto/llm)", f"{s.merges} "
             f"({s.decisions['exact']}/{s.decisions['alias']}/{s.decisions['auto_merge']}/{s.decisions['llm_merge']})"),
            ("kept apart (llm/band/homonym)",
             f"{s.decisions['llm_apart']}/{s.decisions['band_no_llm']}/{s.decisions['homonym']}"),
        ]
        decision = self.gate.decision
        if decision is not None:
            rows.append(("extraction gate", decision.summary()))
        if s.no_triple_reasons:
            top = ", ".join(f"{r} ({n})" for r, n in s.no_triple_reasons.most_common(3))
            rows.append(("no-triple reasons", top))
        if self.client is not None:
            tot = self.client.usage.total()
            rows += [
                ("LLM calls (cache hits)", f"{tot.calls} ({tot.cache_hits})"),
                ("tokens in / out", f"{tot.input_tokens} / {tot.output_tokens}"),
                ("estimated cost", f"${self.client.usage.cost_usd:.4f}"),
            ]
        rows.append(("decision log", str(self.decisions.path)))
        return rows

    # -- the sink ---------------------------------------------------------------------------------
    async def process(self, paper: Paper) -> SinkResult:
        result = await self.extract(paper)
        if isinstance(result, SinkResult):
            return result
        return await self.commit(paper, result)

    async def extract(self, paper: Paper) -> ExtractionResult | SinkResult:
        """The extraction alone (safe to run for several papers at once): the result, or the failed
        SinkResult of a paper whose reply stays unusable. Transient errors and a spent budget raise."""
        self.gate.check()  # a failed gate stops the ingest before more papers are mined
        t0 = time.perf_counter()
        try:
            result = await self.extractor.extract(paper)
        except BudgetExceeded:
            raise
        except LLMError as e:
            if is_transient(e):
                raise  # endpoint down or timing out: the pipeline pauses and retries; not this paper's fault
            return self.extraction_failed(paper, str(e))
        t1 = time.perf_counter()
        self.stats.extract_s += t1 - t0
        # the quotes are checked against the full parse here, with the extraction (CPU-bound: in a thread)
        result.evidence = await asyncio.to_thread(verify_result, paper, result)
        self.stats.verify_s += time.perf_counter() - t1
        return result

    def extraction_failed(self, paper: Paper, error: str) -> SinkResult:
        """Record a paper whose reply stays unusable (a per-paper failure; the run goes on). Shared with
        the Ray engine, whose extraction ran on a worker (miner/ray_engine.py)."""
        self.stats.failed += 1
        self.decisions.log_extraction(paper.paper_id, "failed", error, run_id=self.run_id)
        return SinkResult(status="failed", error=f"extraction failed: {error}")

    async def commit(self, paper: Paper, result: ExtractionResult) -> SinkResult:
        """Resolve and store one paper's extraction (from the extractor, or a stored one replayed by
        `miner.reprocess`), record the outcome and keep the extraction for later replays.

        The paper is counted and its outcome logged only once its write succeeded: a write that meets a
        store outage raises, the pipeline reconnects and calls this again for the same paper, and counting
        before the write counted it once per attempt (the report said 10 papers extracted for 8).

        Evidence (#39): each triple's quotes are located in the paper's parsed text (miner/evidence.py) the
        first time an extraction is committed, and kept with it (a replay has no parse to check against).
        Under `miner.unverified=reject` a triple with an unverified element is rejected with its reason; the
        paper and its other triples are stored in the same write (a paper is never half-stored)."""
        self.gate.check()
        if len(result.evidence) != len(result.triples):
            # not verified at extraction (a replay, a stored extraction from before evidence): here, without
            # an await, so the papers committed together still batch their embeddings in prefetch
            t0 = time.perf_counter()
            result.evidence = verify_result(paper, result)
            self.stats.verify_s += time.perf_counter() - t0
        stored = apply_policy(result, self.cfg.unverified)
        await self.resolver.prefetch(stored.triples)  # embeddings and band LLM calls, outside the lock
        t1 = time.perf_counter()
        async with self._lock:
            counts = await self._store(paper, stored, result)
        self.stats.write_s += time.perf_counter() - t1
        self._count(paper, stored)
        tally = QuoteTally()
        for ev in result.evidence:
            tally.add(ev)
        self.stats.quotes.given += tally.given
        self.stats.quotes.located += tally.located
        unverified = sum(1 for ev in result.evidence if not ev.fully_verified)
        if self.cfg.unverified == "keep":
            self.stats.unverified_kept += unverified
        else:
            self.stats.unverified_rejected += unverified
        counts.update(quotes=tally.given, quotes_verified=tally.located, unverified=unverified)
        if has_text(paper, self.cfg):
            self.gate.record(tally)
        return SinkResult(status="stored", counts=counts)

    def _count(self, paper: Paper, result: ExtractionResult) -> None:
        """The report's per-paper figures and the decision log's outcome, for one stored paper."""
        self.stats.papers += 1
        self.stats.rejected += len(result.rejected)
        self.stats.reasked += int(result.reasked)
        if result.rejected:
            self.decisions.log_extraction(
                paper.paper_id, "rejected",
                f"{len(result.rejected)} triple(s) rejected (naming rules or unverified evidence)",
                [r.model_dump() for r in result.rejected], run_id=self.run_id,
            )
        if not result.triples:
            self.stats.papers_without_triples += 1
            reason = result.reason or "no triples"
            self.stats.no_triple_reasons[reason_key(reason)] += 1
            self.decisions.log_extraction(paper.paper_id, "no_triples", reason, run_id=self.run_id)
        else:
            self.stats.papers_with_triples += 1
            self.decisions.log_extraction(
                paper.paper_id, "ok", None, {"triples": len(result.triples), "extractor": result.extractor},
                run_id=self.run_id,
            )

    async def _store(
        self, paper: Paper, result: ExtractionResult, original: ExtractionResult | None = None
    ) -> dict[str, int]:
        # The resolver lists this paper's new nodes as written (pending their index add) before the write. If
        # the write fails (store outage), they do not exist: forget them, or the retry of this paper merges
        # each mention into its own unwritten node (counted as merges, not new nodes, and never indexed).
        marks = {kind: len(keys) for kind, keys in self.resolver.recent.items()}
        try:
            return await self._resolve_and_write(paper, result, original or result)
        except BaseException:
            for kind, n in marks.items():
                del self.resolver.recent[kind][n:]
            raise

    async def _resolve_and_write(
        self, paper: Paper, result: ExtractionResult, original: ExtractionResult
    ) -> dict[str, int]:
        """`result` is what is stored (the unverified policy applied), `original` the extraction as it came
        (kept for replays, so a later change of policy applies to it again)."""
        resolved = await self.resolver.resolve(paper.paper_id, result.triples)
        evidence = (result.evidence if len(result.evidence) == len(result.triples)
                    else [Evidence() for _ in result.triples])
        triples = [
            TripleIn(
                paper_id=paper.paper_id, index=i, problem=n["problem"], challenge=n["challenge"],
                solution=n["solution"], section=t.section, extractor=result.extractor, evidence=ev,
            )
            for i, (t, n, ev) in enumerate(zip(result.triples, resolved.nodes, evidence, strict=True))
        ]

        # A paper written again (a second document of it, a re-ingest) holds this document's triples only:
        # what an earlier version stated beyond them goes, quotes and all. A document the extractor could
        # not read (a metadata record, a scan) says nothing about the triples, so it leaves them alone.
        replaces = bool(triples) or has_text(paper, self.cfg)
        removed: list[str] = []

        def write() -> int:
            new_paper = self.store.upsert_papers([paper.to_record()])
            if triples:
                self.store.upsert_triples(triples)
            if not new_paper and replaces:
                removed.extend(self._retain(paper.paper_id, triples))
            # what the graph holds for this paper now: a paper written again (a second document of it, a
            # re-run) overwrites its triples by index, so adding len(triples) per write counted them twice
            held = len(self.store.paper_triples(paper.paper_id)) if triples or paper.paper_id in self._held else 0
            self._unindexed.extend(
                NodeRef(key=n.key, type=n.type, name=n.name, description=n.description, level=0)
                for n in resolved.new_nodes
            )
            self._unindexed_vecs.extend(resolved.new_vectors)
            if len(self._unindexed) >= self.index_flush_nodes:
                self._flush_index()
            return held

        held = await asyncio.to_thread(write)
        if removed:  # nodes deleted with the earlier version: no later mention may merge into them
            gone = set(removed)
            for kind in self.resolver.recent:
                self.resolver.recent[kind] = [kv for kv in self.resolver.recent[kind] if kv[0] not in gone]
        # kept so a later `papers delete` / merge undo can replay this paper without the extractor
        self.extractions.put(original)
        self.decisions.log_merges(resolved.decisions, run_id=self.run_id)
        for d in resolved.decisions:
            self.stats.decisions[d.decision] += 1
        self._held[paper.paper_id] = held
        self.stats.triples = sum(self._held.values())  # "triples stored": what the graph holds for this run's papers
        self.stats.new_nodes += len(resolved.new_nodes)
        return {"triples": len(triples), "merges": resolved.merges, "rejected": len(result.rejected)}

    def _retain(self, paper_id: str, triples: list[TripleIn]) -> list[str]:
        """Take the paper's statements that `triples` do not repeat out of the graph (store.retain_paper_triples)
        and the nodes that left with them out of the index, its pending additions and the parent runs."""
        r = self.store.retain_paper_triples(paper_id, triples)
        if not r.nodes_removed:
            return []
        gone = set(r.nodes_removed)
        keep = [i for i, n in enumerate(self._unindexed) if n.key not in gone]
        if len(keep) < len(self._unindexed):
            vecs = self._unindexed_vecs if len(self._unindexed_vecs) == len(self._unindexed) else None
            self._unindexed = [self._unindexed[i] for i in keep]
            self._unindexed_vecs = [vecs[i] for i in keep] if vecs is not None else []
        if self.index is not None:
            # the stamp stays as it was (no from_version): the next flush stamps the index current
            self.index.remove(r.nodes_removed)
        self.decisions.forget_members(r.nodes_removed)
        log.info("paper %s written again: %d earlier statement(s) and %d node(s) it no longer states removed",
                 paper_id, r.states_removed, len(r.nodes_removed))
        return r.nodes_removed

    def _flush_index(self) -> None:
        """Add the buffered new nodes to the index in one write. Stamped current only when the index
        was current at the last flush (`from_version`); otherwise it stays reported stale."""
        if self.index is None or not self._unindexed:
            return
        vectors = self._unindexed_vecs if len(self._unindexed_vecs) == len(self._unindexed) else None
        self.index.add(self._unindexed, from_version=self._indexed_version, vectors=vectors)
        self._unindexed, self._unindexed_vecs = [], []
        self._indexed_version = self.store.node_version()
        self.resolver.forget_recent()

    def close(self) -> None:
        try:
            self._flush_index()
        except Exception as e:  # the graph is complete; only the derived index lags
            log.warning("could not update the node index (%s); run `motivgraph reindex`", e)
        self.decisions.close()
        self.extractions.close()
        if self.client is not None:
            self.client.close()
