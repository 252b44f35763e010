"""The one idea record every ideation method returns (and ideas.json holds).

Core fields are what an evaluator reads — motivation and method separately; `grounding` says which
`kg:` links resolve to graph nodes and which citations match papers the run actually retrieved;
`provenance` says who made it and at what cost; `extra` holds method-specific data (lineage, scores,
operator flow, card fields, a SoIQ dialogue history), validated by the method's `extra_model`.

SoIQ's idea JSON maps onto it: Name→name, Title→title, Motivation→motivation, Related Work→
related_work, Abstract→abstract, Method→method, Experiments plan→experiments, Risk Factors and
Limitations→risks (expected_outcome stays empty: SoIQ does not ask for one).
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from motivgraph.api.contract.models import QuoteOut

M = TypeVar("M", bound=BaseModel)

IdeaStatus = Literal["accepted", "rejected", "candidate"]


class KgLink(BaseModel):
    """A `kg:<type>:<name>` link in the idea text and whether it names a node of that type."""

    type: str
    name: str
    key: str | None = None
    resolved: bool
    reason: str | None = None
    suggestions: list[str] = Field(default_factory=list)
    quotes: list[QuoteOut] = Field(
        default_factory=list, description="Quotes of the papers that state the node (the report cites them)."
    )


class ResolvedPaper(BaseModel):
    title: str
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    paper_id: str | None = None
    doi: str | None = None


class CitationRef(BaseModel):
    """An (Author et al., year) citation and the retrieved paper it matches (None: unmatched)."""

    raw: str
    author: str
    year: int
    paper: ResolvedPaper | None = None
    reason: str | None = None

    @property
    def resolved(self) -> bool:
        return self.paper is not None


class Grounding(BaseModel):
    checked: bool = Field(False, description="False when no grounding check ran (e.g. no graph).")
    links: list[KgLink] = Field(default_factory=list)
    citations: list[CitationRef] = Field(default_factory=list)

    @property
    def links_resolved(self) -> int:
        return sum(1 for ln in self.links if ln.resolved)

    @property
    def citations_resolved(self) -> int:
        return sum(1 for c in self.citations if c.paper is not None)

    @property
    def flagged(self) -> bool:
        """True when some link or citation does not resolve."""
        return self.links_resolved < len(self.links) or self.citations_resolved < len(self.citations)

    def summary(self) -> dict[str, Any]:
        return {"checked": self.checked, "links_total": len(self.links), "links_resolved": self.links_resolved,
                "citations_total": len(self.citations), "citations_resolved": self.citations_resolved,
                "flagged": self.flagged}


class Provenance(BaseModel):
    method: str
    run_id: str
    topic: str
    topic_id: str | None = None
    models: dict[str, str] = Field(default_factory=dict, description="Model id per (namespaced) LLM role.")
    input_tokens: int = 0
    output_tokens: int = 0
    llm_calls: int = 0
    cost_usd: float = 0.0
    created_at: str | None = None


class IdeaRecord(BaseModel):
    """One research idea. Text fields may hold `[text](kg:<type>:<name>)` links and (Author et al., year)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("", description="Short snake_case handle.")
    title: str = Field(min_length=1)
    motivation: str = Field("", description="The problem and why it matters (problem/motivation).")
    method: str = Field("", description="What is proposed and how it works.")
    experiments: str = Field("", description="Experiments plan: data, baselines, metrics, ablations.")
    expected_outcome: str = ""
    risks: str = Field("", description="Risk factors and limitations.")
    abstract: str = ""
    related_work: str = ""
    status: IdeaStatus = "accepted"
    rejection: str | None = Field(None, description="Why the idea is rejected: the shared validity gate's reasons "
                                  "(`invalid_idea: ...`, agents/core/validity.py) or the method's own.")
    grounding: Grounding = Field(default_factory=Grounding)
    provenance: Provenance
    extra: dict[str, Any] = Field(default_factory=dict, description="Method-specific data (Method.extra_model).")

    def text(self) -> str:
        """The idea's prose, for link/citation scanning and embeddings."""
        parts = [("Title", self.title), ("Motivation", self.motivation), ("Related Work", self.related_work),
                 ("Abstract", self.abstract), ("Method", self.method), ("Experiments", self.experiments),
                 ("Expected outcome", self.expected_outcome), ("Risks", self.risks)]
        return "\n".join(f"{k}: {v}" for k, v in parts if v)

    def extra_as(self, model: type[M]) -> M:
        """`extra` validated as a method's typed model."""
        return model.model_validate(self.extra)
