"""Ideation methods by name, and the HTTP body derived from them.

Methods are parts of kind "methods" of the one extension mechanism (`motivgraph/plugins.py`): the built-in
ones are lines of its `BUILTIN`, an installed package adds one through the entry-point group
`motivgraph.methods` (`name = "package.module:Class"`), tests and notebooks call `register(cls)`. Every path
goes through the same loader, which imports a method on first use.

From the registry alone come the `motivgraph ideate` flags and `--list-methods`, the POST
`/ideation/sessions` body (a discriminated union by `method`), and the mounted sub-commands and routes.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from motivgraph import plugins
from motivgraph.agents.core.method import Method
from motivgraph.errors import UnknownMethod

log = logging.getLogger(__name__)




def register(cls: type[Method[Any, Any]], *, replace: bool = False) -> type[Method[Any, Any]]:
    """Register a Method class under `cls.name` for this process (usable as a decorator)."""
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name.replace("_", "").isalnum() or not name.islower():
        raise ValueError(f"method name must be lower-case letters, digits and '_' (got {name!r})")
    plugins.register("methods", name, cls, replace=replace)
    return cls


def unregister(name: str) -> None:
    plugins.unregister("methods", name)


def method_names() -> list[str]:
    return sorted(plugins.names("methods"))


def get_method(name: str) -> type[Method[Any, Any]]:
    if name not in plugins.names("methods"):
        raise UnknownMethod(f"unknown ideation method {name!r}; methods: {', '.join(method_names())}")
    cls: type[Method[Any, Any]] = plugins.load("methods", name)
    return cls


def all_methods() -> list[type[Method[Any, Any]]]:
    loaded = plugins.load_all("methods")  # one that cannot be loaded is logged and left out
    return [loaded[n] for n in method_names() if n in loaded]


def version() -> int:
    return plugins.version()


# ----------------------------------------------------------------------------- HTTP body
def _topic(v: str) -> str:
    if "\x00" in v:
        raise ValueError("topic must not contain NUL characters")
    v = " ".join(v.split())
    if len(v) < 3:
        raise ValueError("topic must have at least 3 non-space characters")
    return v


# A run's topic as every edge takes it (the HTTP body here, the CLI's and the evaluation's RunSpec): its
# whitespace collapsed, so the same words name the same topic in a run's files, prompts and caches.
Topic = Annotated[str, Field(min_length=3, max_length=500, description="Research topic or task description."),
                  AfterValidator(_topic)]


class RunRequestBase(BaseModel):
    """Fields every method's request shares; the method's config fields are added beside them."""

    model_config = ConfigDict(extra="forbid")

    topic: Topic
    budget_usd: float | None = Field(None, ge=0, le=1000, description="Stop the run once it has spent this much.")
    seed: int | None = Field(None, ge=0, le=2**31 - 1, description="Run seed (default MOTIVGRAPH_AGENTS_SEED).")

    def method_config(self) -> dict[str, Any]:
        return self.model_dump(exclude={"method", *RunRequestBase.model_fields})


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
