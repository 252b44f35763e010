"""Request/response models of the API: the tool models (shared with the ToolClient) plus the
browse, stats, health and error shapes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from motivgraph.api.contract.models import *  # noqa: F403 - the tool models are part of this API's surface
from motivgraph.api.errors import ErrorDetail, ErrorResponse
from motivgraph.api.services.browse import (
    ComponentHealth,
    Health,
    IndexInfo,
    PaperOut,
    PaperTriple,
    PaperView,
    Stats,
    TriplesPage,
)


class ToolsList(BaseModel):
    tools: list[dict[str, Any]] = Field(description="OpenAI function-calling definitions of the tools.")


__all__ = [
    "ComponentHealth",
    "ErrorDetail",
    "ErrorResponse",
    "Health",
    "IndexInfo",
    "PaperOut",
    "PaperTriple",
    "PaperView",
    "Stats",
    "ToolsList",
    "TriplesPage",
]
