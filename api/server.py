"""uvicorn glue for `motivgraph serve`: the HTTP protocol every connection gets.

- TCP_NODELAY. With several workers, uvicorn hands the listening socket to spawned processes; asyncio then no
  longer recognises accepted connections as TCP (the rebuilt socket reports protocol 0) and leaves Nagle's algorithm
  on, which together with delayed ACKs adds ~40 ms to every keep-alive response. The protocol turns TCP_NODELAY on
  for each connection itself.
- Limits the ASGI app cannot set, because they act before there is a request (issue 41): the request line and
  headers must arrive within `api.header_timeout_s` of the connection opening or of the previous answer (else 408
  and close: a client trickling a header a second would hold the connection for ever); the request target is at
  most `api.max_url_bytes` (414) and the header block at most MAX_HEAD_BYTES (431), counted while parsing, so an
  endless URL is never buffered.
- What the server itself answers (those, and any request the parser cannot read: bad request line, bad header,
  bad chunk) is the API's one JSON error envelope, not uvicorn's plain-text 400.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import json
import socket
from typing import Any, ClassVar

from motivgraph.api.contract.envelope import error_body
from motivgraph.settings import ApiSettings, get_settings

try:  # httptools' C parser is markedly cheaper per request than h11 on a 2-core box
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _HttpProtocol
except ImportError:  # httptools not installed: the pure-Python h11 parser
    from uvicorn.protocols.http.h11_impl import H11Protocol as _HttpProtocol  # type: ignore[assignment]

MAX_HEAD_BYTES = 64 * 1024
"""Header block (names and values) of one request; browsers and proxies stay far below (cookies are a few kB)."""

BAD_REQUEST = ("The request is not valid HTTP/1.1 (request line, header syntax or chunked encoding); nothing was "
               "processed")


class _Refused(Exception):
    """Raised from a parser callback: the parser stops and uvicorn calls send_400_response, which answers it."""


def _envelope_response(status: int, code: str, message: str, field: str | None = None) -> bytes:
    body = json.dumps(error_body(status, code, message, field=field)).encode()
    phrase = http.HTTPStatus(status).phrase
    head = (f"HTTP/1.1 {status} {phrase}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n")
    return head.encode("ascii") + body


class NoDelayHttpProtocol(_HttpProtocol):
    """uvicorn's HTTP protocol with TCP_NODELAY, the head timeout, URL and header size caps and JSON errors. The
    limits come from `api_settings` when a subclass sets it (an app served in a test process), else from the
    process' settings."""

    api_settings: ClassVar[ApiSettings | None] = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        api = self.api_settings or get_settings().api
        self._header_timeout_s = api.header_timeout_s
        self._max_url = api.max_url_bytes
        self._url_bytes = 0
        self._head_bytes = 0
        self._refusal: tuple[int, str, str, str | None] | None = None
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_begun = False
        super().connection_made(transport)
        self._arm_head_timer()

    # -------------------------------------------------------------- head timeout
    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_begun = False
        self._head_timer = self.loop.call_later(self._header_timeout_s, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _in_request(self) -> bool:
        cycle = getattr(self, "cycle", None)
        return cycle is not None and not cycle.response_complete

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport is None or self.transport.is_closing() or self._in_request():
            return  # a request is being answered (its body has BodyTimeoutMiddleware), or the connection is gone
        if not self._head_begun:
            self.transport.close()  # an idle connection: nothing was asked, nothing to answer
            return
        self._answer(408, "request_timeout", f"The request line and headers did not arrive within "
                     f"{self._header_timeout_s:g} s (MOTIVGRAPH_API_HEADER_TIMEOUT_S); the connection is closed")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_begun = True
        self._url_bytes = 0
        self._head_bytes = 0

    def on_url(self, url: bytes) -> None:
        self._url_bytes += len(url)
        if self._url_bytes > self._max_url:
            self._refusal = (414, "uri_too_long", f"The request target is longer than {self._max_url} bytes "
                             "(MOTIVGRAPH_API_MAX_URL_BYTES); send long arguments in a POST body", "url")
            raise _Refused
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_bytes += len(name) + len(value) + 4
        if self._head_bytes > MAX_HEAD_BYTES:
            self._refusal = (431, "headers_too_large", f"The request headers are larger than {MAX_HEAD_BYTES} "
                             "bytes", "headers")
            raise _Refused
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._cancel_head_timer()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.transport is not None and not self.transport.is_closing():
            self._arm_head_timer()  # the next request's head has the same time to arrive

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    # -------------------------------------------------------------- answers of the server itself
    def send_400_response(self, msg: str) -> None:
        status, code, message, field = self._refusal or (400, "bad_request", BAD_REQUEST, None)
        self._answer(status, code, message, field)

    def _answer(self, status: int, code: str, message: str, field: str | None = None) -> None:
        self._cancel_head_timer()
        cycle: Any = getattr(self, "cycle", None)
        if self.transport is None or self.transport.is_closing():
            return
        if cycle is not None and cycle.response_started and not cycle.response_complete:
            self.transport.close()  # an answer is half sent on this connection: nothing else can follow it
            return
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the app must not write after this answer
            cycle.message_event.set()
        self.transport.write(_envelope_response(status, code, message, field))
        self.transport.close()


HTTP_PROTOCOL = "motivgraph.api.server:NoDelayHttpProtocol"


