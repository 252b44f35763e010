"""The miner report counts each paper once when the store drops out mid-write (issue #30 item 7: after a DB
restart the report said 10 papers extracted for 8). The pipeline reconnects and retries the paper; the
report's figures must still agree with the ledger and the graph. Offline extractor, papers written here."""

from __future__ import annotations

from typing import Any

from motivgraph.errors import BackendUnavailable
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.parser_choice import resolve_parser
from motivgraph.ingest.pipeline import execute
from motivgraph.ingest.plan import plan_async
from motivgraph.miner.decisions import DecisionLog
from motivgraph.miner.sink import MinerSink
from tests.topic_records_support import write_topic_records

N_PAPERS = 4


async def _no_restart() -> None:
    """The test's store is a shared server: 'reconnecting' is the retry itself."""


async def test_report_counts_each_paper_once_when_a_write_meets_a_store_outage(settings, store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings.ingest.transient_backoff_s = 0.01
    papers = tmp_path / "papers.jsonl"
    n = N_PAPERS
    write_topic_records(papers, n, prefix="count")
    sink = MinerSink(Runtime(settings), mode="heuristic")
    real_upsert = sink.store.upsert_triples
    outages = {"left": 2}

    def upsert_triples(triples: Any) -> Any:
        # the second and third paper's writes meet the outage once each, after the resolver named their nodes
        if triples[0].paper_id in {"id:count-1", "id:count-2"} and outages["left"]:
            outages["left"] -= 1
            raise BackendUnavailable("the graph store went away mid-write")
        return real_upsert(triples)

    sink.store.upsert_triples = upsert_triples  # type: ignore[method-assign]
    try:
        plan = await plan_async([papers], settings, concurrency=1)
        summary = await execute(plan, await resolve_parser(plan), sink, concurrency=1, recover=_no_restart)  # records
    finally:
        sink.close()
    assert outages["left"] == 0 and summary.transient_pauses >= 1
    ledger = Ledger.for_data_dir(settings.data_dir)
    try:
        stored = ledger.counts()["stored"]
    finally:
        ledger.close()
    s = sink.stats
    assert stored == n and summary.ok == n
    assert s.papers == n, f"papers extracted {s.papers} for {n} stored"
    assert s.papers_with_triples == n and s.papers_without_triples == s.failed == 0
    graph = store.stats()
    assert s.triples == graph.triples > 0
    nodes = sum(graph.nodes.get(k, 0) for k in ("Problem", "Challenge", "Solution"))
    assert s.new_nodes == nodes, f"report says {s.new_nodes} new nodes, the graph holds {nodes}"
    log = DecisionLog.for_data_dir(settings.data_dir)
    try:
        outcomes = [r["paper_id"] for r in log.extractions() if r["outcome"] in ("ok", "no_triples")]
    finally:
        log.close()
    assert sorted(outcomes) == sorted(set(outcomes)) and len(outcomes) == n  # one outcome per paper
    index = Runtime(settings).node_index
    assert len(index) == nodes  # every node the retried papers created is findable by the resolver
