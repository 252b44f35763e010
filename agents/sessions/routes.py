"""Ideation runs over HTTP, for every registered method: start one in the background, read its
status and idea records, stream its progress as server-sent events, resume an interrupted,
failed or budget-stopped one; list the methods with their config schemas.

`build_router()` reads the method registry when the app is assembled (`motivgraph/service.py`): the
POST body is a discriminated union by `method` of every method's request model, and each method's
own routes (`Method.router()`) are mounted under `/ideation/methods/<name>`. The runs belong to one
`agents.sessions.jobs.JobManager` per app, created at server start or on the first ideation request.
"""

# No `from __future__ import annotations` here: the POST body's type is built at run time
# (build_router) and FastAPI must see it as an object, not as a string naming a local.
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Header, HTTPException, Query, Request
from pydantic import BaseModel
from sse_starlette.sse import EventSourceResponse

from motivgraph.agents.core.context import RunSpec
from motivgraph.agents.core.llm import PlatformLLMClient
from motivgraph.agents.core.registry import RunRequestBase, all_methods, get_method
from motivgraph.agents.sessions.jobs import JobManager
from motivgraph.agents.sessions.requests import (
    ResumeRequest,
    method_config_of,
    session_body_type,
    strict_request_model,
)
from motivgraph.agents.tools.inprocess import InProcessToolClient
from motivgraph.api.error_responses import ErrorResponse
from motivgraph.errors import ApiError, RunNotFound, RunStateError, UnknownReference

log = logging.getLogger(__name__)


class SessionCreated(BaseModel):
    id: str
    method: str
    status: str
    links: dict[str, str]


# Every status a route returns is in the OpenAPI spec (issue 12): the app adds 400/413/422 (and 404 for a path
# id) to every operation (api/errors.document_statuses); these are the routes' own.
# FastAPI's `responses=` type: status -> OpenAPI response object
_Responses = dict[int | str, dict[str, Any]]
_NO_LLM: _Responses = {503: {"model": ErrorResponse, "description": "A role of the method has no LLM configured; "
                             "the message names the setting (MOTIVGRAPH_LLM_MODEL)."}}
_UNKNOWN_REF: _Responses = {422: {"model": ErrorResponse, "description": "An argument is invalid, or names a stored "
                                  "object by an id nothing has (`unknown_reference`, `field` names it: e.g. a MindFlow "
                                  "controller id)."}}
_NO_RUN: _Responses = {404: {"model": ErrorResponse, "description": "No run has this id."}}
_NOT_RESUMABLE: _Responses = {409: {"model": ErrorResponse, "description": "The run is running or completed, or in "
                                    "a state that does not resume."}}
# One SSE event (`event`, `id`, `data`: the transcript event as JSON text); the stream ends with `event: end`.
_SSE: _Responses = {200: {"description": "Server-sent events until the run ends.",
                          "content": {"text/event-stream": {"schema": {
                              "type": "object", "required": ["data"],
                              "properties": {"event": {"type": "string"}, "id": {"type": "string"},
                                             "data": {"type": "string"}},
                          }}}}}


def _links(run_id: str) -> dict[str, str]:
    base = f"/ideation/sessions/{run_id}"
    return {"self": base, "events": f"{base}/events", "resume": f"{base}/resume"}


def ensure_jobs(app: Any) -> JobManager:
    """The app's JobManager, created on first use (server start, or the first ideation request
    when the app runs without lifespan events)."""
    jobs = getattr(app.state, "ideation_jobs", None)
    if jobs is None:
        settings = app.state.settings
        service = app.state.service
        jobs = JobManager(
            settings,
            tool_client_factory=lambda: InProcessToolClient(service, owns=False),
            llm_factory=lambda run_id: PlatformLLMClient(settings, run_id=run_id),
        )
        app.state.ideation_jobs = jobs
    return jobs


@asynccontextmanager
async def _lifespan(app: Any) -> AsyncIterator[None]:
    # Server start: unfinished runs of a previous process are marked interrupted now.
    # Server stop: running runs are cancelled and marked interrupted (resumable).
    try:
        ensure_jobs(app)
    except Exception as e:  # a broken runs dir must not keep the tool API from starting
        log.warning("ideation jobs not started: %s", e)
    yield
    jobs = getattr(app.state, "ideation_jobs", None)
    if jobs is not None:
        await jobs.shutdown()


def get_jobs(request: Request) -> JobManager:
    return ensure_jobs(request.app)


Jobs = Annotated[JobManager, Depends(get_jobs)]


def _check_llm(request: Request, method: str) -> None:
    """Fail at once (503 naming the setting) when a role of the method has no model."""
    client = PlatformLLMClient(request.app.state.settings)
    try:
        for role in get_method(method).llm_roles():
            client.require(role)
    finally:
        client.close()


def _not_found(e: RunNotFound) -> HTTPException:
    return HTTPException(status_code=404, detail=str(e))


def build_router() -> APIRouter:
    """The ideation routes for the methods registered now (see module docstring)."""
    body_type: Any = session_body_type()
    router = APIRouter(prefix="/ideation", tags=["ideation"], lifespan=_lifespan)

    @router.get("/methods", summary="Registered ideation methods")
    async def list_methods() -> list[dict[str, Any]]:
        """Each method's name, summary, LLM roles and the JSON schema of its POST body."""
        return [{"name": m.name, "summary": m.summary, "roles": m.llm_roles(), "uses_tools": m.uses_tools,
                 "request_schema": strict_request_model(m).model_json_schema()} for m in all_methods()]

    @router.post("/sessions", status_code=202, response_model=SessionCreated, summary="Start an ideation run",
                 responses={**_NO_LLM, **_UNKNOWN_REF})
    async def start_session(body: Annotated[body_type, Body()], request: Request, jobs: Jobs) -> SessionCreated:
        """Start a run of `method` as a background job; poll `GET /ideation/sessions/{id}` or stream
        `GET /ideation/sessions/{id}/events`. The run keeps going if the client goes away."""
        assert isinstance(body, RunRequestBase)
        method = str(body.method)  # type: ignore[attr-defined]
        settings = request.app.state.settings
        cls = get_method(method)
        instance = cls(method_config_of(body, cls))  # the body was the config's one check
        try:
            instance.check_references(settings)  # an id of a stored object nothing has: the caller hears it now
        except UnknownReference as e:
            raise ApiError(422, "unknown_reference", str(e), field=e.field) from e
        _check_llm(request, method)
        spec = RunSpec(method=method, topic=body.topic, config=body.method_config(), budget_usd=body.budget_usd,
                       seed=body.seed if body.seed is not None else settings.agents.seed)
        run = jobs.start(spec, method=instance)
        return SessionCreated(id=run.id, method=method, status=run.status()["status"], links=_links(run.id))

    @router.get("/sessions", summary="List ideation runs")
    async def list_sessions(jobs: Jobs, limit: int = Query(50, ge=1, le=500),
                            method: str | None = Query(None, max_length=64)) -> list[dict[str, Any]]:
        return jobs.list(limit, method)

    @router.get("/sessions/{run_id}", summary="Status and idea records of a run", responses=_NO_RUN)
    async def get_session(run_id: str, jobs: Jobs) -> dict[str, Any]:
        """Status (queued, running, completed, failed, stopped, interrupted) with the reason, counters,
        token usage and the idea records with their grounding."""
        try:
            return jobs.get(run_id)
        except RunNotFound as e:
            raise _not_found(e) from e

    @router.post("/sessions/{run_id}/resume", status_code=202, response_model=SessionCreated,
                 summary="Resume an interrupted, failed or budget-stopped run",
                 responses={**_NO_RUN, **_NOT_RESUMABLE, **_NO_LLM})
    async def resume_session(run_id: str, request: Request, jobs: Jobs,
                             body: ResumeRequest | None = None) -> SessionCreated:
        try:
            st = jobs.get(run_id)  # 404 before anything else
            jobs.check_resumable(run_id)  # then 409: a completed run is not resumable, model or not
            _check_llm(request, st.get("method", ""))
            run = jobs.resume(run_id, budget_usd=body.budget_usd if body else None)
        except RunNotFound as e:
            raise _not_found(e) from e
        except RunStateError as e:
            raise HTTPException(status_code=409, detail=str(e)) from e
        return SessionCreated(id=run.id, method=st.get("method", ""), status=run.status()["status"],
                              links=_links(run.id))

    @router.get("/sessions/{run_id}/events", summary="Progress as server-sent events",
                responses={**_SSE, **_NO_RUN})
    async def session_events(
        run_id: str,
        jobs: Jobs,
        after: int = Query(0, ge=0, description="Only events with a larger sequence number."),
        last_event_id: str | None = Header(None, alias="Last-Event-ID"),
    ) -> Any:
        """Every transcript event (messages, tool calls and results, usage, status, method events) as
        an SSE `data:` JSON line with `id` = sequence number and `event` = its type. The stream ends
        when the run is completed, failed, stopped or interrupted; reconnect with Last-Event-ID."""
        try:
            jobs.get(run_id)
        except RunNotFound as e:
            raise _not_found(e) from e
        start = max(after, int(last_event_id)) if last_event_id and last_event_id.isdigit() else after

        async def stream() -> Any:
            async for ev in jobs.events(run_id, after=start):
                yield {"id": str(ev["seq"]), "event": str(ev.get("type", "message")),
                       "data": json.dumps(ev, ensure_ascii=False, default=str)}
            yield {"event": "end", "data": json.dumps({"id": run_id, "status": jobs.get(run_id)["status"]})}

        return EventSourceResponse(stream(), ping=15)

    for m in all_methods():
        extra = m.router()
        if extra is not None:
            router.include_router(extra, prefix=f"/methods/{m.name}")
    return router
