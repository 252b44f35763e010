"""Issue 41 item 3, over every operation: no field of any request (body fields, query parameters) takes a server
path, so no answer tells an existing server file from a missing one. Each string field of each operation's example
request is sent once naming a file that exists on the server and once naming one that does not: the two answers
have the same status, the same error code and the same body shape."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

# a file that exists and one that does not, of the same length (a length rule must not tell them apart either)
EXISTING = ["/etc/passwd", "/etc/hostname", "~/.bashrc", "../../../../etc/passwd", "//////////////etc/passwd"]
MISSING = ["/etc/pXsswd", "/etc/hXstname", "~/.bXshrc", "../../../../etc/pXsswd", "//////////////etc/pXsswd"]


@pytest.fixture(scope="module")
def client(service: Any) -> Iterator[TestClient]:
    from motivgraph.service import create_service_app

    with TestClient(create_service_app(service), base_url="http://localhost") as c:
        yield c


def _shape(r: Any) -> tuple[int, str, tuple[str, ...]]:
    try:
        body = r.json()
    except ValueError:
        return r.status_code, "", ()
    if isinstance(body, dict):
        return r.status_code, str(body.get("code") or ""), tuple(sorted(k for k in body if k != "request_id"))
    return r.status_code, "", (type(body).__name__,)


def _requests(spec: dict[str, Any]) -> Iterator[tuple[str, str, str, str, dict[str, Any]]]:
    """(label, method, path, field, request kwargs with the field set to a placeholder) for every string field."""
    schemas = spec["components"]["schemas"]
    for path, ops in spec["paths"].items():
        if "{" in path:
            continue  # path ids are checked by their own pattern (a run id, a node key)
        for method, op in ops.items():
            for p in op.get("parameters", []):
                if p.get("in") == "query" and "string" in str(p.get("schema")):
                    yield f"{method.upper()} {path}?{p['name']}", method, path, p["name"], {"params": {}}
            content = op.get("requestBody", {}).get("content", {}).get("application/json", {})
            refs = [content.get("schema", {})]
            refs += content.get("schema", {}).get("oneOf", []) + content.get("schema", {}).get("anyOf", [])
            for ref in refs:
                name = ref.get("$ref", "").rsplit("/", 1)[-1]
                model = schemas.get(name)
                if not model:
                    continue
                example = (model.get("examples") or [{}])[0]
                for field, prop in model.get("properties", {}).items():
                    if field != "method" and "string" in str(prop):
                        yield f"{method.upper()} {path} {name}.{field}", method, path, field, {"json": dict(example)}


def test_no_field_tells_an_existing_server_file_from_a_missing_one(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    checked, differ = 0, []
    for label, method, path, field, kw in _requests(spec):
        for existing, missing in zip(EXISTING, MISSING, strict=True):
            answers = []
            for value in (existing, missing):
                call = {k: dict(v) for k, v in kw.items()}
                (call["json"] if "json" in call else call["params"])[field] = value
                answers.append(client.request(method.upper(), path, **call))
            checked += 1
            if _shape(answers[0]) != _shape(answers[1]):
                differ.append(f"{label} = {existing!r} vs {missing!r}: {answers[0].status_code} "
                              f"{answers[0].text[:150]} | {answers[1].status_code} {answers[1].text[:150]}")
    assert checked > 20, checked  # the walk reached the operations
    assert not differ, "\n".join(differ)
    assert Path("/etc/passwd").exists() and not Path("/etc/pXsswd").exists()  # the probe named a real file
