"""Re-processing stored papers (`miner.reprocess` and its jobs) on the real store, index and embeddings: the
quick-start upgrade from offline to LLM triples, equality with a fresh ingest (canonical export),
`papers delete`, `merges undo`, and resume after a kill at any point of a job.

The references — canonical exports of fresh ingests — are built once per module."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest

from motivgraph.errors import GraphError, IngestInterrupted
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.llm.tokens import content_text
from motivgraph.miner import reprocess
from motivgraph.miner.decisions import DecisionLog
from motivgraph.miner.merge_undo import undo_merge
from motivgraph.miner.merges import list_merges
from motivgraph.miner.paper_delete import delete_papers
from motivgraph.miner.reextract import reextract
from motivgraph.miner.sink import MinerSink
from motivgraph.settings import GraphSettings, Settings
from tests.miner_support import GOOD_TRIPLE, scripted_client
from tests.reprocess_support import (
    LRMT,
    canon,
    drop_graph,
    extractor_reply,
    ingest,
    llm,
    old_extractor_reply,
    other_settings,
    write_jsonl,
)

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "pdf"
PDFS = ["sp_fader11.pdf", "sp_seung08.pdf"]


@pytest.fixture
def src(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "papers.jsonl")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, falkordb_server: Any) -> dict[str, list[str]]:
    """Canonical exports of fresh LLM ingests: every paper ('all'), and every paper but p0 ('without_p0')."""
    base = tmp_path_factory.mktemp("reference")
    like = Settings(data_dir=base / "like", graph=GraphSettings(), _env_file=None)  # type: ignore[call-arg]
    like.graph.falkordb_url = falkordb_server.url
    out: dict[str, list[str]] = {}
    for name, exclude in (("all", ()), ("without_p0", ("p0",))):
        s = other_settings(base, like)
        try:
            asyncio.run(ingest(s, write_jsonl(base / f"{name}.jsonl", exclude=exclude), llm=True))
            out[name] = canon(s)
        finally:
            drop_graph(s)
    return out


def _index_matches_graph(settings: Settings) -> None:
    rt = Runtime(settings)
    try:
        idx = rt.node_index
        keys = {n.key for n in rt.store.iter_nodes()}
        assert idx.status().state == "ok"
        indexed = {k for g in idx._groups.values() for k in g.pos}  # live ids (deleted rows wait for compaction)
        assert indexed == keys  # nothing removed from the graph is left in FAISS
    finally:
        rt.close()


async def test_quick_start_second_ingest_upgrades_offline_triples(settings, store, src, reference) -> None:  # type: ignore[no-untyped-def]
    await ingest(settings, src, llm=False)
    before = [t for p in store.iter_papers() for t in store.paper_triples(p.paper_id)]
    assert before and {t.extractor for t in before} == {"heuristic"}

    # the quick start's second `ingest` after setting an LLM: every paper is "already stored"
    client, model = scripted_client(settings, default=extractor_reply)
    sink = MinerSink(Runtime(settings), client=client, mode="llm")
    try:
        again = await ingest_async([src], settings, sink=sink, concurrency=1)
    finally:
        sink.close()
    assert again.processed == 0 and again.already_done == 4 and model.calls == []

    report = await reextract(settings, only_extractor="heuristic", client=llm(settings), mode="llm")
    assert sorted(report.reextracted) == sorted(p.paper_id for p in store.iter_papers())
    after = [t for p in store.iter_papers() for t in store.paper_triples(p.paper_id)]
    assert after and {t.extractor for t in after} == {"llm"}
    assert all(n.sources for n in store.iter_nodes())  # no node left without a paper
    assert report.nodes_removed > 0 and report.vectors_removed == report.nodes_removed
    # Done-when: the graph equals a fresh ingest with the new extractor
    assert canon(settings) == reference["all"]
    _index_matches_graph(settings)
    led = Ledger.for_data_dir(settings.data_dir)
    assert led.counts()["stored"] == 4
    led.close()
    assert reprocess.pending_job(settings) is None
    # nothing offline is left: a second run has nothing to do
    again_report = await reextract(settings, only_extractor="heuristic", client=llm(settings), mode="llm")
    assert again_report.reextracted == [] and canon(settings) == reference["all"]


def pdf_reply(messages: Any) -> str:
    """One triple per real paper: a shared problem, a challenge named after the title."""
    text = "\n".join(content_text(m.content) for m in messages)
    m = re.search(r"TITLE: (.+)", text)
    t = json.loads(json.dumps(GOOD_TRIPLE))
    t["challenge"]["name"] = f"Limited reliability of methods in {(m.group(1) if m else '')[:30]}"
    return json.dumps({"triples": [t], "no_triples_reason": None})


def old_pdf_reply(messages: Any) -> str:
    """An earlier model on the same PDFs: every node named and described otherwise."""
    data = json.loads(pdf_reply(messages))
    for t in data["triples"]:
        for role in ("problem", "challenge", "solution"):
            t[role] = {"name": "Early " + t[role]["name"], "description": "Earlier: " + t[role]["description"]}
    return json.dumps(data)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"SKIPPED LOUDLY: corpus PDFs not found at {CORPUS}")
async def test_reextract_real_pdfs_equals_fresh_ingest(settings, store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    for name in PDFS:
        shutil.copy(CORPUS / name, pdfs / name)
    await ingest(settings, pdfs, llm=True, reply=old_pdf_reply)
    old_keys = {n.key for n in store.iter_nodes()}
    report = await reextract(settings, client=llm(settings, pdf_reply), mode="llm")
    assert not old_keys & {n.key for n in store.iter_nodes()}  # every earlier node was replaced
    assert len(report.reextracted) == 2 and not report.failed
    fresh = other_settings(tmp_path, settings)
    shutil.copytree(settings.data_dir / "ingest" / "parsed", fresh.data_dir / "ingest" / "parsed")  # no re-parse
    try:
        await ingest(fresh, pdfs, llm=True, reply=pdf_reply)
        assert canon(settings) == canon(fresh)
    finally:
        drop_graph(fresh)


async def test_delete_paper_equals_fresh_ingest_without_it(settings, store, src, reference) -> None:  # type: ignore[no-untyped-def]
    await ingest(settings, src, llm=True)
    foo = "id:p0"
    solution_key = store.paper_triples(foo)[0].solution.key
    rt = Runtime(settings)
    assert rt.node_index.search("Cross-lingual transfer through shared subword vocabulary", k=3)[0].key == solution_key
    rt.close()

    report = await delete_papers(settings, [foo])
    assert report.deleted == [foo] and sorted(report.replayed) == ["doi:10.1234/qux.5", "id:p2"]
    assert store.get_paper(foo) is None and solution_key not in {n.key for n in store.iter_nodes()}
    # p0 created the problem p2 merged into: without p0 that node has p2's spelling, as in a fresh ingest
    assert canon(settings) == reference["without_p0"]
    _index_matches_graph(settings)
    rt = Runtime(settings)
    try:
        hits = rt.node_index.search("Cross-lingual transfer through shared subword vocabulary", k=10)
        assert solution_key not in {h.key for h in hits}
        assert foo not in {h.paper_id for h in rt.paper_index.search("transfer learning translation", k=10)}
    finally:
        rt.close()
    led = Ledger.for_data_dir(settings.data_dir)
    assert foo not in {r.paper_id for r in led.rows()}  # the file can be ingested again
    led.close()
    # a bare DOI names its paper; an unknown id changes nothing
    with pytest.raises(GraphError, match="no paper"):
        await delete_papers(settings, ["10.9999/none"])
    await delete_papers(settings, ["10.1234/QUX.5"])
    assert store.get_paper("doi:10.1234/qux.5") is None and store.stats().triples == 2


async def test_merge_undo_splits_the_node_and_stays_undone(settings, store, src) -> None:  # type: ignore[no-untyped-def]
    await ingest(settings, src, llm=True)
    log = DecisionLog.for_data_dir(settings.data_dir)
    rows = list_merges(log, paper_id="id:p2")
    merge = next(r for r in rows if r.mention_name == "Low-resource neural machine translations")
    assert merge.decision == "auto_merge" and merge.final_key == "problem:low resource neural machine translation"
    exact = list_merges(log, paper_id="doi:10.1234/qux.5", include_exact=True)[0]
    log.close()
    node = store.get_node(merge.final_key)
    assert node is not None and "Low-resource neural machine translations" in node.node.aliases

    with pytest.raises(GraphError, match="exact match cannot be split"):
        await undo_merge(settings, exact.id)
    report = await undo_merge(settings, merge.id)
    assert "id:p2" in report.replayed
    split = store.get_node(merge.mention_key)
    assert split is not None and split.node.sources == ["id:p2"] and split.node.description == LRMT
    assert [c.key for c in split.challenges] == ["challenge:overfitting to scarce parallel data in translation"]
    kept = store.get_node(merge.final_key)
    assert kept is not None and "Low-resource neural machine translations" not in kept.node.aliases
    assert "id:p2" not in kept.node.sources
    assert {t.problem.key for t in store.paper_triples("id:p2")} == {merge.mention_key}
    _index_matches_graph(settings)
    log = DecisionLog.for_data_dir(settings.data_dir)
    assert next(r for r in list_merges(log) if r.id == merge.id).undone
    log.close()
    # later runs keep the mention apart: re-extracting everything gives the same split graph
    snapshot = canon(settings)
    await reextract(settings, client=llm(settings), mode="llm")
    assert canon(settings) == snapshot


class Killed(BaseException):
    """Stands in for kill -9: nothing after the fault point runs (not even `except Exception`)."""


@pytest.mark.parametrize("where", ["removal", "store", "save"])
async def test_kill_mid_reextract_then_rerun_gives_the_same_graph(settings, store, src, reference, monkeypatch,
                                                                    where) -> None:  # type: ignore[no-untyped-def]
    await ingest(settings, src, llm=True, reply=old_extractor_reply)  # an earlier model's triples
    calls = {"n": 0}

    def fault_at(n: int, original: Any) -> Any:
        def wrapped(*a: Any, **kw: Any) -> Any:
            calls["n"] += 1
            if calls["n"] == n:
                raise Killed
            return original(*a, **kw)
        return wrapped

    if where == "removal":  # phase 1, after two papers were taken out
        monkeypatch.setattr(reprocess._Runner, "remove", fault_at(3, reprocess._Runner.remove))
    elif where == "store":  # the third paper's triples half-way into the store
        from motivgraph.graph.backends.cypher import CypherGraphStore

        monkeypatch.setattr(CypherGraphStore, "upsert_triples", fault_at(3, CypherGraphStore.upsert_triples))
    else:  # a paper stored but the job file not yet updated
        monkeypatch.setattr(reprocess.Job, "save", fault_at(4, reprocess.Job.save))
    with pytest.raises(Killed):
        await reextract(settings, client=llm(settings), mode="llm")
    monkeypatch.undo()
    assert reprocess.pending_job(settings) is not None
    report = await reextract(settings, client=llm(settings), mode="llm")
    assert report.resumed and reprocess.pending_job(settings) is None
    assert canon(settings) == reference["all"]
    _index_matches_graph(settings)


def _kill_db_at(settings: Settings, marker: str, notes: list[str]) -> Any:
    """A progress note that kill -9s the embedded FalkorDB (redis-server) when `marker` is announced,
    i.e. after the papers before it are back in the graph."""
    pidfile = settings.data_dir / "falkordb" / "falkordb.pid"
    killed: list[int] = []

    def note(msg: str) -> None:
        notes.append(msg)
        if marker in msg and not killed:
            pid = int(pidfile.read_text())
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    note.killed = killed  # type: ignore[attr-defined]
    return note


@pytest.mark.parametrize("op", ["reextract", "delete"])
async def test_db_killed_mid_reprocessing_is_restarted_and_the_job_finishes(settings, src, reference,
                                                                            op) -> None:  # type: ignore[no-untyped-def]
    """The embedded DB (its own, in the data dir) dies after one paper is back in: the same run
    restarts it, reconnects and finishes; the graph equals a fresh ingest (canonical export)."""
    settings.ingest.transient_backoff_s = 0.01
    await ingest(settings, src, llm=True, reply=old_extractor_reply if op == "reextract" else extractor_reply)
    notes: list[str] = []
    note = _kill_db_at(settings, "[2/", notes)
    if op == "reextract":
        report = await reextract(settings, client=llm(settings), mode="llm", note=note)
    else:
        report = await delete_papers(settings, ["id:p0"], note=note)
    assert note.killed, notes  # the fault happened
    assert not report.failed and reprocess.pending_job(settings) is None
    assert any("reconnecting" in n for n in notes), notes
    assert canon(settings) == reference["all" if op == "reextract" else "without_p0"]
    _index_matches_graph(settings)


async def test_db_down_for_good_stops_resumably_and_the_rerun_finishes(settings, src, reference) -> None:  # type: ignore[no-untyped-def]
    """No transient failure allowed (ingest.transient_max_consecutive=0): the job stops with
    IngestInterrupted ("re-run to resume", exit 4 in the CLI) and the re-run restarts the DB and finishes."""
    settings.ingest.transient_backoff_s = 0.01
    settings.ingest.transient_max_consecutive = 0
    await ingest(settings, src, llm=True, reply=old_extractor_reply)
    notes: list[str] = []
    note = _kill_db_at(settings, "[3/", notes)
    with pytest.raises(IngestInterrupted, match="re-run the same command"):
        await reextract(settings, client=llm(settings), mode="llm", note=note)
    assert note.killed and reprocess.pending_job(settings) is not None
    report = await reextract(settings, client=llm(settings), mode="llm")
    assert report.resumed and not report.failed and reprocess.pending_job(settings) is None
    assert canon(settings) == reference["all"]
    _index_matches_graph(settings)


def quoting_reply(messages: Any) -> str:
    """extractor_reply, with each element quoted from its paper (a sentence the paper prints), so the sink stores
    located quotes (#39)."""
    text = "\n".join(content_text(m.content) for m in messages)
    data = json.loads(extractor_reply(messages))
    sentence = next(s for s in ("Neural models reach high quality when millions of parallel sentences are available.",
                                "However, annotated scans are scarce because expert labelling is slow and costly")
                    if s in text)
    for t in data["triples"]:
        for role in ("problem", "challenge", "solution"):
            t[role]["quotes"] = [sentence]
    return json.dumps(data)


async def test_merge_undo_and_delete_carry_the_evidence(settings, store, src) -> None:  # type: ignore[no-untyped-def]
    """Evidence (#39) through re-processing: the quotes of a paper follow its statements when a merge is undone
    (the replayed paper keeps its located quotes, now on the split node) and go with it when it is deleted."""
    await ingest(settings, src, llm=True, reply=quoting_reply)
    (before,) = store.paper_triples("id:p2")
    assert before.evidence.fully_verified and before.evidence.problem[0].page is None  # JSON records: no pages
    log = DecisionLog.for_data_dir(settings.data_dir)
    merge = next(r for r in list_merges(log, paper_id="id:p2")
                 if r.mention_name == "Low-resource neural machine translations")
    log.close()
    assert "id:p2" in [e.paper_id for e in store.node_evidence([merge.final_key])[merge.final_key]]

    await undo_merge(settings, merge.id)
    (after,) = store.paper_triples("id:p2")
    assert after.problem.key == merge.mention_key and after.evidence == before.evidence
    split = store.node_evidence([merge.mention_key, merge.final_key])
    assert [(e.paper_id, e.verified) for e in split[merge.mention_key]] == [("id:p2", True)]
    assert "id:p2" not in [e.paper_id for e in split[merge.final_key]]

    shared = "challenge:overfitting to scarce parallel data in translation"
    assert "id:p0" in [e.paper_id for e in store.node_evidence([shared])[shared]]
    await delete_papers(settings, ["id:p0"])
    assert "id:p0" not in [e.paper_id for e in store.node_evidence([shared])[shared]]
    assert store.node_evidence([shared])[shared]  # the other papers' quotes stay
