"""Running a flow: the operators of each layer in order on one working set, then the final proposal.

A step whose LLM call fails (after the client's retries and the structured re-ask) is recorded with
its error and leaves the working set as it was; the flow goes on. A budget stop is not a step
failure: it ends the flow (and the run) at once. The final idea is the first candidate of the
working set; with `finalize="converge"` and several candidates left, one more convergent step
(layer 0 in the trace, outside the sampled flow and log Q) merges them into one proposal.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from motivgraph.agents.mindflow.config import FlowConfig
from motivgraph.agents.mindflow.flow import FlowPlan, FlowResult, FlowTrace, StepTrace
from motivgraph.agents.mindflow.operators import OpEnv, get_operator
from motivgraph.errors import BudgetExceeded, FlowFailed, MotivGraphError


async def run_step(op: str, ws: list[dict[str, Any]], env: OpEnv, step: StepTrace,
                   limit: int) -> list[dict[str, Any]]:
    try:
        out = await get_operator(op).run(list(ws), env, step)
        return out[:limit] if out else ws
    except BudgetExceeded:
        raise
    except MotivGraphError as e:
        usage = getattr(e, "usage", None)
        if usage is not None:  # the failed structured call still cost tokens
            step.calls += usage.calls
            step.cached += getattr(usage, "cached", 0)
            step.input_tokens += usage.input_tokens
            step.output_tokens += usage.output_tokens
            step.cost_usd += usage.cost_usd
        step.error = f"{type(e).__name__}: {e}"[:500]
        return ws


async def execute_flow(plan: FlowPlan, env: OpEnv, cfg: FlowConfig,
                       on_step: Callable[[StepTrace], None] | None = None) -> FlowResult:
    ws: list[dict[str, Any]] = []
    trace = FlowTrace(plan)
    for li, layer in enumerate(plan.layers, start=1):
        for pos, op in enumerate(layer.ops, start=1):
            step = StepTrace(li, pos, op, candidates_in=len(ws))
            ws = await run_step(op, ws, env, step, cfg.working_set_max)
            step.candidates_out = len(ws)
            trace.steps.append(step)
            if on_step:
                on_step(step)
    if len(ws) > 1 and cfg.finalize == "converge":
        step = StepTrace(0, 1, "convergent", candidates_in=len(ws))
        ws = await run_step("convergent", ws, env, step, 1)
        step.candidates_out = len(ws)
        trace.steps.append(step)
        if on_step:
            on_step(step)
    if not ws:
        errors = "; ".join(s.error for s in trace.steps if s.error)[:800]
        raise FlowFailed(f"flow {' → '.join(plan.ops)} produced no proposal ({errors or 'no step returned one'})")
    return FlowResult(ws[0], trace)



def llm_executor(ask: Any, cfg: FlowConfig, *, toolbox: Any | None = None,
                 graph_text: Callable[[Any], str] | None = None) -> Callable[[Any, FlowPlan], Any]:
    """An `async (topic, plan) -> FlowResult` over an `ask` (llmcall.client_ask / model_ask).
    `topic` is a topics.Topic; `graph_text(topic)` renders graph nodes near it for the prompts."""

    flows = itertools.count(1)

    async def run(topic: Any, plan: FlowPlan) -> FlowResult:
        # every rollout its own flow index: two rollouts of a group that start with the same operator on the same
        # topic are two samples, not one reply served twice by the LLM cache
        env = OpEnv(topic.text, topic.background(cfg.background_papers, cfg.abstract_chars),
                    graph_text(topic) if graph_text else "", cfg, ask, toolbox, flow=next(flows))
        return await execute_flow(plan, env, cfg)

    return run
