"""HTTP semantics of the served app (the serve composition root under uvicorn): a GET on the stateless MCP endpoint
is refused at once (405), and a body in another media type than JSON is a 415 that says to send JSON."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from motivgraph.settings import Settings
from tests.uvicorn_support import served

JSON_ROUTES = ["/tools/node_search", "/tools/random_nodes", "/tools/transfer_candidates", "/ideation/sessions"]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`motivgraph serve`'s app on a loopback port, over an empty data dir (nothing here reaches the graph)."""
    from motivgraph.api.services import ToolService
    from motivgraph.service import create_service_app

    settings = Settings(data_dir=Path(tmp_path_factory.mktemp("http_semantics")) / "data",
                        _env_file=None)  # type: ignore[call-arg]
    service = ToolService(settings)
    with served(create_service_app(service)) as url:
        yield url
    service.close()


def _error_body(r: httpx.Response) -> dict[str, Any]:
    body = r.json()
    assert isinstance(body.get("error"), str) and isinstance(body.get("message"), str), body
    return body


@pytest.mark.parametrize("accept", ["text/event-stream", "application/json, text/event-stream", "*/*"])
def test_get_mcp_is_405_at_once(base_url: str, accept: str) -> None:
    # before: a GET asking for an event stream got one that never sent anything and never ended
    t0 = time.monotonic()
    r = httpx.get(f"{base_url}/mcp", headers={"Accept": accept}, timeout=10)
    assert time.monotonic() - t0 < 5
    assert r.status_code == 405, r.text
    assert "POST" in r.headers["allow"] and "GET" not in r.headers["allow"]
    body = _error_body(r)
    assert "POST" in body["message"]


def test_mcp_post_still_answers(base_url: str) -> None:
    r = httpx.post(f"{base_url}/mcp", timeout=10,
                   headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"},
                   json={"jsonrpc": "2.0", "id": 7, "method": "initialize",
                         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "t", "version": "0"}}})
    assert r.status_code == 200, r.text
    assert r.json()["id"] == 7 and r.json()["result"]["serverInfo"]["name"] == "motivgraph"


@pytest.mark.parametrize("route", JSON_ROUTES)
@pytest.mark.parametrize("ctype", ["text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
                                   "application/xml"])
def test_json_body_in_another_media_type_is_415(base_url: str, route: str, ctype: str) -> None:
    r = httpx.post(f"{base_url}{route}", content=b'{"query": "x", "topic": "y"}', headers={"Content-Type": ctype},
                   timeout=10)
    assert r.status_code == 415, r.text
    body = _error_body(r)
    assert body["error"] == "unsupported_media_type" and "application/json" in body["message"]
    assert r.headers.get("x-request-id")


@pytest.mark.parametrize("ctype", [None, "application/json", "application/json; charset=utf-8",
                                   "application/merge-patch+json"])
def test_json_media_types_still_reach_validation(base_url: str, ctype: str | None) -> None:
    headers = {"Content-Type": ctype} if ctype else {}
    # an argument out of range: validated before anything touches the graph, so a 422 in any JSON media type
    r = httpx.post(f"{base_url}/tools/node_search", content=b'{"query": "x", "k": 0}', headers=headers, timeout=10)
    assert r.status_code == 422, r.text
    assert _error_body(r)["error"] == "invalid_request"


def test_openapi_documents_the_415(base_url: str) -> None:
    spec = httpx.get(f"{base_url}/openapi.json", timeout=10).json()
    with_body = [(path, m, op) for path, ops in spec["paths"].items() for m, op in ops.items() if op.get("requestBody")]
    assert len(with_body) >= 5
    for path, method, op in with_body:
        ref = op["responses"].get("415", {}).get("content", {}).get("application/json", {}).get("schema", {})
        assert ref.get("$ref") == "#/components/schemas/ErrorResponse", f"{method.upper()} {path}: {op['responses']}"
    assert all("415" not in op["responses"] for ops in spec["paths"].values() for op in ops.values()
               if not op.get("requestBody"))


def test_routes_without_a_body_ignore_the_content_type(base_url: str) -> None:
    r = httpx.get(f"{base_url}/health/live", headers={"Content-Type": "text/plain"}, timeout=10)
    assert r.status_code == 200, r.text
