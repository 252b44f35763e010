"""A SoIQ session: several ideas on one topic, each explored, deliberated, grounding-checked.

Every step is recorded in the run directory (see `agents.runs`) and checkpointed in state.json:
after exploration, after every deliberation round, after the decision and after each idea. A
resumed session continues from the last checkpoint; steps after it are asked again (with the LLM
cache on, identical requests cost nothing).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel, Field, field_validator

from motivgraph.agents.runs import COMPLETED, FAILED, INTERRUPTED, RUNNING, RunDir, RunStateError, pid_alive
from motivgraph.agents.soiq import prompts
from motivgraph.agents.soiq.grounding import check_idea
from motivgraph.agents.soiq.idea import Idea
from motivgraph.agents.soiq.loop import ChatAgent, Invoke
from motivgraph.agents.soiq.mentor import ACCEPT, REJECT, Mentor
from motivgraph.agents.soiq.researcher import IdeaReply, Researcher
from motivgraph.agents.soiq.toolbox import ABLATIONS, SeenRecord, Toolbox, parse_ablations
from motivgraph.llm.tokens import content_text, count_message_tokens, count_tokens
from motivgraph.settings import Settings

log = logging.getLogger(__name__)

METHOD = "soiq"
STATE_VERSION = 1


class SessionConfig(BaseModel):
    """What a caller chooses per session; everything else comes from settings.agents."""

    topic: str = Field(min_length=3, max_length=500, description="Research topic or task description.")
    ideas: int = Field(1, ge=1, le=20, description="Ideas to attempt (each is accepted or rejected).")
    rounds: int | None = Field(None, ge=1, le=20, description="Mentor rounds before a forced decision.")
    ablations: list[str] = Field(default_factory=list, description=f"Any of: {', '.join(ABLATIONS)}.")
    tool_mode: str = Field("auto", pattern="^(auto|native|text)$",
                           description="native tool calls, the text <CALL> protocol, or auto (native when supported).")

    @field_validator("topic")
    @classmethod
    def _topic(cls, v: str) -> str:
        v = " ".join(v.split())
        if len(v) < 3:
            raise ValueError("topic must have at least 3 characters")
        return v

    @field_validator("ablations", mode="before")
    @classmethod
    def _abl(cls, v: Any) -> list[str]:
        return sorted(parse_ablations(v))


@dataclass
class SessionUsage:
    by_role: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, role: str, tokens_in: int, tokens_out: int, estimated: bool, cached: bool = False) -> None:
        r = self.by_role.setdefault(role, {"calls": 0, "input_tokens": 0, "output_tokens": 0, "estimated": 0,
                                           "cache_hits": 0})
        r["calls"] += 1
        r["cache_hits"] = r.get("cache_hits", 0) + int(cached)
        r["input_tokens"] += tokens_in
        r["output_tokens"] += tokens_out
        r["estimated"] += int(estimated)

    def total(self) -> dict[str, int]:
        t = {"calls": 0, "input_tokens": 0, "output_tokens": 0, "estimated": 0, "cache_hits": 0}
        for r in self.by_role.values():
            for k in t:
                t[k] += r.get(k, 0)
        return t

    def to_dict(self) -> dict[str, Any]:
        return {**{k: dict(v) for k, v in self.by_role.items()}, "total": self.total()}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> SessionUsage:
        return cls({k: dict(v) for k, v in (d or {}).items() if k != "total"})


def llm_invoker(llm: Any, usage: SessionUsage, emit: Callable[[dict[str, Any]], None]) -> Invoke:
    """invoke(role, messages, tools) through the LLM layer (cache, rate limit, retries, budget),
    counting this session's tokens per role from the reply (provider usage, else the estimate)."""

    async def invoke(role: str, messages: list[BaseMessage], tools: list[dict] | None) -> AIMessage:
        reply = await llm.chat(role, messages, tools=tools or None)
        cached = bool(reply.response_metadata.get("cache_hit"))
        meta = reply.usage_metadata
        if cached:
            tin = tout = 0
            est = False
        elif meta and (meta.get("input_tokens") or meta.get("output_tokens")):
            tin, tout, est = int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)), False
        else:
            tin = count_message_tokens(messages, tools)
            tout = count_tokens(content_text(reply.content))
            est = True
        usage.add(role, tin, tout, est, cached=cached)
        emit({"type": "usage", "agent": role, "input_tokens": tin, "output_tokens": tout, "estimated": est,
              "cache_hit": cached})
        return reply

    return invoke


@dataclass
class SessionResult:
    run_id: str
    status: str
    ideas: list[dict[str, Any]]
    rejected: int
    usage: dict[str, Any]
    run_dir: str


class SoiqSession:
    """Runs (or resumes) one SoIQ session in a run directory."""

    def __init__(
        self,
        settings: Settings,
        config: SessionConfig,
        run: RunDir,
        *,
        tool_client: Any,
        llm: Any,
        emit: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """`tool_client`: an agents.tools ToolClient; `llm`: a motivgraph.llm.LLMClient (roles
        'researcher' and 'mentor')."""
        self.settings = settings
        self.cfg = settings.agents
        self.config = config
        self.run_dir = run
        self.client = tool_client
        self.llm = llm
        self._listener = emit
        self.ablations = set(config.ablations)
        self.rounds = config.rounds or self.cfg.rounds
        self._ctx: dict[str, Any] = {}
        self.usage = SessionUsage()
        self.invoke = llm_invoker(llm, self.usage, self.emit)
        self.tool_mode = self._tool_mode()

    # ------------------------------------------------------------------ events
    def emit(self, event: dict[str, Any]) -> None:
        ev = self.run_dir.append({**self._ctx, **event})
        if self._listener is not None:
            try:
                self._listener(ev)
            except Exception:  # a broken viewer must not stop the session
                log.exception("session listener failed")

    def _tool_mode(self) -> str:
        mode = self.config.tool_mode if self.config.tool_mode != "auto" else self.cfg.tool_mode
        if mode == "auto":
            mode = "native" if self.llm.supports_tools("researcher") else "text"
        return mode

    # ------------------------------------------------------------------ state
    def _fresh_state(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "config": self.config.model_dump(), "index": 0, "results": [],
                "attempts": [], "seen": {}, "usage": {}, "toolbox_calls": 0, "current": None}

    def _checkpoint(self, state: dict[str, Any], toolbox: Toolbox) -> None:
        state["seen"] = toolbox.seen.to_dict()
        state["toolbox_calls"] = toolbox.calls
        state["usage"] = self.usage.to_dict()
        self.run_dir.save_state(state)
        self.run_dir.update_status(ideas_accepted=len(state["results"]),
                                   ideas_rejected=sum(1 for a in state["attempts"] if a["decision"] != ACCEPT),
                                   usage=self.usage.to_dict())

    # ------------------------------------------------------------------ run
    async def run(self) -> SessionResult:
        status = self.run_dir.status()
        if status.get("status") == COMPLETED:
            raise RunStateError(f"run {self.run_dir.id} is already completed; start a new session instead")
        owner = status.get("pid")
        if status.get("status") == RUNNING and owner != os.getpid() and pid_alive(owner):
            raise RunStateError(f"run {self.run_dir.id} is being run by process {owner}; wait for it or stop it first")
        state = self.run_dir.load_state() or self._fresh_state()
        resumed = state["index"] > 0 or state["current"] is not None
        # In place: the invoker holds this object and keeps counting from the restored totals.
        self.usage.by_role = SessionUsage.from_dict(state.get("usage")).by_role

        self.run_dir.update_status(status=RUNNING, pid=os.getpid(), error=None)
        self.emit({"type": "status", "status": RUNNING, "resumed": resumed, "tool_mode": self.tool_mode,
                   "ablations": sorted(self.ablations), "rounds": self.rounds, "ideas": self.config.ideas})
        toolbox = Toolbox(self.client, topic=self.config.topic, ablations=self.ablations,
                          seed=self.settings.miner.seed, render_chars=self.settings.api.render_token_cap * 4,
                          seen=SeenRecord.from_dict(state.get("seen")))
        toolbox.calls = int(state.get("toolbox_calls", 0))
        try:
            while state["index"] < self.config.ideas:
                await self._one_idea(state, toolbox)
        except BaseException as e:
            self._ctx = {}
            kind = INTERRUPTED if isinstance(e, KeyboardInterrupt | asyncio.CancelledError) else FAILED
            msg = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            # Event first, then status: a reader that sees the terminal status has every event.
            self.emit({"type": "status", "status": kind, "error": msg})
            self.run_dir.update_status(status=kind, error=msg)
            raise
        self._ctx = {}
        self.run_dir.write_ideas(state["results"])
        self.run_dir.write_summary(self._summary(state))
        self.emit({"type": "status", "status": COMPLETED, "accepted": len(state["results"]),
                   "rejected": len(state["attempts"]) - len(state["results"]), "usage": self.usage.to_dict()})
        self.run_dir.update_status(status=COMPLETED, ideas_accepted=len(state["results"]), usage=self.usage.to_dict())
        return SessionResult(self.run_dir.id, COMPLETED, state["results"],
                             len(state["attempts"]) - len(state["results"]), self.usage.to_dict(),
                             str(self.run_dir.path))

    # ------------------------------------------------------------------ one idea
    def _agents(self, toolbox: Toolbox) -> tuple[Researcher, Mentor]:
        budget = self.cfg.context_token_budget
        r_agent = ChatAgent("researcher", self.invoke, toolbox=toolbox, tool_mode=self.tool_mode,  # type: ignore[arg-type]
                            context_budget=budget, emit=self.emit)
        m_agent = ChatAgent("mentor", self.invoke, context_budget=budget, emit=self.emit)
        return (Researcher(r_agent, topic=self.config.topic, idea_reasks=self.cfg.idea_reasks,
                           require_random_draw=self.cfg.require_random_draw),
                Mentor(m_agent, topic=self.config.topic, max_rounds=self.rounds))

    async def _one_idea(self, state: dict[str, Any], toolbox: Toolbox) -> None:
        i = state["index"]
        self._ctx = {"idea": i + 1}
        researcher, mentor = self._agents(toolbox)
        cur = state.get("current")
        if cur is None:
            self._ctx["phase"] = "exploration"
            self.emit({"type": "phase", "phase": "exploration"})
            researcher.start()
            previous = [(a["title"], a["abstract"]) for a in state["attempts"] if a.get("title")]
            rep = await researcher.explore(previous, self.cfg.tool_calls_per_phase)
            self._note_reply(rep, "exploration")
            if rep.idea is None:
                await self._finish_attempt(state, toolbox, None, "NO_IDEA", reason=rep.error)
                return
            cur = {"stage": "deliberate", "round": 0, "idea": rep.idea.to_json(), "last_answer": None,
                   "history": [{"round": 0, "aspect": None, "idea": rep.idea.to_json()}], "questions": [],
                   "researcher": researcher.agent.dump(), "mentor": [], "decision": None, "fixed": False}
            state["current"] = cur
            self._checkpoint(state, toolbox)
        else:
            researcher.agent.load(cur["researcher"])
            mentor.agent.load(cur["mentor"])
            self.emit({"type": "resumed", "stage": cur["stage"], "round": cur["round"]})

        if cur["stage"] == "deliberate":
            await self._deliberate(state, cur, researcher, mentor, toolbox)
        if cur["stage"] == "ground":
            await self._ground(state, cur, researcher, toolbox)

    def _note_reply(self, rep: IdeaReply, phase: str) -> None:
        if rep.idea is not None:
            self.emit({"type": "idea", "phase": phase, "idea_json": rep.idea.to_json(), "repaired": rep.repaired,
                       "reasks": rep.reasks})
        else:
            self.emit({"type": "idea_invalid", "phase": phase, "error": rep.error, "reasks": rep.reasks})

    async def _deliberate(self, state: dict[str, Any], cur: dict[str, Any], researcher: Researcher, mentor: Mentor,
                    toolbox: Toolbox) -> None:
        import json

        self._ctx["phase"] = "deliberation"
        if cur["round"] == 0 and not cur["mentor"]:
            self.emit({"type": "phase", "phase": "deliberation", "mentor": "no_mentor" not in self.ablations})
        decision: dict[str, Any] | None = None
        if "no_mentor" in self.ablations:
            # The ablation: the researcher questions and revises its own idea, then keeps it.
            n = self.cfg.self_review_rounds
            while cur["round"] < n:
                r = cur["round"] + 1
                self._ctx["round"] = r
                aspect = prompts.ASPECTS[(r - 1) % len(prompts.ASPECTS)]
                rep = await researcher.self_review(r, n, aspect, self.cfg.tool_calls_per_round)
                await self._after_answer(state, cur, researcher, mentor, toolbox, rep, r, aspect)
            decision = {"decision": ACCEPT, "by": "self", "forced": False, "text": "no mentor (ablation)"}
        else:
            if not cur["mentor"]:
                mentor.start()
            while cur["round"] < self.rounds:
                r = cur["round"] + 1
                self._ctx["round"] = r
                idea_text = json.dumps(cur["idea"], indent=2, ensure_ascii=False)
                turn = await mentor.ask(r, idea_text, cur["last_answer"])
                if turn.decision:
                    decision = {"decision": turn.decision, "by": "mentor", "forced": False, "text": turn.text}
                    break
                self.emit({"type": "question", "aspect": turn.aspect, "text": turn.text})
                cur["questions"].append({"round": r, "aspect": turn.aspect})
                rep = await researcher.answer(turn.text, self.cfg.tool_calls_per_round)
                await self._after_answer(state, cur, researcher, mentor, toolbox, rep, r, turn.aspect)
            if decision is None:
                self._ctx["round"] = "final"
                idea_text = json.dumps(cur["idea"], indent=2, ensure_ascii=False)
                turn, defaulted = await mentor.final(idea_text, cur["last_answer"] or "")
                decision = {"decision": turn.decision, "by": "mentor", "forced": True, "defaulted": defaulted,
                            "text": turn.text}
        self._ctx.pop("round", None)
        self.emit({"type": "decision", **decision, "rounds": cur["round"]})
        cur["decision"] = decision
        cur["stage"] = "ground"
        cur["researcher"], cur["mentor"] = researcher.agent.dump(), mentor.agent.dump()
        self._checkpoint(state, toolbox)

    async def _after_answer(self, state: dict[str, Any], cur: dict[str, Any], researcher: Researcher, mentor: Mentor,
                      toolbox: Toolbox, rep: IdeaReply, r: int, aspect: str | None) -> None:
        self._note_reply(rep, "deliberation")
        if rep.idea is not None:
            cur["idea"] = rep.idea.to_json()
        cur["history"].append({"round": r, "aspect": aspect, "idea": cur["idea"], "changed": rep.idea is not None})
        cur["last_answer"] = rep.text
        cur["round"] = r
        cur["researcher"], cur["mentor"] = researcher.agent.dump(), mentor.agent.dump()
        self._checkpoint(state, toolbox)

    async def _ground(
        self, state: dict[str, Any], cur: dict[str, Any], researcher: Researcher, toolbox: Toolbox
    ) -> None:
        decision = cur["decision"]["decision"]
        if decision != ACCEPT:
            await self._finish_attempt(state, toolbox, cur, decision)
            return
        self._ctx["phase"] = "grounding"
        idea = Idea.model_validate(cur["idea"])
        report = await check_idea(idea.text(), self.client, toolbox.seen.papers)
        self.emit({"type": "grounding", "attempt": 1, **report.to_dict()})
        reports = [report.to_dict()]
        if report.flagged and self.cfg.fix_unresolved_links and not cur["fixed"]:
            cur["fixed"] = True
            rep = await researcher.fix_links(report.problems_text(), self.cfg.tool_calls_per_round)
            self._note_reply(rep, "grounding")
            if rep.idea is not None:
                idea = rep.idea
                cur["idea"] = idea.to_json()
                cur["history"].append({"round": "fix", "aspect": "grounding", "idea": cur["idea"], "changed": True})
                report = await check_idea(idea.text(), self.client, toolbox.seen.papers)
                self.emit({"type": "grounding", "attempt": 2, **report.to_dict()})
                reports.append(report.to_dict())
        cur["grounding"] = report.to_dict()
        cur["grounding_attempts"] = reports
        await self._finish_attempt(state, toolbox, cur, decision)

    async def _finish_attempt(self, state: dict[str, Any], toolbox: Toolbox, cur: dict[str, Any] | None, decision: str,
                        reason: str | None = None) -> None:
        i = state["index"]
        idea = (cur or {}).get("idea") or {}
        attempt = {"index": i + 1, "title": idea.get("Title", ""), "abstract": idea.get("Abstract", ""),
                   "decision": decision, "reason": reason}
        state["attempts"].append(attempt)
        if decision == ACCEPT and cur is not None:
            g = cur.get("grounding") or {}
            state["results"].append({
                "index": i + 1,
                "idea": cur["idea"],
                "decision": cur["decision"],
                "rounds": cur["round"],
                "aspects": [q["aspect"] for q in cur["questions"]],
                "history": cur["history"],
                "grounding": g,
                "grounding_attempts": cur.get("grounding_attempts", []),
                "flagged": bool(g.get("flagged")),
            })
        self.emit({"type": "idea_done", "decision": decision, "title": attempt["title"], "reason": reason,
                   **({"idea_json": idea} if decision != ACCEPT and idea else {})})
        state["index"] = i + 1
        state["current"] = None
        self._checkpoint(state, toolbox)
        self.run_dir.write_ideas(state["results"])

    # ------------------------------------------------------------------ summary
    def _summary(self, state: dict[str, Any]) -> str:
        u = self.usage.to_dict()
        lines = [f"# SoIQ session {self.run_dir.id}", "", f"- Topic: {self.config.topic}",
                 f"- Ideas attempted: {len(state['attempts'])}, accepted: {len(state['results'])}",
                 f"- Rounds limit: {self.rounds}; tool mode: {self.tool_mode}; "
                 f"ablations: {', '.join(sorted(self.ablations)) or 'none'}",
                 f"- LLM calls: {u['total']['calls']}, tokens in/out: {u['total']['input_tokens']}/"
                 f"{u['total']['output_tokens']}", ""]
        for a in state["attempts"]:
            lines.append(f"## {a['index']}. {a['title'] or '(no idea)'} — {a['decision']}")
            res = next((r for r in state["results"] if r["index"] == a["index"]), None)
            if res:
                g = res["grounding"]
                lines.append(f"- Rounds: {res['rounds']}; aspects: {', '.join(str(x) for x in res['aspects']) or '-'}")
                lines.append(f"- Graph links resolved: {g.get('links_resolved', 0)}/{g.get('links_total', 0)}; "
                             f"citations matched: {g.get('citations_resolved', 0)}/{g.get('citations_total', 0)}"
                             + ("; **flagged**" if res["flagged"] else ""))
                lines.append("")
                lines.append(str(res["idea"].get("Abstract", "")))
            lines.append("")
        return "\n".join(lines)


__all__ = ["ACCEPT", "REJECT", "SessionConfig", "SessionResult", "SoiqSession"]
