"""Dry-run cost of MindFlow: calls, tokens and dollars per generated idea, per training step and
for a whole training run — without calling any model.

Prompt sizes are counted on the real templates (llm.tokens.count_tokens) with the topic, its
background and a working set of proposals of `FlowConfig.proposal_tokens` tokens each; reply sizes
are the config's proposal/critique/verdict sizes times the candidates an operator hands back. Which
operators run is averaged over flows drawn from the controller (the untrained prior unless a
trained controller is given), so a confident controller — fewer operators per layer — is cheaper.
Tie-break judge calls are averaged over tournaments whose votes are coin flips.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from motivgraph.agents.mindflow import prompts
from motivgraph.agents.mindflow.config import DIMENSIONS, FlowConfig, TrainConfig
from motivgraph.agents.mindflow.controller import Controller
from motivgraph.agents.mindflow.flow import FlowPlan
from motivgraph.llm.tokens import count_tokens
from motivgraph.llm.usage import cost_usd

REFERENCE_MODELS = ("deepseek-chat", "gpt-4o-mini")  # DeepSeek-V3 is served as deepseek-chat


@dataclass
class Tally:
    calls: float = 0.0
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    by_op: dict[str, float] = field(default_factory=dict)  # calls per operator

    def add(self, calls: float, t_in: float, t_out: float, op: str = "") -> None:
        self.calls += calls
        self.input_tokens += t_in
        self.output_tokens += t_out
        if op:
            self.by_op[op] = self.by_op.get(op, 0.0) + calls

    def scaled(self, k: float) -> Tally:
        return Tally(self.calls * k, self.input_tokens * k, self.output_tokens * k,
                     {o: c * k for o, c in self.by_op.items()})

    def plus(self, other: Tally) -> Tally:
        out = self.scaled(1.0)
        out.add(other.calls, other.input_tokens, other.output_tokens)
        for o, c in other.by_op.items():
            out.by_op[o] = out.by_op.get(o, 0.0) + c
        return out

    def dollars(self, model: str, prices: dict[str, tuple[float, float]]) -> float:
        return cost_usd(model, prices, round(self.input_tokens), round(self.output_tokens))

    def to_dict(self) -> dict[str, Any]:
        return {"calls": round(self.calls, 2), "input_tokens": round(self.input_tokens),
                "output_tokens": round(self.output_tokens)}


def _context_tokens(topic: str, background_tokens: int, cfg: FlowConfig) -> int:
    graph = cfg.context_nodes * 30  # one line per node near the topic
    return count_tokens(prompts.operator_user(topic, "", "", [], "generate")) + background_tokens + graph


def flow_tally(plan: FlowPlan, cfg: FlowConfig, topic: str, background_tokens: int) -> Tally:
    """What one flow costs, following how each operator changes the working set's size."""
    ctx = _context_tokens(topic, background_tokens, cfg)
    prop = cfg.proposal_tokens
    t = Tally()
    ws = 0

    def call(op: str, key: str, shown: int, out_props: int, extra: int = 0, **fmt: Any) -> None:
        system = count_tokens(prompts.operator_system(op, key, **fmt)) + 60  # + schema instruction
        out = cfg.critique_tokens if key == "critical_critique" else prop * max(1, out_props)
        t.add(1, system + ctx + shown * prop + extra, out, op)

    def cap(n: int) -> int:
        return min(n, cfg.working_set_max)

    for op in plan.ops:
        if op == "generate":
            call(op, "generate", ws, 1)
            ws = cap(ws + 1)
        elif op == "divergent":
            call(op, "divergent", ws, cfg.alternatives + ws, alternatives=cfg.alternatives)
            ws = cap(ws + cfg.alternatives if ws else cfg.alternatives)
        elif op == "convergent":
            call(op, "convergent", ws, 1)
            ws = 1
        elif op == "critical":
            if ws == 0:
                call(op, "generate", 0, 1)
                ws = 1
            for _ in range(cfg.critical_rounds):
                call(op, "critical_critique", 1, 0)
                call(op, "critical_revise", ws, ws, extra=cfg.critique_tokens)
        elif op == "analogical":
            call(op, "analogical", ws, ws + 1, extra=3 * cfg.analogical_k * 60)
            ws = cap(ws + 1)
        elif op == "counterfactual":
            call(op, "counterfactual", ws, ws + 1)
            ws = cap(ws + 1)
        elif op == "constraint":
            call(op, "constraint", ws, max(ws, 1), constraints="\n".join(cfg.constraints))
            ws = max(ws, 1)
        else:  # a user-registered operator: one call over the working set
            system = count_tokens(prompts.FRAME) + 60
            t.add(1, system + ctx + ws * prop, prop * max(1, ws), op)
            ws = cap(ws + 1)
    if ws > 1 and cfg.finalize == "converge":
        call("convergent", "convergent", ws, 1)
    return t


def idea_tally(ctrl: Controller, emb: np.ndarray, topic: str, background_tokens: int, *, greedy: bool,
               samples: int = 200, seed: int = 0) -> Tally:
    """Expected cost of one idea: the greedy flow, or the mean over `samples` sampled flows."""
    if greedy:
        return flow_tally(ctrl.greedy(emb), ctrl.cfg, topic, background_tokens)
    rng = np.random.default_rng(seed)
    total = Tally()
    for _ in range(samples):
        total = total.plus(flow_tally(ctrl.sample(emb, rng), ctrl.cfg, topic, background_tokens))
    return total.scaled(1.0 / samples)


def judge_tally(cfg: FlowConfig, topic: str, background_tokens: int) -> Tally:
    t = Tally()
    proposal = {"title": "x"}
    shown = count_tokens(prompts.JUDGE_SYSTEM) + count_tokens(prompts.judge_user(topic, "", proposal, proposal))
    t.add(1, shown + 80 + background_tokens + 2 * cfg.proposal_tokens, cfg.judge_tokens, "judge")
    return t


def expected_tiebreaks(group: int, trials: int = 4000, seed: int = 0) -> float:
    """Mean head-to-head judge calls per tournament when every vote is a coin flip."""
    rng = np.random.default_rng(seed)
    total = 0
    for _ in range(trials):
        scores = [len(DIMENSIONS) // 2, *list(rng.binomial(len(DIMENSIONS), 0.5, group - 1))]
        for s in set(scores):
            n = scores.count(s)
            pairs = n * (n - 1) // 2
            total += pairs - (n - 1 if s == len(DIMENSIONS) // 2 else 0)  # anchor pairs are reused
    return total / trials


@dataclass
class TrainingEstimate:
    idea: Tally
    step: Tally
    validation: Tally
    total: Tally
    val_points: int
    n_val: int


def training_tally(ctrl: Controller, tcfg: TrainConfig, emb: np.ndarray, topic: str, background_tokens: int,
                   n_topics: int) -> TrainingEstimate:
    cfg = ctrl.cfg
    idea = idea_tally(ctrl, emb, topic, background_tokens, greedy=False)
    judge = judge_tally(cfg, topic, background_tokens)
    per_topic = idea.scaled(tcfg.group).plus(judge.scaled(tcfg.group - 1 + expected_tiebreaks(tcfg.group)))
    step = per_topic.scaled(tcfg.topics_per_step)
    # As split_topics: no held-out share (the default) validates on every training topic.
    held = min(n_topics - 1, round(n_topics * tcfg.val_fraction)) if n_topics > 1 else 0
    n_val = held if held > 0 else max(1, n_topics)
    greedy = idea_tally(ctrl, emb, topic, background_tokens, greedy=tcfg.val_mode == "greedy")
    per_val = greedy.plus(judge.scaled(2 if tcfg.val_both_orders else 1)).scaled(n_val)
    val_points = 2 + (tcfg.steps // tcfg.val_every - (1 if tcfg.steps % tcfg.val_every == 0 else 0)
                      if tcfg.val_every else 0)
    anchors = idea.scaled(n_val)
    validation = per_val.scaled(val_points).plus(anchors)
    total = step.scaled(tcfg.steps).plus(validation)
    return TrainingEstimate(idea, step, validation, total, val_points, n_val)


def price_lines(label: str, t: Tally, prices: dict[str, tuple[float, float]], models: list[str]) -> str:
    money = ", ".join(f"{m} ${t.dollars(m, prices):.4f}" for m in models)
    return (f"{label:<22} {t.calls:8.1f} calls {t.input_tokens:11,.0f} in {t.output_tokens:10,.0f} out   {money}")
