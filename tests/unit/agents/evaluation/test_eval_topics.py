"""Topics input: the shared shape, topic strings, clear errors, target-paper leak detection."""

import json
from pathlib import Path

import pytest

from motivgraph.agents.evaluation.topics import leaked_targets, load_topics_file, topics_from_strings
from motivgraph.errors import TopicsError


def _write(tmp_path: Path, *rows: object) -> Path:
    f = tmp_path / "t.jsonl"
    f.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return f


def test_loads_background_and_targets(tmp_path: Path) -> None:
    f = _write(tmp_path, {"topic_id": "x1", "topic_name": "Topic X", "domain_id": "cs.AI",
                          "background_papers": [{"paper_id": "1", "title": "B one", "abstract": "a"}],
                          "target_papers": [{"paper_id": "2", "title": "T two"}]})
    (t,) = load_topics_file(f)
    assert (t.topic_id, t.topic, t.domain) == ("x1", "Topic X", "cs.AI")
    assert [p.title for p in t.background] == ["B one"] and [p.title for p in t.targets] == ["T two"]


@pytest.mark.parametrize("row,msg", [
    ("not json", ":1: not JSON"),
    ('["a"]', "one JSON object per line"),
    ({"topic_id": "a"}, "no topic_name"),
    ({"topic_name": "X", "background_papers": [{"abstract": "no title"}]}, "bad paper"),
])
def test_bad_lines_name_the_line(tmp_path: Path, row: object, msg: str) -> None:
    with pytest.raises(TopicsError, match=msg):
        load_topics_file(_write(tmp_path, row))


def test_duplicate_ids_and_empty_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TopicsError, match="duplicate"):
        load_topics_file(_write(tmp_path, {"topic_id": "a", "topic_name": "X"}, {"topic_id": "a", "topic_name": "Y"}))
    (tmp_path / "e.jsonl").write_text("\n")
    with pytest.raises(TopicsError, match="no topics"):
        load_topics_file(tmp_path / "e.jsonl")
    with pytest.raises(TopicsError, match="does not exist"):
        load_topics_file(tmp_path / "missing.jsonl")


def test_topic_strings() -> None:
    ts = topics_from_strings(["  LLM   agents for data ", "graph RAG"])
    assert [t.topic for t in ts] == ["LLM agents for data", "graph RAG"] and ts[0].topic_id.startswith("t01-")
    with pytest.raises(TopicsError):
        topics_from_strings(["a"])


def test_leaks_by_id_doi_arxiv_or_normalised_title(tmp_path: Path) -> None:
    from motivgraph.graph.models import PaperRecord

    f = _write(tmp_path, {"topic_name": "X", "target_papers": [
        {"paper_id": "2401.12345", "title": "Deep Things: A Study"},
        {"paper_id": "9", "title": "Other", "doi": "10.1000/ABC"},
        {"paperId": "s2hash", "title": "Third", "externalIds": {"ArXiv": "2310.00001"}}]})
    (t,) = load_topics_file(f)
    # a graph paper as the ingest stores it (stable id with prefix, arXiv version)
    assert leaked_targets(t, [PaperRecord(paper_id="arxiv:2401.12345", title="renamed")]) == [
        "'Deep Things: A Study' (id 2401.12345)"]
    assert leaked_targets(t, [{"paper_id": "https://arxiv.org/abs/2401.12345v3", "title": "x"}]) == [
        "'Deep Things: A Study' (id 2401.12345)"]
    assert leaked_targets(t, [PaperRecord(paper_id="doi:10.1000/abc", title="y")]) == ["'Other' (id 10.1000/abc)"]
    assert leaked_targets(t, [{"externalIds": {"DOI": "https://doi.org/10.1000/abc"}, "title": "z"}]) == [
        "'Other' (id 10.1000/abc)"]
    assert leaked_targets(t, [PaperRecord(paper_id="arxiv:2310.00001", title="w")]) == ["'Third' (id 2310.00001)"]
    assert leaked_targets(t, [{"title": "deep things - a study"}]) == ["'Deep Things: A Study' (same title)"]
    # near misses are no leak: another arXiv number, a title that only contains the target's
    assert leaked_targets(t, [PaperRecord(paper_id="arxiv:2401.12346", title="Deep Things: A Study, Revisited"),
                              {"paper_id": "1", "title": "Unrelated"}]) == []


def test_norm_id_spellings() -> None:
    from motivgraph.agents.evaluation.topics import norm_id

    assert {norm_id(x) for x in ("arxiv:2402.03300v2", "2402.03300", "https://arxiv.org/pdf/2402.03300v1",
                                 "ARXIV:2402.03300")} == {"2402.03300"}
    assert norm_id("doi:10.1/X") == norm_id("https://dx.doi.org/10.1/x") == "10.1/x"
    assert norm_id("arxiv:hep-th/9901001v2") == "hep-th/9901001"
