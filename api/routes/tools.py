"""POST /tools/<name>: one route per row of the tool table; GET /tools: their function-calling definitions.

The routes are made from the table when the app is built (`build_router`), so a new row is served with
its request model validated, its result model documented and its description in the OpenAPI page.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Response
from pydantic import BaseModel, Field

from motivgraph.api.contract.tools import ToolSpec, all_tools, openai_tools
from motivgraph.api.deps import Service
from motivgraph.api.error_responses import ErrorResponse
from motivgraph.api.services import ToolService

_ERR: dict[int | str, dict[str, Any]] = {
    422: {"model": ErrorResponse, "description": "An argument breaks a limit."},
    503: {"model": ErrorResponse, "description": "Graph, index or external service unavailable."},
}


class ToolsList(BaseModel):
    """GET /tools: the tool table as function-calling definitions."""

    tools: list[dict[str, Any]] = Field(description="OpenAI function-calling definitions of the tools.")


def list_tools() -> ToolsList:
    return ToolsList(tools=openai_tools())


def _endpoint(spec: ToolSpec[Any, Any]) -> Callable[..., Awaitable[Response]]:
    async def endpoint(req: BaseModel, svc: ToolService) -> Response:
        out = await svc.call(spec, req)  # an instance of the row's result model (svc.call checks it)
        # serialised once by its own model: FastAPI would validate it against response_model again first,
        # a second pass over every hit of every call (the route keeps response_model for the OpenAPI page)
        return Response(content=out.__pydantic_serializer__.to_json(out), media_type="application/json")

    # FastAPI reads the body model and the dependency from the signature: give it this row's request model
    endpoint.__signature__ = inspect.Signature([  # type: ignore[attr-defined]  # functions accept __signature__
        inspect.Parameter("req", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=spec.request),
        inspect.Parameter("svc", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Service),
    ])
    endpoint.__name__ = endpoint.__qualname__ = spec.name  # the operation id stays `<name>_tools_<name>_post`
    return endpoint


def build_router() -> APIRouter:
    router = APIRouter(prefix="/tools", tags=["tools"])
    router.add_api_route("", list_tools, methods=["GET"], response_model=ToolsList,
                         summary="Tool definitions (OpenAI function-calling JSON schemas)")
    for spec in all_tools():
        responses: dict[int | str, dict[str, Any]] = {
            **_ERR, **{code: {"model": ErrorResponse, "description": why} for code, why in spec.responses}}
        router.add_api_route(f"/{spec.name}", _endpoint(spec), methods=["POST"], response_model=spec.result,
                             responses=responses, summary=spec.name, description=spec.description)
    return router
