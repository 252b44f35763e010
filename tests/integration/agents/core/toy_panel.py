"""Toy method 2 (tests only): a proposer draws random graph nodes and searches the graph through the
Toolbox (the model-facing alias get_random_nodes included), writes one idea; a judge scores it. It
also contributes a CLI sub-command (`motivgraph method toy_panel hello`) and an API route
(`GET /ideation/methods/toy_panel/info`). Registered by the tests that use it."""

from __future__ import annotations

import typer
from fastapi import APIRouter
from pydantic import BaseModel, Field

from motivgraph.agents.core import CostPlan, IdeaRecord, Method, MethodConfig, NoState, RunContext


class PanelConfig(MethodConfig):
    draws: int = Field(3, ge=1, le=10, description="Random nodes the proposer draws.")
    min_score: float = Field(0.5, ge=0, le=1, description="Ideas the judge scores below this are rejected.")


class PanelExtra(BaseModel):
    score: float
    drawn: list[str]


class ToyPanel(Method[PanelConfig, NoState]):
    name = "toy_panel"
    summary = "Proposer + judge over random graph nodes (test method)."
    config_model = PanelConfig
    roles = ("proposer", "judge")
    extra_model = PanelExtra
    graph_background = False

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        drawn: list[str] = []
        if ctx.has_tools:
            draw = await ctx.toolbox.execute("get_random_nodes", {"number": self.config.draws})
            search = await ctx.toolbox.execute("node_search", {"search_query": ctx.topic, "k": 2})
            for out in (draw, search):
                ctx.emit({"type": "tool_result", "agent": "proposer", "name": out.name, "ok": out.ok, "text": out.text})
            drawn = [line for line in draw.text.splitlines()[1:] if line.startswith("- ")]
        reply = await ctx.llm("proposer").chat(f"Topic: {ctx.topic}\nMaterial:\n" + "\n".join(drawn))
        title, _, body = str(reply.content).partition("\n")
        verdict = await ctx.llm("judge").chat(f"Score 0..1: {title}")
        score = float(str(verdict.content).strip().split()[0])
        idea = ctx.new_idea(title=title, motivation=body, method=body,
                            status="accepted" if score >= self.config.min_score else "rejected",
                            extra=PanelExtra(score=score, drawn=drawn))
        return [await ctx.ground(idea)]

    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        plan.add("proposer", calls=1, input_tokens=200 + 40 * self.config.draws, output_tokens=400)
        plan.add("judge", calls=1, input_tokens=60, output_tokens=5)

    @classmethod
    def cli(cls) -> typer.Typer:
        app = typer.Typer(help="toy_panel's own commands")

        @app.command("hello")
        def hello(name: str = typer.Option("world", "--name")) -> None:
            """Greets (proves a method can add a sub-command)."""
            typer.echo(f"toy_panel says hello to {name}")

        @app.command("judges")
        def judges() -> None:
            typer.echo("judge")

        return app

    @classmethod
    def router(cls) -> APIRouter:
        r = APIRouter()

        @r.get("/info")
        async def info() -> dict[str, object]:
            return {"method": cls.name, "roles": cls.llm_roles()}

        return r
