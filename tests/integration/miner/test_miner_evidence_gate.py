"""Evidence through a whole ingest (#39): the offline extractor's quotes are located and stored with each
triple; a model that invents its quotes is stopped by the extraction gate (exit 6) with the cause and
the fix, `--accept-unverified` lets it through marked; under MOTIVGRAPH_MINER_UNVERIFIED=reject a triple
with an unverified element is not stored and `ingest report` gives the reason. Records written here."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.errors import ExtractionGateStop
from motivgraph.llm.tokens import content_text
from motivgraph.miner.ingest_job import IngestRequest, run_ingest_command
from tests.miner_support import GOOD_TRIPLE
from tests.topic_records_support import TOPICS, write_topic_records


def write_records(path: Path, n: int = len(TOPICS)) -> Path:
    return write_topic_records(path, n, prefix="gate")


def _paper_text(messages) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(content_text(m.content) for m in messages if m.type == "human")


def _triple(title: str, quotes: dict[str, str]) -> dict[str, object]:
    t = json.loads(json.dumps(GOOD_TRIPLE))
    t["challenge"]["name"] = f"Overfitting to scarce labels in {title.split()[-1].lower()} settings"
    for element, q in quotes.items():
        t[element]["quotes"] = [q]
    return t


def inventing_reply(messages) -> str:  # type: ignore[no-untyped-def]
    """A model that writes its own 'quotes': fluent, on topic, and in no paper."""
    if "TITLE: " not in _paper_text(messages):  # the resolver: keep apart
        return json.dumps({"same": False, "reason": "different concepts"})
    title = (re.search(r"TITLE: (.+)", _paper_text(messages)) or re.search("(.*)", "")).group(1)  # type: ignore[union-attr]
    return json.dumps({"triples": [_triple(title, {
        "problem": "This field studies how computers can learn structured outputs from examples.",
        "challenge": "The central obstacle is that labelled examples are rare and costly to obtain.",
        "solution": "We therefore share components between related tasks to transfer what was learnt.",
    })], "no_triples_reason": None})


def faithful_reply(messages) -> str:  # type: ignore[no-untyped-def]
    """A model that copies: the task sentence, the 'However' sentence and the contribution sentence; and a
    second triple whose solution quote is made up (for the reject policy)."""
    text = _paper_text(messages)
    if "TITLE: " not in text:  # the resolver: keep apart
        return json.dumps({"same": False, "reason": "different concepts"})
    title = (re.search(r"TITLE: (.+)", text) or re.search("(.*)", "")).group(1)  # type: ignore[union-attr]
    sent = re.split(r"(?<=[.!?])\s+", " ".join(text.split()))
    pick = {
        "problem": next(s for s in sent if "maps raw inputs" in s).split("INTRODUCTION: ")[-1],
        "challenge": next(s for s in sent if s.startswith("However")),
        "solution": next(s for s in sent if s.startswith("In this paper")),
    }
    second = _triple(title, {**pick, "solution": "A new paradigm that nobody has described before is presented."})
    second["solution"]["name"] = "Sharing learnt components across related high-resource settings"
    return json.dumps({"triples": [_triple(title, pick), second], "no_triples_reason": None})


def _script(tmp_path: Path, fn: str) -> str:
    script = tmp_path / f"{fn}.json"
    script.write_text(json.dumps({"default": {"call": f"tests.integration.miner.test_miner_evidence_gate:{fn}"}}))
    return f"scripted:{script}"


async def test_offline_extractor_passes_the_gate_and_stores_located_quotes(settings, store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    records = write_records(tmp_path / "papers.jsonl")
    settings.miner.extractor = "heuristic"
    settings.miner.gate_papers = 3
    run = await run_ingest_command(IngestRequest(paths=[str(records)]), settings)
    assert run.stopped is None and run.extraction_failed is None
    assert run.gate is not None and run.gate.passed and run.gate.rate is not None and run.gate.rate >= 0.99
    rows = dict(run.miner_rows)
    assert rows["quotes located (verified rate)"].endswith("(100.0%)")
    from motivgraph.miner.extractions import ExtractionStore

    kept = ExtractionStore.for_data_dir(settings.data_dir)
    try:
        result = kept.get("id:gate-0")
    finally:
        kept.close()
    assert result is not None and result.triples and len(result.evidence) == len(result.triples)
    for ev in result.evidence:  # kept with the extraction for replays; the sink writes the same on TripleIn
        assert ev.fully_verified
        q = ev.challenge[0]
        assert q.section in ("Introduction", "abstract")
        assert q.page is None  # a JSON record has no pages


async def test_inventing_model_is_stopped_at_the_gate(settings, store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    records = write_records(tmp_path / "papers.jsonl")
    settings.llm.model = _script(tmp_path, "inventing_reply")
    settings.miner.gate_papers = 2
    settings.ingest.concurrency = 1
    run = await run_ingest_command(IngestRequest(paths=[str(records)], concurrency=1), settings)
    assert isinstance(run.stopped, ExtractionGateStop)
    msg = str(run.stopped)
    assert "0%" in msg and "--accept-unverified" in msg and "stronger extractor model" in msg
    assert run.gate is not None and not run.gate.passed and run.gate.papers == 2
    stored = store.stats().papers if hasattr(store.stats(), "papers") else None
    assert stored is None or stored < len(TOPICS)  # the ingest stopped: not every paper was mined


def test_cli_exit_code_6_and_accept_unverified(settings, store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    records = write_records(tmp_path / "papers.jsonl", n=3)
    env = {"MOTIVGRAPH_DATA_DIR": str(settings.data_dir), "MOTIVGRAPH_GRAPH_FALKORDB_URL": settings.graph.falkordb_url,
           "MOTIVGRAPH_GRAPH_NAME": settings.graph.name, "MOTIVGRAPH_LLM_MODEL": _script(tmp_path, "inventing_reply"),
           "MOTIVGRAPH_MINER_GATE_PAPERS": "2", "MOTIVGRAPH_INGEST_CONCURRENCY": "1"}
    res = CliRunner().invoke(app, ["ingest", str(records)], env=env)
    assert res.exit_code == 6, res.output
    assert "extraction gate" in res.output and "--accept-unverified" in res.output
    res = CliRunner().invoke(app, ["ingest", str(records), "--accept-unverified", "--json"], env=env)
    assert res.exit_code == 0, res.output
    gate = json.loads(res.stdout)["gate"]
    assert gate["passed"] is False and gate["accepted"] is True and gate["rate"] == 0
    report = CliRunner().invoke(app, ["ingest", "report", "--json"], env=env)
    data = json.loads(report.stdout)
    assert data["verified quotes"]["located"] == 0 and data["verified quotes"]["quotes"] >= 9


async def test_reject_policy_stores_verified_triples_and_reports_the_rejected(settings, store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    records = write_records(tmp_path / "papers.jsonl", n=2)
    settings.llm.model = _script(tmp_path, "faithful_reply")
    settings.miner.unverified = "reject"
    run = await run_ingest_command(IngestRequest(paths=[str(records)]), settings)
    assert run.stopped is None and run.extraction_failed is None, run.extraction_failed
    rows = dict(run.miner_rows)
    assert rows["triples stored"] == "2"
    assert rows["triples unverified (policy reject)"] == "2 rejected (logged)"
    from motivgraph.ingest.ledger import Ledger
    from motivgraph.miner.decisions import DecisionLog
    from motivgraph.miner.evidence_report import evidence_report

    ledger = Ledger.for_data_dir(settings.data_dir)
    log = DecisionLog.for_data_dir(settings.data_dir)
    try:
        rep = evidence_report(ledger.rows(), log)
    finally:
        ledger.close()
        log.close()
    assert len(rep.by_doc) == 2  # two papers of one JSONL document
    for fig in rep.by_doc.values():
        assert (fig["located"], fig["quotes"]) == (5, 6)
        assert fig["rejected_unverified"] and "solution: not found in the paper" in fig["rejected_unverified"][0]


def test_reextract_with_an_inventing_model_stops_at_the_gate(settings, store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    records = write_records(tmp_path / "papers.jsonl", n=4)
    env = {"MOTIVGRAPH_DATA_DIR": str(settings.data_dir), "MOTIVGRAPH_GRAPH_FALKORDB_URL": settings.graph.falkordb_url,
           "MOTIVGRAPH_GRAPH_NAME": settings.graph.name, "MOTIVGRAPH_LLM_MODEL": "",
           "MOTIVGRAPH_MINER_GATE_PAPERS": "2", "MOTIVGRAPH_INGEST_CONCURRENCY": "1"}
    res = CliRunner().invoke(app, ["ingest", str(records)], env=env)
    assert res.exit_code == 0, res.output  # the offline extractor passes
    env["MOTIVGRAPH_LLM_MODEL"] = _script(tmp_path, "inventing_reply")
    res = CliRunner().invoke(app, ["ingest", "--re-extract"], env=env)
    assert res.exit_code == 6, res.output
    assert "extraction gate" in res.output and "MOTIVGRAPH_MINER_ACCEPT_UNVERIFIED" in res.output
