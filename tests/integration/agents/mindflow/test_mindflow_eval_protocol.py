"""MindFlow as the paper evaluates it, through the evaluation harness (scripted models, background
files): the controller is trained on the training topics of a seeded split and every method is
compared on the held-out topics only; MindFlow's runs use that controller; no held-out topic is seen
in training; a second evaluation on the same training topics reuses the stored controller and one
asking for more steps resumes its checkpoint instead of training from scratch."""

from __future__ import annotations

import json
from pathlib import Path

from motivgraph.agents.core import PlatformLLMClient
from motivgraph.agents.core.rundir import RunDir
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.harness import Evaluation, create_eval
from motivgraph.agents.evaluation.judges import Judge
from motivgraph.agents.evaluation.mindflow_split import mindflow_split, prepare_mindflow
from motivgraph.agents.evaluation.topics import EvalTopic
from motivgraph.agents.mindflow.controller import Controller
from tests.integration.agents.evaluation.eval_support import all_methods_model, world_model


def _topics(n: int) -> list[EvalTopic]:
    return [EvalTopic.model_validate({
        "topic_id": f"T{i}", "topic": f"Topic {i}: sparse rewards in setting {i}",
        "background": [{"paper_id": f"b{i}{k}", "title": f"Background {k} of topic {i}",
                        "abstract": f"Reward shaping study {k}."} for k in range(2)],
        "targets": [{"paper_id": f"g{i}", "title": f"Target of topic {i}", "abstract": "Later work."}]})
        for i in range(n)]


def _evaluation(settings, embedder, config: EvalConfig, topics: list[EvalTopic]) -> Evaluation:  # type: ignore[no-untyped-def]
    run = create_eval(settings, config, topics, source="test")
    gen = all_methods_model()
    return Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings, model=gen),
                      judges=[Judge("j", PlatformLLMClient(settings, model=world_model("scripted-judge")))],
                      embed=embedder.embed)


def _steps(entry: Path) -> list[int]:
    return [json.loads(x)["step"] for x in (entry / "train_log.jsonl").read_text().splitlines()
            if json.loads(x)["type"] == "step"]


async def test_eval_trains_on_the_training_topics_and_compares_on_the_held_out_ones(settings, embedder) -> None:
    topics = _topics(4)
    config = EvalConfig(methods=["mindflow", "stateless"], n_ideas=1, graph="file", n_boot=20,
                        metrics=["scores"], mindflow_train={"steps": 1, "group": 2, "val_every": 0})
    split = mindflow_split(settings, config, topics)
    assert split.active and len(split.train) == 3 and len(split.test) == 1  # round(0.7 * 4)
    ev = _evaluation(settings, embedder, config, topics)
    res = await ev.execute()

    # every method on the held-out topic only
    deliveries = json.loads((ev.run.path / "deliveries.json").read_text())
    assert {(d["method"], d["topic_id"]) for d in deliveries} == {(m, t) for m in config.methods for t in split.test}
    assert any(n.startswith(f"MindFlow: train on 3 topics ({', '.join(split.train)}), test on 1") for n in res.notes)
    rows = {r["item"]: r["value"] for r in res.protocol}  # the report's Protocol table states the split
    assert rows["MindFlow split"].startswith(f"train on 3 topics ({', '.join(split.train)}), test on 1")
    events = [json.loads(x) for x in (ev.run.path / "transcript.jsonl").read_text().splitlines()]
    (sp,) = [e for e in events if e.get("type") == "mindflow_split"]
    assert sp["train"] == split.train and sp["test"] == split.test and sp["controller"]

    # the controller: trained on training topics only (no held-out topic anywhere in its record or log)
    entry = Path(sp["controller"]).parent
    tr = Controller.load(entry).training
    seen = set(tr["topics"]["train_ids"]) | set(tr["topics"]["val_ids"])
    assert seen == set(split.train) and tr["topics"]["count"] == 3
    assert tr["ideator_model"] == "scripted:scripted-all" and tr["steps"] == 1
    log_text = (entry / "train_log.jsonl").read_text()
    for tid in split.test:
        held = next(t for t in topics if t.topic_id == tid)
        assert tid not in log_text and held.topic not in json.dumps(tr)
    # MindFlow's run on the held-out topic used that controller
    (mf,) = [d for d in deliveries if d["method"] == "mindflow"]
    child = RunDir.open(settings.runs_dir, mf["runs"][0])
    assert child.status()["config"]["controller"] == sp["controller"]
    idea = child.ideas()[0]
    assert idea["extra"]["controller"].startswith(f"trained controller {sp['controller']} (1 steps on 3 topics")
    assert ev.mindflow_train_usd >= 0.0

    # another evaluation on the same topics: the stored controller is reused (no new step) ...
    ev2 = _evaluation(settings, embedder, config, topics)
    await prepare_mindflow(ev2)
    assert _steps(entry) == [1] and [t.topic_id for t in ev2.topics] == split.test
    assert ev2.config.method_configs["mindflow"]["controller"] == sp["controller"]
    # ... and asking for more steps resumes its checkpoint (step 2 follows step 1: nothing retrained)
    more = config.model_copy(update={"mindflow_train": {"steps": 2, "group": 2, "val_every": 0}})
    ev3 = _evaluation(settings, embedder, more, topics)
    await prepare_mindflow(ev3)
    assert _steps(entry) == [1, 2]
    assert Controller.load(entry).training["steps"] == 2


def test_eval_dry_run_prints_the_split(settings, monkeypatch, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from motivgraph.cli import app
    from tests.integration.agents.mindflow.test_mindflow_e2e import env, topics_file

    env(settings, monkeypatch, tmp_path)
    bg = topics_file(tmp_path, 4)
    res = CliRunner().invoke(app, ["eval", "--topics", str(bg), "--methods", "mindflow,stateless", "--graph", "file",
                                   "--dry-run", "--mindflow-train", '{"steps": 3, "group": 2}'], terminal_width=400)
    assert res.exit_code == 0, res.output
    out = _flat(res.output)  # the tables wrap cells over lines
    assert out.count("train on 3 topics (") == 2  # the protocol table's row and the estimate's note
    assert "every method is compared on the 1 held-out topic(s) only" in out and "MindFlow split" in res.output
    assert "mindflow: controller training" in out and "K=2" in out  # its cost line (the cell may wrap)
    res = CliRunner().invoke(app, ["eval", "--topics", str(bg), "--methods", "mindflow", "--graph", "file",
                                   "--dry-run", "--mindflow-split", "0"], terminal_width=400)
    assert res.exit_code == 0 and "no train/test split" in _flat(res.output)
    assert "controller training" not in _flat(res.output)


def _flat(text: str) -> str:
    """Table text as one line: box characters dropped, runs of whitespace as one space."""
    import re

    return " ".join(re.sub(r"[│┃┏┓┗┛┡┩━─╇╋┳┻└┘┌┐├┤┼]", " ", text).split())
