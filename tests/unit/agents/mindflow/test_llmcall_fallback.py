"""MindFlow's structured calls fall back like LLMClient.structured: a server refusing the schema
request (HTTP 400) is asked again in JSON mode, and that mode is kept for the model."""

from __future__ import annotations

import asyncio

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from motivgraph.agents.mindflow.llmcall import ask
from motivgraph.llm import LLMClient
from motivgraph.settings import Settings
from tests.unit.kernel.llm.test_llm_openai_http import FakeOpenAI, _settings, fake  # noqa: F401  (fixture)


class Verdict(BaseModel):
    same: bool
    reason: str


def test_ask_falls_back_to_json_mode_when_the_server_refuses_the_schema(settings: Settings,
                                                                       fake: FakeOpenAI) -> None:  # noqa: F811
    fake.error(400, "response_format type json_schema is not supported")
    fake.reply({"content": '{"same": false, "reason": "different data"}'}, prompt_tokens=11, completion_tokens=7)
    fake.reply({"content": '{"same": true, "reason": "same"}'}, prompt_tokens=5, completion_tokens=3)
    client = LLMClient(_settings(settings, "openai:qwen", fake.url))
    msgs = [SystemMessage("Judge."), HumanMessage("Same concept?")]
    verdict, usage = asyncio.run(ask(client, "ideator", msgs, Verdict))
    assert verdict.same is False
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (1, 11, 7)  # the refused request sent nothing back
    assert fake.requests[0]["body"]["response_format"]["type"] == "json_schema"
    assert fake.requests[1]["body"]["response_format"] == {"type": "json_object"}
    assert "JSON Schema" in fake.requests[1]["body"]["messages"][0]["content"]  # weaker mode: schema in the prompt
    assert client.structured_method("ideator") == "json_mode"  # remembered: the next call goes straight there
    verdict, _ = asyncio.run(ask(client, "ideator", [*msgs[:1], HumanMessage("And these?")], Verdict))
    assert verdict.same is True and fake.requests[2]["body"]["response_format"] == {"type": "json_object"}
    assert len(fake.requests) == 3
    client.close()
