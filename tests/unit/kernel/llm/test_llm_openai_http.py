"""The real ChatOpenAI path against a fake OpenAI-compatible server on 127.0.0.1.

Checks the protocol shape end to end: bearer key, base_url, retry on 429 with Retry-After, real
usage numbers, forced tool calling for structured output, JSON mode for vLLM, key redaction.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import BaseModel, SecretStr

from motivgraph.errors import ContextOverflow, LLMError
from motivgraph.llm import LLMClient
from motivgraph.settings import LLMSettings, Settings
from tests.unit.kernel.llm.llm_sync import chat_sync, structured_sync

SECRET = "sk-local-secret-abcdef987654"


class FakeOpenAI:
    """Answers POST /v1/chat/completions from a queue of (status, headers, body)."""

    def __init__(self) -> None:
        self.queue: list[tuple[int, dict[str, str], dict[str, Any]]] = []
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                status, headers, payload = fake.queue.pop(0)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def reply(self, message: dict[str, Any], prompt_tokens: int = 11, completion_tokens: int = 2) -> None:
        self.queue.append((200, {}, {
            "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "qwen",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }))

    def error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self.queue.append((status, headers or {}, {"error": {"message": message, "type": "error", "code": None}}))


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    f = FakeOpenAI()
    yield f
    f.server.shutdown()
    f.server.server_close()


class Sleeps(list):
    async def __call__(self, s: float) -> None:
        self.append(s)


def _settings(settings: Settings, model: str, url: str) -> Settings:
    settings.llm = LLMSettings(model=model, base_url=url, api_key=SecretStr(SECRET), timeout_s=10,
                               prices={"qwen": (1.0, 2.0)})
    return settings


def test_chat_retries_429_and_reads_real_usage(settings: Settings, fake: FakeOpenAI,
                                               caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    fake.error(429, "slow down", {"Retry-After": "3"})
    fake.reply({"content": "pong"}, prompt_tokens=11, completion_tokens=2)
    sleeps = Sleeps()
    c = LLMClient(_settings(settings, "vllm:qwen", fake.url), sleep=sleeps)
    msg = chat_sync(c, "extractor", "ping")
    assert msg.content == "pong" and sleeps == [3.0]
    assert [r["path"] for r in fake.requests] == ["/v1/chat/completions"] * 2
    assert fake.requests[0]["auth"] == f"Bearer {SECRET}"
    body = fake.requests[1]["body"]
    assert body["model"] == "qwen" and body["messages"] == [{"role": "user", "content": "ping"}]
    u = c.usage.role("extractor")
    assert (u.input_tokens, u.output_tokens, u.estimated_calls, u.retries) == (11, 2, 0, 1)
    assert u.cost_usd == pytest.approx((11 * 1.0 + 2 * 2.0) / 1e6)
    assert SECRET not in caplog.text
    c.close()


class Verdict(BaseModel):
    same: bool
    reason: str


def test_structured_tool_method_uses_forced_tool_call(settings: Settings, fake: FakeOpenAI) -> None:
    args = json.dumps({"same": True, "reason": "identical task"})
    fake.reply({"content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "Verdict", "arguments": args}}]})
    settings = _settings(settings, "openai:qwen", fake.url)
    settings.llm.structured_method = "tool"
    c = LLMClient(settings)
    assert c.structured_method("resolver") == "tool"
    out = structured_sync(c, "resolver", "Same concept?", Verdict)
    assert out == Verdict(same=True, reason="identical task")
    body = fake.requests[0]["body"]
    assert body["tools"][0]["function"]["name"] == "Verdict"
    assert body["tool_choice"] == {"type": "function", "function": {"name": "Verdict"}}
    c.close()


VERDICT_SCHEMA = Verdict.model_json_schema()
# Grammar-decoding dialects: every free string gets a length limit (the reply cannot run past max_tokens).
BOUNDED = {**VERDICT_SCHEMA, "properties": {"same": VERDICT_SCHEMA["properties"]["same"], "reason": {
    **VERDICT_SCHEMA["properties"]["reason"], "maxLength": 400}}}
STRICT_VERDICT = {**VERDICT_SCHEMA, "required": ["same", "reason"], "additionalProperties": False}


@pytest.mark.parametrize(
    ("model", "dialect", "expected"),
    [
        # OpenAI itself (dialect forced: the fake server stands in for api.openai.com): strict json_schema.
        ("openai:gpt-4o-mini", "openai", {"response_format": {"type": "json_schema", "json_schema": {
            "name": "Verdict", "strict": True, "schema": STRICT_VERDICT}}}),
        ("vllm:qwen", "auto", {"response_format": {"type": "json_schema", "json_schema": {
            "name": "Verdict", "schema": VERDICT_SCHEMA}}}),
        # Any OpenAI-compatible server at a base_url: the same json_schema form.
        ("openai:qwen", "auto", {"response_format": {"type": "json_schema", "json_schema": {
            "name": "Verdict", "schema": VERDICT_SCHEMA}}}),
        ("ollama:llama3.1", "auto", {"response_format": {"type": "json_schema", "json_schema": {
            "name": "Verdict", "schema": VERDICT_SCHEMA}}}),
        ("openai:smollm2", "llama_cpp_python", {"response_format": {"type": "json_object", "schema": BOUNDED}}),
        ("openai:qwen", "llama_server", {"json_schema": BOUNDED}),
    ],
)
def test_constrained_request_body_per_dialect(settings: Settings, fake: FakeOpenAI, model: str, dialect: str,
                                              expected: dict[str, Any]) -> None:
    fake.reply({"content": '{"same": false, "reason": "different data"}'})
    settings = _settings(settings, model, fake.url)
    settings.llm.dialect = dialect  # type: ignore[assignment]
    c = LLMClient(settings)
    assert c.structured_method("resolver") == "constrained"
    assert structured_sync(c, "resolver", "Same concept?", Verdict).same is False
    body = fake.requests[0]["body"]
    for key, value in expected.items():
        assert body[key] == value
    assert "tools" not in body and "tool_choice" not in body
    # The reply cap: OpenAI's current field for OpenAI, the classic one every compatible server reads.
    cap = "max_completion_tokens" if dialect == "openai" else "max_tokens"
    assert body[cap] == settings.llm.max_tokens and len({"max_tokens", "max_completion_tokens"} & body.keys()) == 1
    # The strict OpenAI schema is enforced by the server; the others also get it in the prompt.
    assert ("JSON Schema" in body["messages"][0]["content"]) == (dialect != "openai")
    c.close()


def test_strict_reply_with_null_optional_field_gets_the_default(settings: Settings, fake: FakeOpenAI) -> None:
    class WithDefault(BaseModel):
        same: bool
        members: list[int] = []

    fake.reply({"content": '{"same": true, "members": null}'})
    settings = _settings(settings, "openai:gpt-4o-mini", fake.url)
    settings.llm.dialect = "openai"
    c = LLMClient(settings)
    assert structured_sync(c, "resolver", "q", WithDefault) == WithDefault(same=True, members=[])
    schema = fake.requests[0]["body"]["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["same", "members"] and schema["additionalProperties"] is False
    assert {"type": "null"} in schema["properties"]["members"]["anyOf"]
    c.close()


def test_server_rejecting_json_schema_falls_back_to_json_mode(settings: Settings, fake: FakeOpenAI) -> None:
    fake.error(400, "response_format type json_schema is not supported")
    fake.reply({"content": '{"same": false, "reason": "different data"}'})
    fake.reply({"content": '{"same": true, "reason": "same"}'})
    c = LLMClient(_settings(settings, "openai:qwen", fake.url), sleep=Sleeps())
    assert structured_sync(c, "resolver", "Same concept?", Verdict).same is False
    assert fake.requests[0]["body"]["response_format"]["type"] == "json_schema"
    assert fake.requests[1]["body"]["response_format"] == {"type": "json_object"}
    assert c.structured_method("resolver") == "json_mode"  # remembered for the next calls
    assert structured_sync(c, "resolver", "Another?", Verdict).same is True
    assert fake.requests[2]["body"]["response_format"] == {"type": "json_object"}
    c.close()


def test_json_mode_method_sends_generic_json_mode(settings: Settings, fake: FakeOpenAI) -> None:
    fake.reply({"content": '{"same": false, "reason": "different data"}'})
    settings = _settings(settings, "vllm:qwen", fake.url)
    settings.llm.structured_method = "json_mode"
    c = LLMClient(settings)
    assert structured_sync(c, "resolver", "Same concept?", Verdict).same is False
    body = fake.requests[0]["body"]
    assert body["response_format"] == {"type": "json_object"}
    assert "JSON Schema" in body["messages"][0]["content"]
    c.close()


def test_context_overflow_reply_from_server_is_named(settings: Settings, fake: FakeOpenAI) -> None:
    fake.error(400, "Requested tokens (9000) exceed context window of 8192")
    c = LLMClient(_settings(settings, "vllm:qwen", fake.url), sleep=Sleeps())
    with pytest.raises(ContextOverflow, match="context window"):
        chat_sync(c, "extractor", "ping")
    assert len(fake.requests) == 1
    c.close()


def test_auth_error_fails_fast_and_redacts_the_key(settings: Settings, fake: FakeOpenAI) -> None:
    fake.error(401, f"Incorrect API key provided: {SECRET}")
    c = LLMClient(_settings(settings, "vllm:qwen", fake.url), sleep=Sleeps())
    with pytest.raises(LLMError) as e:
        chat_sync(c, "extractor", "ping")
    assert "HTTP 401" in str(e.value) and "MOTIVGRAPH_LLM_API_KEY" in str(e.value)
    assert SECRET not in str(e.value)
    assert len(fake.requests) == 1
    c.close()


def test_server_gone_is_a_connection_error_retried_then_reported(settings: Settings, fake: FakeOpenAI) -> None:
    url = fake.url
    fake.server.shutdown()
    fake.server.server_close()
    s = _settings(settings, "vllm:qwen", url)
    s.llm.max_retries = 2
    sleeps = Sleeps()
    c = LLMClient(s, sleep=sleeps)
    with pytest.raises(LLMError, match="after 3 attempts"):
        chat_sync(c, "extractor", "ping")
    assert len(sleeps) == 2
    c.close()


def test_rejected_tool_method_falls_back_and_terminates(settings: Settings, fake: FakeOpenAI) -> None:
    fake.error(400, "tools are not supported by this server")
    fake.error(400, "response_format is not supported either")
    fake.reply({"content": '{"same": true, "reason": "same"}'})
    settings = _settings(settings, "openai:qwen", fake.url)
    settings.llm.structured_method = "tool"
    c = LLMClient(settings, sleep=Sleeps())
    assert structured_sync(c, "resolver", "Same?", Verdict).same is True
    assert "tools" in fake.requests[0]["body"]
    assert fake.requests[1]["body"]["response_format"] == {"type": "json_object"}
    assert "response_format" not in fake.requests[2]["body"]  # text: the schema in the prompt only
    assert c.structured_method("resolver") == "text"
    c.close()


def _queue_cut_off(fake: FakeOpenAI, *, completion_tokens: int) -> None:
    """A reply the server cut off at the token limit (finish_reason "length") mid-JSON."""
    fake.queue.append((200, {}, {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "qwen",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"sa'}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": completion_tokens, "total_tokens": 20 + completion_tokens},
    }))


def test_truncated_constrained_reply_is_reasked_not_a_failed_call(settings: Settings, fake: FakeOpenAI) -> None:
    # With a response_format the OpenAI SDK raises on finish_reason "length" instead of returning the
    # reply: the client turns it back into a cut-off reply, which the structured layer re-asks.
    _queue_cut_off(fake, completion_tokens=128)
    fake.reply({"content": '{"same": true, "reason": "short"}'}, prompt_tokens=30, completion_tokens=9)
    c = LLMClient(_settings(settings, "vllm:qwen", fake.url), sleep=Sleeps())
    assert structured_sync(c, "resolver", "Same concept?", Verdict) == Verdict(same=True, reason="short")
    assert fake.requests[0]["body"]["response_format"]["type"] == "json_schema"
    assert "cut off at the token limit" in fake.requests[1]["body"]["messages"][-1]["content"]
    u = c.usage.role("resolver")
    assert (u.calls, u.failures, u.input_tokens, u.output_tokens) == (2, 0, 50, 137)  # the server's usage
    c.close()


def test_a_cut_off_grammar_reply_is_reasked_with_bounds_for_half_the_cap(settings: Settings, fake: FakeOpenAI) -> None:
    # llama-cpp-python's grammar holds the reply to the bounded schema; when a reply still runs into the
    # reply cap, the re-ask's grammar is fitted to half of it, so it cannot be cut off the same way
    from motivgraph.llm.dialects import CHARS_PER_TOKEN, worst_chars

    _queue_cut_off(fake, completion_tokens=64)
    fake.reply({"content": '{"same": true, "reason": "short"}'}, prompt_tokens=30, completion_tokens=9)
    s = _settings(settings, "vllm:qwen", fake.url)
    s.llm.dialect = "llama_cpp_python"
    s.llm.max_tokens = 64
    c = LLMClient(s, sleep=Sleeps())
    assert structured_sync(c, "resolver", "Same concept?", Verdict) == Verdict(same=True, reason="short")
    first, second = (r["body"]["response_format"]["schema"] for r in fake.requests)
    assert worst_chars(first) <= 64 * CHARS_PER_TOKEN
    assert worst_chars(second) <= 32 * CHARS_PER_TOKEN < worst_chars(first)
    c.close()
