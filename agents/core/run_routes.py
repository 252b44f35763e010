"""GET /runs (every run of every method, newest first) and GET /runs/{id} (one run's report as an HTML
page, or `?format=markdown` its summary, `?format=json` its status, ideas and usage). Contributed to the
service through the "commands" parts of motivgraph/plugins.py (`runs`); the pages come from `agents.core.report`.

Run ids are checked by `rundir.check_run_id` (letters, digits, '_', '-', '.'; no '..'), so a request
can never name a path outside the runs directory; an unknown or invalid id is a 404. The pages are not in
the OpenAPI spec (as /explorer is not)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse

from motivgraph.agents.core.report import list_rows, load_view, render_html, render_index_html, render_summary
from motivgraph.agents.core.rundir import RunDir
from motivgraph.errors import RunNotFound
from motivgraph.settings import get_settings

PREFIX = "/runs"


def _runs_dir(request: Request) -> Any:
    s = getattr(request.app.state, "settings", None)
    if s is None:
        s = get_settings()
    return s.runs_dir


def build_router() -> APIRouter:
    # Pages for people (like /explorer and /docs), so outside the OpenAPI spec; the machine interface to runs is
    # /ideation/sessions. `?format=json` is a convenience of the page, not a documented API.
    router = APIRouter(prefix=PREFIX, tags=["runs"], include_in_schema=False)

    @router.get("", summary="Every ideation run (any method), newest first", response_model=None)
    async def runs(request: Request, format: Literal["html", "json"] = Query("html"),
                   method: str | None = Query(None, max_length=64)) -> Any:
        rows = list_rows(_runs_dir(request), method=method)
        if format == "json":
            for r in rows:
                r.pop("path", None)  # the server's file layout is not the client's business
            return rows
        return HTMLResponse(render_index_html(rows, base=PREFIX))

    @router.get("/{run_id}", summary="One run's report: HTML page, summary markdown or JSON", response_model=None)
    async def one(request: Request, run_id: str,
                  format: Literal["html", "markdown", "json"] = Query("html")) -> Any:
        try:
            view = load_view(RunDir.open(_runs_dir(request), run_id))
        except RunNotFound:
            raise HTTPException(404, f"no run {run_id!r}") from None
        if format == "markdown":
            return PlainTextResponse(render_summary(view), media_type="text/markdown; charset=utf-8")
        if format == "json":
            st = {k: v for k, v in view.status.items() if k != "pid"}
            return {"status": st, "ideas": [i.model_dump(mode="json") for i in view.ideas], "repro": view.repro}
        return HTMLResponse(render_html(view, base=PREFIX))

    return router
