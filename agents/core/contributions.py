"""The components that are not methods but contribute a top-level CLI command and API routes.

Kept apart from the method registry (agents/core/registry.py, which re-exports these names) so that
listing the commands — `motivgraph --help` — imports neither pydantic nor the method protocol.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from motivgraph.errors import ConfigError

log = logging.getLogger(__name__)

# Components that are not methods but contribute a top-level CLI command (`motivgraph NAME ...`, from
# `cli() -> typer.Typer`) and API routes (`router() -> APIRouter`, mounted at the service root), one line
# each: name -> "module:Object". Loaded only when the command is invoked or the service is assembled.
CONTRIBUTIONS: dict[str, str] = {
    "eval": "motivgraph.agents.evaluation.contrib:EvaluationContribution",
    "mindflow": "motivgraph.agents.mindflow.contrib:MindflowContribution",
    "runs": "motivgraph.agents.core.runs_contrib:RunsContribution",
}


def get_contribution(name: str) -> Any:
    path = CONTRIBUTIONS.get(name)
    if path is None:
        raise ConfigError(f"unknown contribution {name!r}; contributions: {', '.join(sorted(CONTRIBUTIONS))}")
    mod_name, _, attr = path.partition(":")
    return getattr(importlib.import_module(mod_name), attr)


def all_contributions() -> list[Any]:
    out = []
    for name in sorted(CONTRIBUTIONS):
        try:
            out.append(get_contribution(name))
        except Exception as e:  # one broken contribution must not hide the others
            log.warning("contribution %s could not be loaded: %s", name, e)
    return out
