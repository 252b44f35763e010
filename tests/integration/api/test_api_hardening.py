"""Issue 12 #7 (API): error bodies without server paths, a Host-header check (DNS rebinding), every status a
route returns in the OpenAPI spec, strict numbers and clean text in request bodies."""

from __future__ import annotations

import httpx
import pytest
from pydantic import SecretStr

from motivgraph.settings import Settings


def _client(app, host: str = "localhost") -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=f"http://{host}")


@pytest.mark.asyncio
async def test_error_bodies_do_not_expose_server_paths(tmp_path):
    from motivgraph.api.app import create_app

    not_a_dir = tmp_path / "secret-project-dir"
    not_a_dir.write_text("a file where the data dir should be")
    settings = Settings(data_dir=not_a_dir, _env_file=None)  # type: ignore[call-arg]
    app = create_app(settings)
    async with _client(app) as c:
        r = await c.get("/stats")
    assert r.status_code == 503 and r.json()["error"] in ("config_error", "backend_unavailable")
    assert str(tmp_path) not in r.text and "secret-project-dir" not in r.text
    assert "MOTIVGRAPH_DATA_DIR" in r.json()["message"]  # still says what to fix


@pytest.mark.asyncio
async def test_keyless_server_answers_loopback_host_names_only(service):
    from motivgraph.api.app import create_app

    app = create_app(service)
    for host in ("localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000", "127.0.0.1"):
        async with _client(app, host) as c:
            assert (await c.get("/health/live")).status_code == 200, host
    for host in ("evil.example", "evil.example:8000", "localhost.evil.example", "10.0.0.5"):
        async with _client(app, host) as c:
            r = await c.get("/stats")
            assert r.status_code == 400, host
            assert r.json()["error"] == "invalid_host" and "MOTIVGRAPH_API_ALLOWED_HOSTS" in r.json()["message"]


@pytest.mark.asyncio
async def test_allowed_hosts_setting_and_keyed_default(api_settings, tmp_path):
    from motivgraph.api.app import create_app
    from motivgraph.api.services import ToolService

    s = api_settings.model_copy(deep=True)
    s.api.allowed_hosts = ["api.example.org", "*.corp.example"]
    svc = ToolService(s)
    try:
        app = create_app(svc)
        for host, status in (("api.example.org", 200), ("x.corp.example:443", 200), ("localhost", 400)):
            async with _client(app, host) as c:
                assert (await c.get("/health/live")).status_code == status, host
        s2 = api_settings.model_copy(deep=True)
        s2.api.api_key = SecretStr("k" * 16)  # a key-protected server is reachable by any name unless hosts are set
        async with _client(create_app(ToolService(s2)), "api.anywhere.example") as c:
            assert (await c.get("/health/live")).status_code == 200
    finally:
        svc.close()


def test_openapi_lists_every_status_a_route_returns(service):
    from motivgraph.api.app import create_app

    spec = create_app(service).openapi()
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            codes = set(op["responses"])
            where = f"{method.upper()} {path}"
            assert "400" in codes, where  # invalid Host header, unparseable body
            if op.get("requestBody"):
                assert {"413", "422"} <= codes, where
            if op.get("parameters") or op.get("requestBody"):
                assert "422" in codes, where
    assert "404" in spec["paths"]["/nodes/{key}"]["get"]["responses"]
    assert "404" in spec["paths"]["/papers/{paper_id}"]["get"]["responses"]
    assert "503" in spec["paths"]["/tools/node_search"]["post"]["responses"]


@pytest.mark.asyncio
async def test_numbers_are_strict(service):
    from motivgraph.api.app import create_app

    async with _client(create_app(service)) as c:
        for body in ({"query": "routing", "min_score": False}, {"query": "routing", "k": True},
                     {"query": "routing", "k": "5"}, {"query": "routing", "min_score": "0.1"}):
            r = await c.post("/tools/node_search", json=body)
            assert r.status_code == 422, body
        for body in ({"query": "routing", "k": 5.0}, {"query": "routing", "min_score": 0}):
            assert (await c.post("/tools/node_search", json=body)).status_code == 200, body


@pytest.mark.asyncio
async def test_request_text_is_checked_by_the_hygiene_policy_and_the_spec_says_so(service):
    from motivgraph.api.app import create_app

    app = create_app(service)
    async with _client(app) as c:
        for q in ("a\x1bb", "a\ufffeb", "a\x00b"):
            r = await c.post("/tools/node_search", json={"query": q})
            assert r.status_code == 422 and r.json()["error"] == "invalid_request", q
        assert (await c.post("/tools/node_search", json={"query": "𝜇 routing\twith tab"})).status_code == 200
    props = app.openapi()["components"]["schemas"]["NodeSearchRequest"]["properties"]
    assert "pattern" in props["query"]


@pytest.mark.asyncio
async def test_status_bodies_do_not_expose_server_paths(tmp_path, falkordb_server):
    import uuid

    from motivgraph.api.app import create_app
    from motivgraph.api.services import ToolService

    s = Settings(data_dir=tmp_path / "private-data", _env_file=None)  # type: ignore[call-arg]
    s.graph.falkordb_url = falkordb_server.url
    s.graph.name = f"paths_{uuid.uuid4().hex[:10]}"
    svc = ToolService(s)
    try:
        async with _client(create_app(svc)) as c:
            for path in ("/stats", "/health"):
                r = await c.get(path)
                assert str(tmp_path) not in r.text and "private-data" not in r.text, (path, r.text)
            assert "reindex" in (await c.get("/stats")).json()["node_index"]["message"]  # still actionable
    finally:
        svc.close()
