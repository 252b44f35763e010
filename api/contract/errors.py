"""Errors of the tool contract that both the server and every client raise the same way."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from motivgraph.errors import MotivGraphError


class ToolArgumentError(MotivGraphError, ValueError):
    """Tool arguments that break a limit or have the wrong type; the message names each problem."""

    def __init__(self, tool: str, problems: list[str]) -> None:
        self.tool = tool
        self.problems = problems
        super().__init__(f"Invalid arguments for {tool}: " + "; ".join(problems))


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
