"""Pure-ASGI middleware (cheaper per request than BaseHTTPMiddleware): access log with latency and
a last-resort 500, API-key check, request body size limit."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import math
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from starlette.exceptions import HTTPException
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from motivgraph.api.contract.envelope import error_body
from motivgraph.logging import log_safe

access_log = logging.getLogger("motivgraph.api.access")
log = logging.getLogger(__name__)


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    """`body` ({error, message, ...}) as the one error envelope (api.contract.envelope.error_body)."""
    body = error_body(status, str(body.pop("error")), str(body.pop("message")), **body)
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
            log.exception("unhandled error in %s %s (request %s)", log_safe(scope.get("method")),
                          log_safe(scope.get("path")), rid)
            if not started:
                status = 500
                msg = f"Internal error; the server log has the details (request {rid})"
                await _send_json(send_wrapper, 500, {"error": "internal", "request_id": rid, "message": msg})
        finally:
            ms = (time.perf_counter() - t0) * 1000
            client = scope.get("client")
            # every request value is escaped (log_safe): a CR/LF, ANSI ESC or other control character in the path
            # or a header must not forge or recolour a line; the query string is never logged (it may hold a key)
            method, path = log_safe(scope.get("method"), 16), log_safe(scope.get("path"), 512)
            agent = log_safe(_header(scope, b"user-agent").decode("latin-1"), 200)
            access_log.info(
                "%s %s %d %.1fms ua=%s", method, path, status, ms, agent or "-",
                extra={"request_id": rid, "method": method, "path": path, "user_agent": agent,
                       "status": status, "latency_ms": round(ms, 2), "client": client[0] if client else None},
            )


KEY_COOKIE = "motivgraph_api_key"
KEY_QUERY = "api_key"


def _header(scope: Scope, name: bytes) -> bytes:
    for k, v in scope.get("headers", []):
        if k == name:
            return bytes(v)
    return b""


# The pages a person opens in a browser (which cannot send a header): only there does `?api_key=KEY` log in
# (a cookie and a redirect to the same page without the key). "/x/" opens everything under /x.
LOGIN_PATH = "/explorer/login"
"""POST here with X-API-Key: the explorer's login (the key as the HttpOnly cookie, 204); its page keeps no key."""
BROWSER_PAGES = ("/docs", "/redoc", "/explorer", "/explorer/", "/runs", "/runs/")


def same_origin_target(path: str, rest: list[tuple[str, str]], root_path: str = "") -> str:
    """The address a login redirects to: this server's `path` as a relative path, never another host. A path whose
    start a browser reads as another origin (`//host`, `/\\host`, a backslash from `%5C`, a scheme) collapses to
    one leading slash, and every character outside the path's safe set is percent-encoded (CR/LF cannot split the
    header either)."""
    clean = "/" + path.replace("\\", "/").lstrip("/")
    target = quote(root_path.rstrip("/") + clean, safe="/:@!$&'()*+,;=-._~")
    target = "/" + target.lstrip("/")  # a root_path cannot start it with // either
    return target + (f"?{urlencode(rest)}" if rest else "")


def _cookie(scope: Scope, name: str) -> bytes:
    for k, v in scope.get("headers", []):
        if k == b"cookie":
            return cookie_parser(v.decode("latin-1")).get(name, "").encode("latin-1")
    return b""


class ApiKeyMiddleware:
    """Require the server's key on every path except the open ones (liveness, the explorer page shell).

    Programs send it in `X-API-Key`. A browser cannot add a header to a page it opens, so a browser page (/docs,
    /redoc, /explorer and its deep links, /runs) opened with `?api_key=KEY` answers with a redirect to the same page
    on this server without the key (same_origin_target: never another host) and sets it as an HttpOnly,
    SameSite=Strict cookie that the pages and their own requests then carry (/openapi.json, the explorer's API
    calls). On any other path `?api_key=` is no login: the header or the cookie counts. The access log records
    paths without their query strings, so the key in the address is never logged."""

    def __init__(self, app: ASGIApp, api_key: str, open_paths: Iterable[str] = ("/health", "/health/live"),
                 login_paths: Iterable[str] = BROWSER_PAGES) -> None:
        self.app = app
        self.key = api_key.encode()
        self.open_paths = frozenset(open_paths)
        # an open path ending in "/" opens everything under it (the explorer's deep links and assets); "/" is
        # only the root itself
        self.open_prefixes = tuple(p for p in self.open_paths if p.endswith("/") and p != "/")
        self.login_paths = frozenset(login_paths)
        self.login_prefixes = tuple(p for p in self.login_paths if p.endswith("/") and p != "/")

    def _is_page(self, path: str) -> bool:
        return path in self.login_paths or bool(self.login_prefixes and path.startswith(self.login_prefixes))

    def _matches(self, given: bytes) -> bool:
        return bool(given) and hmac.compare_digest(given, self.key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") == "OPTIONS":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path == LOGIN_PATH and scope.get("method") == "POST":
            await self._login(scope, send, _header(scope, b"x-api-key"), None)
            return
        if scope.get("method") == "GET" and self._is_page(path):
            # a browser page opened with ?api_key=KEY (a shared link; the explorer's own page is open, so this comes
            # before the open paths): the key becomes the cookie, and the page is loaded again without it
            query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
            in_query = [v for k, v in query if k == KEY_QUERY]
            if in_query:
                await self._login(scope, send, in_query[-1].encode("latin-1"),
                                  [(k, v) for k, v in query if k != KEY_QUERY])
                return
        if path in self.open_paths or (self.open_prefixes and path.startswith(self.open_prefixes)):
            await self.app(scope, receive, send)
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

    async def _login(self, scope: Scope, send: Send, given: bytes, rest: list[tuple[str, str]] | None) -> None:
        """The key as the HttpOnly cookie: a page opened with ?api_key= is redirected to itself without it (`rest`:
        its other query parameters); the explorer's POST /explorer/login (rest None) gets a 204."""
        if not self._matches(given):
            await self._refuse(scope, send, "Invalid API key" if given else "Missing X-API-Key header")
            return
        secure = "; Secure" if scope.get("scheme") == "https" else ""
        cookie = f"{KEY_COOKIE}={self.key.decode('latin-1')}; Path=/; HttpOnly; SameSite=Strict{secure}"
        headers = [(b"set-cookie", cookie.encode("latin-1")), (b"cache-control", b"no-store"),
                   (b"content-length", b"0")]
        if rest is None:
            await send({"type": "http.response.start", "status": 204, "headers": headers})
        else:
            target = same_origin_target(scope.get("path", "/"), rest, scope.get("root_path", ""))
            await send({"type": "http.response.start", "status": 303,
                        "headers": [(b"location", target.encode("latin-1")), *headers]})
        await send({"type": "http.response.body", "body": b""})

    async def _refuse(self, scope: Scope, send: Send, msg: str) -> None:
        rid = scope.get("state", {}).get("request_id")
        await _send_json(send, 401, {"error": "unauthorized", "request_id": rid, "field": "X-API-Key",
                                     "message": f"{msg}; send the server's key in the X-API-Key header "
                                                f"(in a browser: open /docs or /explorer once with ?{KEY_QUERY}=KEY)"},
                         [(b"www-authenticate", b"ApiKey")])


class _TooLarge(HTTPException):
    """An HTTPException, so FastAPI's body reader passes it on (it turns other errors into a 400)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"Request body larger than {limit} bytes (MOTIVGRAPH_API_MAX_BODY_BYTES)")


class BodyLimitMiddleware:
    """Reject bodies larger than `max_bytes` with 413: by Content-Length up front, and by counting
    while reading for chunked uploads. A body sent without any Content-Type is read as JSON (the API takes no other
    media type): FastAPI would not parse it and answered 422 "not an object", where the same bytes declared
    application/json pass and text/plain gets the 415 that names the fix (issue 41)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        names = {k for k, _ in scope.get("headers", [])}
        if b"content-type" not in names and (b"transfer-encoding" in names or any(
                k == b"content-length" and v.strip() not in (b"", b"0") for k, v in scope.get("headers", []))):
            scope = {**scope, "headers": [*scope.get("headers", []), (b"content-type", b"application/json")]}
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
            "error": "invalid_host", "request_id": scope.get("state", {}).get("request_id"), "field": "Host",
            "message": f"Host {shown!r} is not served here (allowed: {self.allowed_text}); add it to "
                       "MOTIVGRAPH_API_ALLOWED_HOSTS (a JSON list) to allow it",
        })


class _BodyTimeout(HTTPException):
    """An HTTPException, so FastAPI's body reader passes it on (as with _TooLarge)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"The request body did not arrive within {seconds:g} s (MOTIVGRAPH_API_BODY_TIMEOUT_S)")


class BodyTimeoutMiddleware:
    """Cut off a slow body: the whole body must arrive within `seconds` of the request's headers, else 408 (a client
    trickling a byte a second would hold a worker slot for as long as it likes)."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.seconds <= 0:
            await self.app(scope, receive, send)
            return
        deadline = time.monotonic() + self.seconds
        body_done = False
        started = False
        timed_out = False

        async def timed_receive() -> Message:
            nonlocal body_done, timed_out
            if body_done:  # after the body, receive() waits for the disconnect (SSE): no deadline there
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                timed_out = True
                raise _BodyTimeout(self.seconds) from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        async def send_wrapper(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if timed_out:  # the rest of the body may still come: the connection cannot carry another request
                    message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
            await send(message)

        try:
            await self.app(scope, timed_receive, send_wrapper)
        except _BodyTimeout as e:
            if not started:
                await _send_json(send, 408, {"error": "request_timeout", "message": e.detail,
                                             "request_id": scope.get("state", {}).get("request_id")},
                                 [(b"connection", b"close")])


class ClientLimitMiddleware:
    """Per-client limits (the client is its address): at most `concurrency` requests being worked on at once
    (a request counts until its answer starts, so a long event stream holds no slot), and at most `rate`
    requests a second with bursts of `burst` (a token bucket). Over either: 429 with Retry-After. 0 turns a limit
    off. `exempt` paths (liveness) are never limited. At most `max_clients` clients are tracked; the least recently
    seen is forgotten first, so a scan over many addresses cannot grow the table."""

    def __init__(self, app: ASGIApp, *, concurrency: int, rate: float, burst: int,
                 exempt: Iterable[str] = ("/health", "/health/live"), max_clients: int = 10_000) -> None:
        self.app = app
        self.concurrency = concurrency
        self.rate = rate
        self.burst = max(1, burst)
        self.exempt = frozenset(exempt)
        self.max_clients = max_clients
        self.in_flight: dict[str, int] = {}
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (tokens, last refill)

    def _take_token(self, client: str, now: float) -> float:
        """0 when a token was taken, else the seconds until one is there."""
        tokens, last = self.buckets.pop(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self.rate
        self.buckets[client] = (tokens, now)
        while len(self.buckets) > self.max_clients:
            self.buckets.popitem(last=False)
        return wait

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in self.exempt:
            await self.app(scope, receive, send)
            return
        peer = scope.get("client")
        client = str(peer[0]) if peer else "-"
        rid = scope.get("state", {}).get("request_id")
        if self.rate > 0:
            wait = self._take_token(client, time.monotonic())
            if wait > 0:
                await self._refuse(send, rid, math.ceil(wait), f"more than {self.rate:g} requests a second from "
                                   "this client (MOTIVGRAPH_API_CLIENT_RATE)")
                return
        if self.concurrency <= 0:
            await self.app(scope, receive, send)
            return
        if self.in_flight.get(client, 0) >= self.concurrency:
            await self._refuse(send, rid, 1, f"{self.concurrency} requests of this client are already being worked "
                               "on (MOTIVGRAPH_API_CLIENT_CONCURRENCY); wait for one to finish")
            return
        self.in_flight[client] = self.in_flight.get(client, 0) + 1
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                left = self.in_flight.get(client, 1) - 1
                if left > 0:
                    self.in_flight[client] = left
                else:
                    self.in_flight.pop(client, None)

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                release()
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            release()

    @staticmethod
    async def _refuse(send: Send, rid: str | None, retry_after: int, why: str) -> None:
        await _send_json(send, 429, {"error": "too_many_requests", "request_id": rid,
                                     "message": f"Too many requests: {why}; retry after {retry_after} s"},
                         [(b"retry-after", str(max(1, retry_after)).encode())])


class UrlLimitMiddleware:
    """414 for a request target (path and query) longer than `max_bytes`: the HTTP protocol (api/server.py) cuts it
    off while parsing; this answers the same wherever the app runs under another server (tests, another ASGI
    server)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            size = len(scope.get("raw_path") or scope.get("path", "").encode()) + len(scope.get("query_string", b""))
            if size > self.max_bytes:
                await _send_json(send, 414, {
                    "error": "uri_too_long", "field": "url", "request_id": scope.get("state", {}).get("request_id"),
                    "message": f"The request target is longer than {self.max_bytes} bytes "
                               "(MOTIVGRAPH_API_MAX_URL_BYTES); send long arguments in a POST body"})
                return
        await self.app(scope, receive, send)


class CostGateMiddleware:
    """At most `slots` requests to the expensive routes (`prefixes`: the graph walks, whose worst case costs tens of
    normal searches) are worked on at once in this worker; the others wait their turn without using a core. A
    client sending worst-case requests as fast as it can then takes at most `slots` threads' share of the CPU, and
    node_search stays quick for everyone else (bench/bench_hostile.py). `slots` 0: no gate."""

    def __init__(self, app: ASGIApp, *, slots: int, prefixes: Iterable[str]) -> None:
        self.app = app
        self.prefixes = tuple(prefixes)
        self.slots = slots
        self._sem: asyncio.Semaphore | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.slots <= 0 or not str(scope.get("path", "")).startswith(self.prefixes):
            await self.app(scope, receive, send)
            return
        if self._sem is None:  # made on the server's event loop, on first use
            self._sem = asyncio.Semaphore(self.slots)
        async with self._sem:
            await self.app(scope, receive, send)
