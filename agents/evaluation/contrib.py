"""What the evaluation contributes to the CLI and the HTTP service, through the registry's
"commands" parts (motivgraph/plugins.py): `motivgraph eval ...` and GET /eval/runs[/{id}]."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer
    from fastapi import APIRouter


class EvaluationContribution:
    name = "eval"
    summary = "Evaluate ideation methods on the same topics with every seed's metrics; one report."

    @classmethod
    def cli(cls) -> typer.Typer:
        from motivgraph.agents.evaluation.cli import cli  # local: plugin part, loaded on use

        return cli()

    @classmethod
    def router(cls) -> APIRouter:
        from motivgraph.agents.evaluation.routes import build_router  # local: plugin part, loaded on use

        return build_router()
