"""Pure-ASGI middleware (cheaper per request than BaseHTTPMiddleware): access log with latency and
a last-resort 500, API-key check, request body size limit."""

from __future__ import annotations

import hmac
import json
import logging
import time
import uuid
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.exceptions import HTTPException
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

access_log = logging.getLogger("motivgraph.api.access")
log = logging.getLogger(__name__)


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    data = json.dumps(body).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                    *headers],
    })
    await send({"type": "http.response.body", "body": data})


class AccessLogMiddleware:
    """One structured log line per request (method, path, status, latency, request id, client) and
    an `X-Request-ID` header; an exception nobody handled becomes a JSON 500 without its traceback
    (which goes to the server log only)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = rid
        t0 = time.perf_counter()
        status = 0
        started = False

        async def send_wrapper(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                started = True
                status = message["status"]
                ms = (time.perf_counter() - t0) * 1000
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode()),
                                      (b"server-timing", f"app;dur={ms:.2f}".encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception:
            log.exception("unhandled error in %s %s (request %s)", scope.get("method"), scope.get("path"), rid)
            if not started:
                status = 500
                msg = f"Internal error; the server log has the details (request {rid})"
                await _send_json(send_wrapper, 500, {"error": "internal", "request_id": rid, "message": msg})
        finally:
            ms = (time.perf_counter() - t0) * 1000
            client = scope.get("client")
            access_log.info(
                "%s %s %d %.1fms", scope.get("method"), scope.get("path"), status, ms,
                extra={"request_id": rid, "method": scope.get("method"), "path": scope.get("path"),
                       "status": status, "latency_ms": round(ms, 2), "client": client[0] if client else None},
            )


KEY_COOKIE = "motivgraph_api_key"
KEY_QUERY = "api_key"


def _cookie(scope: Scope, name: str) -> bytes:
    for k, v in scope.get("headers", []):
        if k == b"cookie":
            return cookie_parser(v.decode("latin-1")).get(name, "").encode("latin-1")
    return b""


class ApiKeyMiddleware:
    """Require the server's key on every path except the open ones (liveness, the explorer page shell).

    Programs send it in `X-API-Key`. A browser cannot add a header to a page it opens, so `/docs?api_key=KEY`
    (any path) answers with a redirect to the same address without the key and sets it as an HttpOnly,
    SameSite=Strict cookie that the pages and their own requests then carry (/docs, /redoc, /openapi.json,
    /runs). The access log records paths without their query strings, so the key in the address is never
    logged."""

    def __init__(self, app: ASGIApp, api_key: str, open_paths: Iterable[str] = ("/health", "/health/live")) -> None:
        self.app = app
        self.key = api_key.encode()
        self.open_paths = frozenset(open_paths)
        # an open path ending in "/" opens everything under it (the explorer's deep links and assets); "/" is
        # only the root itself
        self.open_prefixes = tuple(p for p in self.open_paths if p.endswith("/") and p != "/")

    def _matches(self, given: bytes) -> bool:
        return bool(given) and hmac.compare_digest(given, self.key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") == "OPTIONS" or scope.get("path") in self.open_paths \
                or (self.open_prefixes and scope.get("path", "").startswith(self.open_prefixes)):
            await self.app(scope, receive, send)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        in_query = [v for k, v in query if k == KEY_QUERY]
        if in_query and scope.get("method") == "GET":
            await self._login(scope, send, in_query[-1].encode("latin-1"), [(k, v) for k, v in query if k != KEY_QUERY])
            return
        given = b""
        for k, v in scope.get("headers", []):
            if k == b"x-api-key":
                given = v
                break
        given = given or _cookie(scope, KEY_COOKIE)
        if not self._matches(given):
            await self._refuse(scope, send, "Missing X-API-Key header" if not given else "Invalid API key")
            return
        await self.app(scope, receive, send)

    async def _login(self, scope: Scope, send: Send, given: bytes, rest: list[tuple[str, str]]) -> None:
        if not self._matches(given):
            await self._refuse(scope, send, "Invalid API key")
            return
        target = (scope.get("root_path", "") + scope.get("path", "/")) + (f"?{urlencode(rest)}" if rest else "")
        secure = "; Secure" if scope.get("scheme") == "https" else ""
        cookie = f"{KEY_COOKIE}={self.key.decode('latin-1')}; Path=/; HttpOnly; SameSite=Strict{secure}"
        await send({"type": "http.response.start", "status": 303,
                    "headers": [(b"location", target.encode("latin-1")), (b"set-cookie", cookie.encode("latin-1")),
                                (b"cache-control", b"no-store"), (b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})

    async def _refuse(self, scope: Scope, send: Send, msg: str) -> None:
        rid = scope.get("state", {}).get("request_id")
        await _send_json(send, 401, {"error": "unauthorized", "request_id": rid,
                                     "message": f"{msg}; send the server's key in the X-API-Key header "
                                                f"(in a browser: open the page once with ?{KEY_QUERY}=KEY)"},
                         [(b"www-authenticate", b"ApiKey")])


class _TooLarge(HTTPException):
    """An HTTPException, so FastAPI's body reader passes it on (it turns other errors into a 400)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"Request body larger than {limit} bytes (MOTIVGRAPH_API_MAX_BODY_BYTES)")


class BodyLimitMiddleware:
    """Reject bodies larger than `max_bytes` with 413: by Content-Length up front, and by counting
    while reading for chunked uploads."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        msg = {"error": "payload_too_large", "message": f"Request body larger than {self.max_bytes} bytes "
               "(MOTIVGRAPH_API_MAX_BODY_BYTES)", "request_id": scope.get("state", {}).get("request_id")}
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                try:
                    too_big = int(v) > self.max_bytes
                except ValueError:
                    too_big = False
                if too_big:
                    await _send_json(send, 413, msg)
                    return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge(self.max_bytes)
            return message

        async def send_wrapper(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, send_wrapper)
        except _TooLarge:
            if not started:
                await _send_json(send, 413, msg)


LOOPBACK_HOSTS = ("localhost", "*.localhost", "127.0.0.1", "::1")
"""What a key-less server answers by default: a browser page on another site cannot name these (DNS rebinding
makes attacker.example resolve to 127.0.0.1, but the Host header still says attacker.example)."""


def host_name(header: str) -> str:
    """The host of a Host header without the port, lower case; IPv6 literals without their brackets."""
    h = header.strip().lower()
    if h.startswith("["):
        return h[1:h.find("]")] if "]" in h else h[1:]
    if h.count(":") == 1:
        h = h.split(":", 1)[0]
    return h.rstrip(".")


class TrustedHostMiddleware:
    """Answer only requests whose Host header names one of `allowed` (exact names, `*.suffix` wildcards, or
    `*` for any); others get a JSON 400. Pure ASGI, and JSON like every other error (Starlette's own sends text)."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        names = [host_name(a) if not a.startswith("*") else a.lower() for a in allowed]
        self.any = "*" in names
        self.exact = frozenset(n for n in names if not n.startswith("*"))
        self.suffixes = tuple(n[1:] for n in names if n.startswith("*."))
        self.allowed_text = ", ".join(allowed)

    def allows(self, header: str) -> bool:
        if self.any:
            return True
        name = host_name(header)
        return name in self.exact or (bool(name) and name.endswith(self.suffixes))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.any or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        header = ""
        for k, v in scope.get("headers", []):
            if k == b"host":
                header = v.decode("latin-1")
                break
        if self.allows(header):
            await self.app(scope, receive, send)
            return
        shown = "".join(ch if ch.isprintable() else "?" for ch in header[:100])
        await _send_json(send, 400, {
            "error": "invalid_host", "request_id": scope.get("state", {}).get("request_id"),
            "message": f"Host {shown!r} is not served here (allowed: {self.allowed_text}); add it to "
                       "MOTIVGRAPH_API_ALLOWED_HOSTS (a JSON list) to allow it",
        })
