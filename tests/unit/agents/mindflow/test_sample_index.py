"""Calls meant to sample anew carry their sample index (#42 item 7): MindFlow's repeated operators (a later layer,
another idea's flow, another training rollout) are new requests, not the cache's first reply served again; a
resumed flow asks the same indices and is answered from the cache; the flow table counts cached steps apart from
paid tokens, as the cost table does."""

from __future__ import annotations

from motivgraph.agents.mindflow.config import FlowConfig
from motivgraph.agents.mindflow.executor import execute_flow, llm_executor
from motivgraph.agents.mindflow.flow import FlowPlan, StepTrace
from motivgraph.agents.mindflow.llmcall import client_ask
from motivgraph.agents.mindflow.operators import OpEnv, get_operator, sample_index
from motivgraph.agents.mindflow.scripted import reply
from motivgraph.llm import LLMClient, ScriptedChatModel
from motivgraph.settings import Settings


def _client(settings: Settings) -> tuple[LLMClient, ScriptedChatModel]:
    assert settings.llm.cache  # the cache is what would hand an earlier reply back
    model = ScriptedChatModel(default=reply)
    return LLMClient(settings, model=model), model


async def test_the_same_operator_on_the_same_input_is_asked_again_at_another_step(settings: Settings):
    client, model = _client(settings)
    env = OpEnv("sparse attention kernels", "bg", "", FlowConfig(), client_ask(client, "ideator"), flow=1)
    op = get_operator("divergent")
    a, b = StepTrace(1, 1, "divergent"), StepTrace(3, 1, "divergent")  # layer 3 repeats layer 1
    await op.run([], env, a)
    await op.run([], env, b)
    assert sample_index(env, a) != sample_index(env, b)
    assert len(model.calls) == 2 and (a.calls, b.calls, a.cached, b.cached) == (1, 1, 0, 0)
    # another idea's flow asking the very same thing: a new sample too
    env2 = OpEnv("sparse attention kernels", "bg", "", FlowConfig(), client_ask(client, "ideator"), flow=2)
    await op.run([], env2, StepTrace(1, 1, "divergent"))
    assert len(model.calls) == 3
    # the same flow index again (a resumed run): answered from the cache, no token paid, counted as cached
    again = StepTrace(1, 1, "divergent")
    await op.run([], OpEnv("sparse attention kernels", "bg", "", FlowConfig(), client_ask(client, "ideator"),
                           flow=1), again)
    assert len(model.calls) == 3
    assert (again.calls, again.cached, again.tokens, again.cost_usd) == (0, 1, 0, 0.0)
    client.close()


async def test_flow_table_counts_cached_steps_apart_and_agrees_with_the_cost_table(settings: Settings):
    client, model = _client(settings)
    plan = FlowPlan.fixed([["divergent"], ["critical"], ["divergent"]])
    env = OpEnv("sparse attention kernels", "bg", "", FlowConfig(), client_ask(client, "ideator"), flow=1)
    first = (await execute_flow(plan, env, FlowConfig())).trace
    second = (await execute_flow(plan, env, FlowConfig())).trace  # the same flow: every call cached
    u = client.usage.total()
    assert first.calls == len(model.calls) == u.calls and first.cached == 0
    assert second.calls == 0 and second.cached == first.calls and second.tokens == 0
    assert u.cache_hits == second.cached
    assert first.tokens == u.input_tokens + u.output_tokens  # paid tokens in the flow table = the cost table's
    assert second.to_dict()["cached"] == second.cached
    client.close()


async def test_training_rollouts_of_one_topic_are_separate_samples(settings: Settings):
    client, model = _client(settings)

    class Topic:
        text = "sparse attention kernels"

        def background(self, n: int, chars: int) -> str:
            return "bg"

    run = llm_executor(client_ask(client, "ideator"), FlowConfig())
    plan = FlowPlan.fixed([["divergent"]])
    await run(Topic(), plan)
    one = len(model.calls)
    await run(Topic(), plan)
    assert one > 0 and len(model.calls) == 2 * one  # two rollouts, two samples (the cache would answer the second)
    client.close()
