"""Topics input: the shared shape, topic strings, clear errors, target-paper leak detection."""

import json
from pathlib import Path

import pytest

from motivgraph.agents.evaluation.topics import TopicsError, leaked_targets, load_topics_file, topics_from_strings


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


def test_leaks_by_id_or_normalised_title(tmp_path: Path) -> None:
    f = _write(tmp_path, {"topic_name": "X", "target_papers": [{"paper_id": "2401.1", "title": "Deep Things: A Study"},
                                                              {"paper_id": "9", "title": "Other"}]})
    (t,) = load_topics_file(f)
    assert leaked_targets(t, {"2401.1"}, set()) == ["Deep Things: A Study"]
    assert leaked_targets(t, set(), {"deep things - a study"}) == ["Deep Things: A Study"]
    assert leaked_targets(t, {"1"}, {"Unrelated"}) == []
