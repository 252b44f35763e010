"""The method registry: name → Method class. A new method is one folder plus one line in BUILTIN.

Lines are import paths, loaded on first use, so listing methods does not import every method's
dependencies until needed. Installed packages can add methods through the entry-point group
`motivgraph.methods` (`name = "package.module:Class"`); tests and notebooks call `register(cls)`.

From the registry alone come the `motivgraph ideate` flags and `--list-methods`, the POST
`/ideation/sessions` body (a discriminated union by `method`), and the mounted sub-commands and routes.
"""

from __future__ import annotations

import importlib
import logging
import threading
from importlib.metadata import entry_points
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from motivgraph.agents.core.contributions import CONTRIBUTIONS as CONTRIBUTIONS
from motivgraph.agents.core.contributions import all_contributions as all_contributions
from motivgraph.agents.core.contributions import get_contribution as get_contribution
from motivgraph.agents.core.method import Method
from motivgraph.errors import ConfigError

log = logging.getLogger(__name__)

# One line per method: name -> "module:Class".
BUILTIN: dict[str, str] = {
    "soiq": "motivgraph.agents.soiq.method:SoiqMethod",
    "setlevel": "motivgraph.agents.setlevel.method:SetlevelMethod",
    "ideagent": "motivgraph.agents.ideagent.method:IdeagentMethod",
    "stateless": "motivgraph.agents.ideagent.baselines:StatelessMethod",
    "one_shot": "motivgraph.agents.ideagent.baselines:OneShotMethod",
    "sequential_memory": "motivgraph.agents.ideagent.baselines:SequentialMemoryMethod",
    "nova": "motivgraph.agents.ideagent.baselines:NovaMethod",
    "mindflow": "motivgraph.agents.mindflow.method:MindflowMethod",
}
ENTRY_POINT_GROUP = "motivgraph.methods"

_lock = threading.Lock()
_classes: dict[str, type[Method[Any, Any]]] = {}
_extra_paths: dict[str, str] = {}
_loaded_entry_points = False
_version = 0  # bumped on every change; caches of derived models key on it


class UnknownMethod(ConfigError):
    """No method of that name is registered; the message lists those that are."""


def _entry_point_paths() -> dict[str, str]:
    global _loaded_entry_points
    if not _loaded_entry_points:
        _loaded_entry_points = True
        try:
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                _extra_paths.setdefault(ep.name, ep.value)
        except Exception as e:  # a broken third-party package must not break the CLI
            log.warning("could not read %s entry points: %s", ENTRY_POINT_GROUP, e)
    return _extra_paths


def register(cls: type[Method[Any, Any]], *, replace: bool = False) -> type[Method[Any, Any]]:
    """Register a Method class under `cls.name` (usable as a decorator)."""
    global _version
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name.replace("_", "").isalnum() or not name.islower():
        raise ValueError(f"method name must be lower-case letters, digits and '_' (got {name!r})")
    with _lock:
        known = _classes.get(name)
        if known is not None and known is not cls and not replace:
            raise ValueError(f"a method named {name!r} is already registered ({known.__module__})")
        _classes[name] = cls
        _version += 1
    return cls


def unregister(name: str) -> None:
    global _version
    with _lock:
        _classes.pop(name, None)
        _version += 1


def _load(name: str, path: str) -> type[Method[Any, Any]]:
    mod_name, _, attr = path.partition(":")
    cls = getattr(importlib.import_module(mod_name), attr)
    if not (isinstance(cls, type) and issubclass(cls, Method)) or cls.name != name:
        raise ConfigError(f"registry line {name!r} -> {path!r} does not name a Method called {name!r}")
    return register(cls)


def method_names() -> list[str]:
    return sorted({*BUILTIN, *_entry_point_paths(), *_classes})


def get_method(name: str) -> type[Method[Any, Any]]:
    if name in _classes:
        return _classes[name]
    path = BUILTIN.get(name) or _entry_point_paths().get(name)
    if path is None:
        raise UnknownMethod(f"unknown ideation method {name!r}; methods: {', '.join(method_names())}")
    return _load(name, path)


def all_methods() -> list[type[Method[Any, Any]]]:
    out = []
    for n in method_names():
        try:
            out.append(get_method(n))
        except Exception as e:  # one broken method must not hide the others
            log.warning("method %s could not be loaded: %s", n, e)
    return out


def version() -> int:
    return _version


# ----------------------------------------------------------------------------- HTTP body
class RunRequestBase(BaseModel):
    """Fields every method's request shares; the method's config fields are added beside them."""

    model_config = ConfigDict(extra="forbid")

    topic: str = Field(min_length=3, max_length=500, description="Research topic or task description.")
    budget_usd: float | None = Field(None, ge=0, le=1000, description="Stop the run once it has spent this much.")
    seed: int | None = Field(None, ge=0, le=2**31 - 1, description="Run seed (default MOTIVGRAPH_AGENTS_SEED).")

    @field_validator("topic")
    @classmethod
    def _topic(cls, v: str) -> str:
        if "\x00" in v:
            raise ValueError("topic must not contain NUL characters")
        v = " ".join(v.split())
        if len(v) < 3:
            raise ValueError("topic must have at least 3 non-space characters")
        return v

    def method_config(self) -> dict[str, Any]:
        return self.model_dump(exclude={"method", *RunRequestBase.model_fields})


_request_cache: dict[str, tuple[int, Any]] = {}


def request_model(cls: type[Method[Any, Any]]) -> type[RunRequestBase]:
    """`{method: Literal[name], topic, budget_usd, seed, **config fields}` for one method."""
    clash = set(cls.config_model.model_fields) & set(RunRequestBase.model_fields) | (
        {"method"} & set(cls.config_model.model_fields))
    if clash:
        raise ValueError(f"{cls.name} config fields {sorted(clash)} clash with the run request's own fields")
    method_type: Any = Literal[cls.name]
    fields: dict[str, Any] = {"method": (method_type, Field(description="Ideation method."))}
    for fname, f in cls.config_model.model_fields.items():
        fields[fname] = (f.annotation, f)
    model = create_model(f"{cls.__name__}Request", __base__=(RunRequestBase, cls.config_model), **fields)
    model.__doc__ = cls.summary or cls.__doc__
    return as_run_request(model)


def as_run_request(model: type[BaseModel]) -> type[RunRequestBase]:
    """`model` checked to be a run request (create_model types its result by the common base of its bases,
    and the pydantic mypy plugin cannot narrow it: a checked function can)."""
    if not issubclass(model, RunRequestBase):
        raise TypeError(f"{model.__name__} is not a run request")
    return model


def session_request_type() -> Any:
    """The POST /ideation/sessions body: a discriminated union by `method` over every method."""
    cached = _request_cache.get("union")
    if cached and cached[0] == _version and cached[1] is not None:
        return cached[1]
    models = [request_model(c) for c in all_methods()]  # loads lazy lines (which bumps the version)
    union: Any = models[0] if len(models) == 1 else Annotated[Union[tuple(models)], Field(discriminator="method")]  # noqa: UP007
    _request_cache["union"] = (_version, union)
    return union
