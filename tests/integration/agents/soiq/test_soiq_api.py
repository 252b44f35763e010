"""Ideation sessions over HTTP: start, status, SSE event stream, client disconnect, server restart
marking unfinished sessions interrupted, and resume. The LLM is the scripted model selected by
settings (MOTIVGRAPH_LLM_MODEL=scripted:FILE), the graph the small real one."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import httpx
import pytest

from motivgraph.agents.core.rundir import RunDir
from motivgraph.api.services import ToolService
from motivgraph.llm import reset_scripted_models
from motivgraph.service import create_service_app as create_app
from tests.integration.agents.soiq.soiq_support import build_graph, idea_dict, idea_text
from tests.sse_support import parse_sse
from tests.uvicorn_support import served


def script_file(tmp_path, replies, name="script.json"):
    p = tmp_path / name
    p.write_text(json.dumps({"replies": replies}), encoding="utf-8")
    reset_scripted_models()
    return str(p)


def tool_call(name, **args):
    return {"content": "", "tool_calls": [{"name": name, "args": args}]}


def session_script(delay: float = 0.0):
    idea = idea_dict(cite="")
    return [
        tool_call("node_search", query="oversmoothing graph networks", k=3),
        {"content": idea_text(idea), **({"delay": delay} if delay else {})},
        {"content": "Aspect: Rationality. Why does it help?", **({"delay": delay} if delay else {})},
        {"content": idea_text(idea_dict(cite="", extra="revised")), **({"delay": delay} if delay else {})},
        "<ACCEPT>",
    ]


@pytest.fixture
def app_factory(settings, store, embedder, tmp_path):
    rt = build_graph(settings, store, embedder)
    settings.llm.cache = False
    settings.agents.require_random_draw = False

    def make(replies=None):
        if replies is not None:
            settings.llm.model = "scripted:" + script_file(tmp_path, replies)
        return create_app(ToolService(rt))

    return make


async def test_http_session_lifecycle_and_event_stream(app_factory):
    app = app_factory(session_script())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as c:
        body = {"method": "soiq", "topic": "oversmoothing in deep GNNs", "ideas": 1}
        r = await c.post("/ideation/sessions", json=body)
        assert r.status_code == 202, r.text
        sid = r.json()["id"]
        assert r.json()["links"]["events"] == f"/ideation/sessions/{sid}/events"
        # the stream runs until the session ends
        ev = await c.get(f"/ideation/sessions/{sid}/events")
        assert ev.status_code == 200 and ev.headers["content-type"].startswith("text/event-stream")
        events = parse_sse(ev.text)
        kinds = [e.get("event") for e in events]
        for k in ("status", "phase", "tool_call", "tool_result", "question", "decision", "grounding", "end"):
            assert k in kinds, (k, kinds)
        data = [json.loads(e["data"]) for e in events if e.get("event") not in ("end", None)]
        assert [d["seq"] for d in data] == sorted(d["seq"] for d in data)
        assert json.loads(events[-1]["data"])["status"] == "completed"
        st = (await c.get(f"/ideation/sessions/{sid}")).json()
        assert st["status"] == "completed" and st["ideas_accepted"] == 1
        assert st["ideas"][0]["abstract"].endswith("revised") and st["ideas"][0]["status"] == "accepted"
        assert st["method"] == "soiq" and st["error"] is None
        assert st["usage"]["total"]["calls"] == 5
        # resuming from a later event id only sends what follows
        tail = await c.get(f"/ideation/sessions/{sid}/events", headers={"Last-Event-ID": str(data[-2]["seq"])})
        tail_events = [e for e in parse_sse(tail.text) if e.get("event") != "end"]
        assert [int(e["id"]) for e in tail_events] == [data[-1]["seq"]]
        listed = (await c.get("/ideation/sessions")).json()
        assert any(x["id"] == sid for x in listed)


async def test_http_bad_input_is_4xx(app_factory):
    app = app_factory(session_script())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as c:
        assert (await c.post("/ideation/sessions", json={"method": "soiq", "topic": "x"})).status_code == 422
        r = await c.post("/ideation/sessions", json={"method": "soiq", "topic": "graphs", "ablations": ["no_brain"]})
        assert r.status_code == 422 and "no_mentor" in r.text
        r = await c.post("/ideation/sessions", json={"method": "soiq", "topic": "graphs", "rounds": 0})
        assert r.status_code == 422
        r = await c.post("/ideation/sessions", json={"method": "soiq", "topic": "graphs", "extra": 1})
        assert r.status_code == 422
        # the body is a union discriminated by method: missing or unknown methods are 422 too
        assert (await c.post("/ideation/sessions", json={"topic": "graphs"})).status_code == 422
        assert (await c.post("/ideation/sessions", json={"method": "nope", "topic": "graphs"})).status_code == 422
        assert (await c.get("/ideation/sessions/nope-123")).status_code == 404
        assert (await c.get("/ideation/sessions/..%2F..%2Fetc")).status_code == 404
        assert (await c.get("/ideation/sessions/nope-123/events")).status_code == 404
        assert (await c.post("/ideation/sessions/nope-123/resume")).status_code == 404


async def test_http_no_llm_configured_names_the_setting(app_factory, settings):
    app = app_factory()
    settings.llm.model = None
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as c:
        r = await c.post("/ideation/sessions", json={"method": "soiq", "topic": "graphs"})
        assert r.status_code == 503 and "MOTIVGRAPH_LLM_MODEL" in r.text


def test_session_survives_client_disconnect(app_factory):
    app = app_factory(session_script(delay=0.3))
    with served(app) as base, httpx.Client(base_url=base, timeout=30) as c:
        body = {"method": "soiq", "topic": "oversmoothing in deep GNNs", "ideas": 1}
        sid = c.post("/ideation/sessions", json=body).json()["id"]
        # read the first events of the stream, then drop the connection mid-session
        with c.stream("GET", f"/ideation/sessions/{sid}/events") as resp:
            seen = []
            for line in resp.iter_lines():
                if line.startswith("event:"):
                    seen.append(line.split(":", 1)[1].strip())
                if "tool_result" in seen:
                    break
        assert c.get(f"/ideation/sessions/{sid}").json()["status"] in ("queued", "running")
        # the session finishes on its own
        for _ in range(600):
            st = c.get(f"/ideation/sessions/{sid}").json()
            if st["status"] not in ("queued", "running"):
                break
            time.sleep(0.05)
        assert st["status"] == "completed", st
        assert st["ideas_accepted"] == 1
        # a new stream replays the whole session and ends
        full = c.get(f"/ideation/sessions/{sid}/events").text
        assert "event: decision" in full and "event: end" in full


async def test_restart_marks_unfinished_interrupted_and_resume(app_factory, settings):
    # A session left 'running' by a server process that no longer exists.
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    run = RunDir.create(settings.runs_dir, "soiq", "oversmoothing in deep GNNs",
                        {"topic": "oversmoothing in deep GNNs", "ideas": 1, "rounds": None, "ablations": [],
                         "tool_mode": "auto"})
    run.update_status(status="running", pid=int(dead.stdout.strip()))
    app = app_factory(session_script())  # the "restarted" server
    async with app.router.lifespan_context(app), \
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as c:
        # marked at startup, before any request
        assert RunDir.open(settings.runs_dir, run.id).status()["status"] == "interrupted"
        st = (await c.get(f"/ideation/sessions/{run.id}")).json()
        assert st["status"] == "interrupted" and "stopped" in st["error"]
        # the event stream of an interrupted session ends instead of hanging
        ev = await c.get(f"/ideation/sessions/{run.id}/events")
        assert json.loads(parse_sse(ev.text)[-1]["data"])["status"] == "interrupted"
        r = await c.post(f"/ideation/sessions/{run.id}/resume")
        assert r.status_code == 202
        await app.state.ideation_jobs.wait(run.id)
        st = (await c.get(f"/ideation/sessions/{run.id}")).json()
        assert st["status"] == "completed" and st["ideas_accepted"] == 1
        assert (await c.post(f"/ideation/sessions/{run.id}/resume")).status_code == 409


async def test_shutdown_interrupts_running_sessions(app_factory, settings):
    app = app_factory(session_script(delay=5.0))
    async with app.router.lifespan_context(app), \
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as c:
        body = {"method": "soiq", "topic": "oversmoothing in deep GNNs"}
        sid = (await c.post("/ideation/sessions", json=body)).json()["id"]
        seen = []
        for _ in range(200):
            seen.append((await c.get(f"/ideation/sessions/{sid}")).json()["status"])
            if seen[-1] == "running":
                break
            await asyncio.sleep(0.02)
        assert seen[-1] == "running", seen  # stopped while the run was running, not before or after
    # server stopped (lifespan exit): the running session was cancelled and marked resumable
    st = RunDir.open(settings.runs_dir, sid).status()
    assert st["status"] == "interrupted"


async def test_session_through_http_tool_client(app_factory, settings):
    """The agents reach the graph over HTTP (HttpToolClient) exactly as in process."""
    from motivgraph.agents.tools.http import HttpToolClient
    from motivgraph.llm import ScriptedChatModel
    from tests.integration.agents.soiq.soiq_support import SoiqSession, tc

    app = app_factory()
    model = ScriptedChatModel([
        tc("node_search", query="oversmoothing graph networks", k=3),
        tc("literature_search", query="deep graph networks oversmoothing", limit=3),
        idea_text(idea_dict()),
        "<ACCEPT>",
    ])
    events: list[dict] = []
    async with HttpToolClient("http://localhost", transport=httpx.ASGITransport(app=app)) as client:
        session = SoiqSession(settings, client, model, emit=events.append, topic="oversmoothing in deep GNNs")
        result = await session.run()
    texts = [e["text"] for e in events if e["type"] == "tool_result"]
    assert "Oversmoothing in deep message passing" in texts[0] and "Silva et al., 2021" in texts[1]
    g = result.ideas[0]["grounding"]
    assert g["links_resolved"] == 2 and g["citations_resolved"] == 1 and not g["flagged"]
