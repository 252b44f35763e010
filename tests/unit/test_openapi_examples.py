"""Every request body in the served OpenAPI spec (`motivgraph serve`: tool API + ideation routes) has an
example for /docs' "Try it out", and every example validates against the schema it illustrates.

Walks the spec itself (paths → requestBody → schema, through $ref / oneOf / anyOf), so a new route whose
request model lacks an example fails here. KNOWN_GAPS is empty: every request model has an example."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from motivgraph.settings import Settings

KNOWN_GAPS: set[str] = set()


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from motivgraph.service import create_service_app

    app = create_service_app(Settings(data_dir=Path(tmp_path_factory.mktemp("spec")) / "data",  # type: ignore[call-arg]
                                      _env_file=None))
    return app.openapi()


def _request_schemas(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """name → component schema of every model a request body can be (unions expanded)."""
    comps = spec["components"]["schemas"]
    out: dict[str, dict[str, Any]] = {}

    def walk(node: dict[str, Any], where: str) -> None:
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            out[name] = comps[name]
            return
        alts = node.get("oneOf") or node.get("anyOf")
        if alts:
            for alt in alts:
                walk(alt, where)
            return
        if node.get("type") not in ("null", None) or node.get("properties"):
            out[where] = node  # an inline body schema

    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            for ctype, content in (op.get("requestBody") or {}).get("content", {}).items():
                if "json" in ctype:
                    walk(content.get("schema", {}), f"{method.upper()} {path}")
    return out


def test_every_request_body_has_an_example(spec: dict[str, Any]) -> None:
    models = _request_schemas(spec)
    assert {"NodeSearchRequest", "TransferRequest"} <= set(models)  # the walk reaches the tool bodies
    missing = {name for name, schema in models.items() if not (schema.get("examples") or schema.get("example"))}
    new = missing - KNOWN_GAPS
    assert not new, f"request models without an example: {sorted(new)}"


def test_every_example_validates_against_its_schema(spec: dict[str, Any]) -> None:
    checked = 0
    for name, schema in _request_schemas(spec).items():
        examples = schema.get("examples") or ([schema["example"]] if "example" in schema else [])
        for ex in examples:
            inline = name not in spec["components"]["schemas"]
            root = {**schema, "components": spec["components"]} if inline else \
                {"$ref": f"#/components/schemas/{name}", "components": spec["components"]}
            jsonschema.Draft202012Validator(root).validate(ex)
            checked += 1
    assert checked >= 5
