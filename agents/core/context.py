"""The run context a method's `run(ctx)` receives: its LLM roles, tools, background, run
directory, checkpoints, events and budget. Built by `agents.core.runner`; a method never
constructs one itself (tests may, through `runner.run_method`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from motivgraph.agents.core import checkpoint as ckpt
from motivgraph.agents.core.background import TopicBackground
from motivgraph.agents.core.grounding import ground
from motivgraph.agents.core.idea import IdeaRecord, Provenance
from motivgraph.agents.core.llm import RoleLLM
from motivgraph.agents.core.method import Method
from motivgraph.agents.core.registry import Topic
from motivgraph.agents.core.rundir import RunDir, now_iso
from motivgraph.agents.core.toolbox import SeenRecord, Toolbox
from motivgraph.errors import ConfigError
from motivgraph.settings import Settings

log = logging.getLogger(__name__)
Listener = Callable[[dict[str, Any]], None]


class RunSpec(BaseModel):
    """What is run, independent of the method: stored in status.json (`spec`) for resume."""

    method: str
    topic: Topic
    topic_id: str | None = None
    config: dict[str, Any] = Field(default_factory=dict, description="The method's config, as JSON.")
    budget_usd: float | None = Field(None, ge=0, description="Stop cleanly once the run has spent this much.")
    seed: int = 13
    background_file: str | None = None
    memory_from: list[str] = Field(
        default_factory=list, description="Earlier runs of the same method and topic whose memory this run "
        "continues (the evaluation's top-up runs; the method's top_up_memory says what it carries).",
    )


def add_usage(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Sum two `Usage.to_dict()` snapshots (a resumed run's segments)."""
    out: dict[str, Any] = {}
    for src in (a, b):
        for role, row in (src or {}).items():
            acc = out.setdefault(role, {})
            for k, v in row.items():
                if isinstance(v, int | float) and not isinstance(v, bool):
                    acc[k] = acc.get(k, 0) + v
    return out


class RunContext:
    def __init__(
        self,
        *,
        settings: Settings,
        run: RunDir,
        method: Method[Any, Any],
        spec: RunSpec,
        llm: Any,
        tool_client: Any | None,
        background: TopicBackground | None,
        listener: Listener | None = None,
        prior_usage: dict[str, Any] | None = None,
    ) -> None:
        self.settings = settings
        self.run = run
        self.method = method
        self.spec = spec
        self.llm_client = llm
        self.tool_client = tool_client
        self.background = background or TopicBackground(topic=spec.topic, topic_id=spec.topic_id)
        self._listener = listener
        self.prior_usage = dict(prior_usage or {})
        self.scope: dict[str, Any] = {}  # merged into every event (e.g. {"idea": 2, "round": 3})
        self._toolbox: Toolbox | None = None
        self._restored_calls = 0
        self.seen = SeenRecord()

    # ------------------------------------------------------------------ identity
    @property
    def run_id(self) -> str:
        return self.run.id

    @property
    def topic(self) -> str:
        return self.spec.topic

    @property
    def config(self) -> Any:
        return self.method.config

    @property
    def seed(self) -> int:
        return self.spec.seed

    # ------------------------------------------------------------------ LLM roles
    def llm(self, role: str) -> RoleLLM:
        """The LLM of a role: short names are namespaced by the method ('critic' → 'ideagent.critic')."""
        return RoleLLM(self.llm_client, type(self.method).role(role), on_call=self._usage_event)

    def _usage_event(self, role: str, delta: dict[str, Any], cache_hit: bool) -> None:
        self.emit({"type": "usage", "agent": role.rsplit(".", 1)[-1], "role": role,
                   "input_tokens": delta.get("input_tokens", 0), "output_tokens": delta.get("output_tokens", 0),
                   "estimated": bool(delta.get("estimated_calls", 0)), "cost_usd": delta.get("cost_usd", 0.0),
                   "cache_hit": cache_hit})

    def models(self) -> dict[str, str]:
        out = {}
        for role in type(self.method).llm_roles():
            try:
                out[role] = self.llm(role).model_id
            except Exception as e:  # a role without a model is reported, not fatal here
                out[role] = f"unavailable ({type(e).__name__})"
        return out

    # ------------------------------------------------------------------ tools
    @property
    def has_tools(self) -> bool:
        return self.tool_client is not None

    @property
    def toolbox(self) -> Toolbox:
        """The run's Toolbox (shared seen-record with `ctx.seen`). ConfigError when the run has no
        tools (a method with uses_tools = False, or no graph/API to reach)."""
        if self.tool_client is None:
            raise ConfigError(f"run {self.run_id} has no tools (no graph or API); the method must work "
                              "from ctx.background alone")
        if self._toolbox is None:
            self._toolbox = Toolbox(self.tool_client, topic=self.topic, seed=self.seed,
                                    token_cap=self.settings.api.render_token_cap,
                                    evidence_cap=self.settings.api.evidence_token_budget, seen=self.seen)
            self._toolbox.calls = self._restored_calls
        return self._toolbox

    def make_toolbox(self, **kw: Any) -> Toolbox:
        """A Toolbox with other options (ablations, a tool subset), sharing the run's seen-record."""
        if self.tool_client is None:
            return self.toolbox  # raises the explanatory error
        kw.setdefault("seen", self.seen)
        kw.setdefault("seed", self.seed)
        kw.setdefault("token_cap", self.settings.api.render_token_cap)
        kw.setdefault("evidence_cap", self.settings.api.evidence_token_budget)
        # The run's toolbox from now on: its call count (which seeds random draws) is checkpointed.
        self._toolbox = Toolbox(self.tool_client, topic=self.topic, **kw)
        self._toolbox.calls = self._restored_calls
        return self._toolbox

    # ------------------------------------------------------------------ events
    def emit(self, event: dict[str, Any]) -> dict[str, Any]:
        """Append an event to transcript.jsonl (→ SSE and the CLI printer); returns it with seq/ts."""
        ev = self.run.append({**self.scope, **event})
        if self._listener is not None:
            try:
                self._listener(ev)
            except Exception:  # a broken viewer must not stop the run
                log.exception("run listener failed")
        return ev

    # ------------------------------------------------------------------ checkpoints
    def save_checkpoint(self, state: BaseModel) -> None:
        """Persist the method's typed state (and the seen-record and usage so far)."""
        cls = type(self.method)
        if not isinstance(state, cls.state_model):
            raise TypeError(f"{cls.name} checkpoints {cls.state_model.__name__}, not {type(state).__name__}")
        env = ckpt.envelope(cls.name, cls.state_version, state, now_iso())
        env["seen"] = self.seen.to_dict()
        env["toolbox_calls"] = self._toolbox.calls if self._toolbox is not None else 0
        self.run.save_state(env)
        self.run.update_status(usage=self.usage())

    def earlier_states(self) -> list[Any]:
        """The final states of the runs this one continues (RunSpec.memory_from), oldest first, typed as the
        method's state. A run whose state cannot be read is skipped with a `memory_skipped` event."""
        out = []
        for rid in self.spec.memory_from:
            try:
                raw = RunDir.open(self.settings.runs_dir, rid).load_state()
                state = ckpt.read_state(self.method, raw, f"run {rid}") if raw is not None else None
            except Exception as e:  # a missing or foreign run must not stop this one: it just starts fresher
                self.emit({"type": "memory_skipped", "run": rid, "reason": f"{type(e).__name__}: {e}"})
                continue
            if state is not None:
                out.append(state)
        return out

    def load_checkpoint(self) -> Any | None:
        """The state saved by the last `save_checkpoint` (version-checked, migrated), or None."""
        raw = self.run.load_state()
        if raw is None:
            return None
        state = ckpt.read_state(self.method, raw, f"run {self.run_id}")
        # Older (untyped) checkpoints kept these beside the state too.
        seen = SeenRecord.from_dict(raw.get("seen"))
        self.seen.nodes.update(seen.nodes)
        self.seen.papers.extend(p for p in seen.papers if p not in self.seen.papers)
        self._restored_calls = int(raw.get("toolbox_calls") or 0)
        if self._toolbox is not None:
            self._toolbox.calls = self._restored_calls
        return state

    # ------------------------------------------------------------------ usage and budget
    def usage(self) -> dict[str, Any]:
        """This run's LLM usage per role, across resumed segments (LLMClient's accounting)."""
        return add_usage(self.prior_usage, self.llm_client.usage.to_dict())

    def spent_usd(self) -> float:
        return float(self.usage().get("total", {}).get("cost_usd", 0.0))

    @property
    def budget_usd(self) -> float | None:
        return self.spec.budget_usd

    # ------------------------------------------------------------------ ideas
    def provenance(self) -> Provenance:
        total = self.usage().get("total", {})
        return Provenance(method=type(self.method).name, run_id=self.run_id, topic=self.topic,
                          topic_id=self.spec.topic_id, models=self.models(),
                          input_tokens=int(total.get("input_tokens", 0)),
                          output_tokens=int(total.get("output_tokens", 0)), llm_calls=int(total.get("calls", 0)),
                          cost_usd=float(total.get("cost_usd", 0.0)), created_at=now_iso())

    def new_idea(self, **fields: Any) -> IdeaRecord:
        """An IdeaRecord with this run's provenance; `extra` is validated by the method's extra_model."""
        extra_model = type(self.method).extra_model
        extra = fields.pop("extra", {}) or {}
        if isinstance(extra, BaseModel):
            extra = extra.model_dump(mode="json")
        if extra_model is not None:
            extra = extra_model.model_validate(extra).model_dump(mode="json")
        return IdeaRecord(provenance=self.provenance(), extra=extra, **fields)

    async def ground(self, idea: IdeaRecord) -> IdeaRecord:
        """The idea with its grounding: links checked against the graph (when there is one),
        citations against papers the run's tools returned and the background papers."""
        papers = self.seen.papers + self.background.citable_papers()
        g = await ground(idea.text(), self.tool_client, papers)
        return idea.model_copy(update={"grounding": g})

    def write_ideas(self, ideas: list[IdeaRecord]) -> None:
        """ideas.json now (a method may call it after each idea so partial results are visible)."""
        self.run.write_ideas([i.model_dump(mode="json") for i in ideas])
        self.run.update_status(ideas_accepted=sum(1 for i in ideas if i.status == "accepted"),
                               ideas_rejected=sum(1 for i in ideas if i.status == "rejected"))
