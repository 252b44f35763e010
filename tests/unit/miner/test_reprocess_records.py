"""The records re-processing relies on: stored extractions keep their first-ingest order across
replays, the job file round-trips (and a damaged one is a clear error), undone merges are
remembered, paper ids are found from what a user types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from motivgraph.errors import GraphError, IngestError
from motivgraph.graph.models import PaperRecord
from motivgraph.ingest.identity import resolve_paper_id
from motivgraph.miner.decisions import DecisionLog, MergeDecision
from motivgraph.miner.extractions import ExtractionStore
from motivgraph.miner.merges import get_merge, is_undone, list_merges, record_undo
from motivgraph.miner.paper_delete import match_pending
from motivgraph.miner.reprocess import Job
from motivgraph.miner.schemas import ExtractedTriple, ExtractionResult, NodeText
from motivgraph.settings import Settings


def _result(pid: str, name: str, extractor: str = "llm") -> ExtractionResult:
    n = NodeText(name=name, description="d")
    return ExtractionResult(paper_id=pid, extractor=extractor,  # type: ignore[arg-type]
                            triples=[ExtractedTriple(problem=n, challenge=n, solution=n)])


def test_extractions_keep_first_order_on_replace(tmp_path: Path) -> None:
    st = ExtractionStore.for_data_dir(tmp_path)
    st.put(_result("a", "A"))
    st.put(_result("b", "B", "heuristic"))
    st.put(_result("a", "A2"))  # a re-extraction of a: still first
    order = st.order()
    assert order["a"] < order["b"]
    got = st.get("a")
    assert got is not None and got.triples[0].problem.name == "A2" and st.extractor_of("b") == "heuristic"
    assert st.forget("a") and st.get("a") is None and not st.forget("a")
    st.put(_result("a", "A3"))  # deleted, then ingested again: now after b
    assert st.order()["a"] > st.order()["b"]
    st.close()


def test_job_round_trip_and_damaged_file(tmp_path: Path) -> None:
    s = Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]
    assert Job.load(s) is None
    job = Job(kind="delete", delete=["doi:1"], replay=["b"], order=["b"], doc_keys={"b": "k"}, done=["b"])
    job.save(s)
    assert Job.load(s) == job and job.describe() == "delete doi:1"
    Job.path(s).write_text("{not json")
    with pytest.raises(IngestError, match="unreadable"):
        Job.load(s)


def test_undone_merges_are_remembered_and_listed(tmp_path: Path) -> None:
    log = DecisionLog.for_data_dir(tmp_path)
    log.log_merges([
        MergeDecision(node_type="problem", mention_name="NER", mention_key="problem:ner", decision="auto_merge",
                      final_key="problem:named entity recognition", paper_id="p1", score=0.95),
        MergeDecision(node_type="problem", mention_name="Parsing", mention_key="problem:parsing", decision="exact",
                      final_key="problem:parsing", paper_id="p1"),
        MergeDecision(node_type="problem", mention_name="Tagging", mention_key="problem:tagging", decision="new",
                      final_key="problem:tagging", paper_id="p1"),
    ])
    rows = list_merges(log)
    assert [r.mention_name for r in rows] == ["NER"]  # merges only; exact with include_exact
    assert [r.mention_name for r in list_merges(log, include_exact=True)] == ["Parsing", "NER"]
    row = rows[0]
    assert not row.undone and not is_undone(log, "problem", "problem:ner", "problem:named entity recognition")
    record_undo(log, {"id": row.id, "paper_id": "p1", "node_type": "problem", "mention_key": row.mention_key,
                      "final_key": row.final_key})
    assert is_undone(log, "problem", "problem:ner", "problem:named entity recognition")
    assert get_merge(log, row.id).undone and get_merge(log, 10_000) is None  # type: ignore[union-attr]
    assert list_merges(log, key="problem:named entity recognition")[0].id == row.id
    log.close()


class _Papers:
    def __init__(self, papers: list[PaperRecord]) -> None:
        self.papers = {p.paper_id: p for p in papers}

    def get_paper(self, pid: str) -> PaperRecord | None:
        return self.papers.get(pid)

    def iter_papers(self) -> Any:
        return iter(self.papers.values())


def test_paper_ids_from_what_a_user_types() -> None:
    sha = "ab12cd34" + "0" * 56
    store = _Papers([PaperRecord(paper_id="doi:10.1/x", sha256="f" * 64), PaperRecord(paper_id="arxiv:2101.00001"),
                     PaperRecord(paper_id=f"sha256:{sha}", sha256=sha),
                     PaperRecord(paper_id="id:p9", sha256="ab12cd34" + "1" * 56)])
    assert resolve_paper_id(store, "10.1/X") == "doi:10.1/x"  # type: ignore[arg-type]
    assert resolve_paper_id(store, "2101.00001") == "arxiv:2101.00001"  # type: ignore[arg-type]
    assert resolve_paper_id(store, "ab12cd340") == f"sha256:{sha}"  # type: ignore[arg-type]
    assert resolve_paper_id(store, "f" * 12) == "doi:10.1/x"  # type: ignore[arg-type]  # the file's hash
    with pytest.raises(GraphError, match="matches 2 papers"):
        resolve_paper_id(store, "sha256:AB12CD34")  # type: ignore[arg-type]
    with pytest.raises(GraphError, match="no paper"):
        resolve_paper_id(store, "ab12cd")  # type: ignore[arg-type]  # under 8 characters: no prefix search
    with pytest.raises(GraphError, match="no paper"):
        resolve_paper_id(store, "10.9/none")  # type: ignore[arg-type]
    assert match_pending("10.1/X", ["doi:10.1/x"]) == "doi:10.1/x" and match_pending("zz", ["doi:10.1/x"]) is None


def test_each_reprocessing_job_has_its_own_module() -> None:
    """#44: re-extraction, deletion and merge undo are three jobs of one engine (miner/reprocess.py), one module
    each -- not three jobs under re-extraction's name."""
    from motivgraph.miner import merge_undo, paper_delete, reextract, reprocess

    jobs = {reextract: "reextract", paper_delete: "delete_papers", merge_undo: "undo_merge"}
    for module, job in jobs.items():
        assert getattr(module, job).__module__ == module.__name__
        assert not any(hasattr(module, other) for other in jobs.values() if other != job)
    assert not any(hasattr(reprocess, job) for job in jobs.values())
