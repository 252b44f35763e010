"""Structured-output request bodies, per provider dialect.

A dialect is how one kind of server asks for schema-constrained output. `structured_request`
returns what the client binds to the chat model for one structured call; whatever the method,
the reply is then parsed, repaired and validated by `structured.parse_reply` (plus one re-ask).

    dialect            constrained request (the strongest mode it supports)
    openai             response_format {"type": "json_schema", "json_schema": {name, strict: true, schema}}
                       with the schema made strict (every property required, no extra properties)
    vllm               response_format {"type": "json_schema", "json_schema": {name, schema}} (guided decoding)
    openai_compatible  the same as vllm: LM Studio, SGLang, llama-server and Ollama accept it; a server
                       that rejects it (HTTP 400/422) is asked in JSON mode from then on
    llama_cpp_python   response_format {"type": "json_object", "schema": bounded schema} (llama-cpp-python's
                       grammar); bounded: strings and lists without a limit get one (maxLength, maxItems), so
                       a small model cannot run a string or list on until the reply is cut off, and the
                       bounds are tightened until the longest reply the grammar allows fits the role's
                       reply cap (max_tokens); the re-ask after a cut-off reply halves that budget
    llama_server       top-level "json_schema": bounded schema (llama.cpp's llama-server)
                       (these grammar and guided-decoding dialects also get every integer bounded on both
                       sides -- pydantic's ge/le -- spelled out as an enum, `bound_integers`: some grammar
                       builders ignore minimum/maximum, none ignores an enum)
    ollama             response_format json_schema on Ollama's OpenAI endpoint; Ollama turns it into its
                       native `format: <schema>`
    anthropic          forced tool use: the schema as the only tool, tool_choice naming it
    google             response_mime_type "application/json" + response_schema (refs inlined)
    tool_calling       any other LangChain provider: forced tool use
    scripted           schema in the prompt (the scripted test model ignores request parameters)

Weaker methods, chosen by MOTIVGRAPH_LLM_STRUCTURED_METHOD or after a rejection: `tool` (forced
tool call), `json_mode` (the dialect's generic JSON mode + schema in the prompt) and `text`
(schema in the prompt only).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, get_args

from pydantic import BaseModel

from motivgraph.choices import StructuredMethod

DIALECTS = (
    "openai", "vllm", "openai_compatible", "llama_cpp_python", "llama_server", "ollama", "anthropic", "google",
    "tool_calling", "scripted",
)  # fmt: skip
METHODS = get_args(StructuredMethod)
# Dialects whose JSON mode is response_format {"type": "json_object"} (the OpenAI wire format).
_OPENAI_WIRE = {"openai", "vllm", "openai_compatible", "llama_cpp_python", "llama_server", "ollama"}
# Keywords OpenAI's strict mode rejects or that mean nothing once every property is required.
_STRICT_DROP = {"default", "minLength", "maxLength", "uniqueItems", "examples"}


@dataclass(frozen=True)
class StructuredRequest:
    """What one structured call sends: `kwargs` are bound to the chat model (they end up in the
    request body); `tools`/`tool_choice` force a tool call; `instruct` adds the schema to the prompt."""

    dialect: str
    method: str  # the method actually used: json_schema, json_object_schema, tool, json_mode, text, ...
    kwargs: dict[str, Any] = field(default_factory=dict)
    tools: list[type[BaseModel]] = field(default_factory=list)
    tool_choice: str | None = None
    instruct: bool = True

    @property
    def constrained(self) -> bool:
        """True when the server itself constrains the reply to the schema."""
        return self.method not in ("json_mode", "text")


def dialect_for(provider: str, base_url: str | None, setting: str = "auto") -> str:
    """The dialect for a provider (`setting` wins unless it is 'auto')."""
    if setting != "auto":
        return setting
    if provider == "openai":
        if base_url is None or "api.openai.com" in base_url:
            return "openai"
        return "openai_compatible"
    return {
        "local": "llama_cpp_python",
        "vllm": "vllm",
        "ollama": "ollama",
        "deepseek": "tool_calling",  # DeepSeek has JSON mode and tool calls, no schema-constrained mode
        "azure_openai": "openai",
        "anthropic": "anthropic",
        "google_genai": "google",
        "google_vertexai": "google",
        "scripted": "scripted",
    }.get(provider, "tool_calling")


def schema_name(schema: type[BaseModel]) -> str:
    return schema.__name__


def json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    return schema.model_json_schema()


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI strict-mode form of a JSON schema: every object closed (additionalProperties false)
    and every property required; a property that was optional becomes nullable (a null reply is
    dropped again before validation, so the pydantic default applies)."""
    out = copy.deepcopy(schema)
    for node in _objects(out):
        for k in _STRICT_DROP & node.keys():
            del node[k]
        props = node.get("properties")
        if isinstance(props, dict):
            required = set(node.get("required", []))
            for name, sub in props.items():
                if name not in required and not _nullable(sub):
                    props[name] = {"anyOf": [sub, {"type": "null"}]}
            node["required"] = list(props)
            node["additionalProperties"] = False
    return out


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every object of a JSON schema, each before its children: the caller may change an object in place when it
    gets it, and the walk goes on into what the object then holds."""
    if isinstance(node, list):
        for x in node:
            yield from _objects(x)
    elif isinstance(node, dict):
        yield node
        for v in list(node.values()):
            yield from _objects(v)


def _nullable(sub: Any) -> bool:
    if not isinstance(sub, dict):
        return False
    if sub.get("type") == "null" or (isinstance(sub.get("type"), list) and "null" in sub["type"]):
        return True
    return any(isinstance(x, dict) and x.get("type") == "null" for x in sub.get("anyOf", []))


MAX_STRING_CHARS = 400
MAX_ITEMS = 6
# Characters of a JSON reply per token, to size a grammar's worst case against a reply cap in tokens
# (English prose runs ~4 per token in these tokenizers, JSON punctuation less; on the safe side).
CHARS_PER_TOKEN = 3.5
STRING_FLOOR = 120  # strings are cut to this before lists lose items ...
HARD_STRING_FLOOR = 32  # ... and to this after, when even one item per list does not fit


def bounded_schema(schema: dict[str, Any], max_chars: int = MAX_STRING_CHARS, max_items: int = MAX_ITEMS,
                   budget_chars: int | None = None) -> dict:
    """The schema with a maxLength on every unbounded string and a maxItems on every unbounded
    array (for grammar-based decoding: the grammar then ends every string and list in time); with
    `budget_chars`, the bounds are then tightened until the longest JSON the schema allows fits it
    (see `fit_to_budget`), so a reply cannot be cut off by the token limit."""
    out = copy.deepcopy(schema)
    for node in _objects(out):
        if node.get("type") == "string" and "maxLength" not in node and "enum" not in node and "pattern" not in node:
            node["maxLength"] = max_chars
        if node.get("type") == "array" and "maxItems" not in node:
            node["maxItems"] = max(max_items, int(node.get("minItems", 0)))
    if budget_chars is not None:
        fit_to_budget(out, budget_chars)
    return out


MAX_ENUM_INTS = 101  # a bounded integer range up to this many values is spelled out as an enum


def int_bounds(node: dict[str, Any]) -> tuple[int, int] | None:
    """The inclusive integer range a schema node allows (minimum/maximum, exclusive forms too), or None when it
    is not an integer bounded on both sides."""
    if node.get("type") != "integer":
        return None
    lo = node.get("minimum")
    ex_lo, ex_hi = node.get("exclusiveMinimum"), node.get("exclusiveMaximum")
    if isinstance(ex_lo, int | float):
        lo = math.floor(ex_lo) + 1 if lo is None else max(lo, math.floor(ex_lo) + 1)
    hi = node.get("maximum")
    if isinstance(ex_hi, int | float):
        hi = math.ceil(ex_hi) - 1 if hi is None else min(hi, math.ceil(ex_hi) - 1)
    if not isinstance(lo, int | float) or not isinstance(hi, int | float):
        return None
    return math.ceil(lo), math.floor(hi)


def bound_integers(schema: dict[str, Any], max_values: int = MAX_ENUM_INTS) -> dict[str, Any]:
    """The schema with every integer bounded on both sides (pydantic's ge/le: minimum/maximum) also spelled out
    as an `enum` of its values, when the range is small. Grammar builders (llama.cpp's JSON-schema grammar,
    llama-cpp-python's, guided decoding) honour an enum everywhere, while some ignore minimum/maximum: a
    judge asked for 0-9 then cannot answer 10."""
    out = copy.deepcopy(schema)
    for node in _objects(out):
        rng = int_bounds(node)
        if rng is not None and "enum" not in node and 0 < rng[1] - rng[0] + 1 <= max_values:
            node["enum"] = list(range(rng[0], rng[1] + 1))
    return out


def worst_chars(schema: dict[str, Any]) -> int | None:
    """The length of the longest JSON document `schema` allows (None: unbounded, e.g. a string
    without maxLength or a recursive model). Escapes inside strings are not counted."""
    defs = schema.get("$defs", {})

    def size(node: Any, depth: int) -> float:
        if depth > 20 or not isinstance(node, dict):
            return float("inf")
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return size(defs.get(ref[8:]), depth + 1)
        for key in ("anyOf", "oneOf"):
            if key in node:
                return max(size(x, depth + 1) for x in node[key])
        if "enum" in node:
            return max(len(json.dumps(v)) for v in node["enum"])
        if "const" in node:
            return len(json.dumps(node["const"]))
        t = node.get("type")
        if isinstance(t, list):
            return max(size({**node, "type": x}, depth) for x in t)
        if t == "string":
            return node.get("maxLength", float("inf")) + 2
        if t == "array":
            return 2 + node.get("maxItems", float("inf")) * (size(node.get("items", {}), depth + 1) + 2)
        if t == "object":
            props = node.get("properties", {})
            return 2 + sum(len(k) + 5 + size(v, depth + 1) for k, v in props.items())
        if t in ("integer", "number"):
            return 24
        if t == "boolean":
            return 5
        if t == "null":
            return 4
        return float("inf")  # no type: anything

    n = size(schema, 0)
    return None if n == float("inf") else int(n)


def fit_to_budget(schema: dict[str, Any], budget_chars: int) -> None:
    """Tighten `schema`'s maxLength / maxItems in place until `worst_chars` fits `budget_chars`: strings
    first (by a quarter at a time, down to STRING_FLOOR), then every list by one item (never below its
    minItems or 1), then strings again down to HARD_STRING_FLOOR. Never below a minLength / minItems, so
    every reply the tighter grammar allows still validates; when nothing is left to tighten the schema
    stays as it is (the reply may then be cut off, and the re-ask asks with half the budget)."""
    nodes = list(_objects(schema))
    strings = [node for node in nodes if node.get("type") == "string" and "maxLength" in node]
    arrays = [node for node in nodes if node.get("type") == "array" and "maxItems" in node]

    def fits() -> bool:
        n = worst_chars(schema)
        return n is not None and n <= budget_chars

    def shrink_strings(floor: int) -> bool:
        changed = False
        for node in strings:
            low = max(floor, int(node.get("minLength", 0)))
            if node["maxLength"] > low:
                node["maxLength"] = max(low, int(node["maxLength"] * 0.75))
                changed = True
        return changed

    def shrink_arrays() -> bool:
        changed = False
        for node in arrays:
            if node["maxItems"] > max(1, int(node.get("minItems", 0))):
                node["maxItems"] -= 1
                changed = True
        return changed

    for step in (lambda: shrink_strings(STRING_FLOOR), shrink_arrays, lambda: shrink_strings(HARD_STRING_FLOOR)):
        while not fits() and step():
            pass
        if fits():
            return


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every local `$ref` replaced by its definition and `$defs` removed (for
    dialects that do not resolve references, e.g. Gemini's response_schema)."""
    defs = schema.get("$defs", {})

    def resolve(node: Any, depth: int = 0) -> Any:
        if depth > 20:  # recursive models cannot be inlined; leave the ref
            return node
        if isinstance(node, list):
            return [resolve(x, depth) for x in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
            merged = {**defs[ref[8:]], **{k: v for k, v in node.items() if k != "$ref"}}
            return resolve(merged, depth + 1)
        return {k: resolve(v, depth) for k, v in node.items() if k != "$defs"}

    return resolve(schema)


def _constrained(dialect: str, schema: type[BaseModel], max_tokens: int | None = None) -> StructuredRequest:
    name, js = schema_name(schema), json_schema(schema)
    budget = int(max_tokens * CHARS_PER_TOKEN) if max_tokens else None
    if dialect == "openai":
        fmt = {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": strict_schema(js)}}
        return StructuredRequest(dialect, "json_schema_strict", {"response_format": fmt}, instruct=False)
    if dialect in ("vllm", "openai_compatible", "ollama"):
        fmt = {"type": "json_schema", "json_schema": {"name": name, "schema": bound_integers(js)}}
        return StructuredRequest(dialect, "json_schema", {"response_format": fmt})
    if dialect == "llama_cpp_python":
        fmt = {"type": "json_object", "schema": bound_integers(bounded_schema(js, budget_chars=budget))}
        return StructuredRequest(dialect, "json_object_schema", {"response_format": fmt})
    if dialect == "llama_server":
        schema_ = bound_integers(bounded_schema(js, budget_chars=budget))
        return StructuredRequest(dialect, "json_schema", {"extra_body": {"json_schema": schema_}})
    if dialect == "google":
        kwargs = {"response_mime_type": "application/json", "response_schema": inline_refs(js)}
        return StructuredRequest(dialect, "response_schema", kwargs, instruct=False)
    if dialect == "scripted":
        return StructuredRequest(dialect, "text")
    return _tool(dialect, schema)  # anthropic, tool_calling


def _tool(dialect: str, schema: type[BaseModel]) -> StructuredRequest:
    return StructuredRequest(dialect, "tool", tools=[schema], tool_choice=schema_name(schema), instruct=False)


def structured_request(dialect: str, method: str, schema: type[BaseModel],
                       max_tokens: int | None = None) -> StructuredRequest:
    """The request for `schema` in `dialect` with `method` (constrained, tool, json_mode or text).
    `max_tokens`: the reply cap; grammar-bounded dialects fit their bounds to it."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown structured-output dialect {dialect!r}; one of {', '.join(DIALECTS)}")
    if method == "constrained":
        return _constrained(dialect, schema, max_tokens)
    if method == "tool":
        return _tool(dialect, schema)
    if method == "json_mode":
        if dialect in _OPENAI_WIRE or dialect == "scripted":
            return StructuredRequest(dialect, "json_mode", {"response_format": {"type": "json_object"}})
        if dialect == "google":
            return StructuredRequest(dialect, "json_mode", {"response_mime_type": "application/json"})
        return StructuredRequest(dialect, "text")  # no JSON mode: the prompt carries the schema
    if method == "text":
        return StructuredRequest(dialect, "text")
    raise ValueError(f"unknown structured-output method {method!r}; one of {', '.join(METHODS)}")


def weaker(method: str) -> str | None:
    """The next method to try after a server rejected `method`'s request (None: nothing weaker)."""
    order = ["constrained", "json_mode", "text"]
    if method == "tool":
        return "json_mode"
    return order[order.index(method) + 1] if method in order[:-1] else None
