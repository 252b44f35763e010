"""Middleware and helpers on a bare ASGI app (no graph): API key, body limit, last-resort 500,
secret redaction, one-line descriptions."""

from __future__ import annotations

import logging

import httpx
import pytest
from fastapi import FastAPI, Request

from motivgraph.api.error_responses import Redactor
from motivgraph.api.middleware import AccessLogMiddleware, ApiKeyMiddleware, BodyLimitMiddleware
from motivgraph.api.services.briefs import one_line


def _app() -> FastAPI:
    app = FastAPI()

    @app.post("/echo")
    async def echo(request: Request) -> dict:
        return {"n": len(await request.body())}

    @app.get("/boom")
    async def boom() -> dict:
        raise RuntimeError("db password is hunter2")

    @app.get("/health")
    async def health() -> dict:
        return {"ok": True}

    app.add_middleware(BodyLimitMiddleware, max_bytes=100)
    app.add_middleware(ApiKeyMiddleware, api_key="sekret-key", open_paths=("/health",), login_paths=("/page",))
    app.add_middleware(AccessLogMiddleware)
    return app


@pytest.mark.asyncio
async def test_middleware_stack():
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=_app()), base_url="http://t") as c:
        assert (await c.get("/health")).status_code == 200
        r = await c.post("/echo", content=b"x")
        assert r.status_code == 401 and r.json()["error"] == "unauthorized" and r.headers["x-request-id"]
        h = {"X-API-Key": "sekret-key"}
        assert (await c.post("/echo", content=b"x" * 100, headers=h)).json() == {"n": 100}
        r = await c.post("/echo", content=b"x" * 101, headers=h)
        assert r.status_code == 413 and "100 bytes" in r.json()["message"]
        r = await c.get("/boom", headers=h)
        assert r.status_code == 500 and r.json()["error"] == "internal"
        assert "hunter2" not in r.text and r.json()["request_id"] == r.headers["x-request-id"]


def test_redactor():
    red = Redactor(["s3cr3t-token", ""])
    assert red("key s3cr3t-token in bolt://neo4j:pw@host:7687") == "key *** in bolt://***@host:7687"


def test_one_line():
    assert one_line("  a\n b  ") == "a b"
    long = "First sentence is here. " + "word " * 100
    assert one_line(long, 40) == "First sentence is here."
    cut = one_line("x" * 30 + " " + "y" * 300, 100)
    assert len(cut) <= 101 and cut.endswith("…")


def test_redactor_hides_server_paths_but_keeps_routes_and_settings():
    red = Redactor([], {"/srv/motivgraph-data": "<data dir>"})
    msg = red("Cannot create /srv/motivgraph-data/falkordb (MOTIVGRAPH_DATA_DIR): Not a directory: "
              "'/home/alice/x.tmp'; socket unix:///tmp/motivgraph-0/ab.sock; see /tools/node_search")
    assert "/srv" not in msg and "alice" not in msg and "/tmp" not in msg
    assert "<data dir>/falkordb" in msg and "MOTIVGRAPH_DATA_DIR" in msg and "/tools/node_search" in msg
    assert red("http://example.org/tmp/x") == "http://example.org/tmp/x"  # a URL path is not a server path


def test_host_header_parsing_and_matching():
    from motivgraph.api.middleware import TrustedHostMiddleware, host_name

    assert host_name("LocalHost:8000") == "localhost"
    assert host_name("[::1]:8000") == "::1" and host_name("::1") == "::1"
    assert host_name("example.org.") == "example.org"
    mw = TrustedHostMiddleware(None, ["localhost", "*.corp.example", "127.0.0.1"])  # type: ignore[arg-type]
    assert mw.allows("localhost:1") and mw.allows("a.b.corp.example") and mw.allows("127.0.0.1:8000")
    assert not mw.allows("corp.example.evil.org") and not mw.allows("") and not mw.allows("localhost.evil.org")
    assert TrustedHostMiddleware(None, ["*"]).allows("anything")  # type: ignore[arg-type]


def test_redactor_keeps_words_that_merely_start_like_a_root():
    red = Redactor([], {"/srv/d": "<data dir>"})
    assert red("no run 'x' under /srv/d/runs") == "no run 'x' under <data dir>/runs"
    assert red("see /runs and /tmpfoo") == "see /runs and /tmpfoo"


@pytest.mark.asyncio
async def test_a_browser_signs_in_once_with_the_key_in_the_address(caplog: pytest.LogCaptureFixture) -> None:
    """A browser cannot send X-API-Key with a page it opens: `?api_key=KEY` sets an HttpOnly cookie and
    redirects to the same address without the key; later requests carry the cookie. A wrong key sets nothing."""
    app = _app()

    @app.get("/page")
    async def page(q: str = "") -> dict:
        return {"q": q}

    caplog.set_level(logging.INFO, logger="motivgraph.api.access")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        assert (await c.get("/page")).status_code == 401
        bad = await c.get("/page", params={"api_key": "wrong"})
        assert bad.status_code == 401 and "set-cookie" not in bad.headers and not c.cookies
        r = await c.get("/page", params={"api_key": "sekret-key", "q": "kept"})
        assert r.status_code == 303 and r.headers["location"] == "/page?q=kept"
        cookie = r.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        assert (await c.get("/page", params={"q": "x"})).json() == {"q": "x"}  # the cookie opens it now
        assert (await c.post("/echo", content=b"ab")).json() == {"n": 2}
        c.cookies.clear()
        c.cookies.set("motivgraph_api_key", "wrong")
        assert (await c.get("/page")).status_code == 401
    assert "sekret-key" not in caplog.text
