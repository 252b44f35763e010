"""Turning a model's reply into a validated pydantic object.

Order of attempts on one reply: the tool-call arguments if the model called the schema tool;
else JSON found in the text (code fences and surrounding prose stripped); else that JSON
repaired with json_repair (truncated or broken JSON). The result is validated by the schema.
LLMClient.structured adds the one corrective re-ask on top, quoting the errors found here.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from json_repair import repair_json
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from motivgraph.errors import ReplyProblem
from motivgraph.llm.tokens import content_text

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)(?:```|$)", re.S)
_REFUSAL = re.compile(
    r"^\s*(i'?m sorry|i am sorry|sorry,|i can(?:'|no)t (?:help|assist|comply)|i cannot (?:help|assist|comply)"
    r"|i'?m (?:not able|unable) to|as an ai)",
    re.I,
)


def schema_name(schema: type[BaseModel]) -> str:
    return schema.__name__


def schema_instruction(schema: type[BaseModel]) -> str:
    js = json.dumps(schema.model_json_schema(), ensure_ascii=False)
    return (
        "Answer with a single JSON object that validates against this JSON Schema, and nothing else "
        f"(no prose, no code fences):\n{js}"
    )


def with_instruction(messages: list[BaseMessage], instruction: str) -> list[BaseMessage]:
    """Add `instruction` right after the part of the prompt that repeats from call to call, so a
    server's prompt cache (llama.cpp's KV prefix reuse, hosted prefix caching) serves that part:
    - a one-exchange call (system + one message: extraction, verdicts, judges): into the system
      message (or a prepended one) — the same system text and schema open every call of its kind,
      only the input at the end differs;
    - a conversation (an agent's turns): appended to its last human message (or as a new one) — the
      history is the repeating part, and the schema of this step (an action, an idea, an answer)
      changes from step to step; before the history it would make every step re-read it all."""
    if sum(not isinstance(m, SystemMessage) for m in messages) > 1:
        last = messages[-1]
        if isinstance(last, HumanMessage):
            return [*messages[:-1], HumanMessage(content=f"{content_text(last.content)}\n\n{instruction}")]
        return [*messages, HumanMessage(content=instruction)]
    if messages and isinstance(messages[0], SystemMessage):
        first = SystemMessage(content=f"{content_text(messages[0].content)}\n\n{instruction}")
        return [first, *messages[1:]]
    return [SystemMessage(content=instruction), *messages]


def correction(problem: str, schema: type[BaseModel]) -> HumanMessage:
    return HumanMessage(
        content=f"Your previous answer could not be used: {problem}\n"
        f"Reply again with only a JSON object for {schema_name(schema)} that fixes these problems."
    )


def json_candidate(text: str) -> str | None:
    """The JSON part of a reply: inside a code fence if any, else from the first { or [ on."""
    fenced = [m.group(1).strip() for m in _FENCE.finditer(text)]
    for block in fenced:
        if block[:1] in "{[":
            text = block
            break
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    start = min(starts)
    end = _balanced_end(text, start)
    return text[start:end] if end else text[start:]  # no end: truncated, left for repair


def _balanced_end(text: str, start: int) -> int | None:
    depth, in_str, esc = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def parse_json_text(text: str) -> tuple[Any, bool]:
    """(object, repaired?) from reply text; ReplyProblem when there is no usable JSON."""
    if not text.strip():
        raise ReplyProblem("the reply was empty")
    cand = json_candidate(text)
    if cand is None:
        hint = " (it looks like a refusal)" if _REFUSAL.search(text) else ""
        raise ReplyProblem(f"the reply contained no JSON object{hint}: {text.strip()[:200]!r}")
    try:
        return json.loads(cand), False
    except json.JSONDecodeError:
        pass
    repaired = repair_json(cand, return_objects=True)
    if repaired in ("", None) or not isinstance(repaired, dict | list):
        raise ReplyProblem(f"the JSON in the reply is broken beyond repair: {cand[:200]!r}")
    return repaired, True


def _fit(obj: Any, schema: type[BaseModel]) -> Any:
    # A bare list for a schema with exactly one list field is wrapped: {"triples": [...]}.
    fields = schema.model_fields
    if isinstance(obj, list) and len(fields) == 1:
        (name,) = fields
        return {name: obj}
    return obj


def _drop_nulls(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _drop_nulls(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list):
        return [_drop_nulls(v) for v in obj]
    return obj


def validate_obj(obj: Any, schema: type[M]) -> M:
    try:
        return schema.model_validate(_fit(obj, schema))
    except ValidationError as e:
        # Strict json_schema mode makes optional fields nullable-but-required: a null there means
        # "not given", so the field's default applies.
        cleaned = _drop_nulls(obj)
        if cleaned != obj:
            try:
                return schema.model_validate(_fit(cleaned, schema))
            except ValidationError:
                pass
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in e.errors())
        raise ReplyProblem(f"the JSON does not match the schema: {problems}") from e


def reply_text(msg: AIMessage) -> str:
    """What the model said, for parsing and error records: tool-call args as JSON, else the text."""
    if msg.tool_calls:
        return json.dumps(msg.tool_calls[0]["args"], ensure_ascii=False)
    return content_text(msg.content)


def parse_reply(msg: AIMessage, schema: type[M]) -> M:
    """The schema object from one reply, or ReplyProblem saying why not."""
    try:
        return _parse_reply(msg, schema)
    except ReplyProblem as p:
        if msg.response_metadata.get("finish_reason") == "length":
            raise ReplyProblem(
                f"{p} — the reply was cut off at the token limit; answer more briefly "
                "(or raise MOTIVGRAPH_LLM_MAX_TOKENS)"
            ) from p
        raise


def _parse_reply(msg: AIMessage, schema: type[M]) -> M:
    calls = [c for c in msg.tool_calls if c["name"] == schema_name(schema)] or msg.tool_calls
    if calls:
        return validate_obj(calls[0]["args"], schema)
    refusal = msg.additional_kwargs.get("refusal")
    if refusal:
        raise ReplyProblem(f"the model refused: {str(refusal)[:200]!r}")
    obj, _ = parse_json_text(content_text(msg.content))
    return validate_obj(obj, schema)
