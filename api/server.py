"""uvicorn glue for `motivgraph serve`.

With several workers, uvicorn hands the listening socket to spawned processes; asyncio then no
longer recognises accepted connections as TCP (the rebuilt socket reports protocol 0) and leaves
Nagle's algorithm on, which together with delayed ACKs adds ~40 ms to every keep-alive response.
The protocol below turns TCP_NODELAY on for each connection itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

try:  # httptools' C parser is markedly cheaper per request than h11 on a 2-core box
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _HttpProtocol
except ImportError:  # httptools not installed: the pure-Python h11 parser
    from uvicorn.protocols.http.h11_impl import H11Protocol as _HttpProtocol  # type: ignore[assignment]


class NoDelayHttpProtocol(_HttpProtocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)


HTTP_PROTOCOL = "motivgraph.api.server:NoDelayHttpProtocol"
