"""The tool logic, independent of HTTP: `ToolService` is what the routes, the MCP server and the
in-process ToolClient all call, so they return the same results for the same inputs. `call(row, request)`
runs the row's service function; a synchronous caller (a script, a test) calls that function itself,
e.g. `node_search(service.ctx, request)` from api/services/node_search.py."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import anyio

from motivgraph.api.contract.tools import Q, R, ToolSpec
from motivgraph.api.services.context import ToolContext
from motivgraph.graph.runtime import Runtime
from motivgraph.settings import Settings


class ToolService:
    def __init__(self, runtime: Runtime | Settings | None = None, *, source_clients: Mapping[str, Any] | None = None,
                 version_ttl_s: float | None = None) -> None:
        """`source_clients`: literature source clients by key (`semantic_scholar`, `openalex`, `arxiv`) to use
        instead of making them from settings; `version_ttl_s`: how long a read graph version is trusted (default
        settings.api.version_check_s)."""
        self.ctx = ToolContext(runtime, source_clients=source_clients, version_ttl_s=version_ttl_s)

    @property
    def settings(self) -> Settings:
        return self.ctx.settings

    async def call(self, tool: ToolSpec[Q, R], req: Q) -> R:
        """Answer one validated request with the row's service function (how every surface runs a tool).
        A plain function runs in a worker thread: store and index calls block, the event loop stays free."""
        fn = tool.service_function()
        if inspect.iscoroutinefunction(fn):
            out = await fn(self.ctx, req)
        else:
            out = await anyio.to_thread.run_sync(fn, self.ctx, req)
        if not isinstance(out, tool.result):
            raise TypeError(f"{tool.service} returned {type(out).__name__}, not the row's {tool.result.__name__}")
        return out

    def close(self) -> None:
        client = self.ctx._s2_client
        close = getattr(client, "close", None) or getattr(client, "aclose", None)
        if close is not None and not _is_coro_fn(close):
            close()
        self.ctx.runtime.close()


def _is_coro_fn(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn)


__all__ = ["ToolContext", "ToolService"]
