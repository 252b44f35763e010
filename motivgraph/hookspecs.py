"""What each kind of extension part is: one typed Protocol per kind (the contract `motivgraph/plugins.py` loads
against), in the manner of datasette's `hookspecs.py`.

A part of kind K is any object that satisfies `SPECS[K]` (named `<what it is>Hook`, apart from the classes of the
layers that implement it); `check(kind, name, obj)` tests it when the loader first imports it, so a wrong entry
point fails with the members it lacks rather than later, deep inside the layer that uses it. Types of the layers
above the kernel are written `Any` (with the type named in a comment): the kernel names nothing above it, not
even for the type checker, so the layer contract stays one-way.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:  # kernel types only: the layers above are Any here (see the module docstring)
    import typer
    from langchain_core.language_models import BaseChatModel

    from motivgraph.llm.factory import ModelSpec
    from motivgraph.settings import IngestSettings, Settings

Kind = Literal["methods", "tools", "commands", "input_kinds", "llm_providers", "graph_backends", "index_backends",
               "parsers", "operators"]


@runtime_checkable
class MethodHook(Protocol):
    """An ideation method: a `Method` subclass (agents/core/method.py) whose `name` is the entry's name; its
    config fields become `motivgraph ideate --method NAME` flags and fields of the HTTP body."""

    name: ClassVar[str]
    config_model: ClassVar[type]
    state_model: ClassVar[type]

    async def run(self, ctx: Any) -> list[Any]: ...  # RunContext -> list[IdeaRecord]

    def estimate(self, plan: Any, *, topic: str, background_tokens: int = 0) -> None: ...  # CostPlan


@runtime_checkable
class ToolHook(Protocol):
    """A researcher tool: a `ToolSpec` (api/contract/tools.py) whose `name` is the entry's name; it becomes
    an HTTP route, an MCP tool, a LangChain tool and a tool of every agent."""

    name: str
    description: str
    request: type
    result: type
    service: str  # "module:function" answering it: function(ctx: ToolContext, request) -> result

    def build_request(self, args: Any = None, kwargs: Mapping[str, Any] | None = None) -> Any: ...


@runtime_checkable
class CommandHook(Protocol):
    """A contribution to the CLI and the service: `motivgraph NAME` (`cli()`, None for routes only) and routes
    mounted at the service root (`router()`, None for none). `summary`, the first paragraph of the command's
    help, is what the root help lists without building the command."""

    name: str
    summary: str

    def cli(self) -> typer.Typer | None: ...

    def router(self) -> Any: ...  # fastapi.APIRouter | None


@runtime_checkable
class InputKindHook(Protocol):
    """An ingest input kind (ingest/plan.py) claiming file-name suffixes: `keys()` says what documents a file
    holds, `load()` turns one into a Paper (with the run's parser when `needs_parser`)."""

    name: str
    suffixes: tuple[str, ...]  # file-name endings this kind claims (lower case, with the dot)
    needs_parser: bool

    def keys(self, path: Path) -> list[Any]: ...  # list[DocKey]

    async def load(self, item: Any, parser: Any, settings: Settings) -> Any: ...  # WorkItem, DocumentParser -> Paper


@runtime_checkable
class LLMProviderHook(Protocol):
    """A chat-model provider for models named `<entry name>:<model>`: a function `(spec, *, timeout_s) ->
    BaseChatModel` (motivgraph/llm/factory.py); the spec carries the model, key, base URL, temperature and
    token limit from the settings, `timeout_s` the transport's time limit."""

    def __call__(self, spec: ModelSpec, *, timeout_s: float) -> BaseChatModel: ...


@runtime_checkable
class GraphBackendHook(Protocol):
    """A graph store named by `graph.backend`: a `GraphStore` class (graph/base.py, usually a `CypherGraphStore`
    subclass) whose `from_settings(settings)` connects it."""

    @classmethod
    def from_settings(cls, settings: Settings) -> Any: ...  # GraphStore


@runtime_checkable
class IndexBackendHook(Protocol):
    """The node vector search named by `index.backend` (graph/index_backends.py): `open(runtime)` gives the
    search the tools use, `peek(settings, store)` its state without loading the embedding model."""

    def open(self, runtime: Any) -> Any: ...  # Runtime -> NodeSearchBackend

    def peek(self, settings: Settings, store: Any) -> Any: ...  # GraphStore -> IndexStatus


@runtime_checkable
class ParserHook(Protocol):
    """A PDF parser named by `ingest.parser` / `--parser` (ingest/parsers.py): an async function
    `(settings, *, workers, transport) -> DocumentParser` that builds it (and checks its server, if it has one)."""

    async def __call__(self, settings: IngestSettings, *, workers: int, transport: Any = None) -> Any: ...


@runtime_checkable
class OperatorHook(Protocol):
    """A MindFlow thinking operator (agents/mindflow/operators.py): an `Operator` class whose `name` is the
    entry's name; `run` turns a working set of candidate proposals into the next one. The supernet offers
    every operator, in the order of the listing, unless `FlowConfig.operators` names a subset."""

    name: ClassVar[str]
    summary: ClassVar[str]
    calls: ClassVar[int]  # LLM calls per run (dry-run estimate)

    async def run(self, ws: list[dict[str, Any]], env: Any, step: Any) -> list[dict[str, Any]]: ...


# The Protocol of each kind; its docstring is what docs/reference/extensions.md says the kind is.
SPECS: dict[Kind, type] = {
    "methods": MethodHook,
    "tools": ToolHook,
    "commands": CommandHook,
    "input_kinds": InputKindHook,
    "llm_providers": LLMProviderHook,
    "graph_backends": GraphBackendHook,
    "index_backends": IndexBackendHook,
    "parsers": ParserHook,
    "operators": OperatorHook,
}


def members(spec: type) -> list[str]:
    """The attributes and methods a Protocol asks for (`typing.get_protocol_members` arrives in 3.13)."""
    own = [n for n in vars(spec) if not n.startswith("_") or n == "__call__"]
    return list(dict.fromkeys([*getattr(spec, "__annotations__", {}), *own]))


def check(kind: Kind, name: str, obj: Any) -> None:
    """Raise TypeError naming what `obj` lacks to be a part of `kind` called `name`."""
    spec = SPECS[kind]
    if not isinstance(obj, spec):
        missing = [m for m in members(spec) if not hasattr(obj, m)]
        what = f"it lacks {', '.join(missing)}" if missing else "it does not match"
        raise TypeError(f"it does not satisfy hookspecs.{spec.__name__} ({what})")
    own = getattr(obj, "name", name)  # the kinds whose parts carry a name: it is the entry's
    if "name" in members(spec) and own != name:
        raise TypeError(f"its name is {own!r}, not {name!r}")
