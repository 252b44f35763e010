"""Tool calls as schema-constrained JSON actions, for models without native tool calling.

A weak model (e.g. a 135M local model) rarely writes the text protocol's `name(arg=...) <CALL>`
on its own, but a server that constrains decoding to a JSON schema makes every reply a valid
action. The action schema is generated from the tools a Toolbox offers:

    {"action": {"tool": "node_search", "arguments": {"query": "...", "k": 5}}}
    {"action": {"tool": "answer"}}

`tool` is the discriminator (the canonical tool names, plus "answer" unless a call is required);
`arguments` holds each tool's required and positional request fields with their types and
limits, so the grammar also bounds the values. The chosen tool then runs for real through
`Toolbox.execute`, which validates the full request as for any other call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from motivgraph.api.contract.tools import ToolSpec, resolve_tool

ANSWER = "answer"
MAX_ARG_CHARS = 200
MAX_ARG_ITEMS = 5
ACTION_PROMPT = (
    "Choose your next step. Reply with one JSON action: call one of the tools "
    '({{"action": {{"tool": "<tool name>", "arguments": {{...}}}}}}){answer}'
)
ANSWER_CLAUSE = ', or {"action": {"tool": "answer"}} when you have what you need and are ready to answer.'
CALL_REQUIRED = ". A tool call is required now: explore before you answer."


class AnswerNow(BaseModel):
    """Stop calling tools and write the answer."""

    model_config = ConfigDict(extra="ignore")
    tool: Literal["answer"] = Field(description="Stop calling tools; the answer is asked for next.")


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_"))


def _kind(prop: dict[str, Any]) -> str | None:
    """'text' or 'texts' for a string / list-of-strings request field (possibly optional), else None."""
    options = prop.get("anyOf", [prop])
    for o in options:
        if o.get("type") == "string" and "enum" not in o and "const" not in o:
            return "text"
        if o.get("type") == "array" and (o.get("items") or {}).get("type") == "string":
            return "texts"
    return None


def argument_fields(spec: ToolSpec) -> dict[str, str]:
    """The request fields an action fills, with their kind: the required and positional ones that
    hold text (what a caller must decide; counts, limits and filters keep the tool's defaults, so
    a weak model cannot pick an out-of-range number)."""
    props = spec.request.model_json_schema().get("properties", {})
    fields = spec.request.model_fields
    wanted = [n for n, f in fields.items() if f.is_required()] + list(spec.positional)
    out: dict[str, str] = {}
    for n in dict.fromkeys(wanted):
        kind = _kind(props.get(n, {}))
        if kind is not None:
            out[n] = kind
    return out


def _arg_type(kind: str, required: bool, description: str | None) -> tuple[Any, Any]:
    # Plain bounded strings (no pattern): the grammar then ends every string in time; the tool
    # validates the full request (patterns, limits) when it runs.
    text = Annotated[str, Field(min_length=1, max_length=MAX_ARG_CHARS)]
    typ: Any = text if kind == "text" else Annotated[list[text], Field(min_length=1, max_length=MAX_ARG_ITEMS)]
    return typ, Field(... if required else None, description=description)


def _call_model(spec: ToolSpec) -> type[BaseModel]:
    fields = spec.request.model_fields
    arg_defs: dict[str, Any] = {
        n: _arg_type(kind, fields[n].is_required(), fields[n].description)
        for n, kind in argument_fields(spec).items()
    }
    args = create_model(f"{_camel(spec.name)}Arguments", __config__=ConfigDict(extra="ignore"), **arg_defs)
    return create_model(
        f"{_camel(spec.name)}Call",
        __config__=ConfigDict(extra="ignore"),
        tool=(Literal[spec.name], Field(description=f"Call {spec.name}.")),  # type: ignore[arg-type]
        arguments=(args, Field(description=f"Arguments of {spec.name}.")),
    )


@lru_cache(maxsize=64)
def _action_model(names: tuple[str, ...], allow_answer: bool) -> type[BaseModel]:
    variants: list[type[BaseModel]] = [_call_model(spec) for spec in (resolve_tool(n) for n in names) if spec]
    if allow_answer:
        variants.append(AnswerNow)
    if not variants:
        raise ValueError("an action needs at least one tool or the answer")
    choice: Any = variants[0] if len(variants) == 1 else Annotated[Union[tuple(variants)], Field(discriminator="tool")]  # noqa: UP007
    return create_model(
        "ToolAction" if allow_answer else "RequiredToolCall",
        __doc__="The next step: one tool call" + (", or the answer." if allow_answer else "."),
        action=(choice, Field(description="A tool call (tool + arguments)"
                              + (' or {"tool": "answer"}.' if allow_answer else "."))),
    )


def action_model(specs: Iterable[ToolSpec], *, allow_answer: bool = True) -> type[BaseModel]:
    """The JSON action schema for these tools (cached per tool set)."""
    return _action_model(tuple(s.name for s in specs), allow_answer)


def action_prompt(allow_answer: bool) -> str:
    return ACTION_PROMPT.format(answer=ANSWER_CLAUSE if allow_answer else CALL_REQUIRED)


def action_call(action: BaseModel) -> tuple[str, dict[str, Any]] | None:
    """(tool name, arguments) of a parsed action; None when it is the answer."""
    chosen: Any = getattr(action, "action", action)
    if isinstance(chosen, AnswerNow) or getattr(chosen, "tool", ANSWER) == ANSWER:
        return None
    args = getattr(chosen, "arguments", None)
    return str(chosen.tool), (args.model_dump(exclude_none=True) if isinstance(args, BaseModel) else {})


def action_text(name: str, args: dict[str, Any]) -> str:
    """How a chosen call is kept in the conversation (the JSON the model wrote, normalised)."""
    return json.dumps({"action": {"tool": name, "arguments": args}}, ensure_ascii=False)
