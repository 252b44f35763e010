"""LLMClient pipeline with the scripted model: cache, retry, timeouts, budget, usage, concurrency."""

from __future__ import annotations

import asyncio

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import BaseModel

from motivgraph.errors import BudgetExceeded, ContextOverflow, LLMError, LLMTimeout, ScriptExhausted
from motivgraph.llm import Delay, LLMClient, ScriptedChatModel, rate_limit_error, server_error, tool_reply
from motivgraph.settings import Settings
from tests.unit.kernel.llm.llm_sync import chat_sync


class Sleeps(list):
    """Records requested sleeps instead of sleeping: tests never wait on the clock."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _client(settings: Settings, model: ScriptedChatModel, **kw) -> LLMClient:
    kw.setdefault("sleep", Sleeps())
    return LLMClient(settings, model=model, seed=1, **kw)


def test_cache_persists_across_client_instances(settings: Settings) -> None:
    first = ScriptedChatModel(["a cached answer"])
    c1 = _client(settings, first)
    assert chat_sync(c1, "extractor", "What is X?").content == "a cached answer"
    assert c1.usage.role("extractor").calls == 1
    c1.close()

    second = ScriptedChatModel([])  # would raise ScriptExhausted if it were asked
    c2 = _client(settings, second)
    msg = chat_sync(c2, "extractor", "What is X?")
    assert msg.content == "a cached answer" and msg.response_metadata["cache_hit"] is True
    assert second.calls == []
    u = c2.usage.role("extractor")
    assert (u.calls, u.cache_hits, u.input_tokens, u.cost_usd) == (0, 1, 0, 0.0)
    with pytest.raises(ScriptExhausted):  # a different prompt is a miss
        chat_sync(c2, "extractor", "What is Y?")
    c2.close()


def test_cache_key_covers_tools_params_and_tool_history(settings: Settings) -> None:
    class Search(BaseModel):
        """Search the graph."""

        query: str

    model = ScriptedChatModel(default=lambda msgs: f"answer #{len(model.calls)}")
    c = _client(settings, model)
    convo = [SystemMessage("sys"), HumanMessage("hi")]
    a = chat_sync(c, "mentor", convo)
    b = chat_sync(c, "mentor", convo, tools=[Search])
    d = chat_sync(c, "mentor", convo, response_format={"type": "json_object"})
    with_tool = [*convo, tool_reply(("Search", {"query": "q"})), ToolMessage("result 1", tool_call_id="call_x")]
    e = chat_sync(c, "mentor", with_tool)
    f = chat_sync(c, "mentor", [*convo, tool_reply(("Search", {"query": "q"})),
                               ToolMessage("result 2", tool_call_id="call_x")])
    assert len({a.content, b.content, d.content, e.content, f.content}) == 5
    assert chat_sync(c, "mentor", with_tool).content == e.content  # same history: hit
    assert c.usage.role("mentor").cache_hits == 1
    assert chat_sync(c, "mentor", convo, cache=False).content != a.content  # opt-out
    c.close()


def test_tools_are_bound_and_tool_calls_returned(settings: Settings) -> None:
    class NodeSearch(BaseModel):
        """Find nodes."""

        query: str

    model = ScriptedChatModel([tool_reply(("NodeSearch", {"query": "graph"}))])
    c = _client(settings, model)
    msg = chat_sync(c, "researcher", "find things", tools=[NodeSearch])
    assert msg.tool_calls[0]["name"] == "NodeSearch" and msg.tool_calls[0]["args"] == {"query": "graph"}
    assert model.tool_calls_bound[0]["function"]["name"] == "NodeSearch"
    assert model.tools_seen[-1][0]["function"]["parameters"]["required"] == ["query"]
    c.close()


def test_retry_on_429_honours_retry_after_then_succeeds(settings: Settings) -> None:
    sleeps = Sleeps()
    model = ScriptedChatModel([rate_limit_error(retry_after=7), server_error(503), "fine"])
    c = _client(settings, model, sleep=sleeps)
    assert chat_sync(c, "extractor", "hi").content == "fine"
    assert sleeps[0] == 7.0  # Retry-After honoured
    assert 0.75 * settings.llm.retry_base_s * 2 <= sleeps[1] <= 1.25 * settings.llm.retry_base_s * 2  # backoff
    u = c.usage.role("extractor")
    assert (u.retries, u.calls, u.failures) == (2, 1, 0)
    c.close()


def test_real_openai_error_types_are_recognised(settings: Settings) -> None:
    req = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    limited = openai.RateLimitError(
        "rate limited", response=httpx.Response(429, headers={"retry-after-ms": "1500"}, request=req), body=None
    )
    sleeps = Sleeps()
    model = ScriptedChatModel([limited, openai.APITimeoutError(request=req), openai.APIConnectionError(request=req),
                               "ok"])
    c = _client(settings, model, sleep=sleeps)
    assert chat_sync(c, "extractor", "hi").content == "ok"
    assert sleeps[0] == 1.5 and len(sleeps) == 3
    c.close()


def test_non_retryable_error_fails_at_once_with_hint(settings: Settings) -> None:
    req = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    denied = openai.AuthenticationError("Incorrect API key", response=httpx.Response(401, request=req), body=None)
    model = ScriptedChatModel([denied, "never reached"])
    c = _client(settings, model)
    with pytest.raises(LLMError, match="MOTIVGRAPH_LLM_API_KEY"):
        chat_sync(c, "extractor", "hi")
    assert model.remaining == 1 and c.usage.role("extractor").retries == 0
    c.close()


def test_retry_cap_exhausted_raises_llm_error(settings: Settings) -> None:
    settings.llm.max_retries = 2
    sleeps = Sleeps()
    model = ScriptedChatModel([rate_limit_error(), rate_limit_error(), rate_limit_error(), "too late"])
    c = _client(settings, model, sleep=sleeps)
    with pytest.raises(LLMError, match="after 3 attempts: HTTP 429"):
        chat_sync(c, "extractor", "hi")
    assert len(model.calls) == 3 and model.remaining == 1
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0]  # exponential
    assert c.usage.role("extractor").failures == 1
    c.close()


def test_timeout_is_retried_once_with_a_longer_limit_then_fails_with_a_reason(settings: Settings) -> None:
    settings.llm.timeout_s = 0.05
    settings.llm.max_retries = 5  # transport retries do not apply to timeouts
    model = ScriptedChatModel([Delay(30, "too slow"), Delay(0.07, "in time with the doubled limit")])
    c = _client(settings, model)
    assert chat_sync(c, "extractor", "q1").content == "in time with the doubled limit"
    assert c.usage.role("extractor").retries == 1
    model.add(Delay(30, "slow"), Delay(30, "slow"), "never asked")
    with pytest.raises(LLMTimeout, match=r"did not answer within 0s \(2 attempts") as e:
        chat_sync(c, "extractor", "q2")
    assert "MOTIVGRAPH_LLM_TIMEOUT_S" in str(e.value)
    assert model.remaining == 1  # two attempts, not max_retries + 1
    assert c.usage.role("extractor").failures == 1
    c.close()


def test_no_timeout_retry_when_disabled(settings: Settings) -> None:
    settings.llm.timeout_s = 0.05
    settings.llm.timeout_retries = 0
    model = ScriptedChatModel([Delay(30, "slow"), "never asked"])
    c = _client(settings, model)
    with pytest.raises(LLMTimeout):
        chat_sync(c, "extractor", "q")
    assert model.remaining == 1
    c.close()


def test_single_slot_server_calls_run_one_at_a_time(settings: Settings) -> None:
    from dataclasses import replace

    model = ScriptedChatModel(default=Delay(0.02, "ok"))
    c = _client(settings, model)
    c._model("extractor").spec = replace(c._model("extractor").spec, slots=1)

    async def many() -> None:
        await asyncio.gather(*(c.chat("extractor", f"q{i}", cache=False) for i in range(4)))

    asyncio.run(many())
    assert model.max_in_flight == 1
    c.close()


def test_context_window_caps_the_reply_and_refuses_prompts_that_cannot_fit(settings: Settings) -> None:
    settings.llm.context_window = 600
    settings.llm.max_tokens = 599
    model = ScriptedChatModel(default="ok")
    c = _client(settings, model)
    chat_sync(c, "extractor", "short question", cache=False)
    assert 0 < model.call_kwargs[-1]["max_tokens"] < 600  # lowered to what the window leaves
    with pytest.raises(ContextOverflow, match="context window"):
        chat_sync(c, "extractor", "word " * 2000, cache=False)
    assert len(model.calls) == 1  # nothing was sent
    assert c.prompt_budget("extractor") < 600 - 599 + 1
    c.close()


def _priced(settings: Settings) -> Settings:
    settings.llm.prices = {"scripted": (1_000_000.0, 0.0)}  # $1 per input token: easy sums
    return settings


def _reply(text: str, tokens_in: int) -> AIMessage:
    return AIMessage(content=text, usage_metadata={"input_tokens": tokens_in, "output_tokens": 3,
                                                    "total_tokens": tokens_in + 3})


def test_budget_stops_before_the_call_and_resume_spends_nothing_twice(settings: Settings) -> None:
    _priced(settings)
    model = ScriptedChatModel([_reply(f"answer {i}", 10) for i in range(4)])
    c1 = _client(settings, model, budget_usd=25)
    done = []
    with pytest.raises(BudgetExceeded, match="resume"):
        for i in range(4):
            done.append(chat_sync(c1, "extractor", f"paper {i}").content)
    assert done == ["answer 0", "answer 1", "answer 2"]  # 3rd call started at $20 < $25
    assert len(model.calls) == 3 and c1.usage.cost_usd == 30
    c1.close()

    c2 = _client(settings, model, budget_usd=25)  # the resumed run
    again = [chat_sync(c2, "extractor", f"paper {i}").content for i in range(4)]
    assert again == ["answer 0", "answer 1", "answer 2", "answer 3"]
    assert len(model.calls) == 4  # only paper 3 reached the model
    assert c2.usage.cost_usd == 10 and c2.usage.role("extractor").cache_hits == 3
    c2.close()


def test_budget_from_settings(settings: Settings) -> None:
    _priced(settings).llm.budget_usd = 0
    c = _client(settings, ScriptedChatModel(["x"]))
    with pytest.raises(BudgetExceeded):
        chat_sync(c, "extractor", "hi")
    c.close()


def test_usage_per_role_and_estimated_tokens(settings: Settings) -> None:
    _priced(settings)
    model = ScriptedChatModel([_reply("e", 5), _reply("m", 7), "n"], report_usage=True)
    c = _client(settings, model)
    chat_sync(c, "extractor", "a")
    chat_sync(c, "mentor", "b")
    chat_sync(c, "mentor", "b")  # cache hit
    quiet = ScriptedChatModel(["an unmetered reply"], report_usage=False)
    c2 = LLMClient(settings, models={"critic": quiet}, model=model, sleep=Sleeps())
    chat_sync(c2, "critic", "c")
    e, m = c.usage.role("extractor"), c.usage.role("mentor")
    assert (e.calls, e.input_tokens, e.output_tokens, e.cost_usd) == (1, 5, 3, 5.0)
    assert (m.calls, m.cache_hits, m.input_tokens) == (1, 1, 7)
    assert c.usage.total().calls == 2 and c.usage.to_dict()["total"]["cache_hits"] == 1
    cr = c2.usage.role("critic")
    assert cr.estimated_calls == 1 and cr.input_tokens > 0 and cr.output_tokens > 0
    rows = c.cache.usage_rows(c.run_id)
    assert {(r["role"], r["calls"], r["cache_hits"]) for r in rows} == {("extractor", 1, 0), ("mentor", 1, 1)}
    c.close()
    c2.close()


def test_estimate_for_dry_run(settings: Settings) -> None:
    _priced(settings)
    model = ScriptedChatModel(["known"])
    c = _client(settings, model)
    chat_sync(c, "extractor", "already asked")
    cached = c.estimate("extractor", "already asked", 100)
    fresh = c.estimate("extractor", "a new question with several words", 100)
    assert cached.cached and cached.cost_usd == 0
    assert not fresh.cached and fresh.input_tokens > 5 and fresh.output_tokens == 100
    assert fresh.cost_usd == fresh.input_tokens  # $1 per input token, outputs free here
    assert len(model.calls) == 1  # estimating never calls the model
    assert c.planned.role("extractor").calls == 1 and c.planned.role("extractor").cache_hits == 1
    c.close()


@pytest.mark.parametrize("limit", [1, 3])
async def test_concurrency_limit_is_honoured(settings: Settings, limit: int) -> None:
    settings.llm.concurrency = limit
    settings.llm.requests_per_minute = 1_000_000
    model = ScriptedChatModel(default=Delay(0.02, "ok"))
    c = LLMClient(settings, model=model)
    replies = await asyncio.gather(*(c.chat("extractor", f"paper {i}") for i in range(10)))
    assert [r.content for r in replies] == ["ok"] * 10
    assert model.max_in_flight == limit
    c.close()


def test_rate_limit_spaces_requests(settings: Settings) -> None:
    settings.llm.concurrency = 1  # burst of 1
    settings.llm.requests_per_minute = 60
    sleeps = Sleeps()
    c = _client(settings, ScriptedChatModel(default="ok"), sleep=sleeps)
    for i in range(3):
        chat_sync(c, "extractor", f"q{i}")
    assert len(sleeps) == 2 and all(0.9 < s <= 2.0 for s in sleeps)  # ~1 s apart (fake sleep, no waiting)
    c.close()


async def test_identical_concurrent_requests_are_sent_once(settings: Settings) -> None:
    model = ScriptedChatModel([Delay(0.05, "shared answer"), "second answer"])
    c = LLMClient(settings, model=model)
    replies = await asyncio.gather(*(c.chat("resolver", "same question") for _ in range(4)))
    assert [r.content for r in replies] == ["shared answer"] * 4
    assert len(model.calls) == 1 and model.remaining == 1
    u = c.usage.role("resolver")
    assert (u.calls, u.cache_hits) == (1, 3)
    c.close()


async def test_waiters_try_themselves_when_the_shared_call_fails(settings: Settings) -> None:
    settings.llm.max_retries = 0
    model = ScriptedChatModel([Delay(0.05, server_error(500)), "recovered"])
    c = LLMClient(settings, model=model)
    results = await asyncio.gather(c.chat("resolver", "q"), c.chat("resolver", "q"), return_exceptions=True)
    assert isinstance(results[0], LLMError) and results[1].content == "recovered"
    c.close()


def test_model_introspection(settings: Settings) -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    model = ScriptedChatModel(["x"])
    plain = FakeListChatModel(responses=["y"])
    c = LLMClient(settings, model=model, models={"critic": plain})
    assert c.chat_model("mentor") is model and c.supports_tools("mentor")
    assert c.chat_model("critic") is plain and not c.supports_tools("critic")
    assert c.model_id("mentor") == "scripted:scripted" and c.is_configured("judge")
    with pytest.raises(LLMError, match="does not support tool calling"):
        chat_sync(c, "critic", "hi", tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}])
    c.close()
