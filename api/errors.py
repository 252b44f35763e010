"""Error responses: every failure becomes JSON `{error, message, ...}` with a 4xx/5xx status and
never a stack trace or a secret. The mapping from exception to status lives here, once."""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from motivgraph.api.contract.errors import ToolArgumentError
from motivgraph.api.services.errors import InvalidCursor, PaperNotFound, scrub_paths
from motivgraph.errors import (
    BackendUnavailable,
    ConfigError,
    EmbeddingError,
    ExternalServiceError,
    GraphError,
    IndexError_,
    LLMError,
    MotivGraphError,
    NodeNotFound,
    RateLimited,
)

log = logging.getLogger(__name__)

_URL_CREDS = re.compile(r"(\w+://)[^/@\s:]*:[^/@\s]*@")


class ErrorDetail(BaseModel):
    loc: str
    msg: str


class ErrorResponse(BaseModel):
    error: str = Field(description="Machine-readable code, e.g. node_not_found, invalid_request.")
    message: str = Field(description="What went wrong and how to fix it.")
    details: list[ErrorDetail] | None = Field(None, description="One entry per invalid field (422).")
    suggestions: list[str] | None = Field(None, description="Close node names (404 on an unknown node).")
    unresolved: list[dict[str, Any]] | None = Field(None, description="Every unknown name with its suggestions.")
    ref: str | None = None
    request_id: str | None = None


# status, code per exception class; the first isinstance match wins (subclasses first)
_MAP: list[tuple[type[BaseException], int, str]] = [
    (NodeNotFound, 404, "node_not_found"),
    (PaperNotFound, 404, "paper_not_found"),
    (InvalidCursor, 422, "invalid_cursor"),
    (ToolArgumentError, 422, "invalid_request"),
    (IndexError_, 503, "index_unavailable"),
    (BackendUnavailable, 503, "backend_unavailable"),
    (RateLimited, 503, "external_service"),
    (ExternalServiceError, 503, "external_service"),
    (EmbeddingError, 503, "embedding_unavailable"),
    (ConfigError, 503, "config_error"),
    (LLMError, 503, "llm_unavailable"),
    (GraphError, 503, "graph_error"),
]


class Redactor:
    """Scrubs configured secret values, URL credentials and server filesystem paths out of messages sent to
    clients. `paths` maps a server path (e.g. the data dir) to the name a client may see (e.g. the setting
    that points there); any other absolute path under a usual root becomes `<path>`."""

    def __init__(self, secrets: list[str], paths: dict[str, str] | None = None) -> None:
        self.secrets = [s for s in secrets if s and len(s) >= 4]
        # longest first, so a path inside another is replaced by its own, more specific, name
        self.paths = sorted(((p, name) for p, name in (paths or {}).items() if p and p != "/"),
                            key=lambda kv: -len(kv[0]))

    def __call__(self, text: str) -> str:
        for s in self.secrets:
            text = text.replace(s, "***")
        text = _URL_CREDS.sub(r"\1***@", text)
        for path, name in self.paths:
            text = text.replace(path, name)
        return scrub_paths(text)


def _rid(request: Request) -> str | None:
    return getattr(request.state, "request_id", None)


def error_json(status: int, body: ErrorResponse, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body.model_dump(exclude_none=True), status_code=status, headers=headers)


def install(app: FastAPI, redact: Redactor) -> None:
    @app.exception_handler(MotivGraphError)
    async def _motivgraph(request: Request, e: MotivGraphError) -> JSONResponse:
        status, code = 500, "internal"
        for cls, st, c in _MAP:
            if isinstance(e, cls):
                status, code = st, c
                break
        body = ErrorResponse(error=code, message=redact(str(e)), request_id=_rid(request))
        headers: dict[str, str] = {}
        if isinstance(e, NodeNotFound):
            body.suggestions, body.ref = e.suggestions, e.ref
            unresolved = getattr(e, "unresolved", None)
            if unresolved:
                body.unresolved = [u.model_dump() if hasattr(u, "model_dump") else u for u in unresolved]
        if isinstance(e, ToolArgumentError):
            body.details = [ErrorDetail(loc=p.split(":", 1)[0], msg=p.split(":", 1)[-1].strip()) for p in e.problems]
        if isinstance(e, RateLimited) and e.retry_after:
            headers["Retry-After"] = str(int(max(1, e.retry_after)))
        if status >= 500:
            log.warning("%s %s -> %d %s: %s", request.method, request.url.path, status, code, redact(str(e)))
        return error_json(status, body, headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        details = []
        for err in e.errors():
            loc = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body",)) or "body"
            msg = str(err.get("msg", "invalid"))
            if err.get("type") == "json_invalid":
                msg = "request body is not valid JSON"
            details.append(ErrorDetail(loc=loc, msg=redact(msg)[:500]))
        message = "Invalid request: " + "; ".join(f"{d.loc}: {d.msg}" for d in details[:10])
        return error_json(422, ErrorResponse(error="invalid_request", message=message, details=details,
                                             request_id=_rid(request)))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, e: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized", 413: "payload_too_large",
                415: "unsupported_media_type"}.get(e.status_code, f"http_{e.status_code}")
        msg = redact(e.detail) if isinstance(e.detail, str) else "request failed"
        if e.status_code == 404 and msg == "Not Found":
            msg = f"No route {request.method} {request.url.path}; see /docs for the API"
        return error_json(e.status_code, ErrorResponse(error=code, message=msg, request_id=_rid(request)),
                          getattr(e, "headers", None))


_COMMON_STATUSES: dict[str, str] = {
    "400": "The Host header is not an allowed host (MOTIVGRAPH_API_ALLOWED_HOSTS), or the body cannot be parsed.",
    "401": "Missing or wrong X-API-Key (the server has a key).",
    "404": "Nothing has this id (the path names an unknown resource).",
    "413": "Request body larger than MOTIVGRAPH_API_MAX_BODY_BYTES.",
    "415": "The body is declared as another media type than JSON (Content-Type); send it as application/json.",
    "422": "An argument is invalid or breaks a limit; `details` has one entry per field.",
}


def document_statuses(app: FastAPI, *, keyed: bool, open_paths: tuple[str, ...]) -> None:
    """Add to every operation of the OpenAPI spec the statuses the middleware and handlers can return for it (the
    routes declare their own 404/503), all with the ErrorResponse body they really have — FastAPI's default 422
    schema (`detail: [...]`) is not what this API sends."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        spec = build()
        schemas = spec.setdefault("components", {}).setdefault("schemas", {})
        for name, schema in ErrorResponse.model_json_schema(ref_template="#/components/schemas/{model}").get(
                "$defs", {}).items():
            schemas.setdefault(name, schema)
        if "ErrorResponse" not in schemas:
            body = ErrorResponse.model_json_schema(ref_template="#/components/schemas/{model}")
            body.pop("$defs", None)
            schemas["ErrorResponse"] = body
        content = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}
        for path, ops in spec.get("paths", {}).items():
            for op in ops.values():
                responses = op.setdefault("responses", {})
                wanted = ["400"]
                if op.get("requestBody"):
                    wanted += ["413", "415", "422"]
                if op.get("parameters"):
                    wanted.append("422")
                if any(p.get("in") == "path" for p in op.get("parameters", [])):
                    wanted.append("404")
                if keyed and path not in open_paths:
                    wanted.append("401")
                for code in wanted:
                    if code == "422" or code not in responses:
                        responses[code] = {"description": _COMMON_STATUSES[code], "content": content}
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        app.openapi_schema = spec
        return spec

    app.openapi = openapi  # type: ignore[method-assign]
