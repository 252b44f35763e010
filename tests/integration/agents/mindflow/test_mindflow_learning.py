"""The controller learns from anchor tournaments (issue 15 done-when), with scripted models.

A scripted judge that prefers ideas whose flow shows `critical` more often: within 60 steps, for
each of 3 seeds, critical's mean selection probability rises from 1/7 to >= 0.5 and the validation
reward beats the untrained prior by >= 0.15. A judge preferring cheap flows lowers the mean flow
cost. The negative controls run the same training with the update removed or its sign flipped and
show that these assertions then fail — so the tests measure the update, not chance.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "unit" / "agents" / "mindflow"))
import mindflow_support as ms

from motivgraph.agents.mindflow import scripted
from motivgraph.agents.mindflow.controller import Controller
from motivgraph.agents.mindflow.train import LOG, selection_probs


def _mutate(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    if mode == "normal":
        return
    scale = {"removed": 0.0, "flipped": -1.0}[mode]
    orig = Controller.apply

    def apply(self: Controller, grads: dict[str, Any], opt: Any) -> None:
        orig(self, {k: scale * g for k, g in grads.items()}, opt)

    monkeypatch.setattr(Controller, "apply", apply)


def _train_critical(tmp: Path, seed: int) -> dict[str, float]:
    tr, _ = ms.trainer(tmp, scripted.judge_preferring("critical"), seed=seed, steps=60)
    start = selection_probs(tr.ctrl, [tr.topics[i] for i in tr.val_ids])["critical"]
    out = asyncio.run(tr.run(plot=False))
    end = selection_probs(tr.ctrl, [tr.topics[i] for i in tr.val_ids])["critical"]
    assert out.stopped == "completed" and out.steps_done == 60
    assert out.prior_val is not None and out.final_val is not None
    return {"start": start, "end": end, "prior_val": out.prior_val, "final_val": out.final_val}


def _learned_critical(r: dict[str, float]) -> bool:
    return r["end"] >= 0.5 and r["final_val"] - r["prior_val"] >= 0.15


def _mean_cost(tmp: Path, first: bool) -> float:
    steps = [json.loads(x) for x in (tmp / LOG).read_text().splitlines() if '"type": "step"' in x]
    part = steps[:10] if first else steps[-10:]
    return float(np.mean([r["tokens"] for r in part]))


def _train_cheap(tmp: Path, seed: int) -> tuple[float, float]:
    tr, _ = ms.trainer(tmp, ms.judge_preferring_cheap(), seed=seed, steps=60)
    asyncio.run(tr.run(plot=False))
    return _mean_cost(tmp, True), _mean_cost(tmp, False)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_judge_preferring_critical_teaches_the_controller(tmp_path: Path, seed: int) -> None:
    r = _train_critical(tmp_path, seed)
    assert r["start"] == pytest.approx(1 / 7)
    assert r["end"] >= 0.5, r
    assert r["final_val"] - r["prior_val"] >= 0.15, r


def test_judge_preferring_cheap_flows_lowers_flow_cost(tmp_path: Path) -> None:
    first, last = _train_cheap(tmp_path, 0)
    assert last < 0.85 * first, (first, last)


@pytest.mark.parametrize("mode", ["removed", "flipped"])
def test_negative_control_learning_fails_without_the_update(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            mode: str) -> None:
    _mutate(monkeypatch, mode)
    r = _train_critical(tmp_path / "crit", 0)
    assert not _learned_critical(r), r
    if mode == "removed":
        assert r["end"] == pytest.approx(1 / 7)
    else:
        assert r["end"] < 1 / 7
    first, last = _train_cheap(tmp_path / "cheap", 0)
    assert not last < 0.85 * first, (first, last)
