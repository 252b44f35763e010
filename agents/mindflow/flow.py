"""A thinking flow: the layered graph of operators the controller chose, and the trace of running it.

`FlowPlan` is what the controller sampled (layers of operator names in execution order, the
probability each had, log Q of the whole plan). Its edges are the execution order: each operator
hands the working set to the next one, within a layer and across layers. `FlowTrace` records what
actually ran: every step with its layer, position, operator, calls and tokens.

Graph or chain. The paper calls the flow a graph G = (V, E) over operators (mindflow.txt, Section
4.1), but the flow it samples and runs is layered: per layer an ordered set of operators, "executed
sequentially in order of descending score until the cumulative probability exceeds a preset
threshold" (Section 4.3), and Q(G|x) factorises over the layers, each conditioned on the earlier
layers' operator sets. It names no branch that runs beside another and no merge of branches, so the
graph a sampled flow defines is its layers in sequence -- a path through its nodes (`edges()`).
Breadth lives in the data, not in the topology: the working set carries up to `working_set_max`
candidate proposals (divergent adds alternatives, convergent merges them), and every operator reads
and rewrites that one set. A layered DAG run sequentially over one shared working set is its
topological order, which is this chain; tests/unit/agents/mindflow/test_flow_structure.py pins it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LayerChoice:
    ops: tuple[str, ...]  # in execution order
    probs: tuple[float, ...]  # π_ℓ(O) of each chosen operator when chosen
    log_prob: float  # this layer's share of log Q
    layer_probs: tuple[float, ...] = ()  # π_ℓ over all operators (for the trace)


@dataclass(frozen=True)
class FlowPlan:
    layers: tuple[LayerChoice, ...]
    mode: str  # "sample" or "greedy"
    operators: tuple[str, ...] = ()  # the supernet's operator order (for layer_probs)

    @property
    def log_prob(self) -> float:
        return sum(layer.log_prob for layer in self.layers)

    @property
    def ops(self) -> list[str]:
        """Operators in execution order (the flow's path)."""
        return [op for layer in self.layers for op in layer.ops]

    @property
    def n_ops(self) -> int:
        return sum(len(layer.ops) for layer in self.layers)

    def contains(self, op: str) -> bool:
        return any(op in layer.ops for layer in self.layers)

    def edges(self) -> list[tuple[str, str]]:
        """(from, to) node ids 'L<layer>.<pos>:<op>' along the execution order."""
        nodes = [f"L{li + 1}.{pos + 1}:{op}"
                 for li, layer in enumerate(self.layers) for pos, op in enumerate(layer.ops)]
        return list(itertools.pairwise(nodes))

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "log_prob": round(self.log_prob, 6),
            "layers": [{"ops": list(la.ops), "probs": [round(p, 6) for p in la.probs],
                        "log_prob": round(la.log_prob, 6),
                        "layer_probs": {o: round(p, 6) for o, p in zip(self.operators, la.layer_probs, strict=False)}}
                       for la in self.layers],
            "edges": [list(e) for e in self.edges()],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FlowPlan:
        first: dict[str, Any] = next(iter(d.get("layers", [])), {})
        ops = tuple(first.get("layer_probs", {}).keys())
        layers = tuple(LayerChoice(tuple(la["ops"]), tuple(la.get("probs", ())), float(la.get("log_prob", 0.0)),
                                   tuple(la.get("layer_probs", {}).values())) for la in d.get("layers", []))
        return cls(layers, str(d.get("mode", "sample")), ops)

    @classmethod
    def fixed(cls, layers: list[list[str]]) -> FlowPlan:
        """A hand-written flow (tests, ablations): no probabilities."""
        return cls(tuple(LayerChoice(tuple(ops), tuple(0.0 for _ in ops), 0.0) for ops in layers), "fixed")


@dataclass
class StepTrace:
    layer: int  # 1-based; 0 for the finalize step outside the sampled flow
    position: int  # 1-based within the layer
    op: str
    calls: int = 0  # paid LLM calls (tokens and cost are theirs)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    tools: list[str] = field(default_factory=list)  # graph tools the operator called
    candidates_in: int = 0
    candidates_out: int = 0
    error: str | None = None
    cached: int = 0  # calls the LLM cache answered: no tokens paid, counted apart as the cost table does

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"layer": self.layer, "position": self.position, "op": self.op, "calls": self.calls,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens, "tokens": self.tokens,
                "cost_usd": round(self.cost_usd, 6), "cached": self.cached, "tools": list(self.tools),
                "candidates_in": self.candidates_in, "candidates_out": self.candidates_out, "error": self.error}


@dataclass
class FlowTrace:
    plan: FlowPlan
    steps: list[StepTrace] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.steps)

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.steps)

    @property
    def cached(self) -> int:
        return sum(s.cached for s in self.steps)

    @property
    def cost_usd(self) -> float:
        return sum(s.cost_usd for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {"plan": self.plan.to_dict(), "steps": [s.to_dict() for s in self.steps], "tokens": self.tokens,
                "calls": self.calls, "cached": self.cached, "cost_usd": round(self.cost_usd, 6)}

    def summary_line(self) -> str:
        """'L1: critical → divergent | L2: convergent …' with tokens per step."""
        parts = []
        for li, layer in enumerate(self.plan.layers, start=1):
            steps = [s for s in self.steps if s.layer == li]
            toks = {(s.position, s.op): s.tokens for s in steps}
            parts.append(f"L{li}: " + " → ".join(f"{op} ({toks.get((p, op), 0)} tok)"
                                                  for p, op in enumerate(layer.ops, start=1)))
        fin = [s for s in self.steps if s.layer == 0]
        if fin:
            parts.append("finalize: " + " → ".join(f"{s.op} ({s.tokens} tok)" for s in fin))
        return " | ".join(parts)


@dataclass
class FlowResult:
    """One executed flow: the final idea (as a dict of proposal fields) and its trace."""

    idea: dict[str, Any]
    trace: FlowTrace

    @property
    def plan(self) -> FlowPlan:
        return self.trace.plan
