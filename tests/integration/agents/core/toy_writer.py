"""Toy method 1 (tests only): writes N ideas, one LLM call each, checkpointing after each idea.
No tools: it works from the topic background alone. Registered by the tests that use it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from motivgraph.agents.core import CostPlan, IdeaRecord, Method, MethodConfig, RunContext


def idea_text(title: str, topic: str = "sparse attention kernels") -> str:
    """A scripted reply the shared validity gate accepts (agents/core/validity.py): the title, a motivation and a
    method on `topic`, each with words of its own."""
    return (f"{title}\nWork on {topic} still pays for inputs that need none of that effort, and nobody has "
            f"measured how much it wastes.\nMeasure where {topic} spends its effort, then route each input to the "
            "cheapest setting that keeps the quality on held-out data.")


class WriterConfig(MethodConfig):
    ideas: int = Field(2, ge=1, le=10, description="Ideas to write.")
    style: Literal["short", "long"] = Field("short", description="How long each idea is.")
    cite_background: bool = Field(False, description="Ask the writer to cite the background papers.")


class WriterState(BaseModel):
    done: list[IdeaRecord] = Field(default_factory=list)


class WriterExtra(BaseModel):
    index: int
    style: str


class ToyWriter(Method[WriterConfig, WriterState]):
    name = "toy_writer"
    summary = "Writes ideas one LLM call at a time (test method)."
    config_model = WriterConfig
    state_model = WriterState
    roles = ("writer",)
    uses_tools = False
    extra_model = WriterExtra

    PROMPT = ("Topic: {topic}\nBackground:\n{background}\nWrite idea {i} in a {style} style. First line: the title; "
              "second line: the motivation; then the method.")

    def prompt_templates(self) -> dict[str, str]:
        return {"write": self.PROMPT}

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        state = ctx.load_checkpoint() or WriterState()
        llm = ctx.llm("writer")
        while len(state.done) < self.config.ideas:
            i = len(state.done) + 1
            ctx.scope = {"idea": i}
            prompt = self.PROMPT.format(topic=ctx.topic, background=ctx.background.as_text(max_papers=3), i=i,
                                        style=self.config.style)
            reply = await llm.chat(prompt)
            text = str(reply.content).strip()
            title, _, body = text.partition("\n")
            motivation, _, method = body.strip().partition("\n")
            ctx.emit({"type": "message", "agent": "writer", "role": "assistant", "content": text})
            idea = ctx.new_idea(title=title or f"idea {i}", motivation=motivation.strip(), method=method.strip(),
                                extra=WriterExtra(index=i, style=self.config.style))
            state.done.append(await ctx.ground(idea))
            ctx.save_checkpoint(state)
            ctx.write_ideas(state.done)
        return state.done

    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        per_call_in = 40 + min(background_tokens, 1500)
        out = 120 if self.config.style == "short" else 600
        plan.add("writer", calls=self.config.ideas, input_tokens=per_call_in * self.config.ideas,
                 output_tokens=out * self.config.ideas)
