"""Worked example for docs/extending.md, "Add a method": `title_storm`, N idea titles from one LLM call.

A method is a config model (its fields become `motivgraph ideate --method NAME` flags and the POST
/ideation/sessions body), a state model (the checkpoint `--resume` continues from), `run(ctx)` and a
cost `estimate`. Registered (`register(TitleStorm)`, or the `motivgraph.methods` entry point of an
installed package), it is listed by `motivgraph ideate --list-methods` and runs with the platform's run
directory, budget, transcript, report and resume. tests/integration/docs/test_docs_examples.py runs it.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from motivgraph.agents.core import CostPlan, IdeaRecord, Method, MethodConfig, RunContext


class TitleStormConfig(MethodConfig):
    ideas: int = Field(3, ge=1, le=10, description="Idea titles to ask for.")


class TitleStormState(BaseModel):
    ideas: list[IdeaRecord] = Field(default_factory=list)


class TitleStorm(Method[TitleStormConfig, TitleStormState]):
    name = "title_storm"
    summary = "One LLM call writes N idea titles for the topic (a worked example)."
    config_model = TitleStormConfig
    state_model = TitleStormState
    roles = ("writer",)  # the LLM role `title_storm.writer` (MOTIVGRAPH_LLM_ROLES may set its model)
    uses_tools = False  # works from the topic background alone: no graph needed

    PROMPT = "Topic: {topic}\nBackground:\n{background}\nWrite {n} research idea titles, one per line."

    def prompt_templates(self) -> dict[str, str]:
        return {"titles": self.PROMPT}  # hashed into the run's reproducibility record

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        state = ctx.load_checkpoint() or TitleStormState()
        if not state.ideas:  # a resumed run that already has its ideas does not call the model again
            prompt = self.PROMPT.format(
                topic=ctx.topic, background=ctx.background.as_text(max_papers=3), n=self.config.ideas
            )
            reply = await ctx.llm("writer").chat(prompt)
            titles = [t.strip(" -*0123456789.") for t in str(reply.content).splitlines() if t.strip()]
            ctx.emit({"type": "message", "agent": "writer", "role": "assistant", "content": str(reply.content)})
            state.ideas = [
                await ctx.ground(ctx.new_idea(title=t, motivation=f"A title for {ctx.topic}."))
                for t in titles[: self.config.ideas]
            ]
            ctx.save_checkpoint(state)
        ctx.write_ideas(state.ideas)
        return state.ideas

    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        plan.add(
            "writer", calls=1, input_tokens=60 + min(background_tokens, 1500), output_tokens=20 * self.config.ideas
        )
