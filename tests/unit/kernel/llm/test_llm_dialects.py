"""Structured-output request bodies per provider dialect (llm/dialects.py), and provider routing."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from pydantic import BaseModel, Field, SecretStr

from motivgraph.errors import ConfigError
from motivgraph.llm import LLMClient, ScriptedChatModel
from motivgraph.llm.dialects import (
    _objects,
    bounded_schema,
    dialect_for,
    inline_refs,
    strict_schema,
    structured_request,
    weaker,
)
from motivgraph.llm.factory import build_chat_model, resolve_spec
from motivgraph.settings import LLMSettings, RoleOverride, Settings
from tests.unit.kernel.llm.llm_sync import structured_sync


class Node(BaseModel):
    name: str
    words: int = Field(ge=1)


class Reply(BaseModel):
    nodes: list[Node]
    note: str | None = None


@pytest.mark.parametrize(
    ("provider", "base_url", "dialect"),
    [
        ("openai", None, "openai"),
        ("openai", "https://api.openai.com/v1", "openai"),
        ("openai", "http://127.0.0.1:8000/v1", "openai_compatible"),
        ("vllm", "http://localhost:8000/v1", "vllm"),
        ("ollama", "http://localhost:11434/v1", "ollama"),
        ("local", None, "llama_cpp_python"),
        ("anthropic", None, "anthropic"),
        ("google_genai", None, "google"),
        ("azure_openai", None, "openai"),
        ("mistralai", None, "tool_calling"),
        ("scripted", None, "scripted"),
    ],
)
def test_dialect_from_provider(provider: str, base_url: str | None, dialect: str) -> None:
    assert dialect_for(provider, base_url) == dialect
    assert dialect_for(provider, base_url, "llama_server") == "llama_server"  # the setting wins


def test_anthropic_is_forced_tool_use_without_schema_in_prompt() -> None:
    req = structured_request("anthropic", "constrained", Reply)
    assert (req.method, req.tools, req.tool_choice, req.kwargs, req.instruct) == ("tool", [Reply], "Reply", {}, False)
    assert req.constrained


def test_google_is_response_schema_with_refs_inlined() -> None:
    req = structured_request("google", "constrained", Reply)
    assert req.kwargs["response_mime_type"] == "application/json"
    schema = req.kwargs["response_schema"]
    assert "$defs" not in json.dumps(schema) and "$ref" not in json.dumps(schema)
    assert schema["properties"]["nodes"]["items"]["properties"]["words"] == {"minimum": 1, "title": "Words",
                                                                           "type": "integer"}
    assert structured_request("google", "json_mode", Reply).kwargs == {"response_mime_type": "application/json"}


def test_openai_strict_schema_closes_objects_and_makes_optional_fields_nullable() -> None:
    strict = strict_schema(Reply.model_json_schema())
    assert strict["required"] == ["nodes", "note"] and strict["additionalProperties"] is False
    node = strict["$defs"]["Node"]
    assert node["required"] == ["name", "words"] and node["additionalProperties"] is False
    assert "default" not in json.dumps(strict)


def test_grammar_dialects_bound_strings_and_lists() -> None:
    b = bounded_schema(Reply.model_json_schema(), max_chars=50, max_items=3)
    assert b["properties"]["nodes"]["maxItems"] == 3
    assert b["$defs"]["Node"]["properties"]["name"]["maxLength"] == 50
    assert b["properties"]["note"]["anyOf"][0]["maxLength"] == 50
    req = structured_request("llama_cpp_python", "constrained", Reply)
    assert req.kwargs["response_format"]["type"] == "json_object"
    assert req.kwargs["response_format"]["schema"]["properties"]["nodes"]["maxItems"] >= 1
    assert "json_schema" in structured_request("llama_server", "constrained", Reply).kwargs["extra_body"]


class _Triple(BaseModel):
    name: str
    description: str
    tags: list[str] = Field(min_length=1)


class _Many(BaseModel):
    items: list[_Triple] = Field(min_length=1)
    note: str | None = None


@pytest.mark.parametrize("max_tokens", [40, 200, 768, 4000])
def test_grammar_bounds_fit_the_reply_cap(max_tokens: int) -> None:
    # the longest reply the grammar allows fits the cap, so a reply is never cut off mid-JSON
    from motivgraph.llm.dialects import CHARS_PER_TOKEN, worst_chars

    loose = bounded_schema(_Many.model_json_schema())
    req = structured_request("llama_cpp_python", "constrained", _Many, max_tokens=max_tokens)
    fitted = req.kwargs["response_format"]["schema"]
    budget = int(max_tokens * CHARS_PER_TOKEN)
    assert worst_chars(loose) > budget or max_tokens == 4000
    assert worst_chars(fitted) <= budget or max_tokens == 40  # 40 tokens: not even one short item fits
    # never tighter than the model itself allows: every list keeps room for its minItems
    assert fitted["properties"]["items"]["maxItems"] >= 1
    assert fitted["$defs"]["_Triple"]["properties"]["tags"]["maxItems"] >= 1
    server = structured_request("llama_server", "constrained", _Many, max_tokens=max_tokens)
    assert server.kwargs["extra_body"]["json_schema"] == fitted


def test_worst_case_size_of_a_schema() -> None:
    from motivgraph.llm.dialects import worst_chars

    assert worst_chars({"type": "string"}) is None  # unbounded
    assert worst_chars({"type": "string", "maxLength": 10}) == 12
    assert worst_chars({"type": "array", "maxItems": 3, "items": {"type": "boolean"}}) == 2 + 3 * 7
    obj = {"type": "object", "properties": {"a": {"enum": ["xy", "z"]}, "b": {"type": ["integer", "null"]}}}
    assert worst_chars(obj) == 2 + (1 + 5 + 4) + (1 + 5 + 24)
    # the largest reply a fitted schema allows validates against the model and is no longer than its worst case
    fitted = bounded_schema(_Many.model_json_schema(), budget_chars=600)
    t = fitted["$defs"]["_Triple"]
    n_items, n_tags = fitted["properties"]["items"]["maxItems"], t["properties"]["tags"]["maxItems"]
    s_name, s_tag = t["properties"]["name"]["maxLength"], t["properties"]["tags"]["items"]["maxLength"]
    note = fitted["properties"]["note"]["anyOf"][0]["maxLength"]
    big = _Many(items=[_Triple(name="n" * s_name, description="d" * t["properties"]["description"]["maxLength"],
                               tags=["t" * s_tag] * n_tags)] * n_items, note="x" * note)
    doc = json.dumps(big.model_dump(), separators=(",", ":"))
    assert len(doc) <= worst_chars(fitted) <= 600
    assert _Many.model_validate_json(doc) == big


def test_weaker_methods_and_unknown_names() -> None:
    assert [weaker("constrained"), weaker("json_mode"), weaker("text"), weaker("tool")] == [
        "json_mode", "text", None, "json_mode"]
    assert structured_request("anthropic", "json_mode", Reply).method == "text"  # no JSON mode there
    assert not structured_request("vllm", "text", Reply).constrained
    with pytest.raises(ValueError, match="dialect"):
        structured_request("nope", "constrained", Reply)
    with pytest.raises(ValueError, match="method"):
        structured_request("vllm", "nope", Reply)


def test_inline_refs_leaves_recursive_models_alone() -> None:
    class Tree(BaseModel):
        children: list[Tree] = []

    out = inline_refs(Tree.model_json_schema())
    assert "$defs" not in out  # inlined as deep as allowed; no infinite loop


def test_client_uses_the_dialect_of_the_setting_with_a_scripted_model(settings: Settings) -> None:
    settings.llm.dialect = "llama_cpp_python"
    model = ScriptedChatModel(['{"nodes": [{"name": "x", "words": 1}]}'])
    c = LLMClient(settings, model=model)
    structured_sync(c, "extractor", "go", Reply)
    assert model.call_kwargs[0]["response_format"]["type"] == "json_object"
    assert "schema" in model.call_kwargs[0]["response_format"]
    c.close()


def test_missing_provider_extra_is_named() -> None:
    cfg = LLMSettings(model="anthropic:claude-3-5-haiku-latest")
    spec = resolve_spec(cfg, "mentor")
    assert spec.dialect == "anthropic"
    with pytest.raises(ConfigError, match=r"motivgraph\[anthropic\]"):
        build_chat_model(spec)
    with pytest.raises(ConfigError, match="Unknown LLM provider 'nosuch'"):
        resolve_spec(LLMSettings(model="nosuch:x"))


def test_init_chat_model_provider_is_built_without_network(monkeypatch: pytest.MonkeyPatch,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("langchain", reason="the azure extra (langchain) is not installed")
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    cfg = LLMSettings(model="azure_openai:gpt-4o-mini", base_url="https://example-resource.openai.azure.com",
                      api_key=SecretStr("azure-secret-key-123456"), max_tokens=77)
    spec = resolve_spec(cfg, "judge")
    model = build_chat_model(spec)
    from langchain_openai import AzureChatOpenAI

    assert isinstance(model, AzureChatOpenAI) and model.max_retries == 0 and model.max_tokens == 77
    assert spec.dialect == "openai"
    assert "azure-secret-key-123456" not in caplog.text


def test_local_preset_spec_without_the_model_file_says_how_to_install(tmp_path: Path) -> None:
    cfg = LLMSettings(model="local:smollm2", models_dir=tmp_path)
    from motivgraph.llm import local

    monkey_dirs = [tmp_path / "a", tmp_path / "b"]
    orig = local.models_dirs
    try:
        local.models_dirs = lambda data_dir, configured=None: monkey_dirs  # type: ignore[assignment]
        with pytest.raises(ConfigError, match="--with-local-llm"):
            resolve_spec(cfg, "extractor", tmp_path)
    finally:
        local.models_dirs = orig  # type: ignore[assignment]


def test_local_gguf_path_spec(tmp_path: Path) -> None:
    gguf = tmp_path / "tiny-model.gguf"
    gguf.write_bytes(b"GGUF")
    cfg = LLMSettings(model=f"local:{gguf}", roles={"mentor": RoleOverride(max_tokens=99, context_tokens=1000)})
    spec = resolve_spec(cfg, "mentor", tmp_path)
    assert (spec.provider, spec.model, spec.dialect) == ("local", "tiny-model", "llama_cpp_python")
    assert (spec.native_tools, spec.slots, spec.max_tokens, spec.context_window) == (False, 1, 99, 8192)
    assert spec.prompt_budget == 1000
    assert spec.local.dir == (tmp_path / "llm").resolve()
    with pytest.raises(ConfigError, match="no such GGUF"):
        resolve_spec(LLMSettings(model=f"local:{tmp_path / 'missing.gguf'}"), None, tmp_path)
    with pytest.raises(ConfigError, match="neither a preset"):
        resolve_spec(LLMSettings(model="local:not-a-model"), None, tmp_path)


class Judgment(BaseModel):
    score: int = Field(ge=0, le=9)
    confidence: int = Field(gt=0, lt=4)
    votes: list[int] = Field(default_factory=list)
    weight: int = Field(ge=0)  # bounded on one side only: left alone
    big: int = Field(ge=0, le=10_000)  # a range too wide to spell out: left alone


@pytest.mark.parametrize("dialect", ["llama_cpp_python", "llama_server", "vllm", "openai_compatible", "ollama"])
def test_grammar_and_guided_dialects_bound_integers_where_the_schema_does(dialect: str) -> None:
    """#42 item 6: a judge asked for 0-9 must not be able to answer 10 under constrained decoding. Grammar builders
    ignore minimum/maximum (llama-cpp-python's does: any integer), none ignores an enum."""
    req = structured_request(dialect, "constrained", Judgment, max_tokens=512)
    body = req.kwargs.get("response_format") or req.kwargs["extra_body"]
    schema = body.get("schema") or body.get("json_schema", {}).get("schema") or body.get("json_schema")
    props = schema["properties"]
    assert props["score"]["enum"] == list(range(10))
    assert props["confidence"]["enum"] == [1, 2, 3]  # exclusive bounds
    assert "enum" not in props["weight"] and "enum" not in props["big"]


def test_llama_cpp_grammar_of_a_bounded_integer_admits_only_its_values() -> None:
    gbnf_of = pytest.importorskip("llama_cpp.llama_grammar").json_schema_to_gbnf
    req = structured_request("llama_cpp_python", "constrained", Judgment, max_tokens=512)
    gbnf = gbnf_of(json.dumps(req.kwargs["response_format"]["schema"]))
    rules = dict(line.split(" ::= ", 1) for line in gbnf.splitlines() if " ::= " in line)
    assert rules["score"] == " | ".join(f'"{i}"' for i in range(10))
    assert rules["score-kv"].endswith(" score")


def test_schema_rewrites_share_one_walk_that_sees_each_parents_edits() -> None:
    """strict_schema, bounded_schema, bound_integers and fit_to_budget walk a schema with the one `_objects`:
    every object once, parents first, and into what a parent holds after its rewrite (strict_schema wraps an
    optional property in anyOf and still closes the object inside)."""
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}},
              "$defs": {"D": {"items": [{"type": "integer"}]}}}
    seen = []
    for node in _objects(schema):
        seen.append(sorted(node))
        node.pop("$defs", None)  # an edit to the parent: its children are read after it
    assert seen == [["$defs", "properties", "type"], ["a"], ["properties", "type"], ["b"], ["type"]]
    strict = strict_schema({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {}}}}})
    assert strict["properties"]["a"]["anyOf"][0]["additionalProperties"] is False
