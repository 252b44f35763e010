"""SoIQ as a platform method: several ideas on one topic, each explored, deliberated with a mentor,
grounding-checked. The first registered method (`agents/core/registry.py`).

Checkpoints (typed `SoiqState`, version 2) are saved after exploration, after every deliberation
round, after the decision and after each idea; a resumed run continues from the last one (steps
after it are asked again; with the LLM cache on, identical requests cost nothing). Version 1 — the
untyped dict of the old SoiqSession — is migrated.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from motivgraph.agents.core.context import RunContext
from motivgraph.agents.core.grounding import check_idea
from motivgraph.agents.core.idea import IdeaRecord, Provenance
from motivgraph.agents.core.llm import tool_mode_for
from motivgraph.agents.core.loop import ChatAgent
from motivgraph.agents.core.method import CostPlan, Method, MethodConfig
from motivgraph.agents.core.toolbox import TOOL_ABLATIONS, Toolbox
from motivgraph.agents.soiq import prompts
from motivgraph.agents.soiq.idea import Idea
from motivgraph.agents.soiq.mentor import ACCEPT, REJECT, Mentor
from motivgraph.agents.soiq.researcher import IdeaReply, Researcher
from motivgraph.choices import ToolMode, ToolModeChoice
from motivgraph.settings import get_settings

log = logging.getLogger(__name__)

ABLATIONS = ("no_mentor", *TOOL_ABLATIONS)


def parse_ablations(value: Any) -> set[str]:
    """'no_mentor,no_graph' -> {'no_mentor', 'no_graph'}; ValueError naming the valid switches."""
    if value is None:
        return set()
    if not isinstance(value, (str, list, tuple, set)):
        raise ValueError(f"ablations must be a list of names, not {type(value).__name__}")
    items = value.split(",") if isinstance(value, str) else list(value)
    wrong = [i for i in items if not isinstance(i, str)]
    if wrong:  # a number or an object in the list is the caller's mistake (a 422), not a crash further on
        raise ValueError(f"each ablation is a name (one of {', '.join(ABLATIONS)}), not {type(wrong[0]).__name__} "
                         f"{wrong[0]!r}")
    out = {i.strip().lower().replace("-", "_") for i in items if i and i.strip()}
    bad = sorted(out - set(ABLATIONS))
    if bad:
        raise ValueError(f"unknown ablation {', '.join(bad)}; valid: {', '.join(ABLATIONS)}")
    return out


class SoiqConfig(MethodConfig):
    """What a caller chooses per SoIQ run; everything else comes from settings.agents."""

    ideas: int | None = Field(None, ge=1, le=20, description="Ideas to attempt (default MOTIVGRAPH_AGENTS_IDEAS).")
    rounds: int | None = Field(None, ge=1, le=20,
                               description="Mentor rounds before a forced decision (default MOTIVGRAPH_AGENTS_ROUNDS).")
    # The schema states the valid switches (an enum), so a schema-valid body is an accepted one; the validator
    # is laxer still (a comma string, any case, '-' for '_') for the CLI.
    ablations: list[str] = Field(default_factory=list, max_length=len(ABLATIONS),
                                 description=f"Any of: {', '.join(ABLATIONS)}.",
                                 json_schema_extra={"items": {"type": "string", "enum": list(ABLATIONS)}})
    tool_mode: ToolModeChoice = Field(
        "auto", description="native tool calls, the text <CALL> protocol, JSON actions under schema-constrained "
                            "decoding, or auto (native when supported, else constrained when the server "
                            "constrains output, else text).")

    @field_validator("ablations", mode="before")
    @classmethod
    def _abl(cls, v: Any) -> list[str]:
        return sorted(parse_ablations(v))


class Attempt(BaseModel):
    index: int
    title: str = ""
    abstract: str = ""
    decision: str
    reason: str | None = None


class Current(BaseModel):
    """The idea being worked on: where it stands and both conversations."""

    stage: Literal["deliberate", "ground"] = "deliberate"
    round: int = 0
    idea: dict[str, str]
    last_answer: str | None = None
    history: list[dict[str, Any]] = Field(default_factory=list)
    questions: list[dict[str, Any]] = Field(default_factory=list)
    researcher: list[dict[str, Any]] = Field(default_factory=list)
    mentor: list[dict[str, Any]] = Field(default_factory=list)
    decision: dict[str, Any] | None = None
    fixed: bool = False
    grounding: dict[str, Any] | None = None
    grounding_attempts: list[dict[str, Any]] = Field(default_factory=list)


class SoiqState(BaseModel):
    index: int = 0
    ideas: list[IdeaRecord] = Field(default_factory=list)  # every idea with a decision (accepted or rejected)
    attempts: list[Attempt] = Field(default_factory=list)
    current: Current | None = None
    # the attempts of this topic's earlier runs (a top-up run in an evaluation): the researcher is shown
    # them with its own, so the rejected and accepted ideas of those runs are not proposed again
    carried: list[Attempt] = Field(default_factory=list)


class SoiqExtra(BaseModel):
    """SoIQ's part of an idea record."""

    index: int
    idea_json: dict[str, str] = Field(description="The idea as the researcher wrote it (the prompt's field names).")
    decision: dict[str, Any] = Field(default_factory=dict)
    rounds: int | str = 0
    aspects: list[str | None] = Field(default_factory=list)
    history: list[dict[str, Any]] = Field(default_factory=list)
    grounding_report: dict[str, Any] = Field(default_factory=dict,
                                             description="The counted report shown to the researcher.")
    grounding_attempts: list[dict[str, Any]] = Field(default_factory=list)


def record_fields(idea: dict[str, str]) -> dict[str, str]:
    """SoIQ's idea JSON onto the idea record's core fields."""
    return {"name": idea.get("Name", ""), "title": idea.get("Title", "") or "(untitled)",
            "motivation": idea.get("Motivation", ""), "related_work": idea.get("Related Work", ""),
            "abstract": idea.get("Abstract", ""), "method": idea.get("Method", ""),
            "experiments": idea.get("Experiments plan", ""), "risks": idea.get("Risk Factors and Limitations", "")}


class SoiqMethod(Method[SoiqConfig, SoiqState]):
    """MotivGraph-SoIQ: a researcher explores the graph and writes an idea; a mentor questions it
    one aspect per round and accepts or rejects; accepted ideas are grounding-checked."""

    name = "soiq"
    summary = "Socratic ideation: researcher explores the graph, mentor questions, grounded ideas."
    config_model = SoiqConfig
    state_model = SoiqState
    state_version = 2
    roles = ("researcher", "mentor")
    extra_model = SoiqExtra
    top_up_memory = ("its attempts: the earlier runs' ideas, rejected and accepted, are listed to the researcher "
                     "as already proposed")
    graph_background = False  # the researcher explores the graph itself

    def prompt_templates(self) -> dict[str, str]:
        return prompts.templates()

    # ------------------------------------------------------------------ migration
    def migrate_state(self, data: dict[str, Any], from_version: int) -> dict[str, Any]:
        if from_version != 1:
            return super().migrate_state(data, from_version)
        # Version 1: SoiqSession's untyped dict; results held the idea JSON and SoIQ's fields.
        ideas = []
        for r in data.get("results") or []:
            g = r.get("grounding") or {}
            ideas.append({
                **record_fields(r.get("idea") or {}), "status": "accepted",
                "provenance": Provenance(method=self.name, run_id="", topic=str((data.get("config") or {})
                                                                                 .get("topic", ""))).model_dump(),
                "extra": SoiqExtra(index=r.get("index", 0), idea_json=r.get("idea") or {},
                                   decision=r.get("decision") or {}, rounds=r.get("rounds", 0),
                                   aspects=r.get("aspects") or [], history=r.get("history") or [],
                                   grounding_report=g, grounding_attempts=r.get("grounding_attempts") or [],
                                   ).model_dump(mode="json"),
            })
        return {"index": data.get("index", 0), "ideas": ideas, "attempts": data.get("attempts") or [],
                "current": data.get("current")}

    # ------------------------------------------------------------------ cost
    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        """Per idea: exploration (one call per tool call plus the idea), then every mentor round
        asked (question + answer with its tool calls), the final decision and one grounding fix.
        Prompt sizes grow with the conversation up to the context budget: this is an upper bound
        from the settings, not a measurement (python -m motivgraph.agents.soiq.cost measures one)."""

        cfg = (plan.settings or get_settings()).agents
        ideas = self.config.ideas or cfg.ideas
        rounds = self.config.rounds or cfg.rounds
        system, idea_out, question_out, budget = 1500, 1500, 250, cfg.context_token_budget
        explore = cfg.tool_calls_per_phase + 1
        per_round = cfg.tool_calls_per_round + 1
        r_calls = explore + rounds * per_round + 1
        m_calls = rounds + 1
        # The researcher's context grows from the system prompt (+ background) towards the budget.
        r_avg_in = min(budget, system + background_tokens + 600 * (r_calls // 2))
        m_avg_in = min(budget, 1000 + idea_out * (rounds + 1))  # the idea and each answer pile up
        plan.add("researcher", calls=ideas * r_calls, input_tokens=ideas * r_calls * r_avg_in,
                 output_tokens=ideas * (explore * 150 + (rounds + 1) * idea_out))
        plan.add("mentor", calls=ideas * m_calls, input_tokens=ideas * m_calls * m_avg_in,
                 output_tokens=ideas * m_calls * question_out)
        if "no_mentor" in self.config.ablations:
            plan.notes.append("no_mentor: the mentor's calls above are replaced by self-review rounds")

    # ------------------------------------------------------------------ run
    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        self.ctx = ctx
        self.cfg = ctx.settings.agents
        self.ideas_n = self.config.ideas or self.cfg.ideas
        self.rounds = self.config.rounds or self.cfg.rounds
        self.ablations = set(self.config.ablations)
        state = ctx.load_checkpoint()
        if state is None:
            state = SoiqState(carried=[a for st in ctx.earlier_states() for a in st.attempts])
            if state.carried:
                ctx.emit({"type": "memory", "carried_attempts": len(state.carried), "from": ctx.spec.memory_from})
        self.tool_mode = self._tool_mode()
        self.toolbox: Toolbox | None = (ctx.make_toolbox(ablations=self.ablations & set(TOOL_ABLATIONS))
                                        if ctx.has_tools else None)
        ctx.emit({"type": "soiq", "tool_mode": self.tool_mode, "ablations": sorted(self.ablations),
                  "rounds": self.rounds, "ideas": self.ideas_n, "tools": self.toolbox is not None})
        self._attempts = state.attempts
        while state.index < self.ideas_n:
            await self._one_idea(state)
        ctx.scope = {}
        return state.ideas

    def no_idea_detail(self) -> str:
        """Why no idea was accepted, attempt by attempt (status.json's `no_valid_idea: ...`)."""
        parts = [f"idea {a.index}: {a.reason or a.decision}" for a in getattr(self, "_attempts", [])]
        return "; ".join(parts) or "no idea was attempted"

    def _tool_mode(self) -> ToolMode:
        return tool_mode_for(self.ctx.llm("researcher"), self.config.tool_mode, self.cfg.tool_mode)

    def _checkpoint(self, state: SoiqState) -> None:
        self.ctx.save_checkpoint(state)

    def _agents(self) -> tuple[Researcher, Mentor]:
        ctx = self.ctx
        # Never past what the model's context window leaves after its reply cap (e.g. a local model's 8k).
        caps = [c for c in (ctx.llm("researcher").prompt_budget(), ctx.llm("mentor").prompt_budget()) if c]
        budget = min([self.cfg.context_token_budget, *caps])
        r_agent = ChatAgent("researcher", ctx.llm("researcher").invoke, toolbox=self.toolbox,
                            tool_mode=self.tool_mode, context_budget=budget, emit=ctx.emit,
                            budget_exhausted_prompt=prompts.BUDGET_EXHAUSTED, decide=ctx.llm("researcher").decide)
        m_agent = ChatAgent("mentor", ctx.llm("mentor").invoke, context_budget=budget, emit=ctx.emit)
        background = ctx.background.as_text(max_papers=8, chars_per_paper=900) if ctx.background.papers else ""
        return (Researcher(r_agent, topic=ctx.topic, idea_reasks=self.cfg.idea_reasks,
                           require_random_draw=self.cfg.require_random_draw and self.toolbox is not None,
                           background=background),
                Mentor(m_agent, topic=ctx.topic, max_rounds=self.rounds))

    async def _one_idea(self, state: SoiqState) -> None:
        ctx = self.ctx
        ctx.scope = {"idea": state.index + 1}
        researcher, mentor = self._agents()
        cur = state.current
        if cur is None:
            ctx.scope["phase"] = "exploration"
            ctx.emit({"type": "phase", "phase": "exploration"})
            researcher.start()
            previous = [(a.title, a.abstract) for a in (*state.carried, *state.attempts) if a.title]
            rep = await researcher.explore(previous, self.cfg.tool_calls_per_phase)
            self._note_reply(rep, "exploration")
            if rep.idea is None:
                await self._finish_attempt(state, None, "NO_IDEA", reason=rep.error)
                return
            idea = rep.idea.to_json()
            cur = Current(idea=idea, history=[{"round": 0, "aspect": None, "idea": idea}],
                          researcher=researcher.agent.dump())
            state.current = cur
            self._checkpoint(state)
        else:
            researcher.agent.load(cur.researcher)
            mentor.agent.load(cur.mentor)
            ctx.emit({"type": "resumed", "stage": cur.stage, "round": cur.round})
        if cur.stage == "deliberate":
            await self._deliberate(state, cur, researcher, mentor)
        if cur.stage == "ground":
            await self._ground(state, cur, researcher)

    def _note_reply(self, rep: IdeaReply, phase: str) -> None:
        if rep.idea is not None:
            self.ctx.emit({"type": "idea", "phase": phase, "idea_json": rep.idea.to_json(), "repaired": rep.repaired,
                           "reasks": rep.reasks})
        else:
            self.ctx.emit({"type": "idea_invalid", "phase": phase, "error": rep.error, "reasks": rep.reasks})

    async def _deliberate(self, state: SoiqState, cur: Current, researcher: Researcher, mentor: Mentor) -> None:
        ctx = self.ctx
        ctx.scope["phase"] = "deliberation"
        if cur.round == 0 and not cur.mentor:
            ctx.emit({"type": "phase", "phase": "deliberation", "mentor": "no_mentor" not in self.ablations})
        decision: dict[str, Any] | None = None
        if "no_mentor" in self.ablations:
            # The ablation: the researcher questions and revises its own idea, then keeps it.
            n = self.cfg.self_review_rounds
            while cur.round < n:
                r = cur.round + 1
                ctx.scope["round"] = r
                aspect = prompts.ASPECTS[(r - 1) % len(prompts.ASPECTS)]
                rep = await researcher.self_review(r, n, aspect, self.cfg.tool_calls_per_round)
                self._after_answer(state, cur, researcher, mentor, rep, r, aspect)
            decision = {"decision": ACCEPT, "by": "self", "forced": False, "text": "no mentor (ablation)"}
        else:
            if not cur.mentor:
                mentor.start()
            while cur.round < self.rounds:
                r = cur.round + 1
                ctx.scope["round"] = r
                turn = await mentor.ask(r, json.dumps(cur.idea, indent=2, ensure_ascii=False), cur.last_answer)
                if turn.decision:
                    decision = {"decision": turn.decision, "by": "mentor", "forced": False, "round": r,
                                "text": turn.text}
                    break
                ctx.emit({"type": "question", "aspect": turn.aspect, "text": turn.text})
                cur.questions.append({"round": r, "aspect": turn.aspect})
                rep = await researcher.answer(turn.text, self.cfg.tool_calls_per_round)
                self._after_answer(state, cur, researcher, mentor, rep, r, turn.aspect)
            if decision is None:
                ctx.scope["round"] = "final"
                idea_text = json.dumps(cur.idea, indent=2, ensure_ascii=False)
                turn, defaulted = await mentor.final(idea_text, cur.last_answer or "")
                decision = {"decision": turn.decision, "by": "mentor", "forced": True, "defaulted": defaulted,
                            "text": turn.text}
        ctx.scope.pop("round", None)
        ctx.emit({"type": "decision", **decision, "rounds": cur.round})
        cur.decision = decision
        cur.stage = "ground"
        cur.researcher, cur.mentor = researcher.agent.dump(), mentor.agent.dump()
        self._checkpoint(state)

    def _after_answer(self, state: SoiqState, cur: Current, researcher: Researcher, mentor: Mentor, rep: IdeaReply,
                      r: int, aspect: str | None) -> None:
        self._note_reply(rep, "deliberation")
        if rep.idea is not None:
            cur.idea = rep.idea.to_json()
        cur.history.append({"round": r, "aspect": aspect, "idea": cur.idea, "changed": rep.idea is not None})
        cur.last_answer = rep.text
        cur.round = r
        cur.researcher, cur.mentor = researcher.agent.dump(), mentor.agent.dump()
        self._checkpoint(state)

    async def _ground(self, state: SoiqState, cur: Current, researcher: Researcher) -> None:
        ctx = self.ctx
        decision = (cur.decision or {}).get("decision", REJECT)
        if decision != ACCEPT:
            await self._finish_attempt(state, cur, decision)
            return
        ctx.scope["phase"] = "grounding"
        idea = Idea.model_validate(cur.idea)
        papers = ctx.seen.papers + ctx.background.citable_papers()
        report = await check_idea(idea.text(), ctx.tool_client, papers) if ctx.has_tools else None
        reports = []
        if report is not None:
            ctx.emit({"type": "grounding", "attempt": 1, **report.to_dict()})
            reports.append(report.to_dict())
            if report.flagged and self.cfg.fix_unresolved_links and not cur.fixed:
                cur.fixed = True
                rep = await researcher.fix_links(report.problems_text(), self.cfg.tool_calls_per_round)
                self._note_reply(rep, "grounding")
                if rep.idea is not None:
                    idea = rep.idea
                    cur.idea = idea.to_json()
                    cur.history.append({"round": "fix", "aspect": "grounding", "idea": cur.idea, "changed": True})
                    report = await check_idea(idea.text(), ctx.tool_client, papers)
                    ctx.emit({"type": "grounding", "attempt": 2, **report.to_dict()})
                    reports.append(report.to_dict())
        cur.grounding = report.to_dict() if report is not None else {}
        cur.grounding_attempts = reports
        await self._finish_attempt(state, cur, decision)

    async def _finish_attempt(self, state: SoiqState, cur: Current | None, decision: str,
                              reason: str | None = None) -> None:
        ctx = self.ctx
        i = state.index
        idea = cur.idea if cur is not None else {}
        if reason is None:
            reason = attempt_reason(decision, cur)
        elif decision == "NO_IDEA":
            reason = f"the researcher wrote no valid idea: {reason}"
        state.attempts.append(Attempt(index=i + 1, title=idea.get("Title", ""), abstract=idea.get("Abstract", ""),
                                      decision=decision, reason=reason))
        if cur is not None and idea:
            extra = SoiqExtra(index=i + 1, idea_json=idea, decision=cur.decision or {}, rounds=cur.round,
                              aspects=[q["aspect"] for q in cur.questions], history=cur.history,
                              grounding_report=cur.grounding or {}, grounding_attempts=cur.grounding_attempts)
            accepted = decision == ACCEPT
            # a rejected idea says why in SoIQ's own terms (the mentor's decision), as every method's rejection does
            rec = ctx.new_idea(**record_fields(idea), status="accepted" if accepted else "rejected",
                               rejection=None if accepted else reason, extra=extra)
            state.ideas.append(await ctx.ground(rec))
        ctx.emit({"type": "idea_done", "decision": decision, "title": idea.get("Title", ""), "reason": reason,
                  **({"idea_json": idea} if decision != ACCEPT and idea else {})})
        state.index = i + 1
        state.current = None
        self._checkpoint(state)
        ctx.write_ideas(state.ideas)

    # ------------------------------------------------------------------ summary.md
    def summary_section(self, ideas: list[IdeaRecord]) -> str:
        lines = [f"- Rounds limit: {self.rounds}; tool mode: {self.tool_mode}; "
                 f"ablations: {', '.join(sorted(self.ablations)) or 'none'}"]
        for rec in ideas:
            x = rec.extra_as(SoiqExtra)
            d = x.decision.get("decision", "?")
            lines.append(f"- Idea {x.index} ({rec.title}): {d}"
                         + (" (round limit)" if x.decision.get("forced") else "")
                         + f" after {x.rounds} round(s); aspects: {', '.join(str(a) for a in x.aspects) or '-'}")
        return "\n".join(lines)


def attempt_reason(decision: str, cur: Current | None) -> str | None:
    """Why an attempt ended without an accepted idea, in words (None when it was accepted)."""
    if decision == ACCEPT:
        return None
    if decision == "NO_IDEA" or cur is None:
        return "the researcher wrote no valid idea"
    d = cur.decision or {}
    if d.get("defaulted"):
        return f"the mentor gave no decision after all {cur.round} round(s), so the idea was rejected"
    if d.get("forced"):
        return f"the mentor rejected it after all {cur.round} round(s)"
    return f"the mentor rejected it in round {d.get('round', cur.round + 1)}"
