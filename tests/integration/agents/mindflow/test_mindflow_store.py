"""The controller store (scripted models, no graph): `mindflow train` without --out stores the
controller under the data dir keyed by the ideator and embedding model, recording what it was
trained with; `ideate --method mindflow` then uses it without --controller, never uses one stored
for another model (and says why), warns when a given controller was trained for another model, and
says plainly when it runs the untrained prior."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.agents.core.rundir import RunDir
from motivgraph.agents.mindflow.controller import Controller
from motivgraph.agents.mindflow.store import model_key, store_root
from motivgraph.cli import app
from motivgraph.llm import reset_scripted_models
from tests.integration.agents.mindflow.test_mindflow_e2e import env, topics_file


def _events(run: RunDir) -> list[dict]:
    return [json.loads(x) for x in (run.path / "transcript.jsonl").read_text().splitlines()]


def _controller_phase(run: RunDir) -> dict:
    return next(e for e in _events(run) if e.get("type") == "phase" and "controller" in e)


def _ideate(bg: Path, out: Path, *extra: str) -> RunDir:
    res = CliRunner().invoke(app, ["ideate", "--method", "mindflow", "--background", str(bg), "--topic-id", "t-1",
                                   "--out", str(out), *extra])
    assert res.exit_code == 0, res.output
    (run,) = RunDir.list(out)
    assert run.status()["status"] == "completed"
    return run


def _other_model(tmp_path: Path, monkeypatch) -> str:  # type: ignore[no-untyped-def]
    """Another scripted ideator (same replies, another model id)."""
    other = tmp_path / "other_script.json"
    other.write_text(json.dumps({"default": {"call": "motivgraph.agents.mindflow.scripted:reply"}}))
    reset_scripted_models()
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", f"scripted:{other}")
    return f"scripted:{other}"


def test_train_stores_for_the_model_and_ideate_finds_it(settings, monkeypatch, tmp_path: Path) -> None:
    env(settings, monkeypatch, tmp_path)
    model = f"scripted:{tmp_path / 'mindflow_script.json'}"
    bg = topics_file(tmp_path)

    # nothing stored yet: the prior, said plainly (event and CLI line)
    res = CliRunner().invoke(app, ["ideate", "--method", "mindflow", "--background", str(bg), "--topic-id", "t-1",
                                   "--out", str(tmp_path / "r0")])
    assert res.exit_code == 0 and "untrained prior" in res.output, res.output
    (run0,) = RunDir.list(tmp_path / "r0")
    phase = _controller_phase(run0)
    assert phase["prior"] is True and "no trained controller stored for" in phase["phase"]
    assert run0.ideas()[0]["extra"]["controller"] == "untrained prior"

    res = CliRunner().invoke(app, ["method", "mindflow", "train", "--topics", str(bg), "--steps", "2", "--group", "2",
                                   "--val-every", "0", "--no-tools", "--seed", "3"])
    assert res.exit_code == 0, res.output
    folder = store_root(settings.data_dir) / model_key(model, settings.embedding.model)
    (entry,) = [p.parent for p in folder.glob("*/controller.npz")]
    assert str(entry) in res.output
    tr = Controller.load(entry).training
    assert tr["ideator_model"] == model and tr["embedding_model"] == settings.embedding.model
    assert tr["steps"] == 2 and tr["seed"] == 3 and tr["topics"]["count"] == 4
    assert sorted(tr["topics"]["train_ids"] + tr["topics"]["val_ids"]) == ["t-0", "t-1", "t-2", "t-3"]
    assert tr["reward"]["group"] == 2 and tr["reward"]["cost_lambda"] == 0.1 and "Rank" in tr["reward"]["formula"]

    # the same command again resumes the same store entry
    res = CliRunner().invoke(app, ["method", "mindflow", "train", "--topics", str(bg), "--steps", "3", "--group", "2",
                                   "--val-every", "0", "--no-tools", "--seed", "3"])
    assert res.exit_code == 0 and "resumed at step 2" in res.output, res.output
    assert [p.parent for p in folder.glob("*/controller.npz")] == [entry]

    run = _ideate(bg, tmp_path / "r1")
    phase = _controller_phase(run)
    assert phase["prior"] is False and str(entry / "controller.npz") in phase["controller"]
    assert "stored for this model" in phase["controller"] and "3 steps on 4 topics" in phase["controller"]
    assert run.ideas()[0]["extra"]["controller"] == phase["controller"]

    # another ideator model: the stored controller is not picked; the prior says why
    other = _other_model(tmp_path, monkeypatch)
    run = _ideate(bg, tmp_path / "r2")
    phase = _controller_phase(run)
    assert phase["prior"] is True
    assert f"no trained controller stored for {other}" in phase["phase"]
    assert "stored for other models are not used" in phase["phase"]

    # given explicitly, a controller trained for another model is used, with a warning naming the fix
    run = _ideate(bg, tmp_path / "r3", "--controller", str(entry))
    events = _events(run)
    warn = [e for e in events if e.get("type") == "warning" and "was trained for ideator" in e.get("text", "")]
    assert warn and model in warn[0]["text"] and other in warn[0]["text"]
    assert _controller_phase(run)["prior"] is False
