"""FastAPI dependencies (Annotated aliases) and validated parameter types for routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from pydantic import AfterValidator, StringConstraints

from motivgraph.api.contract.models import _clean_text
from motivgraph.api.services import ToolService
from motivgraph.api.services.context import ToolContext


def get_service(request: Request) -> ToolService:
    return request.app.state.service


def get_context(request: Request) -> ToolContext:
    return request.app.state.service.ctx


Service = Annotated[ToolService, Depends(get_service)]
Context = Annotated[ToolContext, Depends(get_context)]

# Path / query text: bounded, valid Unicode, no NUL (see agents.tools.models._clean_text).
FilterText = Annotated[str, StringConstraints(min_length=1, max_length=300), AfterValidator(_clean_text)]
KeyText = Annotated[str, StringConstraints(min_length=1, max_length=400), AfterValidator(_clean_text)]
CursorText = Annotated[str, StringConstraints(min_length=1, max_length=500)]
