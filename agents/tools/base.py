"""ToolClient: the one interface every ideator uses to reach the graph and the literature.

Two implementations return the same typed results: `InProcessToolClient` (calls the services
directly, no server) and `HttpToolClient` (talks to a running `motivgraph serve`). Each method takes
either the request model or its fields as keyword arguments; `call(name, args)` dispatches by tool
name with a plain dict (for text-protocol tool calls parsed out of a model's reply).

Errors: invalid arguments raise `ToolArgumentError` (the message lists what to fix); an unknown
node raises `motivgraph.errors.NodeNotFound` with suggestions; an unreachable backend raises
`BackendUnavailable` — the same on both implementations.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from motivgraph.api.contract.errors import ToolArgumentError, validation_problems
from motivgraph.api.contract.models import (
    LiteratureSearchRequest,
    LiteratureSearchResult,
    NodeRelationRequest,
    NodeRelationResult,
    NodeSearchRequest,
    NodeSearchResult,
    RandomNodesRequest,
    RandomNodesResult,
    TransferRequest,
    TransferResult,
)
from motivgraph.api.contract.tools import BY_NAME

R = TypeVar("R", bound=BaseModel)


def build_request(tool: str, model: type[R], req: R | None, kwargs: dict[str, Any]) -> R:
    if req is not None:
        if kwargs:
            raise TypeError("pass either a request object or keyword arguments, not both")
        return req
    try:
        return model.model_validate(kwargs)
    except ValidationError as e:
        raise ToolArgumentError(tool, validation_problems(e)) from e


class ToolClient(ABC):
    """Async tool access. Use as an async context manager, or call `aclose()` when done."""

    async def node_search(self, req: NodeSearchRequest | None = None, /, **kw: Any) -> NodeSearchResult:
        return await self._node_search(build_request("node_search", NodeSearchRequest, req, kw))

    async def node_relation(self, req: NodeRelationRequest | None = None, /, **kw: Any) -> NodeRelationResult:
        if "names" in kw and isinstance(kw["names"], str):
            kw["names"] = [kw["names"]]
        return await self._node_relation(build_request("node_relation", NodeRelationRequest, req, kw))

    async def random_nodes(self, req: RandomNodesRequest | None = None, /, **kw: Any) -> RandomNodesResult:
        return await self._random_nodes(build_request("random_nodes", RandomNodesRequest, req, kw))

    async def literature_search(
        self, req: LiteratureSearchRequest | None = None, /, **kw: Any
    ) -> LiteratureSearchResult:
        return await self._literature_search(build_request("literature_search", LiteratureSearchRequest, req, kw))

    async def transfer_candidates(self, req: TransferRequest | None = None, /, **kw: Any) -> TransferResult:
        return await self._transfer_candidates(build_request("transfer_candidates", TransferRequest, req, kw))

    async def call(self, name: str, args: dict[str, Any] | None = None) -> BaseModel:
        """Run the tool `name` with a dict of arguments (as a model wrote them)."""
        if name not in BY_NAME:
            raise ToolArgumentError(name, [f"unknown tool {name!r}; tools are {', '.join(BY_NAME)}"])
        if args is not None and not isinstance(args, dict):
            raise ToolArgumentError(name, ["arguments must be an object of named parameters"])
        return await getattr(self, name)(**(args or {}))

    # ----------------------------------------------------------------------- implementations
    @abstractmethod
    async def _node_search(self, req: NodeSearchRequest) -> NodeSearchResult: ...

    @abstractmethod
    async def _node_relation(self, req: NodeRelationRequest) -> NodeRelationResult: ...

    @abstractmethod
    async def _random_nodes(self, req: RandomNodesRequest) -> RandomNodesResult: ...

    @abstractmethod
    async def _literature_search(self, req: LiteratureSearchRequest) -> LiteratureSearchResult: ...

    @abstractmethod
    async def _transfer_candidates(self, req: TransferRequest) -> TransferResult: ...

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections (HTTP client, store)."""

    async def __aenter__(self) -> ToolClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
