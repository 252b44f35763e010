"""FastAPI dependencies (Annotated aliases) and validated parameter types for routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from pydantic import AfterValidator, StringConstraints
from starlette.exceptions import HTTPException

from motivgraph.api.contract.models import CleanText, SchemaPattern, _clean_text
from motivgraph.api.services import ToolService
from motivgraph.api.services.context import ToolContext
from motivgraph.choices import NODE_TYPES
from motivgraph.graph.identity import split_key
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


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


UNSUPPORTED_MEDIA_TYPE = 415


async def require_json_body(request: Request) -> None:
    """A route that takes a JSON body refuses a body declared as something else (text/plain, a form, XML) with a
    415 naming the fix, instead of failing to validate it as an object (a 422 that hides the cause). No
    Content-Type at all is read as JSON, as FastAPI does."""
    route = request.scope.get("route")
    if getattr(route, "body_field", None) is None:
        return
    content_type = request.headers.get("content-type")
    if content_type and not _is_json(content_type):
        media = content_type.split(";", 1)[0].strip()[:100]
        raise HTTPException(UNSUPPORTED_MEDIA_TYPE, f"Unsupported Media Type {media!r}: {request.method} "
                            f"{request.url.path} takes a JSON body; send it with Content-Type: application/json",
                            headers={"Accept-Post": "application/json"})


JsonBody = Depends(require_json_body)
