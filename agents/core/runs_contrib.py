"""What the run directories contribute as a "commands" part of motivgraph/plugins.py: `motivgraph runs list|show`
(agents/core/runs_cli.py) and GET /runs, GET /runs/{id} (agents/core/run_routes.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer
    from fastapi import APIRouter


class RunsContribution:
    name = "runs"
    summary = "List ideation runs of every method and show one run's report."

    @classmethod
    def cli(cls) -> typer.Typer:
        from motivgraph.agents.core.runs_cli import app

        return app

    @classmethod
    def router(cls) -> APIRouter:
        from motivgraph.agents.core.run_routes import build_router

        return build_router()
