"""TEI (GROBID output) → Paper.

Handles what real GROBID TEI contains: headings with and without `@n`, noisy heads
("Continued", "Figure 3 continued on next page", stray caption fragments), multi-paragraph
abstracts (also wrapped in <div>), back matter (acknowledgement, funding, annex, ...), the
reference list, documents with an empty header (withdrawn articles) and older GROBID versions.
"""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET

from motivgraph.errors import ParseError
from motivgraph.ingest.identity import clean_doi, doi_or_arxiv, normalize_arxiv, stable_paper_id
from motivgraph.ingest.models import (
    NOT_A_PAPER,
    PageMarks,
    Paper,
    Reference,
    Section,
    assign_roles,
    classify_heading,
    shift_pages,
)

log = logging.getLogger(__name__)

NS = {"tei": "http://www.tei-c.org/ns/1.0"}
_T = "{http://www.tei-c.org/ns/1.0}"

# Heads GROBID emits for page furniture or broken-up captions rather than real sections.
_NOISY_HEAD = re.compile(
    r"^(continued|.*continued on next page|supplement \d+\)?\.?|table \d+\.?|figure \d+\.?|fig\. ?\d+\.?|"
    r"article|online content)$",
    re.I,
)
_DOCTYPE_RE = re.compile(rb"<!DOCTYPE|<!ENTITY", re.I)


def _text(el: ET.Element | None) -> str:
    if el is None:
        return ""
    return " ".join("".join(el.itertext()).split())


def _year(s: str | None) -> int | None:
    if not s:
        return None
    m = re.search(r"\b(1[89]\d\d|20\d\d)\b", s)
    return int(m.group(1)) if m else None


def _pers_name(pers: ET.Element) -> str:
    parts = [_text(f) for f in pers.findall("tei:forename", NS)]
    sur = _text(pers.find("tei:surname", NS))
    return " ".join(p for p in [*parts, sur] if p)


_BLOCKS = (f"{_T}p", f"{_T}formula", f"{_T}list")


def _page_map(root: ET.Element) -> dict[int, int]:
    """The 1-based page each text block (p, formula, list) starts on, from GROBID's <pb n=".."/> page
    breaks in document order (a <pb> without a number counts on from the last one). Empty when the TEI has
    no <pb> (GROBID writes them only when asked for coordinates): pages are then unknown."""
    pages: dict[int, int] = {}
    page = 0
    for el in root.iter():
        if el.tag == f"{_T}pb":
            n = el.get("n") or ""
            page = int(n) if n.isdigit() and int(n) > 0 else page + 1
        elif el.tag in _BLOCKS and page:
            pages[id(el)] = page
    return pages


def _paragraphs_pages(
    div: ET.Element, page_of: dict[int, int], tags: tuple[str, ...] = _BLOCKS
) -> tuple[str, PageMarks]:
    """The div's text blocks, blank-line separated, and where pages begin in that text (Section.pages)."""
    out: list[str] = []
    marks: PageMarks = []
    at = 0
    for p in div.iter():
        if p.tag not in tags:
            continue
        t = _text(p)
        if not t:
            continue
        if out:
            at += 2
        page = page_of.get(id(p))
        if page and (not marks or marks[-1][1] != page):
            marks.append((at, page))
        out.append(t)
        at += len(t)
    return "\n\n".join(out), marks


def _fold_into(sec: Section, text: str, pages: PageMarks) -> None:
    """Append text (and its page marks) to a section, blank-line separated."""
    if not text:
        return
    if not sec.text:
        sec.text, sec.pages = text, list(pages)
        return
    by = len(sec.text) + 2
    sec.text = f"{sec.text}\n\n{text}"
    sec.pages = [*sec.pages, *(m for m in shift_pages(pages, by) if not sec.pages or m[1] != sec.pages[-1][1])]


def _is_noisy(head: str) -> bool:
    h = head.strip()
    if not h:
        return True
    if _NOISY_HEAD.match(h):
        return True
    # a head that starts lower-case is a line fragment GROBID mistook for a title
    return h[0].islower()


def _not_a_paper(title: str, authors: list[str], abstract: str, sections: list[Section]) -> str | None:
    """Why GROBID's reading of a document is not a research paper (None: it is one), by the offline parser's
    rule: a paper has an abstract, or an Introduction (or a section numbered 1) where its body starts, or a
    title with its authors' names. A page from inside a paper, a brief or a form has none of these."""
    if abstract:
        return None
    # by the headings GROBID read (a role may be inferred: the first untitled section is taken as the intro)
    if any(classify_heading(s.heading) == "introduction" or (s.number or "").rstrip(".") in ("1", "I")
           for s in sections[:3]):
        return None
    if title and authors:
        return None
    why = "no title" if not title else f"the title {title[:60]!r} has no author names"
    return f"{NOT_A_PAPER} (GROBID found no abstract, no Introduction and {why})"


def tei_to_paper(
    xml: bytes | str, *, sha256: str | None = None, source_path: str | None = None, parser: str = "grobid"
) -> Paper:
    """Convert one GROBID TEI document into a Paper. Raises ParseError on XML that is not TEI."""
    data = xml.encode() if isinstance(xml, str) else xml
    if _DOCTYPE_RE.search(data[:4096]):
        # GROBID never emits a DTD; refusing one keeps entity-expansion tricks out.
        raise ParseError("TEI document carries a DOCTYPE/ENTITY declaration; refusing to parse it")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        raise ParseError(f"invalid TEI XML: {e}") from e
    if root.tag != f"{_T}TEI":
        raise ParseError(f"not a TEI document (root element {root.tag!r})")

    header = root.find("tei:teiHeader", NS)
    title = _text(root.find("tei:teiHeader/tei:fileDesc/tei:titleStmt/tei:title", NS))
    src = root.find("tei:teiHeader/tei:fileDesc/tei:sourceDesc/tei:biblStruct", NS)
    authors: list[str] = []
    doi = arxiv = None
    venue = None
    pub_date = root.find("tei:teiHeader/tei:fileDesc/tei:publicationStmt/tei:date", NS)
    year = _year(pub_date.get("when") or _text(pub_date)) if pub_date is not None else None
    if src is not None:
        for pers in src.findall("tei:analytic/tei:author/tei:persName", NS):
            name = _pers_name(pers)
            if name:
                authors.append(name)
        for idno in src.findall(".//tei:idno", NS):
            kind = (idno.get("type") or "").lower()
            if kind == "doi" and not doi:
                doi = clean_doi(_text(idno))
            elif kind == "arxiv" and not arxiv:
                arxiv = normalize_arxiv(_text(idno))
        venue = _text(src.find("tei:monogr/tei:title", NS)) or None
        if year is None:
            date = src.find("tei:monogr/tei:imprint/tei:date", NS)
            if date is not None:
                year = _year(date.get("when") or _text(date))

    abstract_el = header.find("tei:profileDesc/tei:abstract", NS) if header is not None else None
    page_of = _page_map(root)
    abstract = ""
    abstract_pages: PageMarks = []
    if abstract_el is not None:
        abstract, abstract_pages = _paragraphs_pages(abstract_el, page_of, (f"{_T}p",))
        if not abstract:
            abstract, abstract_pages = _text(abstract_el), []

    sections: list[Section] = []
    body = root.find("tei:text/tei:body", NS)
    if body is not None:
        for div in body.findall("tei:div", NS):
            head_el = div.find("tei:head", NS)
            head = _text(head_el)
            number = head_el.get("n") if head_el is not None else None
            text, pages = _paragraphs_pages(div, page_of)
            if head and _is_noisy(head) and sections:
                # fold page furniture into the section it interrupts
                _fold_into(sections[-1], text, pages)
                continue
            if not head and not text:
                continue
            if not head and sections and not number:
                _fold_into(sections[-1], text, pages)
                continue
            if any(s.heading == head and s.number == number and s.text == text for s in sections):
                continue  # GROBID sometimes repeats a section verbatim across a page break
            sections.append(Section(heading=head, number=number, text=text, pages=pages))
    assign_roles(sections)

    references: list[Reference] = []
    for bib in root.findall("tei:text/tei:back//tei:listBibl/tei:biblStruct", NS):
        rtitle = _text(bib.find("tei:analytic/tei:title", NS)) or _text(bib.find("tei:monogr/tei:title", NS))
        rauthors = [
            n for n in (_pers_name(p) for p in bib.findall(".//tei:author/tei:persName", NS)) if n
        ]
        date = bib.find(".//tei:imprint/tei:date", NS)
        ryear = _year(date.get("when") or _text(date)) if date is not None else None
        ids = {(i.get("type") or "").lower(): _text(i) for i in reversed(bib.findall(".//tei:idno", NS))}
        rdoi, rarxiv = doi_or_arxiv(clean_doi(ids.get("doi")), normalize_arxiv(ids.get("arxiv")))
        raw = _text(bib.find("tei:note[@type='raw_reference']", NS))  # with includeRawCitations=1
        if rtitle or rauthors:
            references.append(Reference(title=rtitle, authors=rauthors, year=ryear, raw=raw, doi=rdoi,
                                        arxiv_id=rarxiv))

    if not (title or abstract or sections):
        raise ParseError("TEI has no title, abstract or body text (empty or withdrawn document)")

    doi, arxiv = doi_or_arxiv(doi, arxiv)  # arXiv's own DOI is the arXiv id
    not_paper = _not_a_paper(title, authors, abstract, sections)
    return Paper(
        not_a_paper=not_paper,
        notes=[NOT_A_PAPER] if not_paper else [],
        paper_id=stable_paper_id(doi, arxiv, sha256) if (doi or arxiv or sha256) else f"title:{title[:200]}",
        title=title,
        authors=authors,
        abstract=abstract,
        # with <pb> page breaks: the title is on the first page (the header precedes the body)
        title_page=1 if title and page_of else None,
        abstract_pages=abstract_pages,
        year=year,
        venue=venue,
        doi=doi,
        arxiv_id=arxiv,
        sections=sections,
        references=references,
        parser=parser,
        sha256=sha256,
        source_path=source_path,
    )
