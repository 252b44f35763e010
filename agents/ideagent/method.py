"""IDEAgent as a platform method (`motivgraph ideate TOPIC --method ideagent`).

Every IdeagentConfig setting is also a per-run option (CLI flag / HTTP field) that overrides the
MOTIVGRAPH_IDEAGENT_* environment for that run. The checkpoint is the search state after each
finished seed; a run stopped by the budget resumes at the next unfinished seed.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any

from pydantic import BaseModel, Field, create_model, model_validator

from motivgraph.agents.core.context import RunContext
from motivgraph.agents.core.idea import IdeaRecord
from motivgraph.agents.core.method import CostPlan, Method, MethodConfig
from motivgraph.agents.ideagent import prompts as P
from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.cost import estimate_ideagent
from motivgraph.agents.ideagent.judges import Roles
from motivgraph.agents.ideagent.search import (
    IdeagentSearch,
    SearchState,
    carry_over,
    final_ideas,
    lineage_history,
    no_idea_detail,
)
from motivgraph.agents.ideagent.writer import (
    IDEATOR_TOOL_MODE,
    ToolWriter,
    background_text,
    record_fields,
    tool_mode,
)
from motivgraph.choices import ToolModeChoice

_BASELINE_ONLY = {"nova_rounds", "nova_seeds"}


def _overrides() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, f in IdeagentConfig.model_fields.items():
        if name in _BASELINE_ONLY:
            continue
        ann: Any = Annotated[(f.annotation, *f.metadata)] if f.metadata else f.annotation  # keep ge/le bounds
        out[name] = (ann | None, Field(None, description=f"{f.description} "
                                                 f"(default {f.default!r}; env MOTIVGRAPH_IDEAGENT_{name.upper()})"))
    return out


_IdeagentRunConfig: Any = create_model(  # every search setting, overridable per run
    "_IdeagentRunConfig", __base__=MethodConfig, **_overrides())


class IdeagentMethodConfig(_IdeagentRunConfig):
    ideas: int | None = Field(None, ge=1, le=20,
                              description="Active archive capacity = ideas returned (default MOTIVGRAPH_AGENTS_IDEAS).")
    tool_mode: ToolModeChoice = Field("auto", description=IDEATOR_TOOL_MODE)

    @model_validator(mode="after")
    def _valid_together(self) -> IdeagentMethodConfig:
        self.search_config()  # cross-field rules (e.g. invalid_votes <= panel_size) fail here: a 4xx, not a failed run
        return self

    def search_config(self) -> IdeagentConfig:
        given = {k: v for k, v in self.model_dump().items() if v is not None and k in IdeagentConfig.model_fields}
        return IdeagentConfig(**given)


def method_roles(method: str) -> Roles:
    return Roles(**{k: f"{method}.{k}" for k in Roles.model_fields})


class IdeagentExtra(BaseModel):
    """IDEAgent's part of an idea record: where the idea stands in the search and how it got there."""

    lineage: str
    draft: str
    seed: int
    kind: str
    scores: dict[str, Any] = Field(default_factory=dict, description="N, C, F, S, D, Q, panel, disputed, invalid.")
    signature: dict[str, str] = Field(default_factory=dict)
    idea_fields: dict[str, Any] = Field(default_factory=dict, description="The ideator's fields as written.")
    lineage_history: list[dict[str, Any]] = Field(
        default_factory=list, description="Every draft of the lineage: id, kind, parent, scores, outcome.")
    decisions: list[dict[str, Any]] = Field(default_factory=list, description="Routing rows of the lineage.")


class IdeagentMethod(Method[IdeagentMethodConfig, SearchState]):
    """IDEAgent: quality-diversity search over lineages with four archives, repair and refinement."""

    name = "ideagent"
    summary = "Quality-diversity search: B seeds, gates, lineages, four archives, repair and refinement."
    config_model = IdeagentMethodConfig
    state_model = SearchState
    state_version = 1
    roles = ("ideator", "stenographer", "quality", "soundness", "diversity", "critic")
    extra_model = IdeagentExtra
    top_up_memory = ("its archives: the earlier runs' delivered and retired ideas join its history H (a repeat "
                     "is a history duplicate) and their rejection families R stay known")

    def prompt_templates(self) -> dict[str, str]:
        return {"ideator": P.IDEATOR_SYSTEM, "stenographer": P.STENOGRAPHER, "quality": P.QUALITY,
                "soundness": P.SOUNDNESS, "diversity": P.DIVERSITY, "family": P.FAMILY,
                "critic": P.CRITIC, "pairwise": P.PAIRWISE}

    def capacity(self, ctx_settings: Any) -> int:
        return self.config.ideas or ctx_settings.agents.ideas

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        cfg = self.config.search_config()
        roles = method_roles(self.name)
        mode = tool_mode(ctx, roles.ideator, self.config.tool_mode)
        toolbox = ctx.toolbox if ctx.has_tools else None
        writer = ToolWriter(ctx, roles.ideator, toolbox, mode, cfg.ideator_tool_calls)
        llm = _CtxLLM(ctx)
        self._cfg = cfg

        def checkpoint(st: SearchState) -> None:
            ctx.save_checkpoint(st)
            ctx.run.update_status(ideas_accepted=len(st.archive.active))

        search = IdeagentSearch(llm=llm, cfg=cfg, topic=ctx.topic, background=background_text(
            ctx, cfg.background_tokens), capacity=self.capacity(ctx.settings), writer=writer, roles=roles,
            emit=ctx.emit, checkpoint=checkpoint, tools_note=writer.tools_note(), sample_seed=ctx.seed)
        state = ctx.load_checkpoint()
        if state is None and (earlier := ctx.earlier_states()):  # a top-up run continues the topic's archives
            state = carry_over(search.new_state(), earlier)
            ctx.emit({"type": "memory", "from": ctx.spec.memory_from, "history": len(state.archive.history),
                      "families": len(state.archive.families)})
        ctx.emit({"type": "phase", "phase": "ideagent", "seeds": cfg.seeds, "capacity": search.capacity,
                  "tool_mode": mode if toolbox else None, "resume_at_seed": state.next_seed if state else 0})
        state = await search.run(state)
        self._state = state
        ideas = [await ctx.ground(self._record(ctx, state, d)) for d in final_ideas(state, cfg)]
        ctx.write_ideas(ideas)
        return ideas

    def _record(self, ctx: RunContext, st: SearchState, d: Any) -> IdeaRecord:
        cfg = self._cfg
        lin = lineage_history(st, d.lineage)
        history = [{"draft": x.id, "kind": x.kind, "parent": x.parent, "outcome": x.outcome,
                    "title": x.title, "scores": x.scores.summary(cfg) if x.scores else {}} for x in lin]
        ids = {x.id for x in lin}
        extra = IdeagentExtra(lineage=d.lineage, draft=d.id, seed=d.seed, kind=d.kind,
                              scores=d.scores.summary(cfg) if d.scores else {}, signature=d.signature.model_dump(),
                              idea_fields=d.idea, lineage_history=history,
                              decisions=[r for r in st.decisions
                                         if r.get("draft") in ids or r.get("lineage") == d.lineage])
        name = f"ideagent_{d.lineage.lower()}"
        return ctx.new_idea(name=name, status="accepted", extra=extra, **record_fields(d.idea))

    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        cfg = self.config.search_config()
        settings = plan.settings
        capacity = self.config.ideas or (settings.agents.ideas if settings is not None else 3)
        estimate_ideagent(plan, cfg, capacity=capacity, topic=topic, background_tokens=background_tokens)

    def no_idea_detail(self) -> str:
        """The run's `no_valid_idea: ...` reason: drafts written and the gates they failed."""
        return no_idea_detail(getattr(self, "_state", None), self.config.search_config())

    def summary_section(self, ideas: list[IdeaRecord]) -> str:
        st: SearchState | None = getattr(self, "_state", None)
        if st is None:
            return ""
        return archive_summary(st, self._cfg)


def archive_summary(st: SearchState, cfg: IdeagentConfig) -> str:
    """Markdown: the four stores, routing counts and the final lineages (for summary.md)."""
    a = st.archive
    routes = Counter(r["route"] for r in st.decisions)
    lines = [
        f"- Seeds: {st.next_seed}/{cfg.seeds}; drafts: {len(st.drafts)}; capacity {a.capacity}"
        + (f"; resumed at seed(s) {', '.join(map(str, st.resumed_at))}" if st.resumed_at else ""),
        f"- Archive: {len(a.active)} active, {len(a.history)} in history, {len(a.repair_queue)} queued for repair, "
        f"{len(a.families)} rejection famil{'y' if len(a.families) == 1 else 'ies'}",
        "- Routing: " + ", ".join(f"{k} {v}" for k, v in sorted(routes.items())),
        "",
        "| lineage | draft | title | Q | N | S | C | D | F | drafts in lineage |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for d in final_ideas(st, cfg):
        s = d.scores.summary(cfg) if d.scores else {}
        lin = " → ".join(f"{x.id} ({x.outcome})" for x in lineage_history(st, d.lineage))
        title = d.title.replace("|", "/")
        lines.append(f"| {d.lineage} | {d.id} | {title} | {s.get('Q')} | {s.get('N')} | {s.get('S')} | {s.get('C')} "
                     f"| {s.get('D')} | {s.get('F')} | {lin} |")
    if a.families:
        lines += ["", "Rejection families:"]
        lines += [f"- {f.id} ({len(f.members)}): {f.pattern}" for f in a.families]
    if a.history:
        lines += ["", "History (superseded ideas and qualified newcomers that lost):"]
        for d in a.history:
            r = d.retired
            how = (f"superseded by {r.against}" if r.why == "superseded" else f"lost to {r.against}") if r else "?"
            lines.append(f"- {d.id} [{d.lineage}] {d.title.replace('|', '/')}: {how} ({r.reason if r else ''})")
    return "\n".join(lines)


class _CtxLLM:
    """The search's RoleLLM over the run context: role names are the method's namespaced roles."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    async def structured(self, role: str, messages: Any, schema: Any, **kwargs: Any) -> Any:
        return await self.ctx.llm(role).structured(messages, schema, **kwargs)
