"""Policy-gradient training of the controller by anchor tournaments.

One step, for each of `topics_per_step` training topics: sample K flows from Q_φ(·|topic) (the
first is the anchor), execute them, rank the ideas by the anchor tournament, turn ranks and costs
into rewards and group-relative advantages, and ascend Σ_k A_k ∇ log Q_φ(G_k | topic) (averaged
over the step's topics). Validation: each held-out topic's flow (greedy by default) is compared
with a fixed anchor idea drawn once from the untrained prior; the validation reward is
(share of the judge's votes won) − λ·C, each pair judged in both presentation orders by default,
so a prior-like controller scores about 0.5 minus its cost and a better controller more.

Flows are executed by any `async (topic, plan) -> FlowResult` and judged by any
`judge_for(topic) -> JudgeFn`, so the loop is tested without an LLM as well as with one.

Output directory: `checkpoint.npz` (controller + optimizer + loop state, one atomic write after
every step: a killed run resumes at the next step), `controller.npz` (the controller alone, for
`ideate --method mindflow --controller`), `train_log.jsonl` (one line per step and per validation)
and `training.png` at the end.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from motivgraph.agents.mindflow.config import DIMENSIONS, TrainConfig
from motivgraph.agents.mindflow.controller import Controller, make_optimizer
from motivgraph.agents.mindflow.flow import FlowPlan, FlowResult
from motivgraph.agents.mindflow.llmcall import CallUsage
from motivgraph.agents.mindflow.plot import plot_log
from motivgraph.agents.mindflow.reward import advantages, flow_costs, rewards
from motivgraph.agents.mindflow.topics import Topic, split_topics
from motivgraph.agents.mindflow.tournament import (
    JudgeFn,
    JudgeOutcome,
    PairJudge,
    anchor_tournament,
    wins_both_orders,
)
from motivgraph.errors import BudgetExceeded, ConfigError, StructuredOutputError
from motivgraph.fsutil import atomic_write

log = logging.getLogger(__name__)

Executor = Callable[[Topic, FlowPlan], Awaitable[FlowResult]]
JudgeFactory = Callable[[Topic], JudgeFn]
CHECKPOINT = "checkpoint.npz"
CONTROLLER = "controller.npz"
LOG = "train_log.jsonl"
PLOT = "training.png"
ANCHORS = "val_anchors.json"


@dataclass
class TrainOutcome:
    steps_done: int
    stopped: str  # "completed" | "budget"
    prior_val: float | None
    final_val: float | None
    out_dir: Path
    resumed_from: int = 0
    message: str = ""
    val_history: list[dict[str, Any]] = field(default_factory=list)


def selection_probs(ctrl: Controller, topics: Sequence[Topic]) -> dict[str, float]:
    """Each operator's probability, averaged over layers (along the greedy history) and topics."""
    rows = np.vstack([ctrl.mean_probs(_emb(t)).mean(axis=0) for t in topics])
    return {op: float(p) for op, p in zip(ctrl.operators, rows.mean(axis=0), strict=True)}


def _emb(t: Topic) -> np.ndarray:
    if t.embedding is None:
        raise ConfigError(f"topic {t.id} has no embedding (embed topics before training)")
    return t.embedding


def _flow_tokens(r: FlowResult | None) -> int:
    return r.trace.tokens if r is not None else 0


class Trainer:
    def __init__(self, controller: Controller, cfg: TrainConfig, topics: Sequence[Topic], executor: Executor,
                 judge_for: JudgeFactory, out_dir: str | Path, *,
                 on_event: Callable[[dict[str, Any]], None] | None = None, model: str = "") -> None:
        if not topics:
            raise ConfigError("MindFlow training needs at least one topic")
        self.ctrl = controller
        self.cfg = cfg
        self.topics = {t.id: t for t in topics}
        self.execute = executor
        self.judge_for = judge_for
        self.out = Path(out_dir)
        self.model = model  # the ideator model the flows ran on (recorded in the controller file)
        self.on_event = on_event or (lambda ev: None)
        self.opt = make_optimizer(cfg.optimizer, cfg.lr)
        self.step = 0
        train, val = split_topics(topics, cfg.val_fraction, cfg.seed)
        self.val_reuses_train = not val
        self.train_ids = [t.id for t in train]
        self.val_ids = [t.id for t in (val or train)]
        self.prior_val: float | None = None
        self.last_val: float | None = None
        self.val_history: list[dict[str, Any]] = []
        self.spent_usd = 0.0
        self.prior = Controller(controller.operators, controller.embed_dim, controller.cfg,
                                embedding_model=controller.embedding_model)
        self._anchors: dict[str, dict[str, Any]] = {}
        self.resumed_from = 0
        self._sem = asyncio.Semaphore(cfg.parallel_flows)

    # ------------------------------------------------------------------------------ persistence
    def _state(self) -> dict[str, Any]:
        return {"step": self.step, "train": self.cfg.model_dump(mode="json"), "controller": self.ctrl.meta(),
                "train_ids": self.train_ids, "val_ids": self.val_ids, "prior_val": self.prior_val,
                "last_val": self.last_val, "val_history": self.val_history, "spent_usd": self.spent_usd}

    def provenance(self) -> dict[str, Any]:
        """What the controller was trained with, stored in controller.npz: a controller from another
        model, other topics or another reward is then recognisable without the training directory."""
        ids = sorted(self.topics)
        digest = hashlib.sha256("\n".join(f"{i}\t{self.topics[i].text}" for i in ids).encode()).hexdigest()
        cfg = self.cfg
        return {"ideator_model": self.model, "embedding_model": self.ctrl.embedding_model,
                "topics": {"count": len(ids), "sha256": digest, "train_ids": list(self.train_ids),
                           "val_ids": [] if self.val_reuses_train else list(self.val_ids),
                           "titles": {i: self.topics[i].text[:200] for i in ids}},
                "reward": {"formula": "r = 1 - Rank/(K-1) - lambda*C(G); A = r - mean(r)", "group": cfg.group,
                           "cost_lambda": cfg.cost_lambda, "cost_mode": cfg.cost_mode,
                           "normalize_advantage": cfg.normalize_advantage, "entropy_bonus": cfg.entropy_bonus},
                "steps": self.step, "seed": cfg.seed, "train": cfg.model_dump(mode="json")}

    def save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        self.ctrl.steps_trained = self.step
        self.ctrl.training = self.provenance()
        buf = io.BytesIO()
        arrays = {f"p_{k}": v for k, v in self.ctrl.params.items()}
        arrays |= {f"o_{k}": v for k, v in self.opt.state().items()}
        np.savez(buf, allow_pickle=False, __state__=np.frombuffer(json.dumps(self._state()).encode(), dtype=np.uint8),
                 **arrays)
        atomic_write(self.out / CHECKPOINT, buf.getvalue())  # the one write that defines "step done"
        self.ctrl.save(self.out / CONTROLLER)

    def try_resume(self) -> bool:
        """Continue from out_dir/checkpoint.npz when present (same operators, embedding, seed and
        split); the log is cut back to the checkpoint's step. `steps` may be raised on resume."""
        path = self.out / CHECKPOINT
        if not path.exists():
            return False
        try:
            with np.load(path, allow_pickle=False) as data:
                state = json.loads(bytes(data["__state__"]).decode())
                params = {k[2:]: np.array(data[k]) for k in data.files if k.startswith("p_")}
                opt_state = {k[2:]: np.array(data[k]) for k in data.files if k.startswith("o_")}
        except (OSError, ValueError, KeyError) as e:
            raise ConfigError(f"{path} is not a MindFlow checkpoint ({e}); move it away to start afresh") from e
        saved = TrainConfig.model_validate(state["train"])
        for key in ("seed", "group", "val_fraction", "cost_mode"):
            if getattr(saved, key) != getattr(self.cfg, key):
                raise ConfigError(f"{path}: checkpoint was trained with {key}={getattr(saved, key)!r}, now "
                                  f"{getattr(self.cfg, key)!r}; use the same setting or a new --out directory")
        meta = state["controller"]
        if tuple(meta["operators"]) != self.ctrl.operators or meta["embed_dim"] != self.ctrl.embed_dim:
            raise ConfigError(f"{path}: checkpoint's operators/embedding differ from this run's; use a new --out")
        if set(state["train_ids"]) | set(state["val_ids"]) != set(self.topics):
            raise ConfigError(f"{path}: checkpoint was trained on other topics; use a new --out directory")
        for k, v in params.items():
            self.ctrl.params[k] = v
        self.opt.load_state(opt_state)
        self.step = self.resumed_from = int(state["step"])
        self.train_ids, self.val_ids = state["train_ids"], state["val_ids"]
        self.prior_val, self.last_val = state.get("prior_val"), state.get("last_val")
        self.val_history = list(state.get("val_history", []))
        self.spent_usd = float(state.get("spent_usd", 0.0))
        self._truncate_log()
        return True

    def _truncate_log(self) -> None:
        p = self.out / LOG
        if not p.exists():
            return
        keep = []
        for line in p.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line
            if int(rec.get("step", 0)) <= self.step:
                keep.append(line)
        atomic_write(p, "".join(x + "\n" for x in keep))

    def _log(self, rec: dict[str, Any]) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        with (self.out / LOG).open("a", encoding="utf-8") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self.on_event(rec)

    # ------------------------------------------------------------------------------ execution
    async def _run(self, topic: Topic, plan: FlowPlan) -> FlowResult | None:
        async with self._sem:
            try:
                return await self.execute(topic, plan)
            except BudgetExceeded:
                raise
            except Exception as e:  # one broken flow loses its tournament; the step goes on
                log.warning("MindFlow flow %s on %s failed: %s", plan.ops, topic.id, e)
                return None

    def _topics_for_step(self, step: int) -> list[Topic]:
        n = len(self.train_ids)
        out = []
        for j in range(self.cfg.topics_per_step):
            i = step * self.cfg.topics_per_step + j
            perm = np.random.default_rng([self.cfg.seed, 7, i // n]).permutation(n)  # a fresh order each epoch
            out.append(self.topics[self.train_ids[int(perm[i % n])]])
        return out

    async def train_step(self) -> dict[str, Any]:
        cfg, step = self.cfg, self.step + 1
        grads = {k: np.zeros_like(v) for k, v in self.ctrl.params.items()}
        per_topic: list[dict[str, Any]] = []
        for j, topic in enumerate(self._topics_for_step(step - 1)):
            emb = _emb(topic)
            rng = np.random.default_rng([cfg.seed, step, j])
            plans = [self.ctrl.sample(emb, rng) for _ in range(cfg.group)]
            results = await asyncio.gather(*(self._run(topic, p) for p in plans))
            ideas = [r.idea if r is not None else None for r in results]
            tour = await anchor_tournament(ideas, 0, _none_safe(self.judge_for(topic)),
                                           np.random.default_rng([cfg.seed, step, j, 1]), swap=cfg.judge_swap)
            tokens = [_flow_tokens(r) for r in results]
            costs = flow_costs(cfg.cost_mode, tokens=tokens, n_ops=[p.n_ops for p in plans],
                               layers=self.ctrl.cfg.layers, operators=self.ctrl.n_ops)
            rs = rewards(tour.ranks, costs, cfg.cost_lambda)
            adv = advantages(rs, cfg.normalize_advantage)
            for a, plan in zip(adv, plans, strict=True):
                g = self.ctrl.grad_log_prob(emb, plan)
                for k in grads:
                    grads[k] += a * g[k] / cfg.topics_per_step
                if cfg.entropy_bonus:
                    ge = self.ctrl.grad_entropy(emb, plan)
                    for k in grads:
                        grads[k] += cfg.entropy_bonus * ge[k] / (cfg.group * cfg.topics_per_step)
            usd = sum(r.trace.cost_usd for r in results if r is not None) + tour.usage.cost_usd
            self.spent_usd += usd
            per_topic.append({
                "topic": topic.id, "flows": [p.ops for p in plans], "n_ops": [p.n_ops for p in plans],
                "log_q": [round(p.log_prob, 4) for p in plans], "failed": [r is None for r in results],
                "scores": tour.scores, "ranks": tour.ranks, "rewards": [round(r, 4) for r in rs],
                "advantages": [round(a, 4) for a in adv], "tokens": tokens, "flow_cost": [round(c, 4) for c in costs],
                "judge_calls": tour.usage.calls, "judge_tokens": tour.usage.tokens, "cost_usd": round(usd, 6),
                "calls": sum(r.trace.calls for r in results if r is not None) + tour.usage.calls,
                "coin_broken": tour.coin_broken,
            })
        grad_norm = float(np.sqrt(sum(float((g * g).sum()) for g in grads.values())))
        self.ctrl.apply(grads, self.opt)
        self.step = step
        probs = selection_probs(self.ctrl, [self.topics[t["topic"]] for t in per_topic])
        rec = {
            "type": "step", "step": step,
            "reward_mean": round(float(np.mean([r for t in per_topic for r in t["rewards"]])), 4),
            "mean_n_ops": float(np.mean([n for t in per_topic for n in t["n_ops"]])),
            "tokens": int(sum(sum(t["tokens"]) for t in per_topic)),
            "calls": int(sum(t["calls"] for t in per_topic)),
            "cost_usd": round(sum(t["cost_usd"] for t in per_topic), 6), "cost_usd_total": round(self.spent_usd, 6),
            "grad_norm": round(grad_norm, 6), "op_probs": {k: round(v, 5) for k, v in probs.items()},
            "topics": per_topic,
        }
        self._log(rec)
        return rec

    # ------------------------------------------------------------------------------ validation
    def _anchor_path(self) -> Path:
        return self.out / ANCHORS

    async def _anchor(self, topic: Topic, index: int) -> dict[str, Any] | None:
        if not self._anchors and self._anchor_path().exists():
            self._anchors = json.loads(self._anchor_path().read_text(encoding="utf-8"))
        if topic.id not in self._anchors:
            plan = self.prior.sample(_emb(topic), np.random.default_rng([self.cfg.seed, 11, index]))
            res = await self._run(topic, plan)
            if res is None:
                return None
            self._anchors[topic.id] = {"plan": plan.to_dict(), "ops": plan.ops, "n_ops": plan.n_ops,
                                       "idea": res.idea, "tokens": res.trace.tokens}
            self.out.mkdir(parents=True, exist_ok=True)
            atomic_write(self._anchor_path(), json.dumps(self._anchors, ensure_ascii=False))
        return self._anchors[topic.id]

    async def validate(self, ctrl: Controller | None = None, tag: str = "validation") -> dict[str, Any]:
        """Mean over validation topics of (vote share won) − λ·C against each topic's fixed prior anchor."""
        ctrl = ctrl or self.ctrl
        cfg = self.cfg
        per: list[dict[str, Any]] = []
        for idx, tid in enumerate(self.val_ids):
            topic = self.topics[tid]
            anchor = await self._anchor(topic, idx)
            if cfg.val_mode == "greedy":
                plan = ctrl.greedy(_emb(topic))
            else:
                plan = ctrl.sample(_emb(topic), np.random.default_rng([cfg.seed, 13, self.step, idx]))
            res = await self._run(topic, plan)
            rng = np.random.default_rng([cfg.seed, 17, self.step, idx, int(tag == "prior")])
            judge = _none_safe(self.judge_for(topic))
            if anchor is None:
                share = 1.0 if res is not None else 0.5
            elif cfg.val_both_orders:
                share, _ = await wins_both_orders(judge, res.idea if res else None, anchor["idea"])
            else:
                tour = await anchor_tournament([res.idea if res else None, anchor["idea"]], 1, judge, rng,
                                               swap=cfg.judge_swap)
                share = tour.scores[0] / len(DIMENSIONS)
            if cfg.cost_mode == "tokens":
                base = anchor["tokens"] if anchor else 0
                cost = _flow_tokens(res) / base if base else 0.0
            else:
                cost = plan.n_ops / (ctrl.cfg.layers * ctrl.n_ops)
            per.append({"topic": tid, "ops": plan.ops, "win_share": round(share, 4), "cost": round(cost, 4),
                        "reward": round(share - cfg.cost_lambda * cost, 4),
                        "tokens": _flow_tokens(res)})
        reward = float(np.mean([p["reward"] for p in per]))
        probs = selection_probs(ctrl, [self.topics[t] for t in self.val_ids])
        rec = {"type": tag, "step": self.step, "reward": round(reward, 4),
               "mean_n_ops": float(np.mean([len(p["ops"]) for p in per])),
               "op_probs": {k: round(v, 5) for k, v in probs.items()}, "topics": per,
               "val_reuses_train": self.val_reuses_train}
        return rec

    # ------------------------------------------------------------------------------ the loop
    async def run(self, *, plot: bool = True) -> TrainOutcome:
        resumed = self.try_resume()
        stopped = "completed"
        message = ""
        try:
            if self.prior_val is None:
                rec = await self.validate(self.prior, "prior")
                self.prior_val = rec["reward"]
                self._log(rec)
                self.save()
            while self.step < self.cfg.steps:
                await self.train_step()
                if self.cfg.val_every and self.step % self.cfg.val_every == 0 and self.step < self.cfg.steps:
                    await self._validation_point()
                self.save()
            if not self.val_history or self.val_history[-1]["step"] != self.step:
                await self._validation_point()
                self.save()
        except BudgetExceeded as e:
            stopped = "budget"
            message = (f"budget reached during step {self.step + 1}: {e}. The checkpoint holds step {self.step}; "
                       "re-run the same command (with a higher --budget-usd) to resume.")
            log.warning("%s", message)
        if plot:
            plot_log(self.out / LOG, self.out / PLOT)
        return TrainOutcome(self.step, stopped, self.prior_val, self.last_val, self.out,
                            self.resumed_from if resumed else 0, message, self.val_history)

    async def _validation_point(self) -> None:
        rec = await self.validate()
        self.last_val = rec["reward"]
        self.val_history.append({"step": self.step, "reward": rec["reward"]})
        self._log(rec)


def _none_safe(judge: JudgeFn) -> PairJudge[dict[str, Any] | None]:
    """A flow that produced no idea loses every dimension; two missing ideas split 3–3."""

    async def wrapped(first: dict[str, Any] | None, second: dict[str, Any] | None) -> JudgeOutcome:
        if first is None or second is None:
            half = len(DIMENSIONS) // 2
            if first is None and second is None:
                return JudgeOutcome({d: ("A" if i < half else "B") for i, d in enumerate(DIMENSIONS)})
            return JudgeOutcome(dict.fromkeys(DIMENSIONS, "B" if first is None else "A"))
        try:
            return await judge(first, second)
        except StructuredOutputError as e:  # an unusable verdict is a 3–3 draw, not the end of training
            log.warning("MindFlow judge gave no usable verdict (%s); counted as a draw", e)
            half = len(DIMENSIONS) // 2
            return JudgeOutcome({d: ("A" if i < half else "B") for i, d in enumerate(DIMENSIONS)},
                                getattr(e, "usage", None) or CallUsage(), "judge failed: draw")

    return wrapped
