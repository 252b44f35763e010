"""Plackett–Luce threshold sampling, log Q and its gradient, autoregressive conditioning, seeds."""

from __future__ import annotations

import numpy as np
import pytest

from motivgraph.agents.mindflow import supernet
from motivgraph.agents.mindflow.config import FlowConfig
from motivgraph.agents.mindflow.controller import Adam, Controller
from motivgraph.agents.mindflow.flow import FlowPlan

OPS = ("generate", "divergent", "convergent", "critical", "analogical", "counterfactual", "constraint")


def _emb(seed: int, dim: int = 8) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=dim)
    return v / np.linalg.norm(v)


def test_uniform_prior_takes_operators_until_threshold() -> None:
    z = np.zeros(7)
    assert supernet.greedy_layer(z, 0.25, 5) == [0, 1]  # 1/7 < 0.25 <= 2/7; ties by operator order
    assert supernet.greedy_layer(z, 0.5, 5) == [0, 1, 2, 3]
    assert supernet.greedy_layer(z, 0.5, 2) == [0, 1]  # the cap


def _check_threshold(order: list[int], probs: np.ndarray, threshold: float, max_ops: int) -> bool:
    """True when `order` obeys the stopping rule: every proper prefix is below the threshold and the
    whole choice passes it (or hits the cap)."""
    cum = np.cumsum([probs[i] for i in order])
    if len(set(order)) != len(order) or not order:
        return False
    below = all(c < threshold - 1e-12 for c in cum[:-1])
    return below and (cum[-1] >= threshold - 1e-12 or len(order) >= max_ops or len(order) == len(probs))


@pytest.mark.parametrize("threshold", [0.1, 0.25, 0.5, 0.8])
def test_sampled_layers_obey_cumulative_threshold(threshold: float) -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        z = rng.normal(0, 2, 7)
        probs = supernet.softmax(z)
        order = supernet.sample_layer(z, threshold, 7, rng)
        cum = np.cumsum(probs[order])
        assert all(c < threshold for c in cum[:-1]), (order, cum)
        assert cum[-1] >= threshold - 1e-12
        assert len(set(order)) == len(order)
        assert _check_threshold(order, probs, threshold, 7)


def test_confident_layer_takes_one_operator() -> None:
    z = np.array([0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0])
    assert supernet.greedy_layer(z, 0.25, 3) == [3]


def test_plackett_luce_probability_matches_frequency() -> None:
    z = np.array([1.0, 0.5, 0.0, -0.5])
    rng = np.random.default_rng(1)
    n = 20000
    counts: dict[tuple[int, ...], int] = {}
    for _ in range(n):
        o = tuple(supernet.sample_layer(z, 0.6, 4, rng))
        counts[o] = counts.get(o, 0) + 1
    # every observed ordered choice: empirical frequency ≈ exp(log PL prefix); they sum to one
    total = sum(np.exp(supernet.layer_log_prob(z, list(o))) for o in counts)
    assert total == pytest.approx(1.0, abs=1e-9)
    for o, c in counts.items():
        assert c / n == pytest.approx(np.exp(supernet.layer_log_prob(z, list(o))), abs=0.012)


def test_log_prob_gradient_matches_finite_differences() -> None:
    z = np.random.default_rng(2).normal(size=6)
    order = [3, 0, 5]
    g = supernet.layer_log_prob_grad(z, order)
    eps = 1e-6
    for i in range(6):
        d = np.zeros(6)
        d[i] = eps
        num = (supernet.layer_log_prob(z + d, order) - supernet.layer_log_prob(z - d, order)) / (2 * eps)
        assert g[i] == pytest.approx(num, abs=1e-6)


@pytest.mark.parametrize("hidden", [0, 5])
def test_controller_gradient_matches_finite_differences(hidden: int) -> None:
    cfg = FlowConfig(layers=3, hidden=hidden)
    ctrl = Controller(OPS, 8, cfg, seed=3)
    rng = np.random.default_rng(3)
    for k in ctrl.params:  # move away from the all-zero start so every path carries gradient
        ctrl.params[k] = rng.normal(0, 0.3, ctrl.params[k].shape)
    emb = _emb(4)
    plan = ctrl.sample(emb, rng)
    grads = ctrl.grad_log_prob(emb, plan)
    eps = 1e-6
    for k, p in ctrl.params.items():
        for idx in [tuple(rng.integers(0, s) for s in p.shape) for _ in range(6)]:
            old = p[idx]
            p[idx] = old + eps
            up = ctrl.log_prob(emb, plan)
            p[idx] = old - eps
            down = ctrl.log_prob(emb, plan)
            p[idx] = old
            assert grads[k][idx] == pytest.approx((up - down) / (2 * eps), abs=1e-5), (k, idx)


def test_untrained_controller_is_uniform_and_log_q_is_defined() -> None:
    ctrl = Controller(OPS, 8, FlowConfig())
    plan = ctrl.sample(_emb(0), np.random.default_rng(0))
    for layer in plan.layers:
        assert np.allclose(layer.layer_probs, 1 / 7)
    assert plan.log_prob == pytest.approx(ctrl.log_prob(_emb(0), plan))
    assert np.isfinite(plan.log_prob) and plan.log_prob < 0
    assert ctrl.greedy(_emb(0)).ops == ["generate", "divergent"] * 4


def test_sampling_is_reproducible_with_a_seed() -> None:
    ctrl = Controller(OPS, 8, FlowConfig(hidden=4), seed=1)
    ctrl.params["W"] += np.random.default_rng(5).normal(0, 0.5, ctrl.params["W"].shape)
    a = [ctrl.sample(_emb(i), np.random.default_rng(42)).to_dict() for i in range(3)]
    b = [ctrl.sample(_emb(i), np.random.default_rng(42)).to_dict() for i in range(3)]
    c = [ctrl.sample(_emb(i), np.random.default_rng(43)).to_dict() for i in range(3)]
    assert a == b
    assert a != c


def test_layer_distribution_depends_on_earlier_layers_and_topic() -> None:
    cfg = FlowConfig(layers=3)
    ctrl = Controller(OPS, 8, cfg)
    # reward 'critical → convergent', penalise 'generate → convergent' (advantages +1 / −1)
    opt = Adam(0.1)
    emb = _emb(0)
    good = FlowPlan.fixed([["critical"], ["convergent"], ["generate"]])
    bad = FlowPlan.fixed([["generate"], ["convergent"], ["generate"]])
    for _ in range(30):
        g1, g2 = ctrl.grad_log_prob(emb, good), ctrl.grad_log_prob(emb, bad)
        ctrl.apply({k: g1[k] - g2[k] for k in g1}, opt)
    after_crit = ctrl.layer_probs(emb, 1, [["critical"]])
    after_gen = ctrl.layer_probs(emb, 1, [["generate"]])
    assert after_crit[OPS.index("convergent")] > 10 * after_gen[OPS.index("convergent")]
    # and the topic embedding moves the distribution too
    assert not np.allclose(ctrl.layer_probs(emb, 0, []), ctrl.layer_probs(-emb, 0, []))


def test_sampled_flow_conditions_on_its_own_history() -> None:
    ctrl = Controller(OPS, 8, FlowConfig(layers=2, threshold=0.01))
    i_crit, i_conv = OPS.index("critical"), OPS.index("convergent")
    w = ctrl.params["W"]
    w[1, i_conv, 8 + i_crit] = 20.0  # layer 2: 'convergent' iff layer 1 chose 'critical'
    w[0, i_crit, -1] = 0.0
    rng = np.random.default_rng(0)
    other = []
    for _ in range(300):
        plan = ctrl.sample(_emb(1), rng)
        if plan.layers[0].ops == ("critical",):
            assert plan.layers[1].ops == ("convergent",)
        else:
            other.append(plan.layers[1].ops == ("convergent",))
    assert 0.05 < np.mean(other) < 0.3  # uniform 1/7 without the conditioning operator


def test_save_and_load_round_trip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ctrl = Controller(OPS, 8, FlowConfig(hidden=3), seed=2, embedding_model="m")
    ctrl.params["W"] += 0.3
    path = ctrl.save(tmp_path / "controller.npz")
    back = Controller.load(tmp_path)
    assert back.operators == OPS and back.embedding_model == "m"
    assert np.allclose(back.layer_probs(_emb(0), 2, [["critical"], ["generate"]]),
                       ctrl.layer_probs(_emb(0), 2, [["critical"], ["generate"]]))
    path.write_bytes(b"not a controller")
    from motivgraph.errors import ConfigError

    with pytest.raises(ConfigError, match="not a controller"):
        Controller.load(path)
    with pytest.raises(ConfigError, match="expects 8-dim"):
        back.greedy(np.ones(5))
