"""The training log as a PNG: rewards (step mean and validation), per-operator probabilities and
cost per step. matplotlib's Agg backend: no display needed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_log(path: str | Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    p = Path(path)
    if not p.exists():
        return out
    for line in p.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a torn last line of an interrupted run
    return out


def plot_log(log_path: str | Path, png_path: str | Path) -> Path | None:
    import matplotlib  # local: the Agg backend is set before pyplot loads

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # local: the Agg backend is set before pyplot loads

    recs = read_log(log_path)
    steps = [r for r in recs if r.get("type") == "step"]
    vals = [r for r in recs if r.get("type") in ("validation", "prior")]
    if not steps and not vals:
        return None
    fig, axes = plt.subplots(3, 1, figsize=(8, 10), sharex=True)
    ax = axes[0]
    if steps:
        ax.plot([r["step"] for r in steps], [r["reward_mean"] for r in steps], alpha=0.6,
                label="group mean reward (group-relative: 0.5 − λ·mean C)")
    if vals:
        ax.plot([r["step"] for r in vals], [r["reward"] for r in vals], "o-",
                label="validation reward (vs prior anchor)")
    ax.set_ylabel("reward")
    ax.legend(loc="best")
    ax = axes[1]
    series = steps or vals
    for op in series[0].get("op_probs", {}):
        ax.plot([r["step"] for r in series], [r["op_probs"].get(op, 0.0) for r in series], label=op)
    ax.set_ylabel("selection probability")
    ax.legend(loc="best", fontsize="small", ncol=2)
    ax = axes[2]
    if steps:
        ax.plot([r["step"] for r in steps], [r["tokens"] for r in steps], label="tokens per step")
        ax2 = ax.twinx()
        ax2.plot([r["step"] for r in steps], [r["mean_n_ops"] for r in steps], color="tab:red", alpha=0.6,
                 label="operators per flow")
        ax2.set_ylabel("operators per flow")
        ax2.legend(loc="upper right")
    ax.set_ylabel("tokens")
    ax.set_xlabel("step")
    ax.legend(loc="upper left")
    fig.suptitle("MindFlow training")
    fig.tight_layout()
    out = Path(png_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out
