"""What the run directories contribute to the HTTP service through the "commands" parts of motivgraph/plugins.py:
GET /runs and GET /runs/{id} (agents/core/run_routes.py). The `motivgraph runs list|show` commands are
built into the CLI (motivgraph/cli/runs_cmd.py), so no CLI is contributed here."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import APIRouter


class RunsContribution:
    name = "runs"
    summary = "Every ideation run's report: GET /runs, GET /runs/{id}."

    @classmethod
    def cli(cls) -> None:
        return None

    @classmethod
    def router(cls) -> APIRouter:
        from motivgraph.agents.core.run_routes import build_router

        return build_router()
