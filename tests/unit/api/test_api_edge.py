"""Issue 41 on a bare app with the API's own middleware and error handlers (no graph): log lines cannot be forged
(item 2), logins redirect only to this server and only on the browser pages (item 4), per-client limits answer 429
with Retry-After and a slow body 408 (item 5), and every 4xx is the one error envelope (item 6)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import BaseModel

from motivgraph.api import error_responses
from motivgraph.api.deps import JsonBody
from motivgraph.api.middleware import (
    AccessLogMiddleware,
    ApiKeyMiddleware,
    BodyLimitMiddleware,
    BodyTimeoutMiddleware,
    ClientLimitMiddleware,
    UrlLimitMiddleware,
    same_origin_target,
)
from motivgraph.logging import _OneLineFilter, log_safe

KEY = "sekret-key-0123"
ENVELOPE = {"status", "code", "error", "message"}


class Item(BaseModel):
    name: str


def _app(*, key: bool = False, concurrency: int = 0, rate: float = 0.0, burst: int = 1,
         body_timeout: float = 0.0) -> FastAPI:
    app = FastAPI(dependencies=[JsonBody])
    error_responses.install(app, error_responses.Redactor([]))

    @app.get("/docs")
    async def docs_page() -> dict:
        return {"page": "docs"}

    @app.get("/triples")
    async def triples(q: str = "") -> dict:
        return {"q": q}

    @app.post("/triples")
    async def post_triples() -> dict:
        return {}

    @app.post("/items")
    async def items(item: Item) -> dict:
        return {"name": item.name}

    @app.get("/slow")
    async def slow() -> dict:
        await asyncio.sleep(0.3)
        return {}

    @app.get("/health")
    async def health() -> dict:
        return {"ok": True}

    app.add_middleware(BodyLimitMiddleware, max_bytes=10_000)
    if body_timeout:
        app.add_middleware(BodyTimeoutMiddleware, seconds=body_timeout)
    if key:
        app.add_middleware(ApiKeyMiddleware, api_key=KEY, open_paths=("/health",))
    if concurrency or rate:
        app.add_middleware(ClientLimitMiddleware, concurrency=concurrency, rate=rate, burst=burst)
    app.add_middleware(UrlLimitMiddleware, max_bytes=2048)
    app.add_middleware(AccessLogMiddleware)
    return app


def _client(app: FastAPI, **kw: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t", **kw)


async def _raw(app: FastAPI, path: str, *, method: str = "GET", query: bytes = b"",
               headers: list[tuple[bytes, bytes]] | None = None, body: bytes = b"") -> tuple[int, dict, bytes]:
    """Call the app with a hand-made ASGI scope: a path httpx would normalise (`//host`, control characters)."""
    sent: list[dict] = []
    chunks = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict:
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode("utf-8", "surrogateescape"), "query_string": query,
             "root_path": "", "headers": headers or [(b"host", b"t")], "client": ("127.0.0.1", 5555),
             "server": ("t", 80)}
    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    out = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode("latin-1") for k, v in start["headers"]}, out


# ------------------------------------------------------------------ item 2: logs cannot be forged
@pytest.fixture
def access_log() -> Iterator[io.StringIO]:
    """The access log as a plain handler writes it (no filter of its own: the escaping must happen at the source)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("motivgraph.api.access")
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield stream
    logger.removeHandler(handler)
    logger.setLevel(old)


FORGED = "2026-12-07T01:00:00.000+00:00 ERROR FORGED"


@pytest.mark.asyncio
@pytest.mark.parametrize("kind, path, headers", [
    ("LF in the path", f"/stats\n{FORGED}", None),
    ("CR in the path", f"/stats\r{FORGED}", None),
    ("CRLF in the path", f"/stats\r\n{FORGED}", None),
    ("ANSI escape in the path", "/stats\x1b[31mRED\x1b[0m", None),
    ("NUL, DEL and a C1 control in the path", "/stats\x00\x7f\x85x", None),
    ("Unicode line separator in the path", f"/stats\u2028{FORGED}", None),
    ("ANSI escape in the user agent", "/stats", [(b"host", b"t"), (b"user-agent", b"curl\x1b[2J\x1b[31m")]),
    ("LF in the user agent", "/stats", [(b"host", b"t"), (b"user-agent", f"ua\n{FORGED}".encode())]),
])
async def test_each_forgery_stays_on_its_one_escaped_line(access_log: io.StringIO, kind: str, path: str,
                                                          headers: Any) -> None:
    await _raw(_app(key=True), path, headers=headers)
    text = access_log.getvalue()
    assert text.count("\n") == 1, (kind, text)  # one request, one line
    assert not any(c in text[:-1] for c in "\r\x1b\x00\x7f\x85\u2028"), (kind, repr(text))
    assert "\\x" in text or "\\u" in text, (kind, text)  # the forged character is visible as its escape
    assert text.startswith("INFO motivgraph.api.access: GET /stats"), text


def test_log_safe_is_unambiguous_and_bounded() -> None:
    assert log_safe("a\nb") == "a\\x0ab"
    assert log_safe("a\\x0ab") == "a\\\\x0ab"  # a literal backslash-x is not read as an escaped newline
    assert log_safe("\x1b[31m") == "\\x1b[31m" and log_safe("\u202eevil") == "\\u202eevil"
    assert log_safe("x" * 5000, 100).endswith("...(+4900 chars)")


def test_every_log_record_stays_on_one_line() -> None:
    # the root handler's filter (motivgraph.logging.setup_logging): a request value inside any other message
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "tool failed for %r: %s", ("q", "a\nFORGED"), None)
    assert _OneLineFilter().filter(record)
    assert "\n" not in record.getMessage() and "\\x0aFORGED" in record.getMessage()


# ------------------------------------------------------------------ item 4: redirects stay on this server
@pytest.mark.parametrize("path", ["//evil.example/landing", "/\\evil.example/", "/\\/evil.example", "///evil.example",
                                  "/\\\\evil.example", "/http://evil.example", "\\\\evil.example", "/%5Cevil"])
def test_a_login_target_is_a_relative_path_on_this_server(path: str) -> None:
    target = same_origin_target(path, [("q", "x")])
    assert target.startswith("/") and target[1:2] not in ("/", "\\"), target
    assert "\\" not in target and "://" not in target.split("?")[0].replace("/http:", "/http%3A"), target
    assert httpx.URL("http://server.example" + "/").join(target).host == "server.example"


def test_a_login_target_cannot_split_the_header() -> None:
    assert "\r" not in same_origin_target("/docs\r\nSet-Cookie: x=1", []) and "\n" not in same_origin_target(
        "/docs\nx", [])


@pytest.mark.asyncio
@pytest.mark.parametrize("path", ["//evil.example/landing", "/\\evil.example/", "//evil.example/docs"])
async def test_no_redirect_leaves_the_server(path: str) -> None:
    status, headers, _ = await _raw(_app(key=True), path, query=f"api_key={KEY}".encode())
    assert status != 303 and "location" not in headers and "set-cookie" not in headers, (status, headers)


@pytest.mark.asyncio
async def test_the_key_in_the_address_logs_in_only_on_the_browser_pages() -> None:
    async with _client(_app(key=True)) as c:
        r = await c.get("/triples", params={"api_key": KEY, "q": "x"})
        assert r.status_code == 401 and "set-cookie" not in r.headers and r.json()["field"] == "X-API-Key"
        r = await c.get("/docs", params={"api_key": KEY, "q": "kept"})
        assert r.status_code == 303 and r.headers["location"] == "/docs?q=kept"
        assert "HttpOnly" in r.headers["set-cookie"]
        assert (await c.get("/triples", params={"q": "y"})).json() == {"q": "y"}  # the cookie counts everywhere


@pytest.mark.asyncio
async def test_the_explorer_login_sets_the_cookie_from_the_header() -> None:
    async with _client(_app(key=True)) as c:
        bad = await c.post("/explorer/login", headers={"X-API-Key": "wrong"})
        assert bad.status_code == 401 and "set-cookie" not in bad.headers
        r = await c.post("/explorer/login", headers={"X-API-Key": KEY})
        assert r.status_code == 204 and "HttpOnly" in r.headers["set-cookie"] and "location" not in r.headers
        assert (await c.get("/triples")).status_code == 200


# ------------------------------------------------------------------ item 5: per-client limits, slow bodies
@pytest.mark.asyncio
async def test_per_client_concurrency_is_429_with_retry_after() -> None:
    async with _client(_app(concurrency=2)) as c:
        answers = await asyncio.gather(*(c.get("/slow") for _ in range(5)))
        codes = sorted(r.status_code for r in answers)
        assert codes == [200, 200, 429, 429, 429], codes
        refused = next(r for r in answers if r.status_code == 429)
        assert int(refused.headers["retry-after"]) >= 1
        assert refused.json()["code"] == "too_many_requests" and "CLIENT_CONCURRENCY" in refused.json()["message"]
        assert (await c.get("/slow")).status_code == 200  # the slots are free again
        assert (await c.get("/health")).status_code == 200


@pytest.mark.asyncio
async def test_per_client_rate_is_429_with_retry_after() -> None:
    async with _client(_app(rate=1.0, burst=2)) as c:
        codes = [(await c.get("/triples")).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
        r = await c.get("/triples")
        assert r.status_code == 429 and 1 <= int(r.headers["retry-after"]) <= 2


@pytest.mark.asyncio
async def test_clients_are_limited_apart() -> None:
    app = _app(rate=1.0, burst=1)
    for client_ip in ("10.0.0.1", "10.0.0.2"):
        transport = httpx.ASGITransport(app=app, client=(client_ip, 1234))
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            assert (await c.get("/triples")).status_code == 200, client_ip


@pytest.mark.asyncio
async def test_a_slow_body_is_cut_off_with_408() -> None:
    app = _app(body_timeout=0.3)
    sent: list[dict] = []

    async def receive() -> dict:
        await asyncio.sleep(5)  # the body never comes
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/items", "raw_path": b"/items", "query_string": b"", "root_path": "",
             "headers": [(b"host", b"t"), (b"content-type", b"application/json"), (b"content-length", b"20")],
             "client": ("127.0.0.1", 1), "server": ("t", 80)}
    await asyncio.wait_for(app(scope, receive, send), 3)
    assert sent[0]["status"] == 408
    body = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert body["code"] == "request_timeout" and "BODY_TIMEOUT" in body["message"]


# ------------------------------------------------------------------ item 6: one envelope for every 4xx
@pytest.mark.asyncio
@pytest.mark.parametrize("what, kwargs, status, code", [
    ("invalid JSON", {"content": b"{not json", "headers": {"content-type": "application/json"}}, 400, "invalid_json"),
    ("bad UTF-8", {"content": b'{"name": "\xff\xfe"}', "headers": {"content-type": "application/json"}}, 400,
     "invalid_json"),
    ("deep JSON", {"content": b"[" * 4000 + b"]" * 4000, "headers": {"content-type": "application/json"}}, 400,
     "invalid_json"),
    ("text/plain", {"content": b'{"name": "x"}', "headers": {"content-type": "text/plain"}}, 415,
     "unsupported_media_type"),
    ("a missing field", {"json": {}}, 422, "invalid_request"),
])
async def test_body_faults_answer_the_envelope(what: str, kwargs: dict, status: int, code: str) -> None:
    async with _client(_app()) as c:
        r = await c.post("/items", **kwargs)
    assert r.status_code == status, (what, r.text)
    body = r.json()
    assert set(body) >= ENVELOPE and body["status"] == status and body["code"] == code == body["error"], body
    if status in (400, 422):
        assert body["field"] in ("body", "name"), body


@pytest.mark.asyncio
async def test_a_body_without_content_type_is_read_as_json() -> None:
    async with _client(_app()) as c:
        ok = await c.post("/items", content=b'{"name": "x"}')
        bad = await c.post("/items", content=b"{not json")
        invalid = await c.post("/items", content=b'{"other": 1}')
        plain = await c.post("/items", content=b'{"name": "x"}', headers={"content-type": "text/plain"})
    assert ok.status_code == 200, ok.text  # was 422 "not an object": the body was not read at all
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_json", bad.text  # as with application/json
    assert invalid.status_code == 422 and invalid.json()["field"] == "name"
    assert plain.status_code == 415 and "Content-Type: application/json" in plain.json()["message"]


@pytest.mark.asyncio
async def test_405_names_every_method_of_the_path() -> None:
    async with _client(_app()) as c:
        r = await c.put("/triples")
    assert r.status_code == 405 and set(r.headers["allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "POST"}
    assert r.json()["code"] == "method_not_allowed" and r.json()["status"] == 405


@pytest.mark.asyncio
async def test_a_too_long_url_is_414_in_the_envelope() -> None:
    async with _client(_app()) as c:
        r = await c.get("/triples", params={"q": "x" * 5000})
    assert r.status_code == 414 and r.json()["code"] == "uri_too_long" and r.json()["field"] == "url"


@pytest.mark.asyncio
async def test_middleware_answers_are_the_envelope() -> None:
    async with _client(_app(key=True)) as c:
        r = await c.get("/triples")
    assert r.status_code == 401 and set(r.json()) >= ENVELOPE and r.json()["status"] == 401


@pytest.mark.asyncio
async def test_the_graph_walking_routes_take_turns_while_others_go_on() -> None:
    from motivgraph.api.middleware import CostGateMiddleware

    inside = {"heavy": 0, "heavy_max": 0, "light_during_heavy": 0}
    app = FastAPI()

    @app.post("/tools/transfer_candidates")
    async def heavy() -> dict:
        inside["heavy"] += 1
        inside["heavy_max"] = max(inside["heavy_max"], inside["heavy"])
        await asyncio.sleep(0.2)
        inside["heavy"] -= 1
        return {}

    @app.post("/tools/node_search")
    async def light() -> dict:
        inside["light_during_heavy"] += inside["heavy"] > 0
        return {}

    app.add_middleware(CostGateMiddleware, slots=1, prefixes=("/tools/transfer_candidates",))
    async with _client(app) as c:
        async def light_soon() -> None:
            await asyncio.sleep(0.05)
            assert (await c.post("/tools/node_search")).status_code == 200

        heavy_calls = [c.post("/tools/transfer_candidates") for _ in range(3)]
        answers = await asyncio.gather(*heavy_calls, light_soon())
    assert all(r.status_code == 200 for r in answers[:3])
    assert inside["heavy_max"] == 1  # one at a time (was 3 at once)
    assert inside["light_during_heavy"] == 1  # node_search did not wait for them
