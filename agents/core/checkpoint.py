"""Typed, versioned checkpoints: `state.json` = {format, method, version, saved_at, state}.

`state` is the method's `state_model` dumped to JSON. On load the version is checked: the same
version validates directly; an older one goes through the method's `migrate_state` (which raises
`CheckpointVersionError` unless the method knows how); a newer one is refused (written by newer code).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from motivgraph.errors import CheckpointVersionError

if TYPE_CHECKING:
    from motivgraph.agents.core.method import Method

S = TypeVar("S", bound=BaseModel)
FORMAT = "motivgraph.checkpoint/1"


def envelope(method: str, version: int, state: BaseModel, saved_at: str) -> dict[str, Any]:
    return {"format": FORMAT, "method": method, "version": version, "saved_at": saved_at,
            "state": state.model_dump(mode="json")}


def read_state(method: Method[Any, Any], raw: dict[str, Any], where: str) -> BaseModel:
    """Validate a stored checkpoint for `method`, migrating an older version."""
    name, version = type(method).name, type(method).state_version
    if raw.get("format") != FORMAT:
        # Written before checkpoints were typed (SoIQ's untyped dict carried only "version").
        raw = {"format": FORMAT, "method": name, "version": int(raw.get("version", 0) or 0), "state": raw}
    if raw.get("method") != name:
        raise CheckpointVersionError(f"{where}: checkpoint of method {raw.get('method')!r}, not {name!r}")
    got = int(raw.get("version", 0))
    data = raw.get("state")
    if not isinstance(data, dict):
        raise CheckpointVersionError(f"{where}: checkpoint has no state object")
    if got > version:
        raise CheckpointVersionError(
            f"{where}: checkpoint version {got} was written by newer code ({name} here reads up to {version}); "
            "resume it with that version of motivgraph")
    if got < version:
        data = method.migrate_state(data, got)
    try:
        return type(method).state_model.model_validate(data)
    except ValidationError as e:
        raise CheckpointVersionError(f"{where}: checkpoint state does not match {name} version {version}: "
                                     f"{e.errors()[0]['msg']}") from None
