"""Typed records that cross the GraphStore boundary (same on every backend)."""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, Field, field_validator

from motivgraph.choices import NODE_TYPES, NodeType, ParentKind
from motivgraph.graph.identity import node_key
from motivgraph.graph.queries import NODE_LABELS
from motivgraph.limits import (
    MAX_DESCRIPTION_CHARS,
    MAX_KEY_CHARS,
    MAX_NAME_CHARS,
    MAX_PAPER_ID_CHARS,
    MAX_QUOTE_CHARS,
    MAX_QUOTES_PER_ELEMENT,
)

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class NodeIn(BaseModel):
    """A node as a writer offers it. `key` is derived from the name unless identity resolution
    decided this mention is an existing node (then `key` points there and `name` becomes an alias)."""

    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    description: str = Field("", max_length=MAX_DESCRIPTION_CHARS)
    key: str | None = Field(None, max_length=MAX_KEY_CHARS)

    @field_validator("name", "description")
    @classmethod
    def _strip(cls, v: str) -> str:
        # Control characters (NUL above all) are never meaningful in a name and some stores choke on them.
        return " ".join(_CONTROL.sub(" ", v).split())

    def key_for(self, node_type: str) -> str:
        return self.key or node_key(node_type, self.name)


class NodeRef(BaseModel):
    key: str
    type: NodeType
    name: str
    description: str = ""
    level: int = 0


class NodeRecord(NodeRef):
    aliases: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list, description="paper ids that state this node")
    created_at: str | None = None


class PaperRecord(BaseModel):
    paper_id: str = Field(min_length=1, max_length=MAX_PAPER_ID_CHARS)
    title: str = ""
    abstract: str = ""
    year: int | None = None
    venue: str | None = None
    authors: list[str] = Field(default_factory=list)
    source_path: str | None = None
    sha256: str | None = None
    provenance: dict[str, str] = Field(
        default_factory=dict,
        description="field -> the document its value came from ('<parser>:<document>'), for papers merged from "
        "several documents (ingest.paper_merge)",
    )

    @field_validator("provenance", mode="before")
    @classmethod
    def _provenance(cls, v: object) -> object:
        # stores keep it as a JSON string (a Neo4j property cannot be a map); absent on bare paper nodes
        if v is None or v == "":
            return {}
        return json.loads(v) if isinstance(v, str) else v


class PaperRef(BaseModel):
    paper_id: str
    title: str = ""
    year: int | None = None


class Quote(BaseModel):
    """One passage of a paper quoted as the evidence for one element (problem, challenge or solution)
    of a triple, and where the miner located it in the paper's parsed text.

    `text` is the quote as the extractor gave it (bounded, control characters removed). When the
    verifier found it in the paper, `verified` is true and `section`, `page` and `start`/`end` say where:
    `start`/`end` are character offsets into the paper's canonical parsed text (`Paper.full_text()`),
    `page` is 1-based (None for records without pages, e.g. abstract-only JSON). When it was not found,
    `verified` is false and `reason` says why (e.g. "not found in the paper", "too short to locate")."""

    text: str = Field(min_length=1, max_length=MAX_QUOTE_CHARS)
    verified: bool = False
    section: str | None = Field(None, max_length=200, description="heading (or 'abstract', 'title') it was found in")
    page: int | None = Field(None, ge=1, description="1-based page of the quote's first character")
    start: int | None = Field(None, ge=0, description="offset of the quote's first character in Paper.full_text()")
    end: int | None = Field(None, ge=0, description="offset one past its last character")
    reason: str | None = Field(None, max_length=300, description="why it is not verified (None when verified)")

    @field_validator("text")
    @classmethod
    def _clean(cls, v: str) -> str:
        return " ".join(_CONTROL.sub(" ", v).split())


class Evidence(BaseModel):
    """The quotes behind one triple, per element. An element is verified when at least one of its
    quotes was located in the paper."""

    problem: list[Quote] = Field(default_factory=list, max_length=MAX_QUOTES_PER_ELEMENT)
    challenge: list[Quote] = Field(default_factory=list, max_length=MAX_QUOTES_PER_ELEMENT)
    solution: list[Quote] = Field(default_factory=list, max_length=MAX_QUOTES_PER_ELEMENT)

    def of(self, element: NodeType) -> list[Quote]:
        return list(getattr(self, element))

    def verified(self, element: NodeType) -> bool:
        return any(q.verified for q in self.of(element))

    @property
    def fully_verified(self) -> bool:
        return all(self.verified(e) for e in NODE_TYPES)


class NodeEvidence(BaseModel):
    """One paper's statement of one node (one STATES edge): which triple and element of the paper it
    was, and the quotes the paper gives for it (`GraphStore.node_evidence`)."""

    paper_id: str
    title: str = ""
    year: int | None = None
    triple_index: int
    element: NodeType
    mention: str = Field("", description="the name this paper gave the node")
    section: str | None = None
    quotes: list[Quote] = Field(default_factory=list)

    @property
    def verified(self) -> bool:
        return any(q.verified for q in self.quotes)


class TripleEvidence(BaseModel):
    """One paper's statement of one triple and its quotes per element (`GraphStore.triple_evidence`)."""

    paper_id: str
    title: str = ""
    year: int | None = None
    triple_index: int
    section: str | None = None
    evidence: Evidence = Field(default_factory=Evidence)


class TripleIn(BaseModel):
    """One (problem, challenge, solution) statement of one paper, with provenance."""

    paper_id: str = Field(min_length=1, max_length=MAX_PAPER_ID_CHARS)
    index: int = Field(ge=0, description="position of the triple within its paper")
    problem: NodeIn
    challenge: NodeIn
    solution: NodeIn
    section: str | None = Field(None, description="section the evidence came from")
    extractor: str = Field("llm", description="'llm' or 'heuristic'")
    evidence: Evidence = Field(default_factory=Evidence, description="the quotes that state each element")


class ParentIn(BaseModel):
    """A parent node (level >= 1) and the keys of the children it covers (same type)."""

    type: ParentKind
    parent: NodeIn
    level: int = Field(ge=1)
    children: list[str] = Field(min_length=1)


class TripleView(BaseModel):
    problem: NodeRef
    challenge: NodeRef
    solution: NodeRef
    papers: list[str] = Field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.problem.key}|{self.challenge.key}|{self.solution.key}"


class NodeDetail(BaseModel):
    node: NodeRecord
    parents: list[NodeRef] = Field(default_factory=list)
    children: list[NodeRef] = Field(default_factory=list)
    problems: list[NodeRef] = Field(default_factory=list)
    challenges: list[NodeRef] = Field(default_factory=list)
    solutions: list[NodeRef] = Field(default_factory=list)
    papers: list[PaperRef] = Field(default_factory=list)
    triples: list[TripleView] = Field(default_factory=list)


class TripleFilter(BaseModel):
    """Each field narrows the result; text fields match a key exactly or a name by substring
    (case-insensitive)."""

    problem: str | None = None
    challenge: str | None = None
    solution: str | None = None
    paper_id: str | None = None
    parent: str | None = Field(None, description="key of a parent: triples whose P or C descends from it")


class TriplePage(BaseModel):
    items: list[TripleView]
    next_cursor: str | None = None


class NodePage(BaseModel):
    items: list[NodeRecord]
    next_cursor: str | None = None


class PaperPage(BaseModel):
    items: list[PaperRecord]
    next_cursor: str | None = None


class UpsertResult(BaseModel):
    nodes_created: int = 0
    relationships_created: int = 0
    aliases_added: int = 0


class RemovalResult(BaseModel):
    """What taking one paper's contribution out of the graph changed (`GraphStore.remove_paper`)."""

    paper_id: str
    states_removed: int = 0
    triples_removed: int = 0
    nodes_touched: list[str] = Field(default_factory=list, description="keys the paper stated")
    nodes_removed: list[str] = Field(default_factory=list, description="keys deleted (no source left; parents "
                                     "left with no child)")
    aliases_removed: int = 0
    paper_removed: bool = False


class GraphStats(BaseModel):
    nodes: dict[str, int]
    relationships: dict[str, int]
    triples: int
    node_version: int = Field(description="bumped whenever a node is created or its text changes")
    parents: dict[str, int] = Field(
        default_factory=dict, description="parent nodes (level >= 1) per label, included in `nodes`"
    )

    @property
    def searchable_nodes(self) -> int:
        """Problem, challenge and solution nodes: what the node index holds (papers alone leave nothing to search)."""
        return sum(self.nodes.get(lb, 0) for lb in NODE_LABELS)
