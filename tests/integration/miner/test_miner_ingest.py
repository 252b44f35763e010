"""End to end through the ingest pipeline: real PDFs → parse → extract (scripted LLM or offline)
→ resolve → store → index; per-paper failures, budget stop and resume."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from motivgraph.errors import BudgetExceeded
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.llm.tokens import content_text
from motivgraph.miner.sink import MinerSink
from tests.miner_support import GOOD_TRIPLE, scripted_client

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "pdf"
PDFS = ["sp_fader11.pdf", "sp_seung08.pdf", "sp_pedersen04.pdf"]

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus PDFs not found at {CORPUS}")


@pytest.fixture
def pdf_dir(tmp_path: Path) -> Path:
    d = tmp_path / "pdfs"
    d.mkdir()
    for name in PDFS:
        shutil.copy(CORPUS / name, d / name)
    return d


def extractor_reply(messages) -> str:  # type: ignore[no-untyped-def]
    """Per-paper replies keyed on the title the prompt carries; the web-spam paper gets garbage."""
    text = "\n".join(content_text(m.content) for m in messages)
    title = re.search(r"TITLE: (.+)", text)
    title = title.group(1) if title else ""
    if "Spam" in title:
        return "<<< no json here >>>"
    t = json.loads(json.dumps(GOOD_TRIPLE))
    t["challenge"]["name"] = f"Limited reliability of methods in {title[:30]}"
    return json.dumps({"triples": [t], "no_triples_reason": None})


def make_sink(settings, **kw) -> tuple[MinerSink, object]:  # type: ignore[no-untyped-def]
    client, model = scripted_client(settings, default=extractor_reply, **kw)
    return MinerSink(Runtime(settings), client=client, mode="llm"), model


async def test_llm_ingest_stores_merges_and_records_failures(settings, store, pdf_dir) -> None:  # type: ignore[no-untyped-def]
    sink, _ = make_sink(settings)
    try:
        s = await ingest_async([pdf_dir], settings, sink=sink, concurrency=2)
    finally:
        sink.close()
    assert (s.ok, s.failed) == (2, 1)
    bad = next(o for o in s.outcomes if o.state == "failed")
    assert "extraction failed" in (bad.error or "") and bad.path.endswith("sp_pedersen04.pdf")
    stats = store.stats()
    assert stats.triples == 2 and stats.nodes["Problem"] == 1  # both papers state the same problem
    assert sink.stats.merges >= 2  # problem and solution of the second paper
    from motivgraph.miner.decisions import DecisionLog

    log = DecisionLog.for_data_dir(settings.data_dir)
    assert "extraction failed" not in log.extractions(outcome="failed")[0]["reason"]  # the LLM error itself
    assert log.extractions(outcome="failed")[0]["reason"]
    log.close()
    for pid in [p.paper_id for p in store.iter_papers()]:
        assert all(t.extractor == "llm" for t in store.paper_triples(pid))
    # the index holds every node (flushed at close) and is current
    idx = Runtime(settings).node_index
    assert idx.status().state == "ok" and len(idx) == sum(stats.nodes.get(k, 0) for k in
                                                           ("Problem", "Challenge", "Solution"))

    # re-run: stored papers are skipped, the failed one is skipped until --retry-failed
    sink2, model2 = make_sink(settings)
    try:
        again = await ingest_async([pdf_dir], settings, sink=sink2, concurrency=2)
    finally:
        sink2.close()
    assert (again.already_done, again.skipped_failed, again.processed) == (2, 1, 0)
    assert model2.calls == []


async def test_budget_stop_then_resume_without_paying_twice(settings, store, pdf_dir) -> None:  # type: ignore[no-untyped-def]
    for name in PDFS[2:]:
        (pdf_dir / name).unlink()  # two good papers
    sink, model = make_sink(settings, budget_usd=1e-7, model_name="gpt-4o-mini")
    with pytest.raises(BudgetExceeded):
        try:
            await ingest_async([pdf_dir], settings, sink=sink, concurrency=1)
        finally:
            sink.close()
    assert len(model.calls) == 1  # the first call was allowed, then the budget was spent
    ledger = Ledger.for_data_dir(settings.data_dir)
    states = ledger.counts()
    ledger.close()
    assert states.get("stored") == 1 and states.get("parsed") == 1 and not states.get("failed")

    sink2, model2 = make_sink(settings, model_name="gpt-4o-mini")
    try:
        s = await ingest_async([pdf_dir], settings, sink=sink2, concurrency=1)
    finally:
        sink2.close()
    assert (s.already_done, s.ok, s.failed) == (1, 1, 0)
    assert len(model2.calls) == 1  # only the paper that was not done
    assert store.stats().triples == 2


async def test_offline_ingest_marks_heuristic_provenance(settings, store, pdf_dir) -> None:  # type: ignore[no-untyped-def]
    sink = MinerSink(Runtime(settings), client=None)
    assert sink.mode == "heuristic" and "MOTIVGRAPH_LLM_MODEL" in sink.banner()
    try:
        s = await ingest_async([pdf_dir], settings, sink=sink, concurrency=2)
    finally:
        sink.close()
    assert s.ok == 3
    papers = [p.paper_id for p in store.iter_papers()]
    triples = [t for pid in papers for t in store.paper_triples(pid)]
    assert triples and all(t.extractor == "heuristic" for t in triples)
    assert any("OFFLINE" in v for _, v in sink.report_rows())
