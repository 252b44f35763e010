"""The Paper model: what every parser (GROBID/TEI, offline pypdfium2) produces and the miner reads."""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Literal, NamedTuple

from pydantic import BaseModel, Field

from motivgraph.graph.models import PaperRecord

# identity lives in ingest.identity; these names are kept for the callers that import them from here
from motivgraph.ingest.identity import clean_doi, find_arxiv_id, stable_paper_id

__all__ = [
    "FULL_TEXT_SEP", "PageMarks", "Paper", "Reference", "Section", "SectionRole", "TextSpan", "assign_roles",
    "classify_heading", "clean_doi", "find_arxiv_id", "shift_pages", "stable_paper_id",
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


PageMarks = list[tuple[int, int]]
"""(offset into a text, 1-based page from that offset on), ascending; empty: pages unknown."""


class Section(BaseModel):
    heading: str = ""
    number: str | None = Field(None, description="Section number as printed (e.g. '3.1', 'II'), if any.")
    text: str = ""
    role: SectionRole = "other"
    pages: PageMarks = Field(
        default_factory=list,
        description="Where pages begin in `text`: (offset, 1-based page) pairs, the first at offset 0. Empty "
        "when the parse kept no page boundaries (JSON records, TEI without <pb>).",
    )


class TextSpan(NamedTuple):
    """One block of `Paper.full_text()`: `label` is 'title', 'abstract' or the section's heading;
    [start, end) is the whole block, `body` the offset where its text starts (after a heading line)."""

    label: str
    start: int
    end: int
    body: int
    section: int | None  # index into Paper.sections (None: title, abstract)


FULL_TEXT_SEP = "\n\n"


def shift_pages(pages: PageMarks, by: int) -> PageMarks:
    """Page marks of a text moved `by` characters to the right (it was appended after other text)."""
    return [(o + by, p) for o, p in pages]


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
    provenance: dict[str, str] = Field(
        default_factory=dict,
        description="field -> the document its value came from, once documents of one paper are merged "
        "(ingest.paper_merge); empty for a document on its own.",
    )
    not_a_paper: str | None = Field(
        None,
        description="Why the parser judged this document not a research paper (a page from inside a paper, a "
        "brief); the miner takes no triples from it. None: a paper.",
    )
    title_page: int | None = Field(None, ge=1, description="1-based page the title is on (None: no pages).")
    abstract_pages: PageMarks = Field(
        default_factory=list, description="Where pages begin in `abstract` (see Section.pages)."
    )

    # -- the canonical text: every evidence offset (graph.models.Quote.start/end) refers to it ----------
    def text_spans(self) -> list[TextSpan]:
        """The blocks of `full_text()` in order. The layout is fixed so offsets stay valid for as long as
        the parse does: the title, the abstract, then each section as its heading line ("3.1 Method":
        number and heading; none for an untitled section) and its text, heading and text separated and
        every block separated by one blank line (FULL_TEXT_SEP). Empty blocks are left out."""
        spans: list[TextSpan] = []
        pos = 0

        def add(label: str, head: str, body: str, section: int | None) -> None:
            nonlocal pos
            if not body and not head:
                return
            if spans:
                pos += len(FULL_TEXT_SEP)
            start = pos
            if head:
                pos += len(head) + (len(FULL_TEXT_SEP) if body else 0)
            spans.append(TextSpan(label, start, pos + len(body), pos, section))
            pos += len(body)

        add("title", "", self.title, None)
        add("abstract", "", self.abstract, None)
        for k, s in enumerate(self.sections):
            head = " ".join(x for x in ((s.number or "").strip(), s.heading.strip()) if x)
            add(s.heading.strip() or (f"section {s.number}" if s.number else "untitled section"), head, s.text, k)
        return spans

    def full_text(self) -> str:
        """The paper's parsed text in the layout of `text_spans()` (the text evidence offsets refer to)."""
        parts: list[str] = []
        for sp in self.text_spans():
            if sp.section is None:
                parts.append(self.title if sp.label == "title" else self.abstract)
            else:
                s = self.sections[sp.section]
                head = " ".join(x for x in ((s.number or "").strip(), s.heading.strip()) if x)
                parts.append(f"{head}{FULL_TEXT_SEP}{s.text}" if head and s.text else head or s.text)
        return FULL_TEXT_SEP.join(parts)

    def page_starts(self) -> PageMarks:
        """Where pages begin in `full_text()`: (offset, 1-based page), ascending. Empty when the parse kept no
        page boundaries (abstract-only JSON records, TEI without <pb> elements)."""
        out: PageMarks = []
        for sp in self.text_spans():
            if sp.section is None:
                marks = [(0, self.title_page)] if sp.label == "title" and self.title_page else (
                    self.abstract_pages if sp.label == "abstract" else [])
            else:
                marks = self.sections[sp.section].pages
            if marks:
                # a heading sits on the page its text begins on
                first = [(sp.start, marks[0][1])] if marks[0][0] == 0 else []
                for off, page in first + [(sp.body + o, p) for o, p in marks]:
                    if not out or (off >= out[-1][0] and page != out[-1][1]):
                        out.append((off, page))
        return out

    @staticmethod
    def page_in(starts: PageMarks, offset: int) -> int | None:
        """The page of the character at `offset` given `page_starts()` (None: pages unknown or before the
        first mark)."""
        k = bisect_right([o for o, _ in starts], offset) - 1
        return starts[k][1] if k >= 0 else None

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
            provenance=self.provenance,
        )
