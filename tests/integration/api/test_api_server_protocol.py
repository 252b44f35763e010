"""Issue 41 on a real uvicorn with the HTTP protocol `motivgraph serve` runs (api/server.py), over raw sockets: what
the server answers itself is the one JSON error envelope (a 100 kB URL, a broken header, a bad request line), slow
headers are cut off by the head timeout, a keep-alive connection still serves request after request, and a path
forging a log line is logged escaped."""

from __future__ import annotations

import io
import json
import logging
import socket
import time
from collections.abc import Iterator

import pytest
from fastapi import FastAPI

from motivgraph.api import error_responses
from motivgraph.api.middleware import AccessLogMiddleware, BodyTimeoutMiddleware
from motivgraph.settings import Settings
from tests.uvicorn_support import bound_protocol, served

HEADER_TIMEOUT_S = 0.6
BODY_TIMEOUT_S = 0.6


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("proto"), _env_file=None)  # type: ignore[call-arg]
    settings.api.header_timeout_s = HEADER_TIMEOUT_S
    settings.api.max_url_bytes = 4096
    app = FastAPI()
    error_responses.install(app, error_responses.Redactor([]))

    @app.get("/ping")
    async def ping() -> dict:
        return {"ok": True}

    @app.post("/echo")
    async def echo(body: dict) -> dict:
        return body

    app.add_middleware(BodyTimeoutMiddleware, seconds=BODY_TIMEOUT_S)
    app.add_middleware(AccessLogMiddleware)
    with served(app, http=bound_protocol(settings)) as url:
        host, port = url.removeprefix("http://").split(":")
        yield host, int(port)


def _exchange(addr: tuple[str, int], data: bytes, *, wait_s: float = 5.0, pause_s: float = 0.0) -> bytes:
    with socket.create_connection(addr, timeout=wait_s) as s:
        s.sendall(data)
        if pause_s:
            time.sleep(pause_s)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            out += chunk
    return out


def _parse(raw: bytes) -> tuple[int, dict[str, str], dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
    return status, headers, json.loads(body) if body else {}


def _assert_envelope(raw: bytes, status: int, code: str) -> dict:
    got, headers, body = _parse(raw)
    assert got == status, raw[:300]
    assert headers["content-type"] == "application/json", headers
    assert body["status"] == status and body["code"] == code == body["error"] and body["message"], body
    return body


def test_a_huge_url_is_414_in_the_envelope(base: tuple[str, int]) -> None:
    raw = _exchange(base, b"GET /ping?q=" + b"x" * 100_000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n")
    body = _assert_envelope(raw, 414, "uri_too_long")  # was a plain-text 400 from uvicorn
    assert "MAX_URL_BYTES" in body["message"]


@pytest.mark.parametrize("request_bytes", [
    b"GET /ping HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n",
    b"GET /ping HTTP/1.1\r\nHost: localhost\r\nX-A\x01b: 1\r\n\r\n",
    b"NOT A REQUEST LINE\r\n\r\n",
    b"POST /ping HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
])
def test_what_the_parser_refuses_is_400_in_the_envelope(base: tuple[str, int], request_bytes: bytes) -> None:
    body = _assert_envelope(_exchange(base, request_bytes), 400, "bad_request")
    assert "Bad Header" not in json.dumps(body)  # nothing of the request is reflected


def test_huge_headers_are_431(base: tuple[str, int]) -> None:
    headers = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"y" * 4000) for i in range(20))
    _assert_envelope(_exchange(base, b"GET /ping HTTP/1.1\r\nHost: localhost\r\n" + headers + b"\r\n"), 431,
                     "headers_too_large")


def test_slow_headers_are_cut_off(base: tuple[str, int]) -> None:
    t0 = time.monotonic()
    raw = _exchange(base, b"GET /ping HTTP/1.1\r\nHost: local", wait_s=10)  # the rest never comes
    took = time.monotonic() - t0
    body = _assert_envelope(raw, 408, "request_timeout")
    assert "HEADER_TIMEOUT" in body["message"]
    assert took < 10  # closed by the server (the socket would have waited 10 s); was held for 30 s


def test_an_idle_connection_is_closed_too(base: tuple[str, int]) -> None:
    t0 = time.monotonic()
    with socket.create_connection(base, timeout=10) as s:
        data = s.recv(65536)  # nothing sent at all
    assert time.monotonic() - t0 < 10
    assert data == b"" or _parse(data)[0] == 408


def test_keep_alive_still_serves_several_requests(base: tuple[str, int]) -> None:
    req = b"GET /ping HTTP/1.1\r\nHost: localhost\r\n\r\n"
    with socket.create_connection(base, timeout=5) as s:
        for _ in range(3):
            s.sendall(req)
            data = b""
            while b'{"ok":true}' not in data:
                chunk = s.recv(65536)
                assert chunk, data
                data += chunk
            assert data.startswith(b"HTTP/1.1 200")
            time.sleep(HEADER_TIMEOUT_S / 3)  # well within the head timeout, re-armed after each answer


def test_a_forged_path_is_logged_on_one_escaped_line(base: tuple[str, int]) -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("motivgraph.api.access")
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        forged = b"/stats%0A2026-12-07T01:00:00.000+00:00%20ERROR%20FORGED%0D%1B[31m"
        # (a control character in a header value is refused by the parser itself: a 400 above; the unit tests forge
        # headers through ASGI)
        _exchange(base, b"GET " + forged + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", wait_s=2)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
    text = stream.getvalue()
    assert text.count("\n") == 1 and "\x1b" not in text and "\r" not in text, repr(text)
    assert "\\x0a2026-12-07" in text and "ERROR FORGED" in text  # there, but inside the one escaped line


def test_a_slow_body_is_cut_off(base: tuple[str, int]) -> None:
    t0 = time.monotonic()
    head = b"POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    raw = _exchange(base, head + b'{"a": ', wait_s=10)  # the other 94 bytes never come
    body = _assert_envelope(raw, 408, "request_timeout")
    assert "BODY_TIMEOUT" in body["message"] and time.monotonic() - t0 < 10


def test_a_body_in_time_is_answered(base: tuple[str, int]) -> None:
    data = b'{"a": 1}'
    raw = _exchange(base, b"POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(data) + data)
    assert _parse(raw)[0] == 200 and _parse(raw)[2] == {"a": 1}
