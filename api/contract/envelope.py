"""The error body every client reads (`error_body`) and the problem lines a `ToolArgumentError` carries, shared by
the server and every client."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError


def validation_problems(e: ValidationError) -> list[str]:
    out = []
    for err in e.errors(include_url=False):
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "arguments"
        out.append(f"{loc}: {err.get('msg', 'invalid')}")
    return out


def error_body(status: int, code: str, message: str, *, field: str | None = None, **extra: Any) -> dict[str, Any]:
    """The one error envelope every 4xx/5xx of the API carries (docs/api.md "Errors"): `status` (the HTTP status,
    repeated so a logged body is self-contained), `code` (machine-readable), `message` (what went wrong and the fix),
    `field` (the request field at fault, when one is) — and `error`, the same code under the name clients of earlier
    versions read. `extra`: optional members (request_id, details, suggestions...); None values are left out."""
    body: dict[str, Any] = {"status": status, "code": code, "error": code, "message": message}
    if field is not None:
        body["field"] = field
    body.update({k: v for k, v in extra.items() if v is not None})
    return body
