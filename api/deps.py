"""FastAPI dependencies (Annotated aliases) and validated parameter types for routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from pydantic import AfterValidator, StringConstraints

from motivgraph.api.contract.models import CleanText, SchemaPattern, _clean_text
from motivgraph.api.services import ToolService
from motivgraph.api.services.context import ToolContext
from motivgraph.graph.identity import NODE_TYPES, split_key
from motivgraph.limits import MAX_KEY_CHARS, MAX_NAME_CHARS
from motivgraph.text_hygiene import NONBLANK_TEXT_PATTERN

# NONBLANK_TEXT_PATTERN with a '<type>:' prefix (its leading '^' replaced)
NODE_KEY_PATTERN = f"^(?:{'|'.join(NODE_TYPES)}):" + NONBLANK_TEXT_PATTERN[1:]


def get_service(request: Request) -> ToolService:
    return request.app.state.service


def get_context(request: Request) -> ToolContext:
    return request.app.state.service.ctx


Service = Annotated[ToolService, Depends(get_service)]
Context = Annotated[ToolContext, Depends(get_context)]

# Path / query text: bounded, valid Unicode, no NUL (see api.contract.models._clean_text).
FilterText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_CHARS), AfterValidator(_clean_text),
                      CleanText]
KeyText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_KEY_CHARS), AfterValidator(_clean_text),
                   CleanText]


def _node_key(v: str) -> str:
    split_key(v)  # ValueError (a 422) names the expected form '<type>:<name>'
    return v


# A node key given as a filter (e.g. `parent`): '<type>:<normalised name>', checked here so it is a 422 that says so
NodeKeyText = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_KEY_CHARS), AfterValidator(_clean_text),
    AfterValidator(_node_key), SchemaPattern(NODE_KEY_PATTERN),
]
# A cursor is the server's own base64url token; the pattern tells clients so (anything else is a 422).
CursorText = Annotated[str, StringConstraints(min_length=1, max_length=500), SchemaPattern("^[A-Za-z0-9_-]+$")]
