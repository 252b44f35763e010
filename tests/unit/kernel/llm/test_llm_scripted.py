"""ScriptedChatModel: queue order, tool calls, errors, callables, rules, files, usage, exhaustion."""

from __future__ import annotations

import asyncio
import json

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool

from motivgraph.errors import ConfigError, ScriptedAPIError, ScriptExhausted
from motivgraph.llm import Delay, ScriptedChatModel, tool_reply
from motivgraph.llm.retry import retry_after_s, status_code


@tool
def node_search(query: str, k: int = 5) -> str:
    """Search graph nodes by meaning."""
    return query


def test_is_a_real_chat_model_answering_in_order() -> None:
    m = ScriptedChatModel(["one", AIMessage(content="two"), lambda msgs: f"echo {msgs[-1].content}"])
    assert isinstance(m, BaseChatModel)
    assert [m.invoke(q).content for q in ("a", "b", "c")] == ["one", "two", "echo c"]
    assert [c[-1].content for c in m.calls] == ["a", "b", "c"]
    with pytest.raises(ScriptExhausted, match="call #4"):
        m.invoke("d")


def test_tool_calls_get_deterministic_ids_and_bind_tools_records() -> None:
    m = ScriptedChatModel([tool_reply(("node_search", {"query": "x"}), ("node_search", {"query": "y"}))])
    bound = m.bind_tools([node_search], tool_choice="auto")
    out = asyncio.run(bound.ainvoke([HumanMessage("go")]))
    assert [c["id"] for c in out.tool_calls] == ["call_1_0", "call_1_1"]
    assert m.tool_calls_bound[0]["function"]["name"] == "node_search"
    assert m.call_kwargs[0]["tool_choice"] == "auto"


def test_errors_delays_and_usage() -> None:
    m = ScriptedChatModel([ScriptedAPIError(429, headers={"retry-after": "3"}), TimeoutError, Delay(0.01, "late")])
    with pytest.raises(ScriptedAPIError) as e:
        m.invoke("x")
    assert status_code(e.value) == 429 and retry_after_s(e.value) == 3.0
    with pytest.raises(TimeoutError):
        m.invoke("x")
    out = m.invoke("a prompt of several words")
    assert out.content == "late"
    assert out.usage_metadata["input_tokens"] > 5 and out.usage_metadata["output_tokens"] == 1


def test_default_and_rules_after_queue() -> None:
    m = ScriptedChatModel(["queued"], rules=[(r"resolver", "yes")], default="fallback")
    assert [m.invoke(q).content for q in ("resolver?", "resolver?", "other")] == ["queued", "yes", "fallback"]


def test_max_in_flight_counts_concurrent_calls() -> None:
    m = ScriptedChatModel(default=Delay(0.02, "ok"))

    async def run() -> None:
        await asyncio.gather(*(m.ainvoke(f"q{i}") for i in range(5)))

    asyncio.run(run())
    assert m.max_in_flight == 5 and len(m.calls) == 5


def test_from_file(tmp_path) -> None:
    script = {
        "replies": [
            "plain",
            {"content": "", "tool_calls": [{"name": "node_search", "args": {"query": "q"}}]},
            {"error": "rate_limit", "retry_after": 2},
            {"error": "server", "status": 502},
            {"delay": 0.01, "content": "slow"},
            {"call": "motivgraph.llm.scripted:echo"},
        ],
        "rules": [{"when": "^ping", "reply": "pong"}],
        "default": "done",
        "model_name": "scripted-x",
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(script))
    m = ScriptedChatModel.from_file(path)
    assert m.model_name == "scripted-x"
    assert m.invoke("a").content == "plain"
    assert m.invoke("b").tool_calls[0]["args"] == {"query": "q"}
    with pytest.raises(ScriptedAPIError) as e:
        m.invoke("c")
    assert retry_after_s(e.value) == 2.0
    with pytest.raises(ScriptedAPIError) as e:
        m.invoke("d")
    assert e.value.status_code == 502
    assert m.invoke("e").content == "slow"
    assert m.invoke("say this back").content == "say this back"
    with pytest.raises(ScriptExhausted, match="unsupported reply"):  # a callable must return a reply
        ScriptedChatModel([lambda msgs: 42]).invoke("f")
    assert m.invoke("ping!").content == "pong"
    assert m.invoke("anything").content == "done"


def test_bad_script_files(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    with pytest.raises(ConfigError, match="not valid JSON"):
        ScriptedChatModel.from_file(bad)
    bad.write_text('[{"error": "gremlins"}]')
    with pytest.raises(ConfigError, match="gremlins"):
        ScriptedChatModel.from_file(bad)
    bad.write_text('[{"call": "nowhere.module:fn"}]')
    with pytest.raises(ConfigError, match="cannot import"):
        ScriptedChatModel.from_file(bad)
