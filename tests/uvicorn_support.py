"""An ASGI app served by a real uvicorn on a free loopback port, in a thread of the test process: for tests
that need real HTTP (a browser, streaming, connection semantics) rather than an in-process transport."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def served(app: Any, *, lifespan: str = "on", http: Any = "auto") -> Iterator[str]:
    """Yield the base URL (`http://127.0.0.1:<port>`) while uvicorn serves `app`; stop it on exit. `http`: uvicorn's
    HTTP protocol (e.g. `bound_protocol(settings)`, what `motivgraph serve` runs)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan=lifespan,
                                           http=http))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def bound_protocol(settings: Any) -> type:
    """`motivgraph serve`'s HTTP protocol with the limits of `settings` (the served process reads its own)."""
    from motivgraph.api.server import NoDelayHttpProtocol

    return type("BoundHttpProtocol", (NoDelayHttpProtocol,), {"api_settings": settings.api})
