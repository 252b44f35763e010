"""ToolClient: the one interface every ideator uses to reach the graph and the literature.

Two implementations return the same typed results: `InProcessToolClient` (calls the services
directly, no server) and `HttpToolClient` (talks to a running `motivgraph serve`). Both are driven by
the tool table (`motivgraph.api.contract.tools`): `await client.call(NODE_SEARCH, query=..., k=5)`
returns a `NodeSearchResult` (typed through the row), `await client.call("node_search", {...})` takes a
name or alias and a dict as a model wrote it (text-protocol calls) and returns the row's result model.
A new row is callable at once: the implementations only know how to send one request for one row.

Errors: invalid arguments raise `ToolArgumentError` (the message lists what to fix); an unknown
node raises `motivgraph.errors.NodeNotFound` with suggestions; an unreachable backend raises
`BackendUnavailable` — the same on both implementations.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, overload

from pydantic import BaseModel

from motivgraph.api.contract.tools import Q, R, ToolSpec, resolve_tool, tool_names
from motivgraph.errors import ToolArgumentError

__all__ = ["ToolClient"]


class ToolClient(ABC):
    """Async tool access. Use as an async context manager, or call `aclose()` when done."""

    @overload
    async def call(self, tool: ToolSpec[Q, R], args: Q | Mapping[str, Any] | None = None, /, **kw: Any) -> R: ...

    @overload
    async def call(self, tool: str, args: BaseModel | Mapping[str, Any] | None = None, /, **kw: Any) -> BaseModel: ...

    async def call(self, tool: ToolSpec[Any, Any] | str, args: Any = None, /, **kw: Any) -> BaseModel:
        """Run one tool: a table row (typed result) or a name/alias (as a model wrote it), with a request
        object, a dict of arguments or keyword arguments."""
        spec = tool if isinstance(tool, ToolSpec) else resolve_tool(tool)
        if spec is None:
            raise ToolArgumentError(str(tool), [f"unknown tool {tool!r}; tools are {', '.join(tool_names())}"])
        result: BaseModel = await self._invoke(spec, spec.build_request(args, kw))
        return result

    @abstractmethod
    async def _invoke(self, spec: ToolSpec[Q, R], req: Q) -> R:
        """Send one validated request for one table row; the row's result model back."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections (HTTP client, store)."""

    async def __aenter__(self) -> ToolClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
