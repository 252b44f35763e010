"""Ideation sessions over HTTP: start a SoIQ session in the background, read its status and
results, stream its progress as server-sent events, resume an interrupted one.

The sessions belong to one `agents.jobs.JobManager` per app, created on the first ideation request
(which is when unfinished sessions left by a previous server process are marked interrupted).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator

from motivgraph.agents.jobs import JobManager
from motivgraph.agents.runs import RunNotFound, RunStateError
from motivgraph.agents.soiq.toolbox import ABLATIONS, parse_ablations

log = logging.getLogger(__name__)



class SessionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    topic: str = Field(min_length=3, max_length=500, description="Research topic or task description.")
    method: Literal["soiq"] = Field("soiq", description="Ideation method (only 'soiq' here).")
    ideas: int | None = Field(None, ge=1, le=20, description="Ideas to attempt (default MOTIVGRAPH_AGENTS_IDEAS).")
    rounds: int | None = Field(None, ge=1, le=20, description="Mentor rounds (default MOTIVGRAPH_AGENTS_ROUNDS).")
    ablations: list[str] = Field(default_factory=list, max_length=3, description=f"Any of {', '.join(ABLATIONS)}.")
    tool_mode: Literal["auto", "native", "text"] = Field("auto", description="Tool calling: native, text, auto.")

    @field_validator("ablations")
    @classmethod
    def _abl(cls, v: list[str]) -> list[str]:
        return sorted(parse_ablations(v))

    @field_validator("topic")
    @classmethod
    def _topic(cls, v: str) -> str:
        if "\x00" in v:
            raise ValueError("topic must not contain NUL characters")
        v = " ".join(v.split())
        if len(v) < 3:
            raise ValueError("topic must have at least 3 non-space characters")
        return v


class SessionCreated(BaseModel):
    id: str
    status: str
    links: dict[str, str]


def _links(run_id: str) -> dict[str, str]:
    base = f"/ideation/sessions/{run_id}"
    return {"self": base, "events": f"{base}/events", "resume": f"{base}/resume"}


def ensure_jobs(app: Any) -> JobManager:
    """The app's JobManager, created on first use (server start, or the first ideation request
    when the app runs without lifespan events)."""
    jobs = getattr(app.state, "ideation_jobs", None)
    if jobs is None:
        from motivgraph.agents.tools.inprocess import InProcessToolClient
        from motivgraph.llm import LLMClient

        settings = app.state.settings
        service = app.state.service
        jobs = JobManager(
            settings,
            tool_client_factory=lambda: InProcessToolClient(service, owns=False),
            llm_factory=lambda run_id: LLMClient(settings, run_id=run_id),
        )
        app.state.ideation_jobs = jobs
    return jobs


@asynccontextmanager
async def _lifespan(app: Any) -> AsyncIterator[None]:
    # Server start: unfinished sessions of a previous process are marked interrupted now.
    # Server stop: running sessions are cancelled and marked interrupted (resumable).
    try:
        ensure_jobs(app)
    except Exception as e:  # a broken runs dir must not keep the tool API from starting
        log.warning("ideation jobs not started: %s", e)
    yield
    jobs = getattr(app.state, "ideation_jobs", None)
    if jobs is not None:
        await jobs.shutdown()


router = APIRouter(prefix="/ideation", tags=["ideation"], lifespan=_lifespan)


def get_jobs(request: Request) -> JobManager:
    return ensure_jobs(request.app)


Jobs = Annotated[JobManager, Depends(get_jobs)]


def _check_llm(request: Request) -> None:
    """Fail the POST at once (503 naming the setting) when no model is configured for the roles."""
    from motivgraph.llm import LLMClient

    client = LLMClient(request.app.state.settings)
    try:
        client.require("researcher")
        client.require("mentor")
    finally:
        client.close()


def _not_found(e: RunNotFound) -> HTTPException:
    return HTTPException(status_code=404, detail=str(e))


@router.post("/sessions", status_code=202, response_model=SessionCreated, summary="Start an ideation session")
async def start_session(body: SessionRequest, request: Request, jobs: Jobs) -> SessionCreated:
    """Start a SoIQ session as a background job; poll `GET /ideation/sessions/{id}` or stream
    `GET /ideation/sessions/{id}/events`. The session keeps running if the client goes away."""
    from motivgraph.agents.soiq.session import SessionConfig

    _check_llm(request)
    settings = request.app.state.settings
    config = SessionConfig(topic=body.topic, ideas=body.ideas or settings.agents.ideas, rounds=body.rounds,
                           ablations=body.ablations, tool_mode=body.tool_mode)
    run = jobs.start(config)
    return SessionCreated(id=run.id, status=run.status()["status"], links=_links(run.id))


@router.get("/sessions", summary="List ideation sessions")
async def list_sessions(jobs: Jobs, limit: int = Query(50, ge=1, le=500)) -> list[dict[str, Any]]:
    return jobs.list(limit)


@router.get("/sessions/{run_id}", summary="Status and results of a session")
async def get_session(run_id: str, jobs: Jobs) -> dict[str, Any]:
    """Status (queued, running, completed, failed, interrupted), counters, token usage and the
    accepted ideas with their grounding reports."""
    try:
        return jobs.get(run_id)
    except RunNotFound as e:
        raise _not_found(e) from e


@router.post("/sessions/{run_id}/resume", status_code=202, response_model=SessionCreated,
             summary="Resume an interrupted or failed session")
async def resume_session(run_id: str, request: Request, jobs: Jobs) -> SessionCreated:
    try:
        jobs.get(run_id)  # 404 before anything else
        _check_llm(request)
        run = jobs.resume(run_id)
    except RunNotFound as e:
        raise _not_found(e) from e
    except RunStateError as e:
        raise HTTPException(status_code=409, detail=str(e)) from e
    return SessionCreated(id=run.id, status=run.status()["status"], links=_links(run.id))


@router.get("/sessions/{run_id}/events", summary="Progress as server-sent events")
async def session_events(
    run_id: str,
    jobs: Jobs,
    after: int = Query(0, ge=0, description="Only events with a larger sequence number."),
    last_event_id: str | None = Header(None, alias="Last-Event-ID"),
) -> Any:
    """Every transcript event (messages, tool calls and results, questions, decisions, usage, status)
    as an SSE `data:` JSON line with `id` = sequence number and `event` = its type. The stream ends
    when the session is completed, failed or interrupted; reconnect with Last-Event-ID to continue."""
    from sse_starlette.sse import EventSourceResponse

    try:
        jobs.get(run_id)
    except RunNotFound as e:
        raise _not_found(e) from e
    if last_event_id and last_event_id.isdigit():
        after = max(after, int(last_event_id))

    async def stream() -> Any:
        async for ev in jobs.events(run_id, after=after):
            yield {"id": str(ev["seq"]), "event": str(ev.get("type", "message")),
                   "data": json.dumps(ev, ensure_ascii=False, default=str)}
        yield {"event": "end", "data": json.dumps({"id": run_id, "status": jobs.get(run_id)["status"]})}

    return EventSourceResponse(stream(), ping=15)
