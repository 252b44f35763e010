"""The one extension mechanism: every named, replaceable part of MotivGraph, built-in or from another package.

A part is one of the kinds of `motivgraph/hookspecs.py`, where each kind is a typed Protocol. Each kind is an
entry-point group (`motivgraph.<kind>`), the Python packaging convention for plugins, so an installed package
adds a method or a tool with two lines of its own `pyproject.toml` and no change here:

    [project.entry-points."motivgraph.methods"]
    title_storm = "mypackage.storm:TitleStorm"

The built-in parts are the lines of `BUILTIN` below and go through the same loader: a line names an object by
import path ("module:attribute"), imported on first use, so listing names imports nothing (`motivgraph --help`
stays fast) and a kernel module can name parts of the layers above it without importing them. `resolve()` is the
one place an import path becomes an object. Tests and notebooks add a part for the life of the process with
`register(kind, name, obj)`.

Every part is checked against its kind's Protocol when it is first loaded (`hookspecs.check`); a part that fails
to load is logged and left out of listings, never hiding the others.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

from motivgraph.errors import ConfigError, UnknownPart
from motivgraph.hookspecs import Kind, check

if TYPE_CHECKING:
    import typer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Contribution:
    """A "commands" part declared by import paths, so listing it imports none of its code: `motivgraph NAME`
    and routes at the service root. The command is one of: `register`, a function `register(root)` adding it
    (among others a module adds) to the root CLI; `group`, a `typer.Typer` mounted as the group NAME; `app`, a
    `typer.Typer` that is the command, or a function returning one. `router` is a function returning the
    routes' `fastapi.APIRouter`."""

    name: str
    summary: str  # the first paragraph of the command's help: what the root help lists
    register: str | None = None
    group: str | None = None
    app: str | None = None
    router_factory: str | None = None

    def cli(self) -> Any:
        """The command: a click command built from `register`/`group`, or the `typer.Typer` of `app`."""
        import typer  # local: the kernel imports no CLI stack until a command is built

        if self.register or self.group:
            holder = typer.Typer()
            if self.register:
                resolve(self.register)(holder)
            else:
                holder.add_typer(resolve(str(self.group)), name=self.name)
            return typer.main.get_group(holder).commands.get(self.name)
        if self.app is None:
            return None
        app = resolve(self.app)
        made: typer.Typer = app if isinstance(app, typer.Typer) else app()
        return made

    def router(self) -> Any:
        return resolve(self.router_factory)() if self.router_factory else None


def _commands(*parts: Contribution) -> dict[str, Contribution]:
    return {part.name: part for part in parts}


# The built-in parts, one line each: kind -> name -> "module:attribute" (a command: its `Contribution`, which
# carries the summary the root help shows). Order is the order of listings.
BUILTIN: dict[Kind, dict[str, Any]] = {
    "methods": {
        "soiq": "motivgraph.agents.soiq.method:SoiqMethod",
        "setlevel": "motivgraph.agents.setlevel.method:SetlevelMethod",
        "ideagent": "motivgraph.agents.ideagent.method:IdeagentMethod",
        "stateless": "motivgraph.agents.ideagent.baselines:StatelessMethod",
        "one_shot": "motivgraph.agents.ideagent.baselines:OneShotMethod",
        "sequential_memory": "motivgraph.agents.ideagent.baselines:SequentialMemoryMethod",
        "nova": "motivgraph.agents.ideagent.baselines:NovaMethod",
        "mindflow": "motivgraph.agents.mindflow.method:MindflowMethod",
    },
    "tools": {
        "node_search": "motivgraph.api.contract.tools:NODE_SEARCH",
        "node_relation": "motivgraph.api.contract.tools:NODE_RELATION",
        "random_nodes": "motivgraph.api.contract.tools:RANDOM_NODES",
        "literature_search": "motivgraph.api.contract.tools:LITERATURE_SEARCH",
        "transfer_candidates": "motivgraph.api.contract.tools:TRANSFER_CANDIDATES",
    },
    "commands": _commands(
        Contribution("search", "Print the graph nodes closest in meaning to QUERY (cosine similarity, best first).",
                     register="motivgraph.cli.search_cmd:register"),
        Contribution("reindex",
                     "Rebuild the FAISS indexes from the graph. A node or paper whose text is unchanged keeps its "
                     "stored\nvector (same model), so `--kind` switches embed nothing; --re-embed embeds everything. "
                     "With\nMOTIVGRAPH_INDEX_BACKEND=neo4j the node embeddings and vector indexes are written to Neo4j "
                     "instead.", register="motivgraph.cli.search_cmd:register"),
        Contribution("parse", "Parse one PDF and print the structured paper (nothing is stored).",
                     register="motivgraph.cli.ingest_cmd:register"),
        Contribution("extract", "Parse one paper and print its (problem, challenge, solution) triples; nothing is "
                     "stored.", register="motivgraph.cli.miner_cmd:register"),
        Contribution("ideate",
                     "Run an ideation method on TOPIC, streaming its progress: `motivgraph ideate TOPIC --method "
                     "NAME`\nfollowed by the method's own flags, e.g. `--method soiq --ideas 2 --rounds 3`; "
                     "`--list-methods`\nshows every method's flags. TOPIC is not needed with --resume, or with a "
                     "topics file and --topic-id.", register="motivgraph.cli.ideate_cmd:register"),
        Contribution("serve", "Serve the researcher tools, /triples, /nodes, /papers, /stats, /health and the "
                     "explorer page over HTTP.", register="motivgraph.cli.serve_cmd:register"),
        Contribution("mcp", "Serve the researcher tools, node and paper resources over MCP on stdin/stdout.",
                     register="motivgraph.cli.mcp_cmd:register"),
        Contribution("config", "Inspect settings (env MOTIVGRAPH_*, .env file).",
                     group="motivgraph.cli.config_cmd:app"),
        Contribution("db", "Manage the embedded FalkorDB server that stores the graph under the data directory.",
                     group="motivgraph.cli.db_cmd:app"),
        Contribution("neo4j", "Run a local Neo4j 5.26 Community server (Bolt + Browser on loopback) from Maven "
                     "Central, without Docker.", group="motivgraph.cli.neo4j_cmd:app"),
        Contribution("embeddings", "The embedding model: export it to ONNX (scripts/setup.sh does) and check the "
                     "backend.", group="motivgraph.cli.embeddings_cmd:app"),
        Contribution("llm", "LLM access: check the configured model, per-role models, usage and cost; the local "
                     "model server.", group="motivgraph.cli.llm_cmd:app"),
        Contribution("graph", "Export, import, copy and count the graph.", group="motivgraph.cli.graph_cmd:app"),
        Contribution("ingest", "Ingest PDFs into the graph (default: run). Also: `ingest status`, `ingest report`, "
                     "`ingest --re-extract`.", register="motivgraph.cli.ingest_cmd:register"),
        Contribution("parents", "Hierarchical parent nodes for problems and challenges.",
                     register="motivgraph.cli.miner_cmd:register"),
        Contribution("method", "Commands contributed by ideation methods (motivgraph method NAME COMMAND).",
                     register="motivgraph.cli.ideate_cmd:register"),
        Contribution("papers", "Papers in the graph: list them, show one, delete one with its triples.",
                     register="motivgraph.cli.papers_cmd:register"),
        Contribution("merges", "Review merge decisions (a mention joined an existing node) and undo one.",
                     register="motivgraph.cli.merges_cmd:register"),
        Contribution("eval", "Evaluate ideation methods on the same topics; write one report.",
                     app="motivgraph.agents.evaluation.cli:cli",
                     router_factory="motivgraph.agents.evaluation.routes:build_router"),
        Contribution("mindflow", "MindFlow: train the thinking-flow controller.",
                     app="motivgraph.agents.mindflow.cli:app"),
        Contribution("runs", "List ideation runs of every method and show one run's report.",
                     app="motivgraph.agents.core.runs_cli:app",
                     router_factory="motivgraph.agents.core.run_routes:build_router"),
    ),
    "input_kinds": {
        "pdf": "motivgraph.ingest.plan:PDF_INPUT",
        "paper_json": "motivgraph.ingest.paper_json:PAPER_JSON_INPUT",
    },
    # Models named `provider:model`. The OpenAI-compatible servers share one builder; the LangChain
    # init_chat_model providers another, reached through an optional extra (llm/factory.py: LANGCHAIN_EXTRAS).
    "llm_providers": {
        "openai": "motivgraph.llm.factory:openai_compatible_model",
        "deepseek": "motivgraph.llm.factory:openai_compatible_model",
        "vllm": "motivgraph.llm.factory:openai_compatible_model",
        "ollama": "motivgraph.llm.factory:openai_compatible_model",
        "local": "motivgraph.llm.factory:local_model",
        "scripted": "motivgraph.llm.factory:scripted_model",
        **{provider: "motivgraph.llm.factory:langchain_model" for provider in (
            "anthropic", "azure_openai", "azure_ai", "google_genai", "google_vertexai", "bedrock", "bedrock_converse",
            "mistralai", "groq", "fireworks", "together", "cohere", "huggingface", "xai", "nvidia", "ibm",
            "perplexity", "openrouter")},
    },
    "graph_backends": {
        "falkordb": "motivgraph.graph.backends.falkordb:FalkorDBStore",
        "neo4j": "motivgraph.graph.backends.neo4j:Neo4jStore",
    },
    "index_backends": {
        "faiss": "motivgraph.graph.index_backends:FAISS",
        "neo4j": "motivgraph.graph.index_backends:NEO4J",
    },
    "parsers": {
        "auto": "motivgraph.ingest.parsers:auto_parser",
        "grobid": "motivgraph.ingest.parsers:grobid_parser",
        "pdf": "motivgraph.ingest.parsers:offline_parser",
    },
    "operators": {  # the order is the supernet's
        "generate": "motivgraph.agents.mindflow.operators:Generate",
        "divergent": "motivgraph.agents.mindflow.operators:Divergent",
        "convergent": "motivgraph.agents.mindflow.operators:Convergent",
        "critical": "motivgraph.agents.mindflow.operators:Critical",
        "analogical": "motivgraph.agents.mindflow.operators:Analogical",
        "counterfactual": "motivgraph.agents.mindflow.operators:Counterfactual",
        "constraint": "motivgraph.agents.mindflow.operators:Constraint",
    },
}

_lock = threading.RLock()
_registered: dict[Kind, dict[str, Any]] = {k: {} for k in get_args(Kind)}  # register(): objects, not paths
_loaded: dict[tuple[Kind, str], Any] = {}
_entry_points: dict[Kind, dict[str, str]] | None = None
_version = 0  # bumped by every register/unregister; caches of derived things key on it




def group(kind: Kind) -> str:
    """The entry-point group of `kind`: what a package's pyproject.toml names."""
    return f"motivgraph.{kind}"


def _installed() -> dict[Kind, dict[str, str]]:
    """The entry points of installed packages, read once per process (a scan of every installed package)."""
    global _entry_points
    if _entry_points is None:
        from importlib.metadata import entry_points  # local: light CLI path (a built-in command reads no metadata)

        found: dict[Kind, dict[str, str]] = {k: {} for k in get_args(Kind)}
        for kind in found:
            try:
                for ep in entry_points(group=group(kind)):
                    if ep.name in BUILTIN[kind]:
                        log.warning("%s entry point %r (%s) shadows a built-in part and is ignored",
                                    group(kind), ep.name, ep.value)
                        continue
                    found[kind].setdefault(ep.name, ep.value)
            except Exception as e:  # a broken third-party package must not break the product
                log.warning("could not read the %s entry points: %s", group(kind), e)
        _entry_points = found
    return _entry_points


def rescan() -> None:
    """Read the installed packages' entry points again (a package installed into, or removed from, a running
    process, e.g. a notebook); their parts are imported again on next use, built-in ones stay loaded."""
    global _entry_points, _version
    with _lock:
        _entry_points = None
        for kind, name in [k for k in _loaded if k[1] not in BUILTIN[k[0]]]:
            del _loaded[(kind, name)]
        _version += 1


def lines(kind: Kind) -> dict[str, Any]:
    """Every line of `kind`: the built-in ones first, then the installed packages' entry points. A line is an
    import path, or a built-in command's `Contribution`."""
    return {**BUILTIN[kind], **{n: p for n, p in _installed()[kind].items() if n not in BUILTIN[kind]}}


def path_of(line: Any) -> str:
    """The import path a line names (a `Contribution`: where its command comes from)."""
    if isinstance(line, Contribution):
        return str(line.register or line.group or line.app)
    return str(line)


def names(kind: Kind) -> list[str]:
    """Every name of `kind`, without importing anything: built-in, installed and registered ones, in that order."""
    with _lock:
        return list(dict.fromkeys([*lines(kind), *_registered[kind]]))


def resolve(path: str) -> Any:
    """The object an import path names: "module:attribute" (a dotted attribute walks into it) or "module".
    The one resolver: every line, entry point, tool service and command goes through it."""
    module, _, attr = path.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def _what(kind: Kind) -> str:
    return kind[:-1].replace("_", " ")


def load(kind: Kind, name: str) -> Any:
    """The part `name` of `kind` (imported on first use, then cached), checked against the kind's Protocol
    (motivgraph/hookspecs.py); a failure names the line it came from."""
    with _lock:
        if (kind, name) in _loaded:  # checked when it was loaded
            return _loaded[(kind, name)]
        mine = _registered[kind].get(name)
    if mine is not None:
        try:
            check(kind, name, mine)
        except Exception as e:
            raise ConfigError(f"{_what(kind)} {name!r} (registered) cannot be used: {e}") from e
        return mine
    line = BUILTIN[kind].get(name) or lines(kind).get(name)  # a built-in needs no scan of installed packages
    if line is None:
        known = ", ".join(names(kind)) or "none"
        raise UnknownPart(f"unknown {_what(kind)} {name!r}; known: {known}")
    where = "built-in" if name in BUILTIN[kind] else f"entry point of {group(kind)}"
    try:
        obj = resolve(line) if isinstance(line, str) else line
        check(kind, name, obj)
    except Exception as e:
        raise ConfigError(f"{_what(kind)} {name!r} ({where} {path_of(line)!r}) cannot be loaded: {e}") from e
    with _lock:
        return _loaded.setdefault((kind, name), obj)


def load_all(kind: Kind) -> dict[str, Any]:
    """Every loadable part of `kind` by name; one that fails is logged and left out."""
    out: dict[str, Any] = {}
    for name in names(kind):
        try:
            out[name] = load(kind, name)
        except ConfigError as e:
            log.warning("%s", e)
    return out


def register(kind: Kind, name: str, obj: Any, *, replace: bool = False) -> Any:
    """Add `obj` as the part `name` of `kind` for the life of this process (tests, notebooks)."""
    global _version
    with _lock:
        known = _registered[kind].get(name, _loaded.get((kind, name)))
        if known is None and name in lines(kind) and not replace:
            known = load(kind, name)
        if known is not None and known is not obj and not replace:
            raise ValueError(f"a {_what(kind)} named {name!r} is already registered")
        _registered[kind][name] = obj
        _version += 1
    return obj


def unregister(kind: Kind, name: str) -> None:
    """Take back a `register()`; built-in and installed parts stay."""
    global _version
    with _lock:
        _registered[kind].pop(name, None)
        _loaded.pop((kind, name), None)
        _version += 1


@contextmanager
def registered(kind: Kind, name: str, obj: Any) -> Iterator[Any]:
    """`register()` for the length of a `with` block (a test's fixture)."""
    register(kind, name, obj)
    try:
        yield obj
    finally:
        unregister(kind, name)


def version() -> int:
    return _version
