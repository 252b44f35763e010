"""The bodies the ideation routes accept, as strict as the tool API's (api/contract/models.py):

- JSON numbers only for number fields: pydantic's lax mode would take `true` as 1 for `max_repairs` and `"5"` as 5,
  which the schema (type: integer / number) forbids — a client bug must be a 422, not a silently different run;
- the topic follows the one text policy (motivgraph.text_hygiene: no NUL, control characters, lone surrogates or
  noncharacters) and its rule — at least 3 characters once whitespace is collapsed — is stated as a schema
  `pattern`, so a schema-valid topic is an accepted one.

The registry's request models (agents/core/registry.request_model) stay the source of the fields; this module
derives the HTTP variants from them, keeping their names (the OpenAPI component names do not change).
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, Field, ValidationInfo, create_model, field_validator

from motivgraph.agents.core.method import Method, MethodConfig
from motivgraph.agents.core.registry import RunRequestBase, Topic, all_methods, as_run_request, request_model
from motivgraph.api.contract.models import SchemaPattern
from motivgraph.text_hygiene import TEXT_PATTERN, check_text

# TEXT_PATTERN is "^[^<excluded>]*$": its character class, reused so the two rules cannot drift apart
_ALLOWED = TEXT_PATTERN[1:-2]
_SPACE = "\\t\\n\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"  # what str.split() splits on
_VISIBLE = _ALLOWED[:-1] + _SPACE + "]"
# Collapsed length >= 3 <=> two non-space characters with at least one character (space or not) between them.
TOPIC_PATTERN = f"^{_ALLOWED}*{_VISIBLE}{_ALLOWED}+{_VISIBLE}{_ALLOWED}*$"

EXAMPLE_TOPIC = "Detecting unsupported claims in scientific abstracts with retrieval over the cited papers"

# the run's topic (registry.Topic) with the text rule stated in the published schema
StrictTopic = Annotated[Topic, SchemaPattern(TOPIC_PATTERN)]


def _is_number(annotation: Any) -> bool:
    """int or float, also inside Optional[...] and Annotated[...] (config fields are Optional[Annotated[int, ...]])."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _is_number(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return any(_is_number(a) for a in get_args(annotation))
    return annotation in (int, float)


def strict_numbers(cls: type[BaseModel], v: Any, info: ValidationInfo) -> Any:
    """Before-validator for the number fields and the topic: a bool or a string for a number is refused (5.0 for an
    integer stays accepted, as JSON Schema allows); the topic goes through the text policy."""
    name = info.field_name
    if name and isinstance(v, (bool, str)) and _is_number(cls.model_fields[name].annotation):
        raise ValueError(f"must be a JSON number, not {type(v).__name__} {v!r}")
    if name == "topic" and isinstance(v, str):
        check_text(v)
    return v


def _is_list(annotation: Any) -> bool:
    """list[...] also inside Optional[...] and Annotated[...]."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _is_list(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return any(_is_list(a) for a in get_args(annotation))
    return origin is list or annotation is list


def _array_problem(value: Any, schema: dict[str, Any]) -> str | None:
    """Why `value` breaks the published schema of an array field (type array; items' type string and enum), or None.
    Only what the config validators are laxer about for the CLI (a comma string, any case) is checked here; every
    other rule is the field's own."""
    if value is None and any(s.get("type") == "null" for s in schema.get("anyOf", [])):
        return None
    if not isinstance(value, list):
        return f"must be a JSON array, not {type(value).__name__}"
    items: dict[str, Any] = schema.get("items") or next(
        (s.get("items") for s in schema.get("anyOf", []) if s.get("items")), {})
    for i, item in enumerate(value):
        if items.get("type") == "string" and not isinstance(item, str):
            return f"item {i} must be a string, not {type(item).__name__}"
        if "enum" in items and item not in items["enum"]:
            return f"item {i} ({str(item)[:40]!r}) is not one of {', '.join(map(str, items['enum']))}"
    return None


def strict_request_model(method: Any) -> type[RunRequestBase]:
    """The method's run request (registry) with strict numbers, arrays as the schema states them and the stated topic
    rule, under the same name."""
    base = request_model(method)
    # named fields, not "*": the discriminator `method` must not carry a before-validator
    checked = ["topic", *(n for n, f in base.model_fields.items() if _is_number(f.annotation))]
    validators: dict[str, Any] = {"strict_numbers": field_validator(*checked, mode="before")(strict_numbers)}
    arrays = [n for n, f in base.model_fields.items() if _is_list(f.annotation)]
    if arrays:
        # The CLI's config validators take a comma string and any case for a list (`--ablations no-mentor,x`); over
        # HTTP a body is what the published schema says, so a schema-invalid array is a 422 before they run.
        props = base.model_json_schema()["properties"]

        def strict_arrays(cls: type[BaseModel], v: Any, info: ValidationInfo) -> Any:
            problem = _array_problem(v, props.get(info.field_name or "", {}))
            if problem:
                raise ValueError(problem)
            return v

        validators["strict_arrays"] = field_validator(*arrays, mode="before")(strict_arrays)
    # remote_fields: what a remote caller names differently from the CLI (a stored object's id, never a server path)
    model = create_model(base.__name__, __base__=base, __validators__=validators, topic=(StrictTopic, ...),
                         **method.remote_fields())
    model.__doc__ = base.__doc__
    # /docs' "Try it out" starts from a runnable body: the method's own defaults fill in every other field
    example = {"method": method.name, "topic": EXAMPLE_TOPIC, "budget_usd": 0.5}
    model.model_config = {**model.model_config, "json_schema_extra": {"examples": [example]}}
    model.model_rebuild(force=True)
    return as_run_request(model)


def method_config_of(body: RunRequestBase, method: type[Method[Any, Any]]) -> MethodConfig:
    """The body as the method's typed config, not validated again: the request model extends the method's config
    model, so its config fields went through the same field and model validators (and the stricter number rule)
    when the body was parsed; they are taken as they are."""
    names = method.config_model.model_fields
    return method.config_model.model_construct(_fields_set=body.model_fields_set & set(names),
                                               **{n: getattr(body, n) for n in names})


def session_body_type() -> Any:
    """The POST /ideation/sessions body: a discriminated union by `method` over every registered method."""
    models = [strict_request_model(m) for m in all_methods()]
    if len(models) == 1:
        return models[0]
    return Annotated[Union[tuple(models)], Field(discriminator="method")]  # noqa: UP007


class ResumeRequest(BaseModel):
    model_config = {"extra": "forbid", "json_schema_extra": {"examples": [{"budget_usd": 2.0}]}}

    budget_usd: float | None = Field(None, ge=0, le=1000, description="New budget for the whole run (optional).")

    check_numbers = field_validator("budget_usd", mode="before")(strict_numbers)
