"""The thinking operators: small prompt programs over a working set of candidate proposals.

An operator O = (prompt, sub-steps, tools) reads the working set (candidate proposals, best first)
and returns the new working set. Operators are "operators" parts of the one extension mechanism
(motivgraph/plugins.py); the supernet offers every one (or the subset `FlowConfig.operators` names), so adding
one is an `Operator` subclass and its line (`plugins.BUILTIN["operators"]`, an entry point of
`motivgraph.operators`, or `plugins.register("operators", name, cls)` for this process):

    class Analytical(Operator):
        name = "analytical"; summary = "..."
        async def run(self, ws, env, step): ...

The seven built-ins (listing order = supernet order): generate, divergent, convergent, critical
(critique, then targeted fixes), analogical (calls the graph tools transfer_candidates,
node_search and random_nodes(far_from=topic) itself, then prompts), counterfactual, constraint.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, field_validator

from motivgraph import plugins
from motivgraph.agents.mindflow import prompts
from motivgraph.agents.mindflow.config import FlowConfig
from motivgraph.agents.mindflow.flow import StepTrace
from motivgraph.agents.mindflow.llmcall import CallUsage

M = TypeVar("M", bound=BaseModel)
Ask = Callable[[list[Any], type[M]], Awaitable[tuple[M, CallUsage]]]


class Proposal(BaseModel):
    # no max_length in the schema: llama.cpp's constrained decoding expands maxLength into that many
    # grammar repetitions (a 2000-character cap crashed its server); long titles are cut instead
    title: str = Field(min_length=1)
    motivation: str = Field("", description="The problem found: the gap, why it matters, why now.")
    method: str = Field("", description="What is proposed and how it works.")
    experiments: str = Field("", description="Validation plan: data, baselines, metrics, ablations.")
    expected_outcome: str = ""
    risks: str = Field("", description="Risks and limitations.")


    @field_validator("title")
    @classmethod
    def _cut(cls, v: str) -> str:
        return v[:400]


class Candidates(BaseModel):
    candidates: list[Proposal] = Field(min_length=1, max_length=10)


class Critique(BaseModel):
    issues: list[str] = Field(min_length=1, max_length=12, description="Problem and its concrete fix, one per item.")


@dataclass
class OpEnv:
    """What an operator may use: the topic, its rendered background, the LLM and the tools."""

    topic: str
    background: str
    graph: str
    cfg: FlowConfig
    ask: Any  # Ask: (messages, schema, sample=None) -> (object, CallUsage)
    toolbox: Any | None = None  # agents.core Toolbox (execute(name, args) -> ToolOutcome) or None
    flow: int = 0  # which flow of the run this is (the idea's index): part of every call's sample index


def sample_index(env: OpEnv, step: StepTrace) -> int:
    """The call's sample index: flow (idea), layer, position and the step's call number. Two calls of one
    run meant to sample anew -- the same operator again in a later layer or another idea's flow, on what may
    be the same working set -- differ in it, so neither the cache nor the server's seed hands back an earlier
    reply; a resumed run asks the same indices and is answered from the cache."""
    return ((env.flow * 100 + step.layer) * 100 + step.position) * 10 + min(step.calls + step.cached, 9)


class Operator(ABC):
    name: ClassVar[str]
    summary: ClassVar[str] = ""
    tools: ClassVar[tuple[str, ...]] = ()
    calls: ClassVar[int] = 1  # LLM calls per run (dry-run estimate)

    @abstractmethod
    async def run(self, ws: list[dict[str, Any]], env: OpEnv, step: StepTrace) -> list[dict[str, Any]]:
        """The new working set (best first)."""

    async def _ask(self, env: OpEnv, step: StepTrace, system: str, user: str, schema: type[M]) -> M:
        obj, usage = await env.ask([SystemMessage(content=system), HumanMessage(content=user)], schema,
                                   sample=sample_index(env, step))
        step.calls += usage.calls
        step.cached += usage.cached
        step.input_tokens += usage.input_tokens
        step.output_tokens += usage.output_tokens
        step.cost_usd += usage.cost_usd
        return obj

    async def _candidates(self, env: OpEnv, step: StepTrace, ws: list[dict[str, Any]], key: str,
                          extra: str = "", **fmt: Any) -> list[dict[str, Any]]:
        system = prompts.operator_system(self.name, key, **fmt)
        user = prompts.operator_user(env.topic, env.background, env.graph, ws, key, extra)
        out = await self._ask(env, step, system, user, Candidates)
        return [c.model_dump() for c in out.candidates]


def operator_names() -> tuple[str, ...]:
    return tuple(plugins.names("operators"))


def get_operator(name: str) -> Operator:
    try:
        cls: type[Operator] = plugins.load("operators", name)
    except plugins.UnknownPart:
        raise KeyError(f"unknown operator {name!r}; registered: {', '.join(operator_names())}") from None
    return cls()


def resolve_operators(cfg: FlowConfig) -> tuple[str, ...]:
    known = operator_names()
    names = cfg.operators or known
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown operator(s) {', '.join(unknown)}; registered: {', '.join(known)}")
    return tuple(names)


# ------------------------------------------------------------------------------------ built-ins


class Generate(Operator):
    name = "generate"
    summary = "Produces a new proposal (the default proposal operator)."

    async def run(self, ws: list[dict[str, Any]], env: OpEnv, step: StepTrace) -> list[dict[str, Any]]:
        new = await self._candidates(env, step, ws, "generate")
        return new[:1] + ws


class Divergent(Operator):
    name = "divergent"
    summary = "Expands the search space with alternatives that differ in framing or route."

    async def run(self, ws: list[dict[str, Any]], env: OpEnv, step: StepTrace) -> list[dict[str, Any]]:
        out = await self._candidates(env, step, ws, "divergent", alternatives=env.cfg.alternatives)
        return out if len(out) > len(ws) else out + ws


class Convergent(Operator):
    name = "convergent"
    summary = "Synthesises, ranks and selects the candidates into one coherent proposal."

    async def run(self, ws: list[dict[str, Any]], env: OpEnv, step: StepTrace) -> list[dict[str, Any]]:
        out = await self._candidates(env, step, ws, "convergent")
        return out[:1]


class Critical(Operator):
    name = "critical"
    summary = "Critiques the best candidate and applies targeted fixes."
    calls = 2

    async def run(self, ws: list[dict[str, Any]], env: OpEnv, step: StepTrace) -> list[dict[str, Any]]:
        if not ws:  # nothing to criticise yet: draft first, as the mode's own starting point
            ws = (await self._candidates(env, step, ws, "generate"))[:1]
        for _ in range(env.cfg.critical_rounds):
            system = prompts.operator_system(self.name, "critical_critique")
            user = prompts.operator_user(env.topic, env.background, env.graph, ws[:1], "critical_critique")
            crit = await self._ask(env, step, system, user, Critique)
            issues = "CRITIQUE OF THE FIRST CANDIDATE:\n" + "\n".join(f"- {i}" for i in crit.issues)
            revised = await self._candidates(env, step, ws, "critical_revise", extra=issues)
            ws = revised[:1] + ws[1:]
        return ws


class Analogical(Operator):
    name = "analogical"
    summary = "Transfers structure from related problems found in the graph."
    tools = ("transfer_candidates", "node_search", "random_nodes")

    async def run(self, ws: list[dict[str, Any]], env: OpEnv, step: StepTrace) -> list[dict[str, Any]]:
        material = []
        if env.toolbox is not None:
            k = env.cfg.analogical_k
            calls = (("transfer_candidates", {"topic": env.topic, "k": k}),
                     ("node_search", {"query": env.topic, "k": k, "types": ["challenge", "solution"]}),
                     ("random_nodes", {"n": k, "far_from": env.topic, "max_similarity": env.cfg.far_similarity}))
            for name, args in calls:
                out = await env.toolbox.execute(name, args)
                step.tools.append(name)
                if out.ok:
                    material.append(out.text)
        extra = ("GRAPH MATERIAL FOR ANALOGIES:\n" + "\n\n".join(material)) if material else \
            "GRAPH MATERIAL FOR ANALOGIES: none available; draw analogies from well-known work in other fields."
        out = await self._candidates(env, step, ws, "analogical", extra=extra)
        return out[:1] + ws


class Counterfactual(Operator):
    name = "counterfactual"
    summary = "Explores what-if variations by perturbing key assumptions."

    async def run(self, ws: list[dict[str, Any]], env: OpEnv, step: StepTrace) -> list[dict[str, Any]]:
        out = await self._candidates(env, step, ws, "counterfactual")
        return out[:1] + ws


class Constraint(Operator):
    name = "constraint"
    summary = "Generates or repairs a proposal under explicit constraints."

    async def run(self, ws: list[dict[str, Any]], env: OpEnv, step: StepTrace) -> list[dict[str, Any]]:
        constraints = "\n".join(f"- {c}" for c in env.cfg.constraints)
        out = await self._candidates(env, step, ws, "constraint", constraints=constraints)
        return out[:1] + ws[1:] if ws else out[:1]
