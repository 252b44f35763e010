"""Service qualities: API key on/off, body size limit, CORS, backend down (503), stale and missing
index, errors without tracebacks or secrets."""

from __future__ import annotations

import logging
import re

import pytest
from pydantic import SecretStr

from motivgraph.graph.models import NodeIn, TripleIn
from tests.integration.api.conftest import TRIPLES, asgi_client

pytestmark = pytest.mark.asyncio


def _app(settings, service=None, **api):
    from motivgraph.api.app import create_app
    from motivgraph.api.services import ToolService

    s = settings.model_copy(deep=True)
    for k, v in api.items():
        setattr(s.api, k, v)
    return create_app(ToolService(s) if service is None else service)


async def test_api_key_required_when_configured(api_settings):
    app = _app(api_settings, api_key=SecretStr("k-123456789"))
    async with asgi_client(app) as c:
        r = await c.post("/tools/node_search", json={"query": "routing"})
        assert r.status_code == 401 and r.json()["error"] == "unauthorized"
        assert "X-API-Key" in r.json()["message"]
        r = await c.post("/tools/node_search", json={"query": "routing"}, headers={"X-API-Key": "wrong"})
        assert r.status_code == 401 and "k-123456789" not in r.text
        r = await c.post("/tools/node_search", json={"query": "routing"}, headers={"X-API-Key": "k-123456789"})
        assert r.status_code == 200
        assert (await c.get("/health")).status_code == 200  # liveness stays open
        assert (await c.get("/stats")).status_code == 401


async def test_docs_open_in_a_browser_after_one_visit_with_the_key(api_settings):
    """/docs, its assets and /openapi.json, keyed: a browser (no header) signs in once with ?api_key=."""
    app = _app(api_settings, api_key=SecretStr("k-123456789"))
    async with asgi_client(app) as c:
        assert (await c.get("/docs")).status_code == 401
        r = await c.get("/docs", params={"api_key": "k-123456789"})
        assert r.status_code == 303 and r.headers["location"] == "/docs"
        page = await c.get("/docs")
        assert page.status_code == 200 and "swagger" in page.text.lower()
        assets = re.findall(r'(?:src|href)="(/docs-assets/[^"]+)"', page.text)
        assert assets
        for a in assets:
            assert (await c.get(a)).status_code == 200, a
        assert (await c.get("/openapi.json")).json()["paths"]


async def test_no_key_configured_means_open(client):
    assert (await client.get("/stats")).status_code == 200


async def test_body_limit(api_settings):
    app = _app(api_settings, max_body_bytes=2048)
    async with asgi_client(app) as c:
        big = {"names": ["x" * 300] * 20}  # valid shape, too many bytes
        r = await c.post("/tools/node_relation", json=big)
        assert r.status_code == 413 and r.json()["error"] == "payload_too_large"
        assert "MOTIVGRAPH_API_MAX_BODY_BYTES" in r.json()["message"]

        async def chunks():
            for _ in range(10):
                yield b" " * 1000

        r = await c.post("/tools/node_search", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413  # no Content-Length: counted while reading
        r = await c.post("/tools/node_search", json={"query": "routing"})
        assert r.status_code == 200


async def test_cors(api_settings):
    app = _app(api_settings, cors_origins=["http://localhost:3000"])
    async with asgi_client(app) as c:
        r = await c.options("/tools/node_search", headers={"Origin": "http://localhost:3000",
                                                           "Access-Control-Request-Method": "POST"})
        assert r.status_code == 200
        assert r.headers["access-control-allow-origin"] == "http://localhost:3000"
        r = await c.get("/health", headers={"Origin": "http://evil.example"})
        assert "access-control-allow-origin" not in r.headers


async def test_backend_down_is_503(tmp_path):
    from motivgraph.settings import Settings

    s = Settings(data_dir=tmp_path / "d", _env_file=None)  # type: ignore[call-arg]
    s.graph.falkordb_url = f"unix://{tmp_path}/nobody-listens.sock"
    app = _app(s)
    async with asgi_client(app) as c:
        r = await c.get("/health")
        assert r.status_code == 503
        h = r.json()
        assert h["status"] == "down" and not h["graph"]["ok"]
        r = await c.post("/tools/node_search", json={"query": "routing"})
        assert r.status_code == 503
        body = r.json()
        assert body["error"] == "backend_unavailable" and "MOTIVGRAPH_GRAPH_FALKORDB_URL" in body["message"]
        r = await c.post("/tools/node_relation", json={"names": ["x"]})
        assert r.status_code == 503


async def test_stale_and_missing_index(settings, store, embedder):
    from motivgraph.api.services import ToolService
    from motivgraph.graph.vector_index import NodeIndex

    store.upsert_triples(TRIPLES[:3])
    svc = ToolService(settings, version_ttl_s=0)
    async with asgi_client(_app(settings, svc)) as c:
        r = await c.post("/tools/node_search", json={"query": "quantization"})
        assert r.status_code == 503
        assert r.json()["error"] == "index_unavailable" and "motivgraph reindex" in r.json()["message"]
        h = (await c.get("/health")).json()
        assert h["status"] == "degraded" and h["index"]["ok"] is False

        NodeIndex.open(settings, store, embedder).rebuild()
        r = await c.post("/tools/node_search", json={"query": "quantization"})
        assert r.status_code == 200 and r.json()["index_stale"] is False

        store.upsert_triples([TripleIn(paper_id="p9", index=0, problem=NodeIn(name="New problem"),
                                       challenge=NodeIn(name="New challenge"), solution=NodeIn(name="New solution"))])
        r = await c.post("/tools/node_search", json={"query": "quantization"})
        assert r.status_code == 200 and r.json()["index_stale"] is True  # served, and flagged
        h = (await c.get("/health")).json()
        assert h["status"] == "degraded" and h["index_stale"] is True and "reindex" in h["index"]["detail"]
        st = (await c.get("/stats")).json()
        assert st["node_index"]["state"] == "stale"
        assert st["node_index"]["index_version"] < st["node_index"]["graph_version"]

        NodeIndex.open(settings, store, embedder).rebuild()  # what `motivgraph reindex` does
        h = (await c.get("/health")).json()
        assert h["status"] == "ok"
        r = await c.post("/tools/node_search", json={"query": "New challenge", "k": 1})
        assert r.json()["hits"][0]["key"] == "challenge:new challenge" and r.json()["index_stale"] is False


async def test_missing_index_on_a_graph_without_nodes_says_ingest(settings, store):
    # papers but no triple stored (every extracted triple rejected): `reindex` would build an empty index;
    # the advice is to ingest, or to read the ingest report
    from motivgraph.api.services import ToolService
    from motivgraph.graph.models import PaperRecord

    store.upsert_papers([PaperRecord(paper_id="doi:10.1000/none", title="A paper whose triples were all rejected")])
    svc = ToolService(settings, version_ttl_s=0)
    async with asgi_client(_app(settings, svc)) as c:
        r = await c.post("/tools/node_search", json={"query": "quantization"})
    assert r.status_code == 503 and r.json()["error"] == "index_unavailable"
    msg = r.json()["message"]
    assert "motivgraph ingest" in msg and "ingest report" in msg and "reindex" not in msg


async def test_unexpected_error_is_json_500_without_trace(api_settings, caplog, monkeypatch):
    from motivgraph.api.services import ToolService

    svc = ToolService(api_settings.model_copy(deep=True))

    def boom(ctx, req):
        raise RuntimeError("secret internals /etc/passwd")

    # the node_search row's service function (the table names it; it is looked up at each call)
    monkeypatch.setattr("motivgraph.api.services.node_search.node_search", boom)
    async with asgi_client(_app(api_settings, svc)) as c:
        with caplog.at_level(logging.ERROR):
            r = await c.post("/tools/node_search", json={"query": "x"})
    assert r.status_code == 500
    body = r.json()
    assert body["error"] == "internal" and body["request_id"] in body["message"]
    assert "secret internals" not in r.text and "Traceback" not in r.text
    assert "secret internals" in caplog.text  # the server log has it


async def test_errors_do_not_leak_secrets(api_settings, monkeypatch):
    from motivgraph.api.services import ToolService
    from motivgraph.errors import BackendUnavailable

    s = api_settings.model_copy(deep=True)
    s.neo4j.password = SecretStr("hunter2-password")
    svc = ToolService(s)

    def down(ctx, req):
        raise BackendUnavailable("cannot reach bolt://neo4j:hunter2-password@db:7687 (hunter2-password)")

    monkeypatch.setattr("motivgraph.api.services.node_search.node_search", down)
    async with asgi_client(_app(s, svc)) as c:
        r = await c.post("/tools/node_search", json={"query": "x"})
    assert r.status_code == 503
    assert "hunter2" not in r.text and "***" in r.text


async def test_access_log_line(client, caplog):
    with caplog.at_level(logging.INFO, logger="motivgraph.api.access"):
        await client.post("/tools/node_search", json={"query": "routing", "k": 2})
    rec = next(r for r in caplog.records if r.name == "motivgraph.api.access")
    assert rec.status == 200 and rec.path == "/tools/node_search" and rec.latency_ms > 0 and rec.request_id
