"""The serve composition root: the tool API plus the routes the agents contribute.

`motivgraph.api` knows nothing of agents (layers point down), so the app that `motivgraph serve` runs is
assembled here, above both: the API's app factory first, then every agent router mounted on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from motivgraph import plugins
from motivgraph.agents.sessions.routes import build_router
from motivgraph.api.app import create_app, set_compute_threads
from motivgraph.api.mcp import mount_mcp
from motivgraph.logging import setup_logging
from motivgraph.private import set_private_umask
from motivgraph.settings import get_settings

if TYPE_CHECKING:
    from fastapi import FastAPI

    from motivgraph.api.services import ToolService
    from motivgraph.settings import Settings


def create_service_app(source: Settings | ToolService | None = None) -> FastAPI:
    """The full HTTP service: tool API routes and the agents' ideation routes — for every method
    registered now, with the routes each method contributes under /ideation/methods/<name>."""

    app = create_app(source)

    mount_mcp(app)  # streamable-HTTP MCP at /mcp, over the same ToolService as the routes
    app.include_router(build_router())

    for contribution in plugins.load_all("commands").values():  # e.g. the evaluation's GET /eval/runs
        router = contribution.router()
        if router is not None:
            app.include_router(router)
    return app


def serve_factory() -> FastAPI:
    """Entry point for uvicorn workers (`motivgraph serve`): settings from env, plain log lines, warnings only
    by default as every command."""

    set_private_umask()  # also when uvicorn runs this factory directly, not through `motivgraph serve`
    settings = get_settings()
    # warnings only unless a level is set (MOTIVGRAPH_LOG_LEVEL; `motivgraph serve` sets it for its workers)
    setup_logging(settings.log_level if "log_level" in settings.model_fields_set else "WARNING", rich=False)
    set_compute_threads(settings.api.compute_threads)
    return create_service_app(settings)
