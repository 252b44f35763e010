"""Per-topic graph identity: the cache key follows the background records and the extractor, the settings
point at a data dir and graph name of the topic's own, with Semantic Scholar off."""

from __future__ import annotations

from pathlib import Path

from motivgraph.agents.evaluation.topic_graph import (
    background_records,
    expected_ids,
    extractor_id,
    graph_key,
    topic_settings,
)
from motivgraph.agents.evaluation.topics import EvalTopic, TopicPaper
from motivgraph.settings import RoleOverride, Settings


def _topic(abstract: str = "A.", targets: bool = True) -> EvalTopic:
    return EvalTopic(topic_id="T", topic="t", background=[
        TopicPaper(paper_id="2401.00001", title="One", abstract=abstract),
        TopicPaper.model_validate({"title": "Two", "doi": "10.1000/ABC.1",
                              "sections": [{"heading": "Intro", "text": "x"}]})],
        targets=[TopicPaper(paper_id="2405.1", title="Held out")] if targets else [])


def _settings(tmp_path: Path, **llm: object) -> Settings:
    s = Settings(data_dir=tmp_path, _env_file=None)  # type: ignore[call-arg]
    return s.model_copy(update={"llm": s.llm.model_copy(update=llm)}) if llm else s


def test_key_follows_records_and_extractor_not_targets(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    k = graph_key(_topic(), "heuristic", s)
    assert k == graph_key(_topic(targets=False), "heuristic", s)  # target papers are not part of the graph
    assert k != graph_key(_topic(abstract="B."), "heuristic", s)
    assert k != graph_key(_topic(), "llm:openai:gpt-4o-mini", s)
    # extra record fields reach the ingest unchanged, and the ids are the ingest's stable ids
    assert background_records(_topic())[1]["sections"] == [{"heading": "Intro", "text": "x"}]
    assert expected_ids(_topic()) == {"arxiv:2401.00001", "doi:10.1000/abc.1"}


def test_extractor_id_from_settings_without_a_key(tmp_path: Path) -> None:
    assert extractor_id(_settings(tmp_path)) == "heuristic"
    assert extractor_id(_settings(tmp_path, model="openai:gpt-4o-mini")) == "llm:openai:gpt-4o-mini"
    roles = {"extractor": RoleOverride(model="deepseek:deepseek-chat")}
    assert extractor_id(_settings(tmp_path, model="openai:gpt-4o-mini", roles=roles)) == "llm:deepseek:deepseek-chat"
    off = _settings(tmp_path, model="openai:gpt-4o-mini")
    off.miner.extractor = "heuristic"
    assert extractor_id(off) == "heuristic"


def test_topic_settings_own_dir_graph_name_and_no_s2(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    s.s2.enabled = True
    a, b = topic_settings(s, tmp_path / "g" / "a"), topic_settings(s, tmp_path / "g" / "b")
    assert a.data_dir == (tmp_path / "g" / "a").resolve() and a.graph.name != b.graph.name
    assert a.graph.name == topic_settings(s, tmp_path / "g" / "a").graph.name  # stable across runs
    assert not a.s2.enabled and s.s2.enabled and s.data_dir == tmp_path  # the user's settings untouched
    assert a.embedding == s.embedding
    # the same models; a local: model's server state stays the user's (listed and stopped by `llm status/stop`)
    assert a.llm.model_copy(update={"local_dir": s.llm.local_dir}) == s.llm and a.llm.local_dir == s.data_dir / "llm"
