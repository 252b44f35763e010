"""Typed requests and results of the researcher tools: the same objects over HTTP and in process.

Pure pydantic (no FastAPI, no store), so an agent can import them without the server. Every limit
an LLM-written argument can break is declared here, once: the API turns a violation into a 422 and
the in-process client into a `ValidationError` with the same message.
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    StringConstraints,
    ValidationInfo,
    field_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from motivgraph.choices import LiteratureSource, NodeType
from motivgraph.limits import MAX_NAME_CHARS
from motivgraph.text_hygiene import NONBLANK_TEXT_PATTERN, check_text


def _clean_text(v: str) -> str:
    # The one text policy (motivgraph.text_hygiene): lone surrogates, NUL, control characters and
    # noncharacters are rejected with their position — never repaired — so nothing reaches a backend
    # that it would choke on (a 500) or silently change (two names merging).
    check_text(v)
    v = " ".join(v.split())
    if not v:
        raise ValueError("text must contain something other than whitespace")
    return v


class SchemaPattern:
    """Annotated metadata: states a `pattern` in the JSON schema only (the validation is `_clean_text`, which
    gives a better message than a regex mismatch), so clients and fuzzers see the text rule."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def __get_pydantic_json_schema__(self, core: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core)
        schema["pattern"] = self.pattern
        return schema


CleanText = SchemaPattern(NONBLANK_TEXT_PATTERN)
Query = Annotated[str, StringConstraints(min_length=1, max_length=1000), AfterValidator(_clean_text), CleanText]
Name = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_CHARS), AfterValidator(_clean_text),
                 CleanText]
TypeList = Annotated[list[NodeType], Field(min_length=1, max_length=3)]
# Where literature_search found a paper: an outbound source, or the local corpus (which is not a setting's choice).
PaperSource = Literal[LiteratureSource, "local"]
# What random_nodes draws: single nodes or whole P→C→S triples.
DrawMode = Literal["nodes", "triples"]


def _is_number(annotation: Any) -> bool:
    args = get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else (annotation,)
    return any(a in (int, float) for a in args)


class _Req(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _strict_numbers(cls, v: Any, info: ValidationInfo) -> Any:
        # JSON numbers only: pydantic's lax mode would take `false` as 0.0 and "5" as 5, which the schema
        # (type: number / integer) forbids; 5.0 for an integer stays accepted, as JSON Schema allows.
        if isinstance(v, (bool, str)) and info.field_name and _is_number(cls.model_fields[info.field_name].annotation):
            raise ValueError(f"must be a JSON number, not {type(v).__name__} {v!r}")
        return v


def _dedupe_types(v: list[NodeType] | None) -> list[NodeType] | None:
    return list(dict.fromkeys(v)) if v else None


# --------------------------------------------------------------------------------- shared records


class NodeBrief(BaseModel):
    """A node as tools show it: identity, type, one-line description."""

    key: str = Field(description="Unique key '<type>:<normalized name>'.")
    type: NodeType
    name: str
    description: str = ""
    level: int = Field(0, description="0 for nodes extracted from papers, >= 1 for parent nodes.")


class ScoredNode(NodeBrief):
    score: float = Field(description="Cosine similarity to the query (-1..1).")


class QuoteOut(BaseModel):
    """A passage of a paper that states a node (or one element of a triple), as the tools show it: the
    quote cut to `api.evidence_quote_chars` characters, with where the miner found it in the paper."""

    text: str = Field(description="The quote as the paper states it ('…' marks a quote cut to the length limit).")
    verified: bool = Field(description="True when the miner located the quote in the paper's text.")
    element: NodeType = Field(description="Which element of the stated triple this quote supports.")
    paper_id: str
    title: str = ""
    year: int | None = None
    section: str | None = Field(None, description="Heading of the section it was found in.")
    page: int | None = Field(None, description="1-based page (null for records without pages).")
    reason: str | None = Field(None, description="Why it is not verified (null when verified).")


class TripleOut(BaseModel):
    """One problem → challenge → solution path and the papers that state it."""

    problem: NodeBrief
    challenge: NodeBrief
    solution: NodeBrief
    papers: list[str] = Field(default_factory=list, description="Ids of the papers stating this triple.")
    evidence: list[QuoteOut] = Field(
        default_factory=list,
        description="Quotes of the stating papers for the triple's elements (at most api.evidence_quotes per "
        "element; verified first).",
    )


class PaperBrief(BaseModel):
    paper_id: str
    title: str = ""
    year: int | None = None


# --------------------------------------------------------------------------------- node_search


class NodeSearchRequest(_Req):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"query": "LLM compression", "k": 5, "types": ["solution"], "min_score": 0.3},
    ]})

    query: Query = Field(description="What to look for, in words (e.g. 'LLM compression').")
    k: int = Field(10, ge=1, le=100, description="Number of nodes to return (1..100).")
    types: TypeList | None = Field(None, description="Only these node types (problem, challenge, solution).")
    min_score: float | None = Field(None, ge=-1, le=1, description="Drop hits below this cosine similarity.")

    _t = field_validator("types")(_dedupe_types)


class NodeSearchResult(BaseModel):
    query: str
    hits: list[ScoredNode]
    index_stale: bool = Field(
        False, description="True when the vector index is older than the graph (`motivgraph reindex`)."
    )


# --------------------------------------------------------------------------------- node_relation


class NodeRelationRequest(_Req):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"names": ["model quantization for large language models"], "max_triples": 10},
    ]})

    names: Annotated[list[Name], Field(min_length=1, max_length=20)] = Field(
        description="Node names or keys (1..20); names match case- and alias-insensitively."
    )
    max_triples: int = Field(20, ge=1, le=200, description="Most P→C→S triples returned per node.")
    max_neighbours: int = Field(30, ge=1, le=500, description="Most neighbours returned per relation kind.")
    max_quotes: int | None = Field(
        None, ge=0, le=20,
        description="Most evidence quotes per node (verified first); the server's api.evidence_quotes when omitted.",
    )


class NodeRelation(BaseModel):
    query: str = Field(description="The name or key this entry answers.")
    node: NodeBrief
    aliases: list[str] = Field(default_factory=list)
    parents: list[NodeBrief] = Field(default_factory=list)
    children: list[NodeBrief] = Field(default_factory=list)
    problems: list[NodeBrief] = Field(default_factory=list)
    challenges: list[NodeBrief] = Field(default_factory=list)
    solutions: list[NodeBrief] = Field(default_factory=list)
    triples: list[TripleOut] = Field(default_factory=list)
    papers: list[PaperBrief] = Field(default_factory=list, description="Source papers (title, year).")
    evidence: list[QuoteOut] = Field(
        default_factory=list,
        description="Quotes of the papers that state this node (at most api.evidence_quotes; verified first).",
    )
    truncated: bool = Field(False, description="True when a list was cut at max_triples / max_neighbours.")


class Unresolved(BaseModel):
    query: str
    suggestions: list[str] = Field(default_factory=list, description="Names of close nodes (did you mean).")


class NodeRelationResult(BaseModel):
    nodes: list[NodeRelation]
    unresolved: list[Unresolved] = Field(default_factory=list)


# --------------------------------------------------------------------------------- random_nodes


class RandomNodesRequest(_Req):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"n": 5, "mode": "triples", "far_from": "protein folding", "seed": 7},
    ]})

    n: int = Field(10, ge=1, le=50, description="How many nodes (or triples) to draw (1..50).")
    types: TypeList | None = Field(None, description="Only these node types (mode=nodes).")
    mode: DrawMode = Field("nodes", description="Draw single nodes or whole P→C→S triples.")
    seed: int | None = Field(
        None, ge=0, le=2**31 - 1, description="Same seed on the same graph gives the same draw."
    )
    far_from: Query | None = Field(
        None, description="Topic text: only draw nodes with low similarity to it (distance-controlled novelty)."
    )
    max_similarity: float = Field(
        0.3, ge=-1, le=1, description="With far_from: the highest cosine similarity to the topic a drawn node may have."
    )

    _t = field_validator("types")(_dedupe_types)


class RandomNode(NodeBrief):
    similarity: float | None = Field(None, description="Cosine similarity to far_from (when given).")


class RandomNodesResult(BaseModel):
    mode: DrawMode
    seed: int = Field(description="The seed used (send it back to repeat this draw).")
    nodes: list[RandomNode] = Field(default_factory=list)
    triples: list[TripleOut] = Field(default_factory=list)
    note: str | None = Field(None, description="Why fewer items than asked came back, if they did.")


# --------------------------------------------------------------------------------- literature_search


class LiteratureSearchRequest(_Req):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"query": "speculative decoding for language models", "limit": 5, "year_from": 2020},
    ]})

    query: Query = Field(description="Search query in English.")
    limit: int = Field(20, ge=1, le=100, description="Most papers returned (1..100; 20 by default, as SoIQ's "
                       "literature tool returns the top 20).")
    year_from: int | None = Field(None, ge=1800, le=2200, description="Earliest publication year.")
    year_to: int | None = Field(None, ge=1800, le=2200, description="Latest publication year.")
    source: Literal["auto", PaperSource] = Field(
        "auto", description="auto: the enabled outbound sources in their configured order (Semantic Scholar, "
        "OpenAlex, arXiv by default), then the local corpus; or one source alone.",
    )

    @field_validator("year_to")
    @classmethod
    def _range(cls, v: int | None, info: ValidationInfo) -> int | None:
        lo = info.data.get("year_from")
        if v is not None and lo is not None and v < lo:
            raise ValueError("year_to must not be before year_from")
        return v


class LiteraturePaper(BaseModel):
    title: str
    abstract: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    paper_id: str | None = Field(
        None, description="The answering source's id (Semantic Scholar paperId, OpenAlex W…, arXiv id with its "
        "version), or the local paper id.",
    )
    doi: str | None = None
    arxiv_id: str | None = None
    url: str | None = None
    score: float | None = Field(None, description="Similarity to the query (local corpus only).")
    in_graph: bool = Field(False, description="True when this paper is part of the local graph.")
    source: PaperSource | None = Field(None, description="Which source found this paper.")
    citation_count: int | None = Field(None, description="Citations, as the source counts them (when it does).")


class SkippedSource(BaseModel):
    source: PaperSource
    reason: str = Field(description="Why it did not answer: disabled, throttled, breaker open, down, nothing found.")


class LiteratureSearchResult(BaseModel):
    query: str
    source: Literal[PaperSource, "none"] = Field(
        description="Which source answered."
    )
    papers: list[LiteraturePaper]
    fallback_reason: str | None = Field(
        None, description="Why the sources tried before the one that answered did not, if any was skipped."
    )
    skipped: list[SkippedSource] = Field(
        default_factory=list, description="Each source tried or passed over before the answering one, with why."
    )


# --------------------------------------------------------------------------------- transfer_candidates


class TransferRequest(_Req):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"topic": "energy efficient routing in sensor networks", "k": 3},
    ]})

    topic: Query = Field(description="Research topic or target challenge, in words.")
    k: int = Field(5, ge=1, le=50, description="Most transfer candidates returned (1..50).")
    # at most 10: each target reads its own and up to 10 similar challenges' neighbourhoods, so 10 targets are ~110
    # graph reads, twice the default's (20 were 220, 6x the usual call: bench/bench_hostile.py, issue 41)
    targets: int = Field(5, ge=1, le=10, description="Challenges near the topic to start from (1..10).")
    min_challenge_similarity: float = Field(
        0.4, ge=-1, le=1, description="Lowest similarity between the target and the source challenge."
    )


class TransferCandidate(BaseModel):
    target_challenge: NodeBrief = Field(description="A challenge near the topic.")
    target_problems: list[NodeBrief] = Field(default_factory=list)
    topic_similarity: float = Field(description="Cosine similarity of the target challenge to the topic.")
    source_challenge: NodeBrief = Field(description="A similar challenge stated under a different problem.")
    source_problems: list[NodeBrief] = Field(default_factory=list)
    challenge_similarity: float = Field(description="Cosine similarity between the two challenges.")
    solution: NodeBrief = Field(description="Solves the source challenge; not yet linked to the target.")
    score: float = Field(description="Rank score: topic_similarity x challenge_similarity.")
    papers: list[str] = Field(default_factory=list, description="Papers stating source challenge → solution.")


class TransferResult(BaseModel):
    topic: str
    candidates: list[TransferCandidate]
    index_stale: bool = False
