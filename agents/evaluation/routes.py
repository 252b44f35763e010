"""GET /eval/runs (every evaluation, newest first) and GET /eval/runs/{id} (its status, headline table
and per-method estimates; `?format=html` serves report.html, `?format=summary` summary.md)."""

from __future__ import annotations

import csv
import json
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse

from motivgraph.agents.core.rundir import RunDir
from motivgraph.agents.evaluation.harness import EVAL_METHOD, list_evals
from motivgraph.api.error_responses import ErrorResponse
from motivgraph.errors import RunNotFound
from motivgraph.settings import get_settings


def _settings(request: Request) -> Any:
    s = getattr(request.app.state, "settings", None)
    if s is None:
        s = get_settings()
    return s


# every status and content type the route returns, in the OpenAPI spec (the app adds 400/422 to every operation)
_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "The evaluation as JSON; with ?format=html its report page, ?format=summary its summary.md.",
          "content": {"application/json": {"schema": {"type": "object"}}, "text/html": {"schema": {"type": "string"}},
                      "text/plain": {"schema": {"type": "string"}}}},
    404: {"model": ErrorResponse, "description": "No evaluation has this id."},
    409: {"model": ErrorResponse, "description": "The report asked for is not written yet (the evaluation has not "
          "finished)."},
}


def build_router() -> APIRouter:
    router = APIRouter(prefix="/eval", tags=["evaluation"])

    @router.get("/runs", summary="Evaluations under the runs directory, newest first")
    async def runs(request: Request) -> list[dict[str, Any]]:
        return list_evals(_settings(request).runs_dir)

    @router.get("/runs/{eval_id}", summary="One evaluation: status, headline table, estimates; or its report",
                response_model=None, responses=_RESPONSES)
    async def one(request: Request, eval_id: str,
                  format: Literal["json", "html", "summary"] = Query("json")) -> Any:
        try:
            run = RunDir.open(_settings(request).runs_dir, eval_id)
        except RunNotFound as e:
            raise HTTPException(404, str(e)) from None
        st = run.status()
        if st.get("method") != EVAL_METHOD:
            raise HTTPException(404, f"run {eval_id!r} is not an evaluation")
        if format != "json":
            name = "report.html" if format == "html" else "summary.md"
            f = run.path / name
            if not f.exists():
                raise HTTPException(409, f"evaluation {eval_id} has no {name} yet (status {st.get('status')})")
            text = f.read_text(encoding="utf-8")
            return HTMLResponse(text) if format == "html" else PlainTextResponse(text)
        out: dict[str, Any] = {"id": run.id, "status": st.get("status"), "error": st.get("error"),
                               "config": st.get("config"), "created_at": st.get("created_at"),
                               "finished_at": st.get("finished_at"), "usage": st.get("usage"),
                               "report": (run.path / "report.html").exists()}
        methods = run.path / "methods.csv"
        if methods.exists():
            with methods.open(encoding="utf-8", newline="") as fh:
                out["methods"] = list(csv.DictReader(fh))
        for name in ("shortfalls", "yield-counts"):
            p = run.path / "tables" / f"{name}.csv"
            if p.exists():
                with p.open(encoding="utf-8", newline="") as fh:
                    out[name.replace("-", "_")] = list(csv.DictReader(fh))
        d = run.path / "deliveries.json"
        if d.exists():
            out["deliveries"] = json.loads(d.read_text(encoding="utf-8"))
        return out

    return router
