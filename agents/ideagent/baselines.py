"""The four baselines of the IDEAgent paper, as platform methods sharing IDEAgent's ideator,
background, tools, idea record and budget accounting (every call through the LLM layer):

- stateless:          N independent generations; nothing is shared between them;
- one_shot:           all N ideas in one reply;
- sequential_memory:  N ideas one after another, each prompt listing the signatures of those
                      already written (IDEAgent without judges, repair or refinement);
- nova:               `nova_rounds` rounds of N sequential-memory ideas; after each round but the
                      last a judge picks K seeds that the next round's ideas grow from; finally the
                      judge picks the N most diverse of all rounds' ideas.
Checkpoints after every idea (and every judge pick); a stopped run resumes where it stopped.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from langchain_core.messages import AIMessage
from pydantic import BaseModel, Field

from motivgraph.agents.core.context import RunContext
from motivgraph.agents.core.idea import IdeaRecord
from motivgraph.agents.core.loop import ChatAgent
from motivgraph.agents.core.method import CostPlan, Method, MethodConfig
from motivgraph.agents.ideagent import prompts as P
from motivgraph.agents.ideagent.archive import Draft
from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.cost import estimate_baseline
from motivgraph.agents.ideagent.judges import IdeaList, IdeaText, Selection, msgs
from motivgraph.agents.ideagent.signature import Signature
from motivgraph.agents.ideagent.writer import (
    IDEATOR_TOOL_MODE,
    ToolWriter,
    background_text,
    record_fields,
    tool_mode,
)
from motivgraph.choices import ToolModeChoice
from motivgraph.errors import ReplyProblem, StructuredOutputError
from motivgraph.llm import structured as so

log = logging.getLogger(__name__)


class BaselineConfig(MethodConfig):
    ideas: int | None = Field(None, ge=1, le=20, description="N: ideas returned (default MOTIVGRAPH_AGENTS_IDEAS).")
    tool_mode: ToolModeChoice = Field("auto", description=IDEATOR_TOOL_MODE)
    ideator_tool_calls: int | None = Field(
        None, ge=0, le=30, description="Most tool calls per idea (default MOTIVGRAPH_IDEAGENT_IDEATOR_TOOL_CALLS).")


class NovaConfig(BaselineConfig):
    rounds: int | None = Field(None, ge=1, le=10, description="Rounds (default MOTIVGRAPH_IDEAGENT_NOVA_ROUNDS).")
    seeds: int | None = Field(None, ge=1, le=20,
                              description="K seeds per round (default MOTIVGRAPH_IDEAGENT_NOVA_SEEDS).")


class BaselineItem(BaseModel):
    id: str
    round: int = 1
    idea: dict[str, Any]
    signature: Signature | None = None
    grown_from: str | None = None


class BaselineState(BaseModel):
    items: list[BaselineItem] = Field(default_factory=list)
    # the items of this topic's earlier runs (a top-up run): sequential memory lists their signatures too
    carried: list[BaselineItem] = Field(default_factory=list)
    picks: dict[str, list[str]] = Field(default_factory=dict)  # round -> seed ids; "final" -> the N chosen


class BaselineExtra(BaseModel):
    baseline: str
    id: str
    round: int = 1
    grown_from: str | None = None
    signature: dict[str, str] = Field(default_factory=dict)
    idea_fields: dict[str, Any] = Field(default_factory=dict)


class _Baseline(Method[BaselineConfig, BaselineState]):
    config_model: ClassVar[type[MethodConfig]] = BaselineConfig
    state_model = BaselineState
    roles: ClassVar[tuple[str, ...]] = ("ideator", "stenographer")
    extra_model = BaselineExtra

    def prompt_templates(self) -> dict[str, str]:
        return {"ideator": P.IDEATOR_SYSTEM, "stenographer": P.STENOGRAPHER, "stateless": P.stateless_prompt(1, 1),
                "one_shot": P.one_shot_prompt(1), "nova_select": P.NOVA_SELECT, "nova_diverse": P.NOVA_DIVERSE}

    # -- shared machinery ----------------------------------------------------------------------
    def _setup(self, ctx: RunContext) -> BaselineState:
        self.ctx = ctx
        self.cfg = IdeagentConfig()
        self.n = self.config.ideas or ctx.settings.agents.ideas
        role = self.role("ideator")
        calls = self.config.ideator_tool_calls
        self.mode = tool_mode(ctx, role, self.config.tool_mode)
        toolbox = ctx.toolbox if ctx.has_tools else None
        self.writer = ToolWriter(ctx, role, toolbox, self.mode, self.cfg.ideator_tool_calls if calls is None else calls)
        self.system = P.ideator_system(ctx.topic, background_text(ctx, self.cfg.background_tokens),
                                       self.writer.tools_note())
        state = ctx.load_checkpoint() or BaselineState()
        ctx.emit({"type": "phase", "phase": self.name, "ideas": self.n, "resume_at": len(state.items)})
        return state

    def _save(self, state: BaselineState) -> None:
        self.ctx.save_checkpoint(state)

    async def _write(self, state: BaselineState, item_id: str, user: str, *, round_: int = 1,
                     grown_from: str | None = None, steno: bool = False) -> BaselineItem | None:
        try:
            idea = await self.writer.write(self.system, user, item_id)
            sig = (await self.ctx.llm("stenographer").structured(msgs(P.STENOGRAPHER, P.render_idea(idea)), Signature)
                   if steno else None)
        except StructuredOutputError as e:  # one unusable idea is recorded and skipped, not fatal
            self.ctx.emit({"type": "idea_invalid", "id": item_id, "error": str(e)})
            return None
        item = BaselineItem(id=item_id, round=round_, idea=idea, signature=sig, grown_from=grown_from)
        state.items.append(item)
        self.ctx.emit({"type": "idea", "id": item_id, "round": round_, "grown_from": grown_from, "idea": idea,
                       "signature": sig.model_dump() if sig else None})
        self._save(state)
        return item

    async def _records(self, items: list[BaselineItem]) -> list[IdeaRecord]:
        out = []
        for it in items:
            extra = BaselineExtra(baseline=self.name, id=it.id, round=it.round, grown_from=it.grown_from,
                                  signature=it.signature.model_dump() if it.signature else {}, idea_fields=it.idea)
            rec = self.ctx.new_idea(name=f"{self.name}_{it.id}", status="accepted", extra=extra,
                                    **record_fields(it.idea))
            out.append(await self.ctx.ground(rec))
        self.ctx.write_ideas(out)
        return out

    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        settings = plan.settings
        n = self.config.ideas or (settings.agents.ideas if settings is not None else 3)
        cfg = IdeagentConfig(**self._cfg_overrides())
        estimate_baseline(plan, self.name, cfg, n=n, topic=topic, background_tokens=background_tokens)

    def _cfg_overrides(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.config.ideator_tool_calls is not None:
            out["ideator_tool_calls"] = self.config.ideator_tool_calls
        if getattr(self.config, "rounds", None) is not None:
            out["nova_rounds"] = getattr(self.config, "rounds", None)
        return out


class StatelessMethod(_Baseline):
    """N independent generations."""

    name = "stateless"
    summary = "Baseline: N independent ideator calls, nothing shared."
    roles = ("ideator",)

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        state = self._setup(ctx)
        for k in range(len(state.items) + 1, self.n + 1):
            await self._write(state, f"i{k}", P.stateless_prompt(k, self.n))
        return await self._records(state.items)


class OneShotMethod(_Baseline):
    """All N ideas in one reply."""

    name = "one_shot"
    summary = "Baseline: one ideator reply holding all N ideas."
    roles = ("ideator",)

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        state = self._setup(ctx)
        if not state.items:
            ideas = await self._write_many()
            state.items = [BaselineItem(id=f"i{k + 1}", idea=i) for k, i in enumerate(ideas[: self.n])]
            for it in state.items:
                ctx.emit({"type": "idea", "id": it.id, "idea": it.idea})
            if len(ideas) < self.n:
                ctx.emit({"type": "warning", "message": f"one_shot reply held {len(ideas)} of {self.n} ideas"})
            self._save(state)
        return await self._records(state.items)

    async def _write_many(self) -> list[dict[str, Any]]:
        llm = self.ctx.llm("ideator")
        agent = ChatAgent("ideator", llm.invoke, toolbox=self.writer.toolbox,
                          tool_mode=self.mode, context_budget=self.ctx.settings.agents.context_token_budget,
                          emit=self.ctx.emit, decide=llm.decide)
        agent.system(self.system)
        note = ('Answer with a single JSON object {"ideas": [...]}, each idea with the keys title, problem, '
                "motivation, method, novelty, experiment_plan, expected_effect, risks — and nothing else.")
        turn = await agent.turn(f"{P.one_shot_prompt(self.n)}\n\n{note}",
                                max_calls=self.writer.max_calls if self.writer.toolbox else 0, answer_schema=IdeaList)

        try:
            return [i.model_dump() for i in so.parse_reply(AIMessage(content=turn.text), IdeaList).ideas]
        except ReplyProblem as p:
            # The re-ask is the LLM layer's structured call (constrained, repair, one more re-ask).
            try:
                ideas = await agent.structured_turn(str(so.correction(str(p), IdeaList).content), IdeaList)
            except StructuredOutputError as e:
                raise StructuredOutputError(f"one_shot: no usable list of ideas: {e}") from None
            assert isinstance(ideas, IdeaList)
            return [i.model_dump() for i in ideas.ideas]


class SequentialMemoryMethod(_Baseline):
    """Sequential generation with the signatures of earlier ideas as memory."""

    name = "sequential_memory"
    summary = "Baseline: ideas one by one, each told the signatures of the earlier ones (no judges)."
    top_up_memory = "its memory: the signatures of the earlier runs' ideas stay in every prompt"

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        fresh = ctx.run.load_state() is None
        state = self._setup(ctx)
        if fresh:  # a top-up run: the earlier runs' ideas, renamed r<run>.<id>, open its memory
            state.carried = [it.model_copy(update={"id": f"r{n}.{it.id}"})
                             for n, st in enumerate(ctx.earlier_states(), 1) for it in st.items]
        for k in range(len(state.items) + 1, self.n + 1):
            memory = [(it.id, it.signature) for it in (*state.carried, *state.items) if it.signature is not None]
            await self._write(state, f"i{k}", P.memory_prompt(k, self.n, memory, self.cfg.signature_chars),
                              steno=True)
        return await self._records(state.items)


class NovaMethod(_Baseline):
    """NOVA-style rounds: generate N, pick K seeds, germinate; finally the N most diverse of all."""

    name = "nova"
    summary = "Baseline: rounds of seed selection and germination, then the N most diverse of all rounds."
    config_model = NovaConfig
    roles = ("ideator", "stenographer", "judge")

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        state = self._setup(ctx)
        conf: Any = self.config
        rounds = conf.rounds or self.cfg.nova_rounds
        k_seeds = conf.seeds or self.cfg.nova_seeds
        for r in range(1, rounds + 1):
            seeds = state.picks.get(str(r - 1), [])
            done = [it for it in state.items if it.round == r]
            for k in range(len(done) + 1, self.n + 1):
                memory = [(it.id, it.signature) for it in state.items if it.signature is not None]
                seed_id = seeds[(k - 1) % len(seeds)] if seeds else None
                seed = self._as_draft(next(it for it in state.items if it.id == seed_id)) if seed_id else None
                user = f"Round {r}. " + P.memory_prompt(k, self.n, memory, self.cfg.signature_chars, seed)
                await self._write(state, f"r{r}i{k}", user, round_=r, grown_from=seed_id, steno=True)
            if r < rounds and str(r) not in state.picks:
                pool = [it for it in state.items if it.round == r]
                state.picks[str(r)] = await self._pick(P.NOVA_SELECT.format(k=k_seeds), pool, k_seeds)
                ctx.emit({"type": "nova_seeds", "round": r, "seeds": state.picks[str(r)]})
                self._save(state)
        if "final" not in state.picks:
            state.picks["final"] = await self._pick(P.NOVA_DIVERSE.format(n=self.n), state.items, self.n)
            ctx.emit({"type": "nova_final", "chosen": state.picks["final"]})
            self._save(state)
        chosen = [it for i in state.picks["final"] for it in state.items if it.id == i]
        return await self._records(chosen)

    @staticmethod
    def _as_draft(it: BaselineItem) -> Draft:
        sig = it.signature or Signature(problem="-", mechanism="-", novelty="-", assumptions="-", effect="-")
        return Draft(id=it.id, seed=0, lineage=it.id, idea=it.idea, signature=sig)

    async def _pick(self, system: str, pool: list[BaselineItem], k: int) -> list[str]:
        """The judge's ids, restricted to the pool; padded in pool order when it names too few."""
        drafts = [self._as_draft(it) for it in pool]
        try:
            sel = await self.ctx.llm("judge").structured(msgs(system, P.numbered(drafts, self.cfg.signature_chars)),
                                                         Selection)
            ids = [i.strip().strip("[]") for i in sel.ids]
        except StructuredOutputError as e:
            log.warning("nova judge gave no usable selection (%s); keeping pool order", e)
            ids = []
        valid = [it.id for it in pool]
        out = [i for i in dict.fromkeys(ids) if i in valid][:k]
        out += [i for i in valid if i not in out][: k - len(out)]
        return out


__all__ = ["IdeaText", "NovaMethod", "OneShotMethod", "SequentialMemoryMethod", "StatelessMethod"]
