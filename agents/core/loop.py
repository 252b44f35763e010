"""The tool-using agent loop shared by native tool calls, the text protocol and JSON actions.

Tool modes: `native` (the model's own tool calls), `text` (the `name(arg=...) <CALL>` protocol,
agents/core/protocol.py) and `constrained` (each step is a structured call whose JSON schema is the
action — a tool with its arguments, or the answer — agents/core/actions.py; for models without
native tool calls whose server constrains decoding, so even a small model's call is well-formed).

One `ChatAgent` is one role's conversation (e.g. SoIQ's researcher or mentor). `ChatAgent.turn(prompt, max_calls)`
adds a user message and lets the model call tools until it answers without calls, the call cap is
reached (then it is told to answer and is asked once more without tools), or the step cap is hit.

Context budget: before every model call the conversation's estimated token count is checked; past
the budget, old tool results are replaced by a rule-based digest (header line plus the first items,
each cut short), then, if still too large, reduced to their header line, then old assistant
messages are shortened. The system message, the first task message and the newest messages are
never touched. Every trim is recorded as an event.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)
from pydantic import BaseModel

from motivgraph.agents.core.actions import action_call, action_model, action_prompt, action_text
from motivgraph.agents.core.protocol import CallError, ParsedCall, parse_text_calls, strip_after_last_marker
from motivgraph.agents.core.toolbox import Toolbox
from motivgraph.choices import ToolMode
from motivgraph.errors import StructuredOutputError
from motivgraph.llm.tokens import content_text, count_message_tokens

log = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], Any]
# invoke(role, messages, tools or None) -> AIMessage; the session supplies it (LLM layer, usage).
Invoke = Callable[[str, list[BaseMessage], list[dict[str, Any]] | None], Awaitable[AIMessage]]
# decide(messages, schema) -> a schema instance: the LLM layer's structured call (schema-constrained
# decoding where the server has it, repair + one re-ask); used by the `constrained` tool mode.
Decide = Callable[[list[BaseMessage], type[BaseModel]], Awaitable[BaseModel]]
MAX_INVALID_ACTIONS = 2  # constrained mode: unusable actions in a row before the model is asked to answer

TOOL_RESULT_KIND = "tool_result"
KIND_KEY = "mg_kind"  # additional_kwargs marker of a text-protocol tool-result message
TRIM_KEY = "mg_trim"  # additional_kwargs: how far a message has been trimmed (1..3)
BUDGET_EXHAUSTED = (
    "Your tool budget for this step is used up. Do not call any more tools: answer now with what you have."
)
KEEP_RECENT = 4  # newest messages never trimmed: the model needs the results it just asked for
DIGEST_LINES = 6
DIGEST_LINE_CHARS = 90


@dataclass
class TurnResult:
    text: str
    tool_calls: int
    steps: int
    budget_exhausted: bool


def _is_tool_result(m: BaseMessage) -> bool:
    return isinstance(m, ToolMessage) or m.additional_kwargs.get(KIND_KEY) == TOOL_RESULT_KIND


def digest(text: str) -> str:
    """A tool result reduced by rule: its header and first items, each line cut short."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return text
    head, items = lines[0], lines[1:]
    kept = [ln if len(ln) <= DIGEST_LINE_CHARS else ln[: DIGEST_LINE_CHARS - 1] + "…" for ln in items[:DIGEST_LINES]]
    more = len(items) - len(kept)
    tail = [f"… [{more} more lines trimmed to save context]"] if more > 0 else []
    return "\n".join([head, *kept, *tail, "[older tool result, digested]"])


def _replace_content(m: BaseMessage, content: str, level: int) -> BaseMessage:
    extra = {**m.additional_kwargs, TRIM_KEY: level}
    if isinstance(m, ToolMessage):
        return ToolMessage(content=content, tool_call_id=m.tool_call_id, name=m.name, additional_kwargs=extra)
    if isinstance(m, AIMessage):
        return AIMessage(content=content, tool_calls=m.tool_calls, additional_kwargs=extra)
    return type(m)(content=content, additional_kwargs=extra)


class ChatAgent:
    """One role's conversation with tools (see module docstring)."""

    def __init__(
        self,
        role: str,
        invoke: Invoke,
        *,
        toolbox: Toolbox | None = None,
        tool_mode: ToolMode = "native",
        context_budget: int = 24_000,
        emit: Emit | None = None,
        messages: list[BaseMessage] | None = None,
        budget_exhausted_prompt: str = BUDGET_EXHAUSTED,
        decide: Decide | None = None,
    ) -> None:
        self.role = role
        self._invoke = invoke
        self._decide = decide
        self.toolbox = toolbox
        if tool_mode == "constrained" and decide is None:
            log.warning("%s: the constrained tool mode needs a structured-call function; using the text protocol",
                        role)
            tool_mode = "text"
        self.tool_mode = tool_mode
        self.context_budget = context_budget
        self._emit = emit or (lambda ev: None)
        self.messages: list[BaseMessage] = list(messages or [])
        self.budget_exhausted_prompt = budget_exhausted_prompt

    # ------------------------------------------------------------------ persistence (resume)
    def dump(self) -> list[dict[str, Any]]:
        return messages_to_dict(self.messages)

    def load(self, data: list[dict[str, Any]]) -> None:
        self.messages = list(messages_from_dict(data))

    # ------------------------------------------------------------------ conversation
    def system(self, text: str) -> None:
        self.messages = [SystemMessage(content=text)]
        self._emit({"type": "message", "agent": self.role, "role": "system", "content": text})

    def _add_user(self, text: str, *, kind: str | None = None) -> None:
        extra = {KIND_KEY: kind} if kind else {}
        self.messages.append(HumanMessage(content=text, additional_kwargs=extra))
        if kind != TOOL_RESULT_KIND:
            self._emit({"type": "message", "agent": self.role, "role": "user", "content": text})

    def _tools(self, allow: bool) -> list[dict[str, Any]] | None:
        if allow and self.toolbox is not None and self.tool_mode == "native":
            return self.toolbox.openai_tools()
        return None

    async def _call_model(self, tools: list[dict[str, Any]] | None) -> AIMessage:
        self._fit_context(tools)
        return await self._invoke(self.role, list(self.messages), tools)

    async def turn(self, prompt: str, *, max_calls: int = 0, min_calls: int = 0,
                   answer_schema: type[BaseModel] | None = None) -> TurnResult:
        """Send `prompt`; run tool calls until the model answers. Returns the final text.

        In the constrained tool mode, `min_calls` tool calls are required before the model may
        answer (the action schema then offers no answer), and with `answer_schema` the answer itself
        is a structured call (its JSON is the returned text); the other modes ignore both."""
        self._add_user(prompt)
        if self.tool_mode == "constrained":
            return await self._constrained_turn(max_calls, min_calls, answer_schema)
        used, steps, exhausted = 0, 0, False
        tools_allowed = self.toolbox is not None and max_calls > 0
        while True:
            steps += 1
            allow = tools_allowed and used < max_calls
            reply = await self._call_model(self._tools(allow))
            text = content_text(reply.content)
            calls = self._extract_calls(reply, text) if allow else []
            if not calls:
                ignored = bool(reply.tool_calls) or (self.tool_mode == "text" and "<CALL>" in text.upper())
                final = AIMessage(content=text)  # never leave unanswered tool calls in the history
                self.messages.append(final)
                self._emit({"type": "message", "agent": self.role, "role": "assistant", "content": text,
                            **({"ignored_tool_calls": True} if ignored and not allow else {})})
                return TurnResult(text, used, steps, exhausted)
            if self.tool_mode == "native":
                self.messages.append(AIMessage(content=text, tool_calls=reply.tool_calls))
            else:
                self.messages.append(AIMessage(content=strip_after_last_marker(text)))
            self._emit({"type": "message", "agent": self.role, "role": "assistant", "content": text,
                        "tool_calls": [self._describe(c) for c in calls]})
            results: list[tuple[Any, str]] = []
            for call in calls:
                if used >= max_calls:
                    out = "ERROR: tool budget for this step is exhausted; this call was not run."
                    self._emit({"type": "tool_result", "agent": self.role, **self._describe(call), "ok": False,
                                "text": out})
                else:
                    used += 1
                    out = await self._run_call(call)
                results.append((call, out))
            self._answer_calls(results)
            if used >= max_calls:
                exhausted = True
                self._add_user(self.budget_exhausted_prompt)
            if steps > max_calls + 3:  # a model that keeps calling nothing useful (only errors)
                exhausted = True
                tools_allowed = False

    @property
    def can_structure(self) -> bool:
        """True when this agent can ask for a structured reply (`structured_turn`)."""
        return self._decide is not None

    async def structured_turn(self, prompt: str, schema: type[BaseModel]) -> BaseModel:
        """One user message answered by the LLM layer's structured call (schema-constrained decoding
        where the server has it, repair, one re-ask); the reply's JSON stays in the conversation.
        Raises StructuredOutputError (its last reply is kept, so a later turn can refer to it)."""
        if self._decide is None:
            raise RuntimeError(f"{self.role}: no structured-call function given to this agent")
        self._add_user(prompt)
        self._fit_context(None)
        try:
            obj = await self._decide(list(self.messages), schema)
        except StructuredOutputError as e:
            text = str((getattr(e, "raw", None) or [""])[-1])
            self.messages.append(AIMessage(content=text))
            self._emit({"type": "message", "agent": self.role, "role": "assistant", "content": text,
                        "structured": schema.__name__, "invalid": str(e)[:500]})
            raise
        text = obj.model_dump_json(by_alias=True)
        self.messages.append(AIMessage(content=text))
        self._emit({"type": "message", "agent": self.role, "role": "assistant", "content": text,
                    "structured": schema.__name__})
        return obj

    # ------------------------------------------------------------------ constrained tool mode
    async def _constrained_turn(self, max_calls: int, min_calls: int,
                                answer_schema: type[BaseModel] | None) -> TurnResult:
        """Each step is a structured call whose schema is the JSON action (a tool with its arguments,
        or the answer); the chosen tool runs for real; then the answer is asked for."""
        assert self._decide is not None
        used, steps, invalid, exhausted = 0, 0, 0, False
        toolbox = self.toolbox if max_calls > 0 else None
        while toolbox is not None and used < max_calls and invalid < MAX_INVALID_ACTIONS:
            steps += 1
            allow_answer = used >= min_calls
            schema = action_model(toolbox.specs, allow_answer=allow_answer)
            self._fit_context(None)
            ask = HumanMessage(content=action_prompt(allow_answer))
            try:
                action = await self._decide([*self.messages, ask], schema)
            except StructuredOutputError as e:
                invalid += 1
                self._emit({"type": "action_invalid", "agent": self.role, "error": str(e)[:500]})
                continue
            chosen = action_call(action)
            if chosen is None:
                break
            name, args = chosen
            call = {"name": name, "args": args}
            text = action_text(name, args)
            self.messages.append(AIMessage(content=text))
            self._emit({"type": "message", "agent": self.role, "role": "assistant", "content": text,
                        "tool_calls": [self._describe(call)], "constrained": True})
            used += 1
            self._answer_calls([(call, await self._run_call(call))])
            if used >= max_calls:
                exhausted = True
                self._add_user(self.budget_exhausted_prompt)
        if invalid >= MAX_INVALID_ACTIONS:
            exhausted = True
        steps += 1
        text = await self._constrained_answer(answer_schema)
        self.messages.append(AIMessage(content=text))
        self._emit({"type": "message", "agent": self.role, "role": "assistant", "content": text})
        return TurnResult(text, used, steps, exhausted)

    async def _constrained_answer(self, answer_schema: type[BaseModel] | None) -> str:
        if answer_schema is None:
            return content_text((await self._call_model(None)).content)
        assert self._decide is not None
        self._fit_context(None)
        try:
            obj = await self._decide(list(self.messages), answer_schema)
        except StructuredOutputError as e:
            # The caller parses the text and decides (e.g. SoIQ re-asks): hand it the last reply.
            self._emit({"type": "answer_invalid", "agent": self.role, "error": str(e)[:500]})
            raw = getattr(e, "raw", None) or [""]
            return str(raw[-1])
        return obj.model_dump_json(by_alias=True)

    # ------------------------------------------------------------------ tool calls
    def _extract_calls(self, reply: AIMessage, text: str) -> list[Any]:
        if self.tool_mode == "native":
            return list(reply.tool_calls or [])
        return parse_text_calls(text)

    @staticmethod
    def _describe(call: Any) -> dict[str, Any]:
        if isinstance(call, ParsedCall):
            return {"name": call.name, "args": call.args, "positional": call.positional, "raw": call.raw}
        if isinstance(call, CallError):
            return {"name": None, "raw": call.raw, "parse_error": call.message}
        return {"name": call.get("name"), "args": call.get("args"), "id": call.get("id")}

    async def _run_call(self, call: Any) -> str:
        assert self.toolbox is not None
        desc = self._describe(call)
        self._emit({"type": "tool_call", "agent": self.role, **desc})
        if isinstance(call, CallError):
            out = (f"ERROR: could not read your tool call: {call.message}. Write it as "
                   f'name(arg="value") followed by <CALL>.')
            self._emit({"type": "tool_result", "agent": self.role, **desc, "ok": False, "text": out})
            return out
        if isinstance(call, ParsedCall):
            outcome = await self.toolbox.execute(call.name, call.args, call.positional)
        else:
            args = call.get("args")
            if not isinstance(args, dict):
                try:
                    args = json.loads(args) if isinstance(args, str) else {}
                except json.JSONDecodeError:
                    args = {"__invalid__": str(args)[:200]}
            outcome = await self.toolbox.execute(str(call.get("name") or ""), args)
        self._emit({"type": "tool_result", "agent": self.role, **desc, "tool": outcome.name, "ok": outcome.ok,
                    "text": outcome.text})
        return outcome.text

    def _answer_calls(self, results: list[tuple[Any, str]]) -> None:
        if self.tool_mode == "native":
            for call, out in results:
                self.messages.append(ToolMessage(content=out, tool_call_id=call.get("id") or "", name=call.get("name")))
            return
        parts = ["Tool results:"]
        for i, (call, out) in enumerate(results, 1):
            head = (call.raw if isinstance(call, ParsedCall | CallError)
                    else action_text(str(call.get("name")), call.get("args") or {}))
            parts.append(f"[{i}] {head[:200]}\n{out}")
        self._add_user("\n\n".join(parts), kind=TOOL_RESULT_KIND)

    # ------------------------------------------------------------------ context budget
    def context_tokens(self, tools: list[dict[str, Any]] | None = None) -> int:
        return count_message_tokens(self.messages, tools)

    def _fit_context(self, tools: list[dict[str, Any]] | None) -> None:
        before = self.context_tokens(tools)
        if before <= self.context_budget:
            return
        protected = {0, 1} | set(range(max(0, len(self.messages) - KEEP_RECENT), len(self.messages)))
        trimmed = 0
        # Pass 1: digest old tool results, oldest first. Pass 2: header line only.
        # Pass 3: shorten old assistant/user messages.
        for level in (1, 2, 3):
            for i, m in enumerate(self.messages):
                if i in protected or m.additional_kwargs.get(TRIM_KEY, 0) >= level:
                    continue
                text = content_text(m.content)
                if level < 3 and _is_tool_result(m):
                    head = (text.splitlines() or [""])[0]
                    new = digest(text) if level == 1 else head + " [older tool result, dropped]"
                elif level == 3 and not isinstance(m, SystemMessage) and len(text) > 600:
                    new = text[:300] + " … [older message shortened] … " + text[-200:]
                else:
                    continue
                self.messages[i] = _replace_content(m, new, level)
                trimmed += 1
                if self.context_tokens(tools) <= self.context_budget:
                    break
            if self.context_tokens(tools) <= self.context_budget:
                break
        after = self.context_tokens(tools)
        self._emit({"type": "context_trimmed", "agent": self.role, "tokens_before": before, "tokens_after": after,
                    "messages_trimmed": trimmed, "budget": self.context_budget})
        if after > self.context_budget:
            log.warning("%s context still %d tokens after trimming (budget %d)", self.role, after,
                        self.context_budget)
