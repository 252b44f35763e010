"""Offline parser on documents that are not whole papers, and on the front matter of papers that trip it
(#30 items 3 and 4): a page from inside a paper or a brief is stored as what it is — no title, no abstract,
its text kept as body, a reason given, and the miner takes no triples from it; a real paper keeps a two-line
title whole, its whole abstract (not cut by a line that wraps to begin with "accepted", not missing the lines
beside a margin label, not a later paragraph when the abstract mentions research and years), and the body of a
paper without section headings. The texts are invented; what matters is the typesetting."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from motivgraph.errors import ParseError
from motivgraph.ingest.models import NOT_A_PAPER, Paper
from motivgraph.ingest.pdf import parse_pdf
from motivgraph.miner.text import select_input
from motivgraph.settings import MinerSettings
from tests.fixtures.ingest.rawpdf import RawPage, RawPdf, wrap

PROSE = (
    "Gardens in dry regions lose much of their water before it reaches the roots of the plants. "
    "Growers have tried drip lines, mulches and shade cloth, yet the losses stay high in hot months. "
    "This note looks at where the water goes and how a cheap sensor could tell a grower when to irrigate. "
)
ABSTRACT = "We study irrigation in dry gardens and show that a simple probe halves the water used. " + PROSE
BODY_START = "Irrigation scheduling decides how much water a field receives"
TITLE = "Water Budgets for Dry Gardens"
REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO.parent / "shared" / "corpus"
CORPUS_PDFS = [p for folder in ("pdf", "journals") for p in sorted((CORPUS / folder).glob("*.pdf"))]
needs_corpus = pytest.mark.skipif(
    not CORPUS_PDFS, reason=f"shared PDF corpus not found under {CORPUS}: real pages cannot be sliced"
)


@dataclass
class Writer:
    """Sets text top-down: body Times 10 pt, title Helvetica-Bold 18 pt."""

    doc: RawPdf = field(default_factory=RawPdf)
    page: RawPage | None = None
    y: float = 0.0

    def need(self, h: float) -> RawPage:
        if self.page is None or self.y - h < 60:
            self.page = self.doc.page()
            self.y = 730.0
        return self.page

    def line(self, font: str, size: float, text: str, x: float = 72, gap: float = 0.0) -> None:
        self.y -= gap
        self.need(size * 1.3).text(font, size, x, self.y, text)
        self.y -= size * 1.3

    def para(self, text: str, width: int = 95, indent: bool = True) -> None:
        """A paragraph with its first line indented, as TeX sets them."""
        for k, ln in enumerate(wrap(text, width)):
            self.line("Times-Roman", 10, ln, x=84 if indent and k == 0 else 72)

    def front(self, title: tuple[str, ...] = (TITLE,)) -> None:
        for t in title:
            self.line("Helvetica-Bold", 18, t)
        self.line("Times-Roman", 11, "Mara Quinn and Tomas Vale", gap=6)

    def parse(self, tmp_path: Path, name: str = "doc.pdf") -> Paper:
        return parse_pdf(self.doc.save(tmp_path / name), sha256="c" * 64)


def _body(p: Paper) -> str:
    return " ".join(" ".join(s.text.split()) for s in p.sections)


def _assert_not_a_paper(p: Paper) -> None:
    assert p.not_a_paper is not None and p.not_a_paper.startswith(NOT_A_PAPER), p.not_a_paper
    assert NOT_A_PAPER in p.notes
    assert p.title == "" and p.abstract == ""
    inp = select_input(p, MinerSettings())
    assert inp.unusable_reason == p.not_a_paper  # the miner reads nothing of it, and says why


def test_a_page_from_inside_a_paper_is_stored_as_no_paper(tmp_path: Path) -> None:
    w = Writer()
    w.para("of the plants in the hot months, which the next section measures. " + PROSE * 2, indent=False)
    w.line("Times-Bold", 12, "5.1 Hyper Parameter Optimization", gap=8)
    w.para(PROSE * 2)
    w.line("Times-Roman", 9, "Table 1: Table Caption", x=200, gap=4)
    for row in [("Probe", "Depth", "Loss"), ("A", "10", "0.31"), ("B", "20", "0.42")]:
        y = w.y
        for k, cell in enumerate(row):
            w.need(12).text("Times-Roman", 9, 150 + 120 * k, y, cell)
        w.y -= 12
    w.line("Times-Bold", 12, "5.2 Results on the Test Plots", gap=8)
    w.para(PROSE * 2)
    p = w.parse(tmp_path)
    _assert_not_a_paper(p)
    body = _body(p)
    # nothing is lost: the running text before the heading and after it is kept as body
    assert body.startswith("of the plants in the hot months") and body.count("Gardens in dry regions") == 6


def test_a_brief_with_no_title_block_or_abstract_is_stored_as_no_paper(tmp_path: Path) -> None:
    w = Writer()
    w.line("Times-Bold", 10, "Briefing note for the garden committee")
    w.para(PROSE * 2)
    w.line("Times-Bold", 10, "Background", gap=6)
    w.para(PROSE * 2)
    w.line("Times-Bold", 10, "Recommendations", gap=6)
    w.para(PROSE)
    p = w.parse(tmp_path)
    _assert_not_a_paper(p)
    assert [s.heading for s in p.sections] == ["", "Background", "Recommendations"]
    assert p.sections[0].text.startswith("Briefing note for the garden committee Gardens in dry regions")


def test_a_paper_with_a_title_and_no_abstract_or_headings_is_still_a_paper(tmp_path: Path) -> None:
    w = Writer()
    w.front()
    w.y -= 8
    w.para(ABSTRACT)
    w.para(BODY_START + ". " + PROSE * 3)
    w.para("Probes at three depths told us more than any single probe could. " * 4)
    p = w.parse(tmp_path)
    assert p.not_a_paper is None and p.title == TITLE
    # the first paragraph is the abstract, the rest is the body: neither swallows the other
    assert p.abstract.startswith("We study irrigation") and BODY_START not in p.abstract
    assert [s.heading for s in p.sections] == [""]
    assert p.sections[0].text.startswith(BODY_START) and "Probes at three depths" in p.sections[0].text
    assert select_input(p, MinerSettings()).unusable_reason is None


def test_a_paper_without_section_headings_keeps_its_body(tmp_path: Path) -> None:
    w = Writer()
    w.front()
    w.line("Times-Bold", 12, "Abstract", gap=8)
    w.para(ABSTRACT)
    w.y -= 8
    w.para(BODY_START + ". " + PROSE * 3)
    w.para("Probes at three depths told us more than any single probe could. " * 4)
    p = w.parse(tmp_path)
    assert p.abstract.startswith("We study irrigation") and BODY_START not in p.abstract
    assert len(p.sections) == 1 and p.sections[0].text.startswith(BODY_START)
    assert p.sections[0].role == "introduction"  # the miner reads it as the paper's opening


def test_a_two_line_title_is_read_whole(tmp_path: Path) -> None:
    w = Writer()
    # the second line alone reads like a banner ("Workshop"): set on from the first, it is still the title
    w.front(title=("Water Budgets for Dry Gardens: Lessons from", "the Regional Workshop on Irrigation"))
    w.line("Times-Bold", 12, "Abstract", gap=8)
    w.para(ABSTRACT)
    w.line("Times-Bold", 12, "1 Introduction", gap=8)
    w.para(BODY_START + ". " + PROSE * 2)
    p = w.parse(tmp_path)
    assert p.title == "Water Budgets for Dry Gardens: Lessons from the Regional Workshop on Irrigation"
    assert p.authors == ["Mara Quinn", "Tomas Vale"]


@pytest.mark.parametrize("word", ["accepted", "published", "received", "copyright"])
def test_an_abstract_line_that_begins_like_front_matter_does_not_end_it(tmp_path: Path, word: str) -> None:
    w = Writer()
    w.front()
    w.line("Times-Bold", 12, "Abstract", gap=8)
    for ln in [
        "We study irrigation in dry gardens and show that a simple probe halves the water used by growers whose",
        f"{word} records we could read. Our plots follow one season and the results hold in every trial we ran.",
        *wrap(PROSE, 100),
    ]:
        w.line("Times-Roman", 10, ln)
    w.line("Times-Roman", 10, "Keywords: irrigation, soil moisture", gap=4)
    w.line("Times-Bold", 12, "1 Introduction", gap=8)
    w.para(BODY_START + ". " + PROSE * 2)
    p = w.parse(tmp_path)
    assert p.abstract.startswith("We study irrigation")
    assert p.abstract.rstrip().endswith("when to irrigate."), p.abstract
    assert "Keywords" not in p.abstract


def test_an_abstract_beside_a_margin_label_keeps_its_first_line(tmp_path: Path) -> None:
    w = Writer()
    w.front()
    w.y -= 12
    # the label sits in the left margin, level with the second line of the text beside it
    w.need(0).text("Times-Bold", 10, 72, w.y - 13, "Abstract")
    for ln in wrap(ABSTRACT, 80):
        w.line("Times-Roman", 10, ln, x=160)
    w.line("Times-Bold", 12, "1 Introduction", gap=8)
    w.para(BODY_START + ". " + PROSE * 2)
    p = w.parse(tmp_path)
    assert p.abstract.startswith("We study irrigation in dry gardens"), p.abstract[:80]
    assert p.sections[0].text.startswith(BODY_START)


def test_an_abstract_without_a_marker_that_mentions_research_and_years_is_the_abstract(tmp_path: Path) -> None:
    w = Writer()
    w.front()
    w.line("Times-Italic", 9, "Soil Research Center, University of Lund, Sweden")
    w.y -= 10
    # every line names research, a centre or a year: it is prose, not an affiliation
    for ln in [
        "Our research center has followed dry gardens since 2004 and asks where their water goes in summer.",
        "We show that one probe per plot, read each morning in 2019 and 2020, halves the water a grower uses.",
        "The research plots lose less water in hot months than before. Growers kept the probes after 2021.",
        "A school garden and a market garden took part as well, and both saw the same savings in the season.",
    ]:
        w.line("Times-Italic", 9, ln)
    w.line("Times-Bold", 12, "1 Introduction", gap=10)
    w.para(BODY_START + ". " + PROSE * 2)
    p = w.parse(tmp_path)
    assert p.abstract.startswith("Our research center has followed dry gardens"), p.abstract[:80]
    assert BODY_START not in p.abstract


def test_a_run_in_abstract_label_without_punctuation_is_not_part_of_the_abstract(tmp_path: Path) -> None:
    w = Writer()
    w.front()
    w.y -= 8
    for ln in wrap("Abstract " + ABSTRACT, 95):
        w.line("Times-Roman", 10, ln)
    w.line("Times-Bold", 12, "1 Introduction", gap=8)
    w.para(BODY_START + ". " + PROSE * 2)
    p = w.parse(tmp_path)
    assert p.abstract.startswith("We study irrigation"), p.abstract[:60]


def _slice(src: Path, page: int, out: Path) -> Path:
    """One page of a real PDF as a PDF of its own (pdfium's page import: the page's text and fonts as printed)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(src))
    try:
        one = pdfium.PdfDocument.new()
        one.import_pages(doc, [page])
        one.save(str(out))
        one.close()
    finally:
        doc.close()
    return out


def _pages(path: Path) -> int:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        return len(doc)
    finally:
        doc.close()


@needs_corpus
def test_single_pages_from_inside_real_papers_are_stored_as_no_paper(tmp_path: Path) -> None:
    """The middle page and the last-but-one page of every corpus paper of five pages or more, each alone: a
    section heading, a running banner, a caption or an axis label is what they show in large type."""
    wrong: list[str] = []
    n = 0
    for src in CORPUS_PDFS:
        pages = _pages(src)
        if pages < 5:
            continue
        for page in sorted({pages // 2, pages - 2}):
            p = parse_pdf(_slice(src, page, tmp_path / f"{src.stem}_p{page + 1}.pdf"))
            n += 1
            if not p.not_a_paper or p.title or p.abstract or not p.sections:
                wrong.append(f"{src.name} page {page + 1}: title={p.title!r} not_a_paper={p.not_a_paper!r}")
    print(f"\n{n - len(wrong)}/{n} single mid-paper pages stored as no paper")
    assert n >= 20 and wrong == []


@needs_corpus
def test_the_first_page_of_every_real_paper_alone_is_still_a_paper(tmp_path: Path) -> None:
    """The other side: page 1 of each corpus paper on its own (title block, authors, abstract) is a paper."""
    judged: list[str] = []
    for src in CORPUS_PDFS:
        try:
            p = parse_pdf(_slice(src, 0, tmp_path / f"{src.stem}_p1.pdf"))
        except ParseError as e:
            assert "no text layer" in str(e), (src.name, e)  # the corpus's one scanned PDF
            continue
        if p.not_a_paper:
            judged.append(f"{src.name}: {p.not_a_paper}")
    assert judged == []
