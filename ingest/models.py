"""The Paper model: what every parser (GROBID/TEI, offline pypdfium2) produces and the miner reads."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from motivgraph.graph.models import PaperRecord

# identity lives in ingest.identity; these names are kept for the callers that import them from here
from motivgraph.ingest.identity import clean_doi, find_arxiv_id, stable_paper_id

__all__ = [
    "Paper", "Reference", "Section", "SectionRole", "assign_roles", "classify_heading", "clean_doi", "find_arxiv_id",
    "stable_paper_id",
]

SectionRole = Literal["introduction", "related_work", "method", "experiments", "conclusion", "other"]

# Order matters: the first pattern that matches a heading decides its role.
_ROLE_PATTERNS: list[tuple[SectionRole, re.Pattern[str]]] = [
    ("introduction", re.compile(r"\b(introduction|introductions)\b")),
    ("related_work", re.compile(r"\b(related work|related works|prior work|previous work|literature review|"
                                r"related research|related literature|background)\b")),
    ("experiments", re.compile(r"\b(experiments?|experimental|evaluation|evaluations|results|empirical|"
                               r"benchmarks?|case stud(y|ies)|ablation)\b")),
    ("conclusion", re.compile(r"\b(conclusions?|concluding|summary|discussion|future work|closing remarks)\b")),
    ("method", re.compile(r"\b(method|methods|methodology|approach|model|models|framework|algorithm|"
                          r"architecture|proposed|materials and methods|formulation)\b")),
]


def classify_heading(heading: str) -> SectionRole:
    """Canonical role of a section from its heading text (numbering stripped, case-insensitive)."""
    h = re.sub(r"^[\dIVXivx]+(\.\d+)*\.?\s+|^[A-Z]\.\s+", "", heading.strip()).lower()
    h = re.sub(r"[^a-z ]+", " ", h)
    for role, pat in _ROLE_PATTERNS:
        if pat.search(h):
            return role
    return "other"


def assign_roles(sections: list[Section]) -> list[Section]:
    """Set each section's role from its heading; a subsection (number '3.1', or an unnumbered head
    whose own text says nothing) takes the role of the section it sits under. A paper whose first
    section is untitled or 'Background' and has no 'Introduction' gets that section as its introduction."""
    by_number: dict[str, SectionRole] = {}
    prev: SectionRole | None = None
    for s in sections:
        role = classify_heading(s.heading) if s.heading else "other"
        num = (s.number or "").strip().rstrip(".")
        parent = by_number.get(num.split(".")[0]) if num and "." in num else None
        if parent is not None and parent != "other":
            role = parent  # "1.2 Our Framework" is still part of the Introduction
        elif role == "other":
            if num and "." in num:
                role = parent or prev or "other"
            elif not num and prev is not None:
                role = prev
        if num:
            by_number[num] = role
        s.role = role
        prev = role
    # CS-style papers: an otherwise unnamed top-level section between the Introduction (or Related
    # Work) and the first experiments section describes the method ("3 Prototype-Driven Learning")
    first_exp = next((k for k, s in enumerate(sections) if s.role == "experiments"), None)
    intro_at = next((k for k, s in enumerate(sections) if s.role == "introduction"), None)
    if first_exp is not None and intro_at is not None and intro_at < first_exp:
        for s in sections[intro_at + 1 : first_exp]:
            if s.role == "other":
                s.role = "method"
    if sections and not any(s.role == "introduction" for s in sections):
        first = sections[0]
        # Nature-style papers open with an untitled (or "Article"-headed) introduction; others call
        # their first section Background, Motivation, Overview or something of their own
        if not first.heading.strip() or first.role in ("other", "related_work") or re.fullmatch(
            r"(article|.*\b(background|motivation|overview)\b.*)", first.heading.strip().lower()
        ):
            first.role = "introduction"
            for s in sections[1:]:
                if s.number and first.number and s.number.split(".")[0] == first.number.split(".")[0]:
                    s.role = "introduction"  # its subsections
                else:
                    break
    return sections


class Section(BaseModel):
    heading: str = ""
    number: str | None = Field(None, description="Section number as printed (e.g. '3.1', 'II'), if any.")
    text: str = ""
    role: SectionRole = "other"


class Reference(BaseModel):
    title: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    raw: str = Field("", description="The entry as printed in the reference list (its label taken off).")
    doi: str | None = Field(None, description="The cited work's DOI, when the entry prints one.")
    arxiv_id: str | None = Field(None, description="The cited work's arXiv id, when the entry prints one.")


# The note every parser gives a document it judges not a research paper (Paper.not_a_paper starts with it).
NOT_A_PAPER = "not a research paper: no title block, no abstract and no Introduction on its first page"


class Paper(BaseModel):
    paper_id: str = Field(description="DOI or arXiv id when known, else the sha256 of the PDF.")
    title: str = ""
    authors: list[str] = Field(default_factory=list)
    abstract: str = ""
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    sections: list[Section] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    page_count: int | None = None
    parser: str = Field("", description="'grobid', 'pdf' (offline) or 'tei'.")
    sha256: str | None = None
    source_path: str | None = None
    text_repairs: dict[str, int] = Field(
        default_factory=dict, description="Characters the text-hygiene pass fixed (motivgraph.text_hygiene.Repairs)."
    )
    notes: list[str] = Field(
        default_factory=list, description="What the reader should know about this paper's text (e.g. abstract only)."
    )
    not_a_paper: str | None = Field(
        None,
        description="Why the parser judged this document not a research paper (a page from inside a paper, a "
        "brief); the miner takes no triples from it. None: a paper.",
    )

    def section(self, role: SectionRole) -> str:
        """Text of the first section with this role, together with the subsections that directly
        follow it with the same role ('' when none)."""
        parts: list[str] = []
        for s in self.sections:
            if s.role == role:
                parts.append(s.text)
            elif parts:
                break
        return "\n\n".join(p for p in parts if p)

    @property
    def text_chars(self) -> int:
        return len(self.abstract) + sum(len(s.text) for s in self.sections)

    def to_record(self) -> PaperRecord:
        return PaperRecord(
            paper_id=self.paper_id,
            title=self.title,
            abstract=self.abstract,
            year=self.year,
            venue=self.venue,
            authors=self.authors,
            source_path=self.source_path,
            sha256=self.sha256,
        )
