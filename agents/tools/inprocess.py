"""ToolClient that calls the tool services directly in this process (no server)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from motivgraph.agents.tools.base import ToolClient
from motivgraph.api.contract.tools import Q, R, ToolSpec
from motivgraph.api.services import ToolService

if TYPE_CHECKING:
    from motivgraph.api.services import ToolService
    from motivgraph.graph.runtime import Runtime
    from motivgraph.settings import Settings


class InProcessToolClient(ToolClient):
    """Same results as the HTTP client, from the same service functions (`ToolService.call`, which runs
    blocking store and index calls in a worker thread, so the caller's event loop never stalls)."""

    def __init__(self, service: ToolService | Runtime | Settings | None = None, *, owns: bool | None = None) -> None:
        if isinstance(service, ToolService):
            self.service = service
            self._owns = bool(owns)
        else:
            self.service = ToolService(service)
            self._owns = True if owns is None else owns

    async def _invoke(self, spec: ToolSpec[Q, R], req: Q) -> R:
        return await self.service.call(spec, req)

    async def aclose(self) -> None:
        if self._owns:
            self.service.close()
