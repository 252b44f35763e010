"""The training loop's bookkeeping: checkpoint every step, exact resume, budget stop, log contents."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from motivgraph.agents.mindflow import scripted
from motivgraph.agents.mindflow.config import FlowConfig, TrainConfig
from motivgraph.agents.mindflow.controller import Controller
from motivgraph.agents.mindflow.executor import llm_executor
from motivgraph.agents.mindflow.operators import resolve_operators
from motivgraph.agents.mindflow.tournament import JudgeOutcome
from motivgraph.agents.mindflow.train import CHECKPOINT, CONTROLLER, LOG, Trainer
from motivgraph.errors import BudgetExceeded
from tests.unit.agents.mindflow.mindflow_support import DIM, direct_ask, topics


async def judge(a: dict[str, Any], b: dict[str, Any]) -> JudgeOutcome:
    na, nb = a["method"].count("[op:critical]"), b["method"].count("[op:critical]")
    return JudgeOutcome({d: "A" if na >= nb else "B" for d in
                         ("problem_novelty", "significance", "timeliness", "technical_novelty", "effectiveness",
                          "feasibility")})


def make(tmp: Path, steps: int, executor: Any = None) -> Trainer:
    flow = FlowConfig(layers=2)
    ctrl = Controller(resolve_operators(flow), DIM, flow)
    ex = executor or llm_executor(direct_ask(scripted.operator_reply), flow)
    # the named validation option (2 of the 6 topics held out): the call counts below assume 2 anchors
    return Trainer(ctrl, TrainConfig(steps=steps, group=3, seed=5, val_every=2, val_fraction=0.3), topics(6), ex,
                   lambda t: judge, tmp)


def test_resume_continues_exactly(tmp_path: Path) -> None:
    straight = make(tmp_path / "a", 4)
    asyncio.run(straight.run(plot=False))
    first = make(tmp_path / "b", 2)
    asyncio.run(first.run(plot=False))
    assert (tmp_path / "b" / CHECKPOINT).is_file() and (tmp_path / "b" / CONTROLLER).is_file()
    second = make(tmp_path / "b", 4)
    out = asyncio.run(second.run(plot=False))
    assert out.resumed_from == 2 and out.steps_done == 4
    for k in straight.ctrl.params:
        assert np.allclose(straight.ctrl.params[k], second.ctrl.params[k])
    log_a = [json.loads(x) for x in (tmp_path / "a" / LOG).read_text().splitlines()]
    log_b = [json.loads(x) for x in (tmp_path / "b" / LOG).read_text().splitlines()]
    steps_a = [r for r in log_a if r["type"] == "step"]
    steps_b = [r for r in log_b if r["type"] == "step"]
    assert [r["step"] for r in steps_b] == [1, 2, 3, 4]
    assert [r["topics"][0]["flows"] for r in steps_a] == [r["topics"][0]["flows"] for r in steps_b]
    rec = steps_a[0]
    assert set(rec["op_probs"]) == set(resolve_operators(FlowConfig()))
    t = rec["topics"][0]
    assert sorted(t["ranks"]) == [0, 1, 2] and sum(t["advantages"]) == pytest.approx(0.0, abs=1e-3)
    assert t["scores"][0] == 3  # the anchor


def test_budget_stop_keeps_last_full_step_and_resumes(tmp_path: Path) -> None:
    flow = FlowConfig(layers=2)
    real = llm_executor(direct_ask(scripted.operator_reply), flow)
    calls = {"n": 0}

    async def limited(topic: Any, plan: Any) -> Any:
        calls["n"] += 1
        if calls["n"] > 2 + 2 * 3 + 1:  # prior validation (2 anchors), two full steps, then out of money
            raise BudgetExceeded("LLM budget of $1.0000 reached")
        return await real(topic, plan)

    tr = make(tmp_path, 5, limited)
    out = asyncio.run(tr.run(plot=False))
    assert out.stopped == "budget" and "re-run" in out.message
    done = out.steps_done
    assert 0 < done < 5
    steps = [json.loads(x) for x in (tmp_path / LOG).read_text().splitlines() if '"type": "step"' in x]
    assert [r["step"] for r in steps] == list(range(1, done + 1))
    again = make(tmp_path, 5)
    out2 = asyncio.run(again.run(plot=False))
    assert out2.resumed_from == done and out2.stopped == "completed" and out2.steps_done == 5


def test_resume_refuses_a_different_seed(tmp_path: Path) -> None:
    asyncio.run(make(tmp_path, 1).run(plot=False))
    flow = FlowConfig(layers=2)
    tr = Trainer(Controller(resolve_operators(flow), DIM, flow), TrainConfig(steps=2, group=3, seed=6), topics(6),
                 llm_executor(direct_ask(scripted.operator_reply), flow), lambda t: judge, tmp_path)
    from motivgraph.errors import ConfigError

    with pytest.raises(ConfigError, match="seed"):
        asyncio.run(tr.run(plot=False))


def test_unusable_judge_verdict_counts_as_a_draw(tmp_path: Path) -> None:
    from motivgraph.errors import StructuredOutputError

    async def broken(a: dict[str, Any], b: dict[str, Any]) -> JudgeOutcome:
        raise StructuredOutputError("no valid Verdict after 2 replies")

    flow = FlowConfig(layers=2)
    tr = Trainer(Controller(resolve_operators(flow), DIM, flow), TrainConfig(steps=1, group=3, seed=5, val_every=0),
                 topics(4), llm_executor(direct_ask(scripted.operator_reply), flow), lambda t: broken, tmp_path)
    out = asyncio.run(tr.run(plot=False))
    assert out.stopped == "completed" and out.steps_done == 1
    step = next(json.loads(x) for x in (tmp_path / LOG).read_text().splitlines() if '"type": "step"' in x)
    assert step["topics"][0]["scores"] == [3, 3, 3]  # every comparison a draw; ranks still strict
    assert sorted(step["topics"][0]["ranks"]) == [0, 1, 2]


def test_trains_on_every_training_topic_by_default_validation_is_an_option(tmp_path: Path) -> None:
    """The seed's 70-30 split is the evaluation's: the trainer must not hold out 30 % of the training part
    again (gradients came from ~49 % of the topics). A second hold-out is the named `val_fraction` option."""
    flow = FlowConfig(layers=2)
    ex = llm_executor(direct_ask(scripted.operator_reply), flow)
    tr = Trainer(Controller(resolve_operators(flow), DIM, flow), TrainConfig(steps=1, group=3), topics(6), ex,
                 lambda t: judge, tmp_path / "a")
    assert len(tr.train_ids) == 6 and tr.val_reuses_train
    held = Trainer(Controller(resolve_operators(flow), DIM, flow), TrainConfig(steps=1, group=3, val_fraction=0.3),
                   topics(6), ex, lambda t: judge, tmp_path / "b")
    assert len(held.train_ids) == 4 and len(held.val_ids) == 2 and not held.val_reuses_train


def test_cost_estimate_validates_on_every_training_topic_without_a_holdout() -> None:
    from motivgraph.agents.mindflow.cost import training_tally

    flow = FlowConfig(layers=2)
    ctrl = Controller(resolve_operators(flow), 1, flow)
    assert training_tally(ctrl, TrainConfig(steps=2), np.zeros(1), "t", 100, 6).n_val == 6
    assert training_tally(ctrl, TrainConfig(steps=2, val_fraction=0.3), np.zeros(1), "t", 100, 6).n_val == 2
