"""What MindFlow contributes at the top of the CLI through the "commands" parts of motivgraph/plugins.py:
`motivgraph mindflow train|show` (the same commands as `motivgraph method mindflow …`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer


class MindflowContribution:
    name = "mindflow"
    summary = "Train and inspect MindFlow's topic-aware controller."

    @classmethod
    def cli(cls) -> typer.Typer:
        from motivgraph.agents.mindflow.cli import app  # local: plugin part, loaded on use

        return app

    @classmethod
    def router(cls) -> None:
        return None
