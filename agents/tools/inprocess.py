"""ToolClient that calls the tool services directly in this process (no server)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from motivgraph.agents.tools.base import ToolClient
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

if TYPE_CHECKING:
    from motivgraph.api.services import ToolService
    from motivgraph.graph.runtime import Runtime
    from motivgraph.settings import Settings

T = TypeVar("T")


class InProcessToolClient(ToolClient):
    """Same results as the HTTP client, from the same service functions. Store and index calls are
    blocking, so they run in a worker thread and never stall the caller's event loop."""

    def __init__(self, service: ToolService | Runtime | Settings | None = None, *, owns: bool | None = None) -> None:
        from motivgraph.api.services import ToolService

        if isinstance(service, ToolService):
            self.service = service
            self._owns = bool(owns)
        else:
            self.service = ToolService(service)
            self._owns = True if owns is None else owns

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await anyio.to_thread.run_sync(fn, *args)

    async def _node_search(self, req: NodeSearchRequest) -> NodeSearchResult:
        return await self._run(self.service.node_search, req)

    async def _node_relation(self, req: NodeRelationRequest) -> NodeRelationResult:
        return await self._run(self.service.node_relation, req)

    async def _random_nodes(self, req: RandomNodesRequest) -> RandomNodesResult:
        return await self._run(self.service.random_nodes, req)

    async def _literature_search(self, req: LiteratureSearchRequest) -> LiteratureSearchResult:
        return await self.service.literature_search(req)

    async def _transfer_candidates(self, req: TransferRequest) -> TransferResult:
        return await self._run(self.service.transfer_candidates, req)

    async def aclose(self) -> None:
        if self._owns:
            self.service.close()
