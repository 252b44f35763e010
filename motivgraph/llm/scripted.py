"""ScriptedChatModel: a real LangChain chat model that answers from a script. Every test uses it.

A script is a queue of replies, consumed one per call. A reply is any of:
  - "text"                                   -> AIMessage(content="text")
  - AIMessage(...) (e.g. with tool_calls)     -> returned as is (tool call ids filled if missing)
  - an exception instance or class            -> raised (see `rate_limit_error`, `server_error`)
  - Delay(seconds, reply)                     -> waits (asyncio.sleep in async calls), then `reply`
  - a callable(messages) -> reply             -> computes the reply from the incoming messages
                                                (with `takes_params = True`: callable(messages, params),
                                                params being the request's, e.g. its `seed`)
  - a dict (the JSON form, used by script files):
      {"content": "...", "tool_calls": [{"name": "t", "args": {...}, "id": "c1"}]}
      {"error": "rate_limit" | "server" | "timeout" | "connection", "retry_after": 2, "status": 503}
      {"delay": 1.0, "content": "..."}       {"call": "package.module:function"}
When the queue is empty, `rules` (regex on the last message's text -> reply) are tried, then
`default`; with neither, ScriptExhausted is raised naming the call it could not answer.

`latency_s` delays every call (the miner benchmark's "fixed 1 s latency"). Every call records its
messages (`.calls`) and bound tools (`.tool_calls_bound`); `.max_in_flight` counts the most
concurrent calls seen. Replies carry usage_metadata estimated with `tokens.count_tokens`
(set `report_usage=False` to test the missing-usage path).

Script files (JSON) select it from settings: MOTIVGRAPH_LLM_MODEL=scripted:path/to/script.json,
where the file holds a list of replies or {"replies": [...], "rules": [{"when": "regex",
"reply": ...}], "default": reply, "latency_s": 0.0, "model_name": "scripted"}.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

from motivgraph import plugins
from motivgraph.errors import ConfigError, ScriptedAPIError, ScriptExhausted
from motivgraph.llm.tokens import content_text, count_message_tokens, count_tokens


def rate_limit_error(retry_after: float | None = None) -> ScriptedAPIError:
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return ScriptedAPIError(429, "Rate limit reached (scripted)", headers)


def server_error(status: int = 503) -> ScriptedAPIError:
    return ScriptedAPIError(status, f"Server error {status} (scripted)")


def tool_reply(*calls: tuple[str, dict[str, Any]], content: str = "") -> AIMessage:
    """An AIMessage asking for tool calls, e.g. tool_reply(("node_search", {"query": "x"}))."""
    return AIMessage(
        content=content, tool_calls=[{"name": n, "args": a, "id": None, "type": "tool_call"} for n, a in calls]
    )


def echo(messages: list[BaseMessage]) -> str:
    """A reply callable that repeats the last message's text (e.g. {"call": "motivgraph.llm.scripted:echo"})."""
    return content_text(messages[-1].content) if messages else ""


@dataclass(frozen=True)
class Delay:
    seconds: float
    reply: Any


Reply = Any  # str | AIMessage | BaseException | type[BaseException] | Delay | Callable | dict


def _import_callable(ref: str) -> Callable[..., Any]:
    try:
        fn = plugins.resolve(ref)
    except (ImportError, AttributeError) as e:
        raise ConfigError(f"Scripted reply 'call': cannot import {ref!r} (use 'package.module:function')") from e
    if not callable(fn):
        raise ConfigError(f"Scripted reply 'call': {ref!r} is not callable")
    return fn


def reply_from_json(obj: Any) -> Reply:
    """Turn the JSON form of a reply into a reply object (see module docstring)."""
    if isinstance(obj, str):
        return obj
    if not isinstance(obj, dict):
        raise ConfigError(f"Scripted reply must be a string or an object, got {type(obj).__name__}")
    if "call" in obj:
        return _import_callable(str(obj["call"]))
    if "error" in obj:
        kind = obj["error"]
        err: BaseException
        if kind == "rate_limit":
            err = rate_limit_error(obj.get("retry_after"))
        elif kind == "server":
            err = server_error(int(obj.get("status", 503)))
        elif kind == "timeout":
            err = TimeoutError("scripted timeout")
        elif kind == "connection":
            err = ConnectionError("scripted connection reset")
        else:
            raise ConfigError(f"Scripted error kind {kind!r}: use rate_limit, server, timeout or connection")
        reply: Reply = err
    else:
        calls = [
            {"name": c["name"], "args": c.get("args", {}), "id": c.get("id"), "type": "tool_call"}
            for c in obj.get("tool_calls", [])
        ]
        reply = AIMessage(content=obj.get("content", ""), tool_calls=calls)
    return Delay(float(obj["delay"]), reply) if obj.get("delay") else reply


class ScriptedChatModel(BaseChatModel):
    """Chat model answering from a queue of scripted replies (see module docstring)."""

    model_name: str = "scripted"
    latency_s: float = 0.0
    # Declared like an OpenAI-compatible model's, so the client sends a request's sample seed here too;
    # a reply callable marked `takes_params` reads it from the params (independent panel samples).
    seed: int | None = None
    report_usage: bool = True

    _queue: deque = PrivateAttr(default_factory=deque)
    _rules: list = PrivateAttr(default_factory=list)
    _default: Any = PrivateAttr(default=None)
    _calls: list = PrivateAttr(default_factory=list)
    _tools_seen: list = PrivateAttr(default_factory=list)
    _kwargs_seen: list = PrivateAttr(default_factory=list)
    _bound: list = PrivateAttr(default_factory=list)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)
    _in_flight: int = PrivateAttr(default=0)
    _max_in_flight: int = PrivateAttr(default=0)

    def __init__(
        self,
        replies: Sequence[Reply] = (),
        *,
        default: Reply | None = None,
        rules: Sequence[tuple[str, Reply]] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._queue.extend(replies)
        self._default = default
        self._rules = [(re.compile(p, re.S), r) for p, r in rules]

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedChatModel:
        p = Path(path).expanduser()
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except OSError as e:
            raise ConfigError(f"Scripted model: cannot read script {p} (MOTIVGRAPH_LLM_MODEL=scripted:PATH)") from e
        except json.JSONDecodeError as e:
            raise ConfigError(f"Scripted model: {p} is not valid JSON: {e}") from e
        if isinstance(data, list):
            data = {"replies": data}
        if not isinstance(data, dict):
            raise ConfigError(f"Scripted model: {p} must hold a list of replies or an object")
        return cls(
            [reply_from_json(r) for r in data.get("replies", [])],
            default=reply_from_json(data["default"]) if "default" in data else None,
            rules=[(r["when"], reply_from_json(r["reply"])) for r in data.get("rules", [])],
            latency_s=float(data.get("latency_s", 0.0)),
            model_name=str(data.get("model_name", "scripted")),
        )

    # -- script management and inspection -------------------------------------------------
    def add(self, *replies: Reply) -> ScriptedChatModel:
        with self._lock:
            self._queue.extend(replies)
        return self

    @property
    def remaining(self) -> int:
        return len(self._queue)

    @property
    def calls(self) -> list[list[BaseMessage]]:
        """Every message list received, in call order."""
        return self._calls

    @property
    def tools_seen(self) -> list[list[dict]]:
        """The tool schemas (OpenAI format) passed with each call; [] when none."""
        return self._tools_seen

    @property
    def call_kwargs(self) -> list[dict[str, Any]]:
        """The keyword arguments (tools, tool_choice, response_format, ...) each call received."""
        return self._kwargs_seen

    @property
    def tool_calls_bound(self) -> list[dict]:
        """The tool schemas of the most recent `bind_tools`."""
        return self._bound

    @property
    def max_in_flight(self) -> int:
        return self._max_in_flight

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(t) for t in tools]
        self._bound = formatted
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    # -- answering ----------------------------------------------------------------------------
    def _next_reply(self, messages: list[BaseMessage]) -> Reply:
        with self._lock:
            self._calls.append(list(messages))
            if self._queue:
                return self._queue.popleft()
        last = content_text(messages[-1].content) if messages else ""
        for pattern, reply in self._rules:
            if pattern.search(last):
                return reply
        if self._default is not None:
            return self._default
        raise ScriptExhausted(
            f"ScriptedChatModel has no reply left for call #{len(self._calls)} "
            f"(last message: {last[:160]!r}); add replies, rules or a default"
        )

    def _resolve(self, reply: Reply, messages: list[BaseMessage],
                 params: dict[str, Any] | None = None) -> tuple[float, AIMessage]:
        delay = self.latency_s
        for _ in range(10):  # callables/delays may nest; ten levels is far more than any script needs
            if isinstance(reply, Delay):
                delay += reply.seconds
                reply = reply.reply
            elif isinstance(reply, BaseException):
                raise reply
            elif isinstance(reply, type) and issubclass(reply, BaseException):
                raise reply("scripted error")
            elif isinstance(reply, dict):
                reply = reply_from_json(reply)
            elif callable(reply) and not isinstance(reply, BaseMessage):
                # a callable marked `takes_params` also sees the request's params (e.g. a sample `seed`)
                reply = reply(messages, params) if getattr(reply, "takes_params", False) else reply(messages)
            else:
                break
        if isinstance(reply, str):
            msg = AIMessage(content=reply)
        elif isinstance(reply, AIMessage):
            msg = reply.model_copy(deep=True)
        else:
            raise ScriptExhausted(f"ScriptedChatModel: unsupported reply type {type(reply).__name__}")
        return delay, msg

    def _finish(self, msg: AIMessage, messages: list[BaseMessage], tools: list[dict]) -> ChatResult:
        n = len(self._calls)
        if msg.tool_calls:
            msg.tool_calls = [
                {**c, "id": c.get("id") or f"call_{n}_{i}", "type": "tool_call"} for i, c in enumerate(msg.tool_calls)
            ]
        if self.report_usage and msg.usage_metadata is None:
            out = count_tokens(content_text(msg.content)) + sum(
                count_tokens(c["name"]) + count_tokens(json.dumps(c["args"], sort_keys=True)) for c in msg.tool_calls
            )
            inp = count_message_tokens(messages, tools)
            msg.usage_metadata = {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out}
        msg.response_metadata = {**msg.response_metadata, "model_name": self.model_name}
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def _enter(self, kwargs: dict[str, Any]) -> list[dict]:
        tools = list(kwargs.get("tools") or [])
        with self._lock:
            self._tools_seen.append(tools)
            self._kwargs_seen.append(dict(kwargs))
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        return tools

    def _exit(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools = self._enter(kwargs)
        try:
            delay, msg = self._resolve(self._next_reply(messages), messages, kwargs)
            if delay > 0:
                time.sleep(delay)
            return self._finish(msg, messages, tools)
        finally:
            self._exit()

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools = self._enter(kwargs)
        try:
            delay, msg = self._resolve(self._next_reply(messages), messages, kwargs)
            if delay > 0:
                await asyncio.sleep(delay)
            return self._finish(msg, messages, tools)
        finally:
            self._exit()
