"""Tool definitions: OpenAI function-calling JSON, self-contained, matching the request models."""

from __future__ import annotations

import json

from motivgraph.api.contract.tools import all_tools, inline_schema, openai_tools


def test_openai_tools_shape():
    tools = openai_tools()
    assert [t["function"]["name"] for t in tools] == [s.name for s in all_tools()]
    for t in tools:
        f = t["function"]
        assert t["type"] == "function" and f["description"]
        text = json.dumps(f["parameters"])
        assert "$ref" not in text and "$defs" not in text and '"title"' not in text
        assert f["parameters"]["additionalProperties"] is False
    rel = tools[1]["function"]["parameters"]["properties"]["names"]
    assert rel["minItems"] == 1 and rel["maxItems"] == 20
    rnd = tools[2]["function"]["parameters"]["properties"]
    assert rnd["n"]["maximum"] == 50 and rnd["mode"]["enum"] == ["nodes", "triples"]


def test_inline_schema_resolves_refs():
    schema = {"$defs": {"A": {"type": "object", "title": "A", "properties": {"x": {"type": "integer"}}}},
              "type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "an A"}}}
    out = inline_schema(schema)
    assert out["properties"]["a"] == {"type": "object", "properties": {"x": {"type": "integer"}},
                                      "description": "an A"}
