"""The Method protocol: what an ideation method implements to plug into the platform.

    class ToyConfig(MethodConfig):
        ideas: int = Field(2, ge=1, le=10, description="Ideas to write.")

    class Toy(Method[ToyConfig, ToyState]):
        name = "toy"; summary = "..."; config_model = ToyConfig; state_model = ToyState
        roles = ("writer",)                      # LLM role 'toy.writer'
        async def run(self, ctx): ...            # -> list[IdeaRecord]; resumable from ctx.load_checkpoint()
        def estimate(self, plan): plan.add("writer", calls=..., input_tokens=..., output_tokens=...)

Everything else — CLI flags (from the config's fields), the HTTP body (a discriminated union by
`method`), run directory, SSE, budget, interruption, reproducibility record — comes from the platform.
A method may also contribute CLI sub-commands (`cli()`) and API routes (`router()`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from motivgraph.errors import CheckpointVersionError

if TYPE_CHECKING:
    import typer
    from fastapi import APIRouter

    from motivgraph.agents.core.context import RunContext
    from motivgraph.agents.core.idea import IdeaRecord


class MethodConfig(BaseModel):
    """Base of a method's settings per run. Fields become `--kebab-case` CLI flags and JSON body
    fields: use plain types (str, int, float, bool, Literal, list[str]) with a `description`."""

    model_config = ConfigDict(extra="forbid")


class NoState(BaseModel):
    """Checkpoint model of a method that keeps none."""


C = TypeVar("C", bound=MethodConfig)
S = TypeVar("S", bound=BaseModel)


@dataclass
class CostLine:
    """Calls, tokens and dollars of one line of a cost estimate: a run's role ("soiq.writer", "total") or a
    part of an evaluation ("generation: soiq", "eval.score (judge)")."""

    scope: str
    model: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


@dataclass
class CostPlan:
    """What a run would cost, filled by `Method.estimate` without any LLM call. `price(role, in, out)`
    → (model id, dollars) is supplied by the platform for the configured models."""

    price: Any  # Callable[[str, int, int], tuple[str, float]]
    qualify: Any = None  # Callable[[str], str]: short role -> namespaced role ('writer' -> 'toy.writer')
    settings: Any = None  # the Settings the run would use (for defaults such as settings.agents.rounds)
    # The TopicBackground the run would get when it is known before the run (a --background file, which is how
    # the eval hands a topic's papers over), so a method can price the prompt it would really render; None
    # when the background comes from the graph at run time.
    background: Any = None
    roles: dict[str, CostLine] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, role: str, *, calls: int = 1, input_tokens: int = 0, output_tokens: int = 0) -> None:
        """`calls` calls of `role` taking `input_tokens`/`output_tokens` in total (not per call)."""
        role = self.qualify(role) if self.qualify is not None else role
        model, cost = self.price(role, input_tokens, output_tokens)
        r = self.roles.setdefault(role, CostLine(role, model))
        r.calls += calls
        r.input_tokens += input_tokens
        r.output_tokens += output_tokens
        r.cost_usd += cost

    @property
    def total(self) -> CostLine:
        t = CostLine("total", "")
        for r in self.roles.values():
            t.calls += r.calls
            t.input_tokens += r.input_tokens
            t.output_tokens += r.output_tokens
            t.cost_usd += r.cost_usd
        return t


class Method(ABC, Generic[C, S]):
    """One ideation method. Instances are made per run: `Method(config)`."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    config_model: ClassVar[type[MethodConfig]] = MethodConfig
    state_model: ClassVar[type[BaseModel]] = NoState
    state_version: ClassVar[int] = 1
    roles: ClassVar[tuple[str, ...]] = ()  # short names; the LLM role is f"{name}.{role}"
    uses_tools: ClassVar[bool] = True  # False: the run gets no Toolbox and needs no graph
    graph_background: ClassVar[bool] = True  # build ctx.background from the graph when no --background file
    extra_model: ClassVar[type[BaseModel] | None] = None  # validates IdeaRecord.extra
    # What a top-up run (the evaluation's next run of this method on the same topic, RunSpec.memory_from)
    # carries over from the earlier runs, in a reader's words; "" = nothing (the report says so).
    top_up_memory: ClassVar[str] = ""

    def __init__(self, config: C) -> None:
        self.config = config

    @classmethod
    def role(cls, short: str) -> str:
        return short if "." in short else f"{cls.name}.{short}"

    @classmethod
    def llm_roles(cls) -> list[str]:
        return [cls.role(r) for r in cls.roles]

    @abstractmethod
    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        """Produce the ideas. Called again on resume: continue from `ctx.load_checkpoint()`."""

    @abstractmethod
    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        """Add the calls a run with this config would make (`plan.add(role, ...)`), without calling."""

    def migrate_state(self, data: dict[str, Any], from_version: int) -> dict[str, Any]:
        """Turn an older checkpoint's state into this version's; default: refuse, naming the versions."""
        raise CheckpointVersionError(
            f"{self.name} cannot resume a checkpoint of version {from_version} (this code writes version "
            f"{self.state_version} and has no migration for it); start a new run")

    def prompt_templates(self) -> dict[str, str]:
        """Named prompt templates; their hashes go into the run's reproducibility record."""
        return {}

    @classmethod
    def cli(cls) -> typer.Typer | None:
        """Extra CLI sub-commands, mounted as `motivgraph method <name> <command>`."""
        return None

    @classmethod
    def router(cls) -> APIRouter | None:
        """Extra API routes, mounted under `/ideation/methods/<name>` by the serve composition root."""
        return None

    @classmethod
    def remote_fields(cls) -> dict[str, Any]:
        """Config fields a remote caller (HTTP, MCP) gives in a narrower form than the CLI, as `create_model` field
        definitions `name -> (type, FieldInfo)`; e.g. the id of a stored object where the CLI also takes a path."""
        return {}

    def check_references(self, settings: Any) -> None:
        """Raise UnknownReference when the config names a stored object (by id) that the settings' data dir does not
        hold; called when a remote request is accepted, so the caller hears it at once."""
        return None

