"""The answers an OpenAPI schema cannot express: the ONLY schemathesis failures the fuzz lane accepts (issue 41).

Each entry names the operation, the check titles it answers, the status and error code the API sends for it, and
why no schema can say it; `when` narrows it to the requests it is about (never "any failure of this route"). A
failure that matches no entry fails the lane. Add an entry only with its reason; one that nothing needs any more is
found by `test_every_allowance_is_still_needed` (tests/integration/api/test_api_conformance.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

REJECTED = "Schema-valid request rejected"
SERVER_ERROR = "Server error"


@dataclass(frozen=True)
class Allowed:
    method: str
    paths: tuple[str, ...]
    titles: tuple[str, ...]
    status: int
    code: str
    reason: str
    # (request body or {}, query or {}, the error message) -> whether this request is the one the entry is about
    when: Callable[[dict[str, Any], dict[str, Any], str], bool] = lambda body, query, message: True


ALLOWED: list[Allowed] = [
    Allowed("POST", ("/tools/literature_search",), (SERVER_ERROR, REJECTED), 503, "external_service",
            "The outbound literature sources are off in the fuzz app (no network in CI): asking for one of them "
            "alone is the documented 503 that says so; whether a source is reachable is no property of a request.",
            lambda body, query, message: body.get("source") in ("semantic_scholar", "openalex", "arxiv")),
    Allowed("POST", ("/ideation/sessions",), (SERVER_ERROR, REJECTED), 503, "config_error",
            "No LLM is configured in the fuzz app: a well-formed ideation start is the documented 503 naming "
            "MOTIVGRAPH_LLM_MODEL; whether the server has a model is no property of a request."),
    Allowed("POST", ("/tools/literature_search",), (REJECTED,), 422, "invalid_request",
            "A rule across two fields (year_to must not be before year_from): JSON Schema cannot compare two "
            "values of one object.",
            lambda body, query, message: "year_to must not be before year_from" in message),
    Allowed("GET", ("/triples", "/papers", "/nodes"), (REJECTED,), 422, "invalid_cursor",
            "A cursor is a token this server handed out (an opaque position signed by the server): the schema "
            "states its alphabet, not which strings the server issued.",
            lambda body, query, message: bool(query.get("cursor"))),
    Allowed("POST", ("/ideation/sessions",), (REJECTED,), 422, "invalid_request",
            "IDEAgent's settings have rules across fields (invalid_votes <= panel_size; the three Q weights not all "
            "zero), which JSON Schema cannot compare.",
            lambda body, query, message: body.get("method") == "ideagent" and (
                "invalid_votes" in message or "weights must not all be zero" in message)),
    Allowed("POST", ("/ideation/sessions",), (REJECTED,), 422, "unknown_reference",
            "A stored object named by id (a MindFlow controller): the schema states the id's form, not which ids "
            "the server's data dir holds — as a 404 for a path id.",
            lambda body, query, message: body.get("method") == "mindflow" and bool(body.get("controller"))),
]


def _error(response: Any) -> tuple[str, str]:
    try:
        body = response.json()
    except ValueError:
        return "", ""
    if not isinstance(body, dict):
        return "", ""
    return str(body.get("code") or body.get("error") or ""), str(body.get("message") or "")


def allowance(case: Any, response: Any, title: str) -> Allowed | None:
    """The entry that accepts this failure, or None (then it fails the lane)."""
    code, message = _error(response)
    body = case.body if isinstance(case.body, dict) else {}
    query = case.query if isinstance(case.query, dict) else {}
    for a in ALLOWED:
        if (case.method.upper() == a.method and case.path in a.paths and title in a.titles
                and response.status_code == a.status and code == a.code and a.when(body, query, message)):
            return a
    return None
