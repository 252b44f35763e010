"""Structured output: JSON from text, fences, repair, re-ask, give-up, refusals, tool and JSON modes."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from motivgraph.errors import ReplyProblem, StructuredOutputError
from motivgraph.llm import LLMClient, ScriptedChatModel, tool_reply
from motivgraph.llm.structured import json_candidate, parse_json_text
from motivgraph.settings import Settings
from tests.unit.kernel.llm.llm_sync import structured_sync


class Node(BaseModel):
    name: str = Field(min_length=1)
    words: int = Field(ge=1)


class Triples(BaseModel):
    triples: list[Node]


GOOD = '{"triples": [{"name": "graph learning", "words": 2}]}'


def _ask(settings: Settings, *replies, method: str = "text") -> tuple[LLMClient, ScriptedChatModel]:
    settings.llm.structured_method = method  # type: ignore[assignment]
    model = ScriptedChatModel(list(replies))
    return LLMClient(settings, model=model), model


@pytest.mark.parametrize(
    "reply",
    [
        GOOD,
        f"```json\n{GOOD}\n```",
        f"Sure! Here are the triples:\n```\n{GOOD}\n```\nHope this helps.",
        f"Here you go: {GOOD} -- done.",
        '[{"name": "graph learning", "words": 2}]',  # bare list for the single list field
    ],
    ids=["plain", "fenced", "fenced-prose", "inline-prose", "bare-list"],
)
def test_valid_replies_parse_without_reask(settings: Settings, reply: str) -> None:
    c, model = _ask(settings, reply)
    out = structured_sync(c, "extractor", "extract", Triples)
    assert out == Triples(triples=[Node(name="graph learning", words=2)])
    assert len(model.calls) == 1
    c.close()


@pytest.mark.parametrize(
    "broken",
    [
        '{"triples": [{"name": "graph learning", "words": 2,}],}',  # trailing commas
        "{'triples': [{'name': 'graph learning', 'words': 2}]}",  # single quotes
        '{"triples": [{"name": "graph learning", "words": 2}',  # truncated
    ],
)
def test_broken_json_is_repaired(settings: Settings, broken: str) -> None:
    c, model = _ask(settings, broken)
    assert structured_sync(c, "extractor", "extract", Triples).triples[0].name == "graph learning"
    assert len(model.calls) == 1
    c.close()


def test_schema_instruction_is_sent_in_the_system_message(settings: Settings) -> None:
    c, model = _ask(settings, GOOD)
    structured_sync(c, "extractor", [SystemMessage("You extract triples."), HumanMessage("paper")], Triples)
    sent = model.calls[0]
    assert isinstance(sent[0], SystemMessage) and sent[0].content.startswith("You extract triples.")
    assert '"triples"' in sent[0].content and "JSON Schema" in sent[0].content
    assert sent[1].content == "paper"
    c.close()


def test_schema_instruction_follows_a_conversation_so_its_history_stays_a_cacheable_prefix(
        settings: Settings) -> None:
    c, model = _ask(settings, GOOD, GOOD)
    history = [SystemMessage("You research."), HumanMessage("task"), AIMessage("a step"), HumanMessage("result")]
    structured_sync(c, "extractor", history, Triples)
    sent = model.calls[0]
    assert [m.content for m in sent[:3]] == ["You research.", "task", "a step"]  # unchanged prefix
    assert sent[3].content.startswith("result") and "JSON Schema" in sent[3].content
    structured_sync(c, "extractor", [*history, AIMessage("more")], Triples)  # last message not human: one added
    assert isinstance(model.calls[1][-1], HumanMessage) and "JSON Schema" in model.calls[1][-1].content
    c.close()


def test_wrong_schema_reasks_once_with_the_errors(settings: Settings) -> None:
    c, model = _ask(settings, '{"triples": [{"name": "", "words": 0}]}', GOOD)
    out = structured_sync(c, "extractor", "extract", Triples)
    assert out.triples[0].words == 2
    reask = model.calls[1]
    assert isinstance(reask[-2], AIMessage) and '"words": 0' in reask[-2].content
    assert "triples.0.name" in reask[-1].content and "triples.0.words" in reask[-1].content
    c.close()


def test_reask_also_wrong_raises_with_raw_text(settings: Settings) -> None:
    c, model = _ask(settings, '{"nodes": []}', '{"triples": "none"}', GOOD)
    with pytest.raises(StructuredOutputError, match="no valid Triples after 2 replies") as e:
        structured_sync(c, "extractor", "extract", Triples)
    assert e.value.raw == ['{"nodes": []}', '{"triples": "none"}']
    assert "triples" in e.value.problems[0]
    assert model.remaining == 1  # exactly one re-ask
    c.close()


def test_empty_reply_then_success(settings: Settings) -> None:
    c, model = _ask(settings, "", GOOD)
    assert structured_sync(c, "extractor", "extract", Triples).triples
    assert "empty" in model.calls[1][-1].content
    c.close()


def test_refusal_text_is_named_and_gives_up(settings: Settings) -> None:
    refusal = "I'm sorry, but I can't help with that request."
    c, _ = _ask(settings, refusal, refusal)
    with pytest.raises(StructuredOutputError, match="refusal"):
        structured_sync(c, "extractor", "extract", Triples)
    c.close()


def test_provider_refusal_field(settings: Settings) -> None:
    refused = AIMessage(content="", additional_kwargs={"refusal": "I cannot do that."})
    c, _ = _ask(settings, refused, refused)
    with pytest.raises(StructuredOutputError, match="refused"):
        structured_sync(c, "extractor", "extract", Triples)
    c.close()


def test_tool_mode_forces_the_schema_tool(settings: Settings) -> None:
    call = tool_reply(("Triples", {"triples": [{"name": "x", "words": 1}]}))
    c, model = _ask(settings, call, method="tool")
    assert structured_sync(c, "extractor", "extract", Triples).triples[0].name == "x"
    assert model.call_kwargs[0]["tool_choice"] == "Triples"
    assert model.tools_seen[0][0]["function"]["name"] == "Triples"
    assert not any(isinstance(m, SystemMessage) for m in model.calls[0])  # schema travels as the tool
    c.close()


def test_tool_mode_falls_back_to_text_and_reasks(settings: Settings) -> None:
    bad = tool_reply(("Triples", {"triples": [{"name": "x"}]}))
    c, model = _ask(settings, bad, f"```json\n{GOOD}\n```", method="tool")
    assert structured_sync(c, "extractor", "extract", Triples).triples[0].words == 2
    assert "words" in model.calls[1][-1].content
    c.close()


def test_json_mode_binds_response_format(settings: Settings) -> None:
    c, model = _ask(settings, GOOD, method="json_mode")
    structured_sync(c, "extractor", "extract", Triples)
    assert model.call_kwargs[0]["response_format"] == {"type": "json_object"}
    c.close()


def test_structured_replies_are_cached(settings: Settings) -> None:
    c, model = _ask(settings, "not json", GOOD)
    first = structured_sync(c, "extractor", "extract", Triples)
    c.close()
    c2 = LLMClient(settings, model=model)
    assert structured_sync(c2, "extractor", "extract", Triples) == first
    assert len(model.calls) == 2 and c2.usage.role("extractor").cache_hits == 2
    c2.close()


def test_parse_helpers() -> None:
    assert json_candidate('x {"a": "}"} y') == '{"a": "}"}'
    assert json_candidate("no json here") is None
    assert parse_json_text('{"a": 1}') == ({"a": 1}, False)
    assert parse_json_text('{"a": 1') == ({"a": 1}, True)
    with pytest.raises(ReplyProblem, match="empty"):
        parse_json_text("   ")


def test_reply_cut_at_token_limit_is_named(settings: Settings) -> None:
    cut = AIMessage(content='{"triples": [{"name": "graph', response_metadata={"finish_reason": "length"})
    c, model = _ask(settings, cut, cut)
    with pytest.raises(StructuredOutputError, match="token limit"):
        structured_sync(c, "extractor", "extract", Triples)
    assert "MOTIVGRAPH_LLM_MAX_TOKENS" in model.calls[1][-1].content
    c.close()
