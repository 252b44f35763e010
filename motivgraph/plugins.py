"""The one extension mechanism: every named, replaceable part of MotivGraph, built-in or from another package.

A part is one of five kinds. Each kind is an entry-point group (`motivgraph.<kind>`), the Python packaging
convention for plugins, so an installed package adds a method or a tool with two lines of its own
`pyproject.toml` and no change here:

    [project.entry-points."motivgraph.methods"]
    title_storm = "mypackage.storm:TitleStorm"

The built-in parts are the lines of `BUILTIN` below and go through the same loader: a line names an object by
import path ("module:attribute"), imported on first use, so listing names imports nothing (`motivgraph --help`
stays fast) and a kernel module can name parts of the layers above it without importing them. Tests and
notebooks add a part for the life of the process with `register(kind, name, obj)`.

What an entry's object must be is checked by the layer that uses it (`KINDS` says what each kind expects);
a part that fails to load is logged and left out of listings, never hiding the others.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import entry_points
from typing import Any, Literal, get_args

from motivgraph.errors import ConfigError, UnknownPart

log = logging.getLogger(__name__)

Kind = Literal["methods", "tools", "commands", "input_kinds", "llm_providers"]

# What an entry of each kind is (shown by `docs/extending.md`'s generated table and checked by its test).
KINDS: dict[Kind, str] = {
    "methods": "an ideation method: a `Method` subclass (agents/core/method.py) whose `name` is the entry's name",
    "tools": "a researcher tool: a `ToolSpec` (api/contract/tools.py) whose `name` is the entry's name; it becomes "
    "an HTTP route, an MCP tool, a LangChain tool and a tool of every agent",
    "commands": "a contribution: an object with `summary`, `cli() -> typer.Typer | None` (a `motivgraph NAME` "
    "command) and `router() -> fastapi.APIRouter | None` (routes mounted at the service root)",
    "input_kinds": "an ingest input kind: an `InputKind` instance (ingest/plan.py) claiming file-name suffixes",
    "llm_providers": "a chat-model provider: a function `(spec: ModelSpec, *, timeout_s: float) -> BaseChatModel` "
    "(motivgraph/llm/factory.py) for models named `<entry name>:<model>`; the spec carries the model, key, base "
    "URL, temperature and token limit from the settings",
}

# The built-in parts, one line each: kind -> name -> "module:attribute". Order is the order of listings.
BUILTIN: dict[Kind, dict[str, str]] = {
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
    "commands": {
        "eval": "motivgraph.agents.evaluation.contrib:EvaluationContribution",
        "mindflow": "motivgraph.agents.mindflow.contrib:MindflowContribution",
        "runs": "motivgraph.agents.core.runs_contrib:RunsContribution",
    },
    "input_kinds": {
        "pdf": "motivgraph.ingest.plan:PDF_INPUT",
        "paper_json": "motivgraph.ingest.paper_json:PAPER_JSON_INPUT",
    },
    "llm_providers": {},  # the providers of llm/factory.py are built into it; a package may add others
}

_lock = threading.RLock()
_registered: dict[Kind, dict[str, Any]] = {k: {} for k in get_args(Kind)}  # register(): objects, not paths
_loaded: dict[tuple[Kind, str], Any] = {}
_entry_points: dict[Kind, dict[str, str]] | None = None
_version = 0  # bumped by every register/unregister; caches of derived things key on it


# The entry-point group of each kind: what a package's pyproject.toml names.
GROUPS: dict[Kind, str] = {
    "methods": "motivgraph.methods",
    "tools": "motivgraph.tools",
    "commands": "motivgraph.commands",
    "input_kinds": "motivgraph.input_kinds",
    "llm_providers": "motivgraph.llm_providers",
}


def group(kind: Kind) -> str:
    """The entry-point group of `kind`."""
    return GROUPS[kind]


def _installed() -> dict[Kind, dict[str, str]]:
    """The entry points of installed packages, read once per process (a scan of every installed package)."""
    global _entry_points
    if _entry_points is None:
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


def lines(kind: Kind) -> dict[str, str]:
    """Every import-path line of `kind`: the built-in ones first, then the installed packages' entry points."""
    return {**BUILTIN[kind], **{n: p for n, p in _installed()[kind].items() if n not in BUILTIN[kind]}}


def names(kind: Kind) -> list[str]:
    """Every name of `kind`, without importing anything: built-in, installed and registered ones, in that order."""
    with _lock:
        return list(dict.fromkeys([*lines(kind), *_registered[kind]]))


def _import(path: str) -> Any:
    module, _, attr = path.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def load(kind: Kind, name: str, check: Callable[[str, Any], None] | None = None) -> Any:
    """The part `name` of `kind` (imported on first use, then cached). `check(name, obj)` raises when the
    object is not what the kind needs; a failure names the line it came from."""
    with _lock:
        if (kind, name) in _loaded:  # checked when it was loaded
            return _loaded[(kind, name)]
        mine = _registered[kind].get(name)
    if mine is not None:
        try:
            if check is not None:
                check(name, mine)
        except Exception as e:
            raise ConfigError(f"{kind[:-1].replace('_', ' ')} {name!r} (registered) cannot be used: {e}") from e
        return mine
    path = lines(kind).get(name)
    if path is None:
        known = ", ".join(names(kind)) or "none"
        raise UnknownPart(f"unknown {kind[:-1].replace('_', ' ')} {name!r}; known: {known}")
    where = "built-in" if name in BUILTIN[kind] else f"entry point of {group(kind)}"
    try:
        obj = _import(path)
        if check is not None:
            check(name, obj)
    except Exception as e:
        raise ConfigError(f"{kind[:-1].replace('_', ' ')} {name!r} ({where} {path!r}) cannot be loaded: {e}") from e
    with _lock:
        return _loaded.setdefault((kind, name), obj)


def load_all(kind: Kind, check: Callable[[str, Any], None] | None = None) -> dict[str, Any]:
    """Every loadable part of `kind` by name; one that fails is logged and left out."""
    out: dict[str, Any] = {}
    for name in names(kind):
        try:
            out[name] = load(kind, name, check)
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
            raise ValueError(f"a {kind[:-1].replace('_', ' ')} named {name!r} is already registered")
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
