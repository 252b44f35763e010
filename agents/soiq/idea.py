"""The idea a researcher writes: a validated model, and parsing/repair of the JSON it arrives in.

The field names keep the spelling the prompts ask for ("Related Work", "Experiments plan", ...) so a
model's JSON maps onto the model directly; Python attributes use snake_case.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from motivgraph.agents.core.jsonreply import candidate_spans, loads_lenient
from motivgraph.errors import IdeaParseError

log = logging.getLogger(__name__)

IDEA_FIELDS: tuple[str, ...] = (
    "Name",
    "Title",
    "Motivation",
    "Related Work",
    "Abstract",
    "Method",
    "Experiments plan",
    "Risk Factors and Limitations",
)

_NAME_RE = re.compile(r"[^a-z0-9_]+")


class Idea(BaseModel):
    """A research idea. Text fields may hold inline `kg:<type>:<name>` links and (Author et al., year)."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore", str_strip_whitespace=True)

    name: str = Field(alias="Name", min_length=1, max_length=120, description="snake_case handle")
    title: str = Field(alias="Title", min_length=3, max_length=400)
    motivation: str = Field(alias="Motivation", min_length=20)
    related_work: str = Field(alias="Related Work", min_length=20)
    abstract: str = Field(alias="Abstract", min_length=20)
    method: str = Field(alias="Method", min_length=20)
    experiments_plan: str = Field(alias="Experiments plan", min_length=20)
    risks: str = Field(alias="Risk Factors and Limitations", min_length=10)

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, v: Any) -> Any:
        # The spellings models use for the fields (and {"idea": {...}}), also for structured calls.
        if isinstance(v, dict):
            if len(v) == 1 and isinstance(next(iter(v.values())), dict):
                v = next(iter(v.values()))
            return _canon_keys(v)
        return v

    @field_validator("name", mode="before")
    @classmethod
    def _snake(cls, v: Any) -> Any:
        # The handle is only a label; normalising it beats rejecting an otherwise good idea.
        if isinstance(v, str):
            s = _NAME_RE.sub("_", v.strip().lower().replace(" ", "_")).strip("_")
            return s[:120] or v
        return v

    def to_json(self) -> dict[str, str]:
        """The idea with the prompt's field names, in the prompt's order."""
        return self.model_dump(by_alias=True)

    def text(self) -> str:
        """Every field joined, for link/citation scanning and embeddings."""
        return "\n".join(f"{k}: {v}" for k, v in self.to_json().items())

    def render(self) -> str:
        return "```json\n" + json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n```"


_KEY_CANON = {re.sub(r"[^a-z]", "", f.lower()): f for f in IDEA_FIELDS}
# Spellings models commonly use for the same fields.
_KEY_CANON.update(
    {
        "relatedworks": "Related Work",
        "experimentplan": "Experiments plan",
        "experiments": "Experiments plan",
        "experimentalplan": "Experiments plan",
        "riskfactors": "Risk Factors and Limitations",
        "risksandlimitations": "Risk Factors and Limitations",
        "limitations": "Risk Factors and Limitations",
        "riskfactorsandlimitation": "Risk Factors and Limitations",
    }
)


def _canon_keys(obj: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in obj.items():
        canon = _KEY_CANON.get(re.sub(r"[^a-z]", "", str(k).lower()), str(k))
        if isinstance(v, list):  # a list of paragraphs/steps is still the field's text
            v = "\n".join(str(x) for x in v)
        elif isinstance(v, dict):
            v = "\n".join(f"{kk}: {vv}" for kk, vv in v.items())
        out[canon] = v
    return out


def parse_idea(text: str) -> tuple[Idea, bool]:
    """The idea in a reply and whether the JSON needed repair. Raises IdeaParseError listing what is
    missing or invalid, phrased so it can be sent back to the model as a correction request."""
    problems: list[str] = []
    best_missing: list[str] | None = None
    for span in candidate_spans(text, r"IDEA\s+JSON\s*:?"):
        obj, repaired = loads_lenient(span)
        if obj is None:
            continue
        if len(obj) == 1 and isinstance(next(iter(obj.values())), dict):  # {"idea": {...}}
            obj = next(iter(obj.values()))
        obj = _canon_keys(obj)
        try:
            return Idea.model_validate(obj), repaired
        except ValidationError as e:
            missing = [f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}" for err in e.errors()]
            if best_missing is None or len(missing) < len(best_missing):
                best_missing = missing
    if best_missing is not None:
        problems = best_missing
        raise IdeaParseError("the idea JSON is incomplete or invalid: " + "; ".join(problems), problems)
    raise IdeaParseError(
        "no idea JSON found: write the idea as one JSON object in a ```json block after 'IDEA JSON:'",
        ["no JSON object"],
    )
