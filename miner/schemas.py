"""Pydantic models the miner exchanges: what the extractor LLM must return, what an extraction
produced (kept and rejected triples with their rule violations), and the resolver / parent-judge
verdicts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.config import JsonDict

from motivgraph.graph.models import Evidence
from motivgraph.limits import MAX_QUOTES_PER_ELEMENT

ExtractorName = Literal["llm", "heuristic"]


def _squash(v: str) -> str:
    return " ".join(str(v).split())


class NodeText(BaseModel):
    """A node as the extractor names it: a short name and a standalone description."""

    name: str = Field(description="Concise, general name following the naming rules for its type.")
    description: str = Field(description="Standalone description (1-3 sentences).")

    @field_validator("name", "description", mode="before")
    @classmethod
    def _clean(cls, v: object) -> str:
        return _squash(str(v)) if v is not None else ""

    def text(self) -> str:
        """The text that is embedded for this node (same convention as the vector index)."""
        return f"{self.name}: {self.description}" if self.description else self.name


def _quotes_required(schema: JsonDict) -> None:
    # the reply schema (and a local model's grammar) must ask for the quotes; stored extractions from
    # before quotes existed still load, so the Python default stays
    req = schema.setdefault("required", [])
    if isinstance(req, list) and "quotes" not in req:
        req.append("quotes")


class ExtractedNode(NodeText):
    """An element of an extracted triple: its node text and the paper's sentences that state it."""

    model_config = ConfigDict(json_schema_extra=_quotes_required)

    quotes: list[str] = Field(
        default_factory=list,
        description="The sentence or sentences of the paper that state this element, copied word for word "
        "(1 or 2; no paraphrase, no ellipsis).",
        # the schema bounds what a constrained decoder may write (a toy model's runaway string would cut the
        # reply at max_tokens); validation is looser (before-validator: up to MAX_QUOTES_PER_ELEMENT)
        json_schema_extra={"maxItems": 2, "items": {"type": "string", "maxLength": 600}},
    )

    @field_validator("quotes", mode="before")
    @classmethod
    def _quotes(cls, v: object) -> list[str]:
        if v is None:
            return []
        items = [v] if isinstance(v, str) else list(v) if isinstance(v, (list, tuple)) else [v]
        out = [_squash(str(x)) for x in items if x is not None and _squash(str(x))]
        return out[:MAX_QUOTES_PER_ELEMENT]

    @classmethod
    def of(cls, node: NodeText, quotes: list[str]) -> ExtractedNode:
        return cls(name=node.name, description=node.description, quotes=quotes)


class ExtractedTriple(BaseModel):
    problem: ExtractedNode = Field(description="The general research task or field the paper addresses.")
    challenge: ExtractedNode = Field(description="One specific difficulty within that problem.")
    solution: ExtractedNode = Field(description="The technical approach that addresses the challenge.")
    section: str | None = Field(
        None, description="Section the evidence came from: introduction, abstract or method."
    )

    @field_validator("section", mode="before")
    @classmethod
    def _section(cls, v: object) -> str | None:
        if v is None:
            return None
        s = _squash(str(v)).lower()
        return s[:60] or None

    @field_validator("problem", "challenge", "solution", mode="before")
    @classmethod
    def _node(cls, v: object) -> object:
        # a plain NodeText (no quotes) is accepted as an element without quotes
        return v.model_dump() if isinstance(v, NodeText) and not isinstance(v, ExtractedNode) else v


class ExtractionReply(BaseModel):
    """What the extractor LLM returns for one paper."""

    triples: list[ExtractedTriple] = Field(
        description="1..n motivation triples; empty only when the text is not research."
    )
    no_triples_reason: str | None = Field(
        None, description="When triples is empty: why (e.g. 'not a research paper', 'text too short')."
    )


class RejectedTriple(BaseModel):
    triple: ExtractedTriple
    violations: list[str]


class ExtractionResult(BaseModel):
    """The outcome of extracting one paper. `triples` passed validation; `rejected` did not (after the
    re-ask) and is recorded, never stored. Zero triples always come with a `reason`."""

    paper_id: str
    extractor: ExtractorName
    triples: list[ExtractedTriple] = Field(default_factory=list)
    rejected: list[RejectedTriple] = Field(default_factory=list)
    reason: str | None = None
    sections_used: list[str] = Field(default_factory=list)
    input_tokens: int = 0
    trimmed: bool = False
    reasked: bool = False
    llm_calls: int = 0
    evidence: list[Evidence] = Field(
        default_factory=list,
        description="The checked quotes of each triple (same order as `triples`), filled by the sink on the "
        "first commit against the full parse and kept with the extraction, so a replay (papers delete, merge "
        "undo) stores the same evidence without the parse.",
    )

    @property
    def ok(self) -> bool:
        return bool(self.triples)


class SameConceptVerdict(BaseModel):
    """The resolver LLM's answer: do two node mentions name the same concept?"""

    same: bool = Field(description="true when both describe the same concept and should be one node.")
    reason: str = Field("", description="One sentence explaining the decision.")


class ParentVerdict(BaseModel):
    """The parent judge's answer for one focal node and its numbered candidates."""

    create: bool = Field(
        description="true when a coherent, more general concept covers the focal node and some candidates."
    )
    members: list[int] = Field(
        default_factory=list,
        description="Numbers of the candidates the parent covers (the focal node is always covered).",
    )
    name: str = Field("", description="Name of the more general parent concept.")
    description: str = Field("", description="One or two sentences describing the parent concept.")
    reason: str = Field("", description="Why these belong together (or why not).")

    @field_validator("name", "description", "reason", mode="before")
    @classmethod
    def _clean(cls, v: object) -> str:
        return _squash(str(v)) if v is not None else ""


class JoinVerdict(BaseModel):
    """Incremental mode: does an existing parent cover a new node?"""

    covers: bool = Field(description="true when the parent concept is a correct generalisation of the node.")
    reason: str = Field("", description="One sentence explaining the decision.")
