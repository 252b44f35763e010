"""MindFlow's train/test split in the evaluation (agents/evaluation/mindflow_split.py): seeded and
deterministic, disjoint and covering, independent of file order; the cases without a split say why."""

from __future__ import annotations

from pathlib import Path

import pytest

from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.mindflow_split import mindflow_split, split_ids
from motivgraph.agents.evaluation.topics import EvalTopic
from motivgraph.errors import ConfigError


def _topics(n: int) -> list[EvalTopic]:
    return [EvalTopic(topic_id=f"x{i:02d}", topic=f"topic {i}") for i in range(n)]


def test_split_is_deterministic_disjoint_covering_and_order_free() -> None:
    ids = [f"x{i:02d}" for i in range(10)]
    train, test = split_ids(ids, 0.7, seed=13)
    assert (train, test) == split_ids(list(reversed(ids)), 0.7, seed=13)  # file order does not matter
    assert len(train) == 7 and len(test) == 3
    assert not set(train) & set(test) and sorted(train + test) == ids
    assert any(split_ids(ids, 0.7, seed=s)[0] != train for s in range(1, 6))  # the seed decides which
    # at least one topic on each side, whatever the fraction
    assert [len(x) for x in split_ids(ids[:2], 0.01, 0)] == [1, 1]
    assert [len(x) for x in split_ids(ids[:2], 0.99, 0)] == [1, 1]


def test_explicit_training_topics_and_their_errors() -> None:
    ids = ["a", "b", "c"]
    assert split_ids(ids, 0.7, 0, ["c", "a"]) == (["a", "c"], ["b"])
    with pytest.raises(ConfigError, match="not in the evaluation: z"):
        split_ids(ids, 0.7, 0, ["z"])
    with pytest.raises(ConfigError, match="leave at least one held out"):
        split_ids(ids, 0.7, 0, ids)


def test_the_protocol_as_data_and_the_cases_without_a_split(settings, tmp_path: Path) -> None:
    cfg = EvalConfig(methods=["mindflow", "stateless"])
    sp = mindflow_split(settings, cfg, _topics(10))
    assert sp.active and len(sp.train) == 7 and len(sp.test) == 3 and sp.controller is None
    assert sp.to_dict()["train"] == sp.train
    assert sp.line().startswith("MindFlow: train on 7 topics (") and "test on 3" in sp.line()
    assert sp == mindflow_split(settings, cfg, _topics(10))

    one = mindflow_split(settings, cfg, _topics(1))
    assert not one.active and "a split needs at least 2" in one.line() and "untrained prior" in one.line()
    off = mindflow_split(settings, cfg.model_copy(update={"mindflow_train_fraction": 0.0}), _topics(4))
    assert not off.active and "mindflow_train_fraction is 0" in off.reason
    other = mindflow_split(settings, EvalConfig(methods=["stateless"]), _topics(4))
    assert not other.active and "not generated" in other.reason
    ctrl = tmp_path / "c.npz"
    given = EvalConfig(methods=["mindflow"], method_configs={"mindflow": {"controller": str(ctrl)}})
    g = mindflow_split(settings, given, _topics(4))
    assert not g.active and g.controller == str(ctrl) and "is given" in g.reason
    with pytest.raises(ConfigError, match="training settings: steps"):
        mindflow_split(settings, cfg.model_copy(update={"mindflow_train": {"stepz": 1}}), _topics(4),
                       ideator_model="m")


async def test_without_a_split_no_model_is_asked_and_the_topics_stay(settings) -> None:
    """prepare_mindflow decides the no-split cases from the config alone: an evaluation without MindFlow
    (or on one topic) needs no ideator model here and keeps every topic; with MindFlow it says why."""
    from types import SimpleNamespace

    from motivgraph.agents.evaluation.mindflow_split import prepare_mindflow

    def no_model() -> None:
        raise AssertionError("no client may be made when there is nothing to train")

    for methods, n, said in ((["stateless"], 4, False), (["mindflow", "stateless"], 1, True)):
        events: list[dict] = []
        ev = SimpleNamespace(settings=settings, config=EvalConfig(methods=methods), topics=_topics(n), notes=[],
                             emit=events.append, llm_factory=no_model)
        await prepare_mindflow(ev)
        assert [t.topic_id for t in ev.topics] == [f"x{i:02d}" for i in range(n)]
        assert bool(ev.notes) == said and bool(events) == said
        if said:
            assert ev.notes[0].startswith("MindFlow: no train/test split — 1 topic(s): a split needs at least 2")
            assert events[0]["type"] == "mindflow_split" and events[0]["active"] is False


async def test_without_a_split_a_stored_controller_trained_on_these_topics_is_named_and_warned(
        settings, tmp_path: Path) -> None:
    """With mindflow_train_fraction 0, MindFlow takes the newest controller stored for its model; when an
    earlier evaluation trained it on some of these topics, the note and a warning say they are not held out."""
    from types import SimpleNamespace

    from motivgraph.agents.evaluation.mindflow_split import prepare_mindflow
    from motivgraph.agents.mindflow.config import FlowConfig
    from motivgraph.agents.mindflow.controller import Controller
    from motivgraph.agents.mindflow.operators import resolve_operators
    from motivgraph.agents.mindflow.store import CONTROLLER_FILE, entry_dir

    script = tmp_path / "script.json"
    script.write_text("[]")
    model = f"scripted:{script}"
    s = settings.model_copy(deep=True)
    s.llm.model = model
    cfg = EvalConfig(methods=["mindflow"], mindflow_train_fraction=0.0)

    async def notes_and_warnings() -> tuple[str, list[dict]]:
        events: list[dict] = []
        ev = SimpleNamespace(settings=s, config=cfg, topics=_topics(3), notes=[], emit=events.append,
                             llm_factory=None)
        await prepare_mindflow(ev)
        return ev.notes[0], [e for e in events if e["type"] == "warning"]

    note, warned = await notes_and_warnings()
    assert "stored controller" not in note and not warned  # nothing stored: the prior, as the line says
    fc = FlowConfig()
    ctrl = Controller(resolve_operators(fc), 1, fc)
    ctrl.training = {"topics": {"train_ids": ["x01", "elsewhere"], "val_ids": []}}
    folder = entry_dir(s.data_dir, model, s.embedding.model, "earlier-eval")
    folder.mkdir(parents=True)
    ctrl.save(folder / CONTROLLER_FILE)
    note, warned = await notes_and_warnings()
    assert "1 of its 2 recorded training topics are evaluation topics: x01" in note and "not held out" in note
    assert len(warned) == 1 and "x01" in warned[0]["text"]


def test_the_corpus_graph_keeps_the_training_topics_papers(settings) -> None:
    """MindFlow's split narrows the compared topics, not the shared corpus graph: its extraction line counts
    the background papers of every topic (a split once built the graph of the held-out topics only)."""
    from motivgraph.agents.evaluation.estimate import estimate_eval

    topics = [EvalTopic(topic_id=f"x{i:02d}", topic=f"topic {i}",
                        background=[{"paper_id": f"p{i}-{j}", "title": f"Paper {i}.{j}",
                                     "abstract": "We study a hard problem and propose a method for it. " * 20}
                                    for j in range(3)]) for i in range(10)]
    s = settings.model_copy(deep=True)
    s.llm.model = "openai:gpt-4o-mini"
    for methods in (["mindflow", "stateless"], ["stateless"]):  # with and without a split
        est = estimate_eval(s, EvalConfig(methods=methods, graph="corpus"), topics)
        (graph_line,) = [ln for ln in est.lines if ln.scope.startswith("graphs: extraction")]
        assert graph_line.calls == 30, (methods, graph_line)
        # the same graph gets parent nodes (SoIQ B.4) by the parent judge: priced over the same papers
        (parents,) = [ln for ln in est.lines if ln.scope.startswith("graphs: parent judge")]
        assert parents.calls == 2 * s.miner.max_triples * 30 * 3 // 2 and parents.cost_usd > 0, parents
