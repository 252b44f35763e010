"""The mind supernet's per-layer choice rule: an ordered subset of operators, drawn without
replacement (Plackett–Luce) until the chosen operators' cumulative probability passes a threshold.

Given the layer's logits z and probabilities π = softmax(z), a draw o_1, o_2, … takes o_j with
probability π(o_j) / (1 − Σ_{i<j} π(o_i)) and stops as soon as Σ_{i≤j} π(o_i) ≥ threshold (or the
cap is reached). Stopping is a deterministic function of the drawn prefix, so the probability of
the layer's ordered choice is exactly the Plackett–Luce prefix probability

    log π_ℓ(O_ℓ) = Σ_j [ z(o_j) − logsumexp(z over the operators not yet drawn) ],

whose gradient with respect to z is Σ_j (e_{o_j} − softmax of z over the remaining operators).
At inference the same rule runs greedily: descending probability (ties by operator order).
Everything here is pure numpy on one layer; controller.py chains the layers.
"""

from __future__ import annotations

import numpy as np


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - np.max(z))
    return e / e.sum()


def _logsumexp(z: np.ndarray) -> float:
    m = float(np.max(z))
    return m + float(np.log(np.exp(z - m).sum()))


def _stop(cum: float, n: int, threshold: float, max_ops: int, size: int) -> bool:
    # 1e-12: cumulative sums of floats that should hit the threshold exactly must count as passing it
    return cum >= threshold - 1e-12 or n >= max_ops or n >= size


def sample_layer(logits: np.ndarray, threshold: float, max_ops: int, rng: np.random.Generator) -> list[int]:
    """An ordered choice of operator indices drawn by Plackett–Luce until the threshold is passed."""
    probs = softmax(np.asarray(logits, dtype=np.float64))
    remaining = np.ones(len(probs), dtype=bool)
    order: list[int] = []
    cum = 0.0
    while True:
        p = np.where(remaining, probs, 0.0)
        p = p / p.sum()
        i = int(rng.choice(len(p), p=p))
        order.append(i)
        remaining[i] = False
        cum += float(probs[i])
        if _stop(cum, len(order), threshold, max_ops, len(probs)):
            return order


def greedy_layer(logits: np.ndarray, threshold: float, max_ops: int) -> list[int]:
    """The same rule without chance: descending probability, ties broken by operator order."""
    probs = softmax(np.asarray(logits, dtype=np.float64))
    ranked = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    order: list[int] = []
    cum = 0.0
    for i in ranked:
        order.append(i)
        cum += float(probs[i])
        if _stop(cum, len(order), threshold, max_ops, len(probs)):
            break
    return order


def layer_log_prob(logits: np.ndarray, order: list[int]) -> float:
    """log of the Plackett–Luce probability of drawing `order` first (the layer's share of log Q)."""
    z = np.asarray(logits, dtype=np.float64)
    remaining = np.ones(len(z), dtype=bool)
    total = 0.0
    for i in order:
        total += float(z[i]) - _logsumexp(z[remaining])
        remaining[i] = False
    return total


def layer_log_prob_grad(logits: np.ndarray, order: list[int]) -> np.ndarray:
    """d layer_log_prob / d logits."""
    z = np.asarray(logits, dtype=np.float64)
    remaining = np.ones(len(z), dtype=bool)
    g = np.zeros_like(z)
    for i in order:
        p = np.where(remaining, np.exp(z - np.max(z[remaining])), 0.0)
        g -= p / p.sum()
        g[i] += 1.0
        remaining[i] = False
    return g


def entropy_grad(logits: np.ndarray) -> tuple[float, np.ndarray]:
    """Entropy H of softmax(logits) and dH/dlogits (for the optional entropy bonus)."""
    p = softmax(np.asarray(logits, dtype=np.float64))
    logp = np.log(np.clip(p, 1e-300, None))
    h = float(-(p * logp).sum())
    return h, -p * (logp + h)
