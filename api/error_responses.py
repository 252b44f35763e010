"""Error responses: every failure becomes JSON `{error, message, ...}` with a 4xx/5xx status and
never a stack trace or a secret. The handlers, the envelope's model and the statuses the OpenAPI page documents
live here; each error class declares its own status and code (motivgraph/errors.py)."""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from motivgraph.api.contract.envelope import error_body
from motivgraph.api.services.scrub import scrub_paths
from motivgraph.errors import (
    ApiError,
    MotivGraphError,
    NodeNotFound,
    RateLimited,
    ToolArgumentError,
)
from motivgraph.logging import log_safe

log = logging.getLogger(__name__)

_URL_CREDS = re.compile(r"(\w+://)[^/@\s:]*:[^/@\s]*@")


class ErrorDetail(BaseModel):
    loc: str
    msg: str


class ErrorResponse(BaseModel):
    """The one error envelope (api.contract.envelope.error_body): every 4xx/5xx, also what the HTTP server itself
    answers (api/server.py) and the middleware (api/middleware.py)."""

    status: int = Field(description="The HTTP status, repeated in the body.")
    code: str = Field(description="Machine-readable code, e.g. node_not_found, invalid_request.")
    error: str = Field(description="The same code as `code` (the name earlier clients read).")
    message: str = Field(description="What went wrong and how to fix it.")
    field: str | None = Field(None, description="The request field at fault (dotted path), when one is.")
    details: list[ErrorDetail] | None = Field(None, description="One entry per invalid field (422).")
    suggestions: list[str] | None = Field(None, description="Close node names (404 on an unknown node).")
    unresolved: list[dict[str, Any]] | None = Field(None, description="Every unknown name with its suggestions.")
    ref: str | None = None
    request_id: str | None = None


BAD_JSON = ("The request body is not a JSON document (UTF-8 text, nested no deeper than the parser allows); send one "
            "with Content-Type: application/json")

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


def envelope(status: int, code: str, message: str, request: Request, **extra: Any) -> ErrorResponse:
    return ErrorResponse.model_validate(error_body(status, code, message, request_id=_rid(request), **extra))


def allowed_methods(app: Any, scope: dict[str, Any]) -> list[str]:
    """Every method some route of `app` answers on this request's path (Starlette's own 405 names only the first
    matching route's, so `GET` and `POST` routes on one path gave `Allow: POST`)."""
    methods: set[str] = set()
    for route in getattr(app, "routes", []):
        match, _ = route.matches({**scope, "method": "__none__"})
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)


def _field_path(loc: Any, body: Any) -> str:
    """The dotted path of the field at fault as the caller wrote it: pydantic's loc also names the union member it
    tried (`body.soiq.ablations` for a body discriminated by `method`), which is no field of the request; a loc part
    the body does not have at that point is such a tag and is left out."""
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header", "cookie"):
        where, parts = parts[0], parts[1:]
    else:
        where = ""
    if where != "body":
        return ".".join(str(p) for p in parts) or where or "body"
    out: list[str] = []
    node = body
    for p in parts:
        into_dict = isinstance(node, dict) and isinstance(p, str) and p in node
        if into_dict or (isinstance(node, list) and isinstance(p, int) and 0 <= p < len(node)):
            node = node[p]
        elif isinstance(node, dict) and isinstance(p, str) and not out and len(parts) > 1:
            continue  # a union member's tag, e.g. the method name
        else:
            node = None
        out.append(str(p))
    return ".".join(out) or "body"


def install(app: FastAPI, redact: Redactor) -> None:
    @app.exception_handler(MotivGraphError)
    async def _motivgraph(request: Request, e: MotivGraphError) -> JSONResponse:
        status, code = e.status, e.code  # declared on the class (motivgraph/errors.py)
        body = envelope(status, code, redact(str(e)), request)
        headers: dict[str, str] = {}
        if isinstance(e, NodeNotFound):
            body.suggestions, body.ref = e.suggestions, e.ref
            unresolved = getattr(e, "unresolved", None)
            if unresolved:
                body.unresolved = [u.model_dump() if hasattr(u, "model_dump") else u for u in unresolved]
        if isinstance(e, ToolArgumentError):
            body.details = [ErrorDetail(loc=p.split(":", 1)[0], msg=p.split(":", 1)[-1].strip()) for p in e.problems]
            body.field = body.details[0].loc if body.details else None
        if isinstance(e, RateLimited) and e.retry_after:
            headers["Retry-After"] = str(int(max(1, e.retry_after)))
        if status >= 500:
            log.warning("%s %s -> %d %s: %s", log_safe(request.method, 16), log_safe(request.url.path, 512), status,
                        code, log_safe(redact(str(e))))
        return error_json(status, body, headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        if any(err.get("type") == "json_invalid" for err in e.errors()):
            # a body that is no JSON document is one fault whatever the path: 400 invalid_json, as for bad UTF-8 and
            # nesting deeper than the parser takes (below), not a 422 with loc "1"
            return error_json(400, envelope(400, "invalid_json", BAD_JSON, request, field="body"))
        details = []
        for err in e.errors():
            loc = _field_path(err.get("loc", ()), getattr(e, "body", None))
            msg = str(err.get("msg", "invalid"))
            if err.get("type") == "json_invalid":
                msg = "request body is not valid JSON"
            details.append(ErrorDetail(loc=loc, msg=redact(msg)[:500]))
        message = "Invalid request: " + "; ".join(f"{d.loc}: {d.msg}" for d in details[:10])
        field = details[0].loc if details and details[0].loc != "body" else None
        return error_json(422, envelope(422, "invalid_request", message, request, details=details, field=field))

    @app.exception_handler(ApiError)
    async def _api(request: Request, e: ApiError) -> JSONResponse:
        return error_json(e.status, envelope(e.status, e.code, redact(e.message), request, field=e.field), e.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, e: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized", 413: "payload_too_large",
                415: "unsupported_media_type", 409: "conflict", 400: "bad_request", 408: "request_timeout",
                414: "uri_too_long", 429: "too_many_requests"}.get(e.status_code,
                                                                                      f"http_{e.status_code}")
        msg = redact(e.detail) if isinstance(e.detail, str) else "request failed"
        field = None
        if e.status_code == 400 and msg == "There was an error parsing the body":  # FastAPI: bad UTF-8, deep JSON
            code, msg, field = "invalid_json", BAD_JSON, "body"
        if e.status_code == 404 and msg == "Not Found":
            msg = f"No route {request.method} {request.url.path}; see /docs for the API"
        headers = dict(getattr(e, "headers", None) or {})
        if e.status_code == 405 and msg == "Method Not Allowed":
            # the router's own 405 (a route that refuses a method itself, e.g. GET /mcp, sets its Allow on purpose)
            allow = allowed_methods(request.app, dict(request.scope)) or [h.strip() for h in
                                                                           headers.get("Allow", "").split(",")]
            headers["Allow"] = ", ".join(m for m in allow if m)
            msg = f"{request.url.path} does not take {request.method}; it takes {headers['Allow']}"
        return error_json(e.status_code, envelope(e.status_code, code, msg, request, field=field), headers or None)


_COMMON_STATUSES: dict[str, str] = {
    "400": "The Host header is not an allowed host (MOTIVGRAPH_API_ALLOWED_HOSTS), or the body cannot be parsed.",
    "401": "Missing or wrong X-API-Key (the server has a key).",
    "408": "The request's headers or body did not arrive in time (MOTIVGRAPH_API_HEADER_TIMEOUT_S, "
           "MOTIVGRAPH_API_BODY_TIMEOUT_S).",
    "414": "The request target (path and query) is longer than MOTIVGRAPH_API_MAX_URL_BYTES.",
    "404": "Nothing has this id (the path names an unknown resource).",
    "413": "Request body larger than MOTIVGRAPH_API_MAX_BODY_BYTES.",
    "415": "The body is declared as another media type than JSON (Content-Type); send it as application/json.",
    "422": "An argument is invalid or breaks a limit; `details` has one entry per field.",
    "429": "This client has too many requests in flight or sent too many in the last second (MOTIVGRAPH_API_CLIENT_"
           "CONCURRENCY, MOTIVGRAPH_API_CLIENT_RATE); retry after `Retry-After` seconds.",
}


def document_statuses(app: FastAPI, *, keyed: bool, open_paths: tuple[str, ...], limited: bool = False) -> None:
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
                wanted = ["400", "408", "414"]
                if op.get("requestBody"):
                    wanted += ["413", "415", "422"]
                if op.get("parameters"):
                    wanted.append("422")
                if any(p.get("in") == "path" for p in op.get("parameters", [])):
                    wanted.append("404")
                if keyed and path not in open_paths:
                    wanted.append("401")
                    # the key is the security scheme of every keyed operation (header, or the browser pages' cookie)
                    op["security"] = [{"ApiKeyHeader": []}, {"ApiKeyCookie": []}]
                if limited:
                    wanted.append("429")
                for code in wanted:
                    if code == "422" or code not in responses:
                        responses[code] = {"description": _COMMON_STATUSES[code], "content": content}
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        if keyed:
            spec["components"]["securitySchemes"] = {
                "ApiKeyHeader": {"type": "apiKey", "in": "header", "name": "X-API-Key",
                                 "description": "The server's key (MOTIVGRAPH_API_API_KEY)."},
                "ApiKeyCookie": {"type": "apiKey", "in": "cookie", "name": "motivgraph_api_key",
                                 "description": "Set by opening a browser page (/docs, /explorer) with ?api_key=KEY."},
            }
        app.openapi_schema = spec
        return spec

    app.openapi = openapi  # type: ignore[method-assign]
