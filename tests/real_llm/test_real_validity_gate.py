"""The shared validity gate against the real local model (#42): a toy model (SmolLM2-135M) asked to fill an idea
template copies its slot texts back; the runner's gate records those ideas `rejected` with the reasons, and no idea
the gate lets through is an echo. Mechanics only: whatever the model writes, accepted == passes the gate."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from motivgraph.agents.core import (
    CostPlan,
    IdeaRecord,
    Method,
    MethodConfig,
    PlatformLLMClient,
    RunContext,
    RunSpec,
    create_run,
    register,
    run_method,
    unregister,
)
from motivgraph.agents.core.validity import GateConfig, check_idea
from motivgraph.settings import Settings

pytestmark = pytest.mark.real_llm

TEMPLATE = '{"title": "IdeaText", "motivation": "Title of the idea.", "method": "A new research idea"}'


class Fields(BaseModel):
    title: str = Field(max_length=120)
    motivation: str = Field(max_length=300)
    method: str = Field(max_length=300)


class TemplateConfig(MethodConfig):
    ideas: int = Field(2, ge=1, le=5)


class TemplateState(BaseModel):
    done: list[IdeaRecord] = Field(default_factory=list)


class TemplateFiller(Method[TemplateConfig, TemplateState]):
    """Asks the model to fill the template it is shown (the prompt every baseline's first reply resembles) and
    accepts whatever parses -- as the baselines did before the gate."""

    name = "toy_template_filler"
    summary = "Fills an idea template (real-tier test method)."
    config_model = TemplateConfig
    state_model = TemplateState
    roles = ("writer",)
    uses_tools = False

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        out = []
        for i in range(self.config.ideas):
            prompt = (f"Topic: {ctx.topic}\nFill in this JSON template for research idea {i + 1}. "
                      f"Template: {TEMPLATE}")
            f = await ctx.llm("writer").structured(prompt, Fields)
            out.append(ctx.new_idea(title=f.title or "(untitled)", motivation=f.motivation, method=f.method))
        return out

    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        plan.add("writer", calls=self.config.ideas, input_tokens=80, output_tokens=80)


async def test_the_gate_rejects_a_toy_models_template_echoes_with_reasons(local_llm: Path, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", _env_file=None)  # type: ignore[call-arg]
    settings.llm.model = "local:smollm2"
    settings.llm.local_dir = local_llm
    settings.llm.temperature = 0.0
    settings.llm.timeout_s = 900
    register(TemplateFiller)
    try:
        run = create_run(settings.runs_dir, RunSpec(method=TemplateFiller.name, topic="sparse attention kernels",
                                                    config={"ideas": 2}))
        llm = PlatformLLMClient(settings, run_id=run.id)
        try:
            out = await run_method(settings, run, llm=llm, tool_client=None)
        finally:
            llm.close()
    finally:
        unregister(TemplateFiller.name)
    assert run.status()["status"] == "completed"
    cfg = GateConfig(min_body_words=settings.agents.idea_min_words, offtopic_threshold=0)
    for idea in out.ideas:  # whatever the model wrote: an accepted idea passes the gate, a rejected one says why
        print(f"{idea.status}: {idea.title!r} / {idea.motivation!r} / {idea.method!r} -> {idea.rejection}")
        if idea.status == "accepted":
            assert check_idea(idea, topic="sparse attention kernels", cfg=cfg) == []
        else:
            assert idea.rejection and idea.rejection.startswith("invalid_idea: ")
    echoes = [i for i in out.ideas if i.rejection and ("echoes field labels" in i.rejection
                                                        or "placeholder" in i.rejection)]
    assert echoes, "the toy model copied no template slot: " + "; ".join(repr(i.title) for i in out.ideas)
