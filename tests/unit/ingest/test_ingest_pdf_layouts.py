"""Offline parser on synthetic layouts built byte by byte: each case is a way real papers trip a
heading detector (a table of contents, table cells, equations, structured abstracts, banners, drop
caps, running heads). The texts are invented; what matters is the typesetting."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from motivgraph.ingest.models import Paper
from motivgraph.ingest.pdf import parse_pdf
from tests.fixtures.ingest.rawpdf import RawPage, RawPdf, wrap

PROSE = (
    "Gardens in dry regions lose much of their water before it reaches the roots of the plants. "
    "Growers have tried drip lines, mulches and shade cloth, yet the losses stay high in hot months. "
    "This note looks at where the water goes and how a cheap sensor could tell a grower when to irrigate. "
)
INTRO_START = "Irrigation scheduling decides how much water a field receives and when it is applied"
INTRO = INTRO_START + ". " + PROSE * 3
METHOD = "We placed moisture probes at three depths in twelve plots and logged them every hour. " + PROSE * 2
ABSTRACT = "We study irrigation in dry gardens and show that a simple probe halves the water used. " + PROSE


@dataclass
class Writer:
    """Sets text top-down over pages: body Times 10 pt, headings Times-Bold 12 pt."""

    doc: RawPdf = field(default_factory=RawPdf)
    page: RawPage | None = None
    y: float = 0.0
    running_head: str = ""

    def new_page(self) -> None:
        self.page = self.doc.page()
        self.y = 730.0
        if self.running_head:
            self.page.text("Times-Italic", 8, 72, 760, self.running_head)
            self.page.text("Times-Roman", 8, 520, 760, str(len(self.doc.pages)))

    def need(self, h: float) -> RawPage:
        if self.page is None or self.y - h < 60:
            self.new_page()
        assert self.page is not None
        return self.page

    def line(self, font: str, size: float, text: str, x: float = 72, gap: float = 0.0) -> None:
        self.y -= gap
        self.need(size * 1.3).text(font, size, x, self.y, text)
        self.y -= size * 1.3

    def para(self, text: str, width: int = 95) -> None:
        for ln in wrap(text, width):
            self.line("Times-Roman", 10, ln)
        self.y -= 6

    def heading(self, text: str) -> None:
        self.line("Times-Bold", 12, text, gap=8)

    def front(self, title: str = "Water Budgets for Dry Gardens", abstract: str = ABSTRACT) -> None:
        self.line("Helvetica-Bold", 18, title, gap=0)
        self.line("Times-Roman", 11, "Mara Quinn and Tomas Vale", gap=6)
        self.line("Times-Italic", 9, "Institute of Soil Studies, Lund, Sweden")
        self.heading("Abstract")
        self.para(abstract)

    def body(self, first: str = "1 Introduction", second: str = "2 Method", third: str = "3 Results") -> None:
        self.heading(first)
        self.para(INTRO)
        self.heading(second)
        self.para(METHOD)
        self.heading(third)
        self.para(PROSE * 2)
        self.heading("References")
        self.para("[1] A. Author. A book about water. Dry Press, 2001.")
        self.para("[2] B. Author. Soil and roots. Journal of Soil 4, 2005.")

    def parse(self, tmp_path: Path, name: str = "paper.pdf") -> Paper:
        return parse_pdf(self.doc.save(tmp_path / name))


def _heads(p: Paper) -> list[str]:
    return [s.heading for s in p.sections]


def test_plain_numbered_paper(tmp_path: Path) -> None:
    w = Writer()
    w.front()
    w.body()
    p = w.parse(tmp_path)
    assert p.title == "Water Budgets for Dry Gardens"
    assert _heads(p)[:3] == ["Introduction", "Method", "Results"]
    assert p.sections[0].text.startswith(INTRO_START)
    assert p.abstract.startswith("We study irrigation in dry gardens")
    assert len(p.references) == 2


@pytest.mark.parametrize("style", ["inline", "leaders", "apart"])
def test_table_of_contents_entries_are_not_headings(tmp_path: Path, style: str) -> None:
    w = Writer()
    w.front()
    w.line("Times-Bold", 11, "Contents" if style != "inline" else "Outline of the paper", gap=6)
    entries = [("1.", "Introduction", 2), ("2.", "Method", 3), ("2.1.", "Probe placement", 3), ("3.", "Results", 4)]
    for num, text, page in entries:
        if style == "inline":
            w.line("Times-Roman", 10, f"{num} {text} {page}")
        elif style == "leaders":
            w.line("Times-Roman", 10, f"{num} {text} " + "." * 40 + f" {page}")
        else:
            w.line("Times-Roman", 10, f"{num} {text}")
            w.y += 13
            w.line("Times-Roman", 10, str(page), x=520)
    w.body(first="1. Introduction", second="2. Method", third="3. Results")
    p = w.parse(tmp_path)
    assert _heads(p)[:3] == ["Introduction", "Method", "Results"], _heads(p)
    assert p.sections[0].text.startswith(INTRO_START)
    assert all("Probe placement" not in h for h in _heads(p))


def test_table_cells_are_not_headings(tmp_path: Path) -> None:
    w = Writer()
    w.front()
    w.heading("1 Introduction")
    w.para(INTRO)
    # a table: bold header cells side by side, then rows of numbers
    for cells, font in [(["Matrix A", "Matrix B", "Matrix C"], "Times-Bold"), (["0.31", "0.42", "0.57"], "Times-Roman"),
                        (["Low Rank", "Sparse Part", "Noise Level"], "Times-Bold")]:
        y = w.y
        for k, c in enumerate(cells):
            w.page.text(font, 10, 120 + 130 * k, y, c)  # type: ignore[union-attr]
        w.y -= 14
    w.line("Times-Roman", 9, "Table 1: Errors of the three estimates.", gap=4)
    w.para(PROSE)
    w.heading("2 Method")
    w.para(METHOD)
    p = w.parse(tmp_path)
    heads = _heads(p)
    assert heads[:2] == ["Introduction", "Method"], heads
    assert not any("Matrix" in h or "Sparse" in h for h in heads)


def test_equations_are_not_headings_or_titles(tmp_path: Path) -> None:
    w = Writer()
    # page 1 of a preprint: an equation set larger than anything else, above the real title
    w.line("Times-Bold", 20, "V (x, t) = a + b sin(w t)", x=150)
    w.front()
    w.heading("1 Introduction")
    w.para(INTRO)
    w.line("Times-Bold", 12, "E = m c + k x", x=200, gap=6)
    w.line("Times-Bold", 12, "f (x) <= g (x) + h", x=200, gap=6)
    w.para(PROSE)
    w.heading("2 Method")
    w.para(METHOD)
    p = w.parse(tmp_path)
    assert p.title == "Water Budgets for Dry Gardens"
    assert _heads(p)[:2] == ["Introduction", "Method"], _heads(p)


def test_structured_abstract_stays_whole_and_background_is_the_first_section(tmp_path: Path) -> None:
    w = Writer()
    w.line("Helvetica-Bold", 18, "Water Budgets for Dry Gardens")
    w.line("Times-Roman", 11, "Mara Quinn and Tomas Vale", gap=6)
    w.line("Helvetica-Bold", 11, "Abstract", gap=8)
    for label, text in [("Background:", "Dry gardens waste water."), ("Methods:", "Probes logged moisture hourly."),
                        ("Results:", "Water use fell by half."), ("Conclusions:", "Cheap probes help growers.")]:
        for ln in wrap(f"{label} {text} " + PROSE[:160], 100):
            w.line("Helvetica", 9, ln)
    w.line("Helvetica", 9, "Keywords: irrigation, soil moisture, sensors", gap=4)
    w.heading("Background")
    w.para(INTRO)
    w.heading("Methods")
    w.para(METHOD)
    w.heading("Results")
    w.para(PROSE)
    p = w.parse(tmp_path)
    assert _heads(p)[:3] == ["Background", "Methods", "Results"], _heads(p)
    assert p.sections[0].text.startswith(INTRO_START)
    assert p.sections[0].role == "introduction"
    assert p.abstract.startswith("Background: Dry gardens waste water.")
    for label in ("Methods:", "Results:", "Conclusions:"):
        assert label in p.abstract
    assert INTRO_START not in p.abstract and "Keywords" not in p.abstract


@pytest.mark.parametrize("first", ["Motivation", "Overview", "I. INTRODUCTION", "A. Setting the Scene"])
def test_first_body_section_whatever_it_is_called(tmp_path: Path, first: str) -> None:
    w = Writer()
    w.front()
    second = "II. METHOD" if first.startswith("I.") else ("B. Method" if first.startswith("A.") else "Method")
    third = "III. RESULTS" if first.startswith("I.") else ("C. Results" if first.startswith("A.") else "Results")
    w.body(first=first, second=second, third=third)
    p = w.parse(tmp_path)
    want = first.split(". ", 1)[-1]
    assert p.sections[0].heading == want, _heads(p)
    assert p.sections[0].text.startswith(INTRO_START)
    assert p.sections[0].role == "introduction"


def test_banner_above_the_title_and_running_heads(tmp_path: Path) -> None:
    w = Writer(running_head="Journal of Dry Gardens 12 (2020)")
    w.new_page()
    w.line("Times-Italic", 18, "Research Article")
    w.front()
    w.body()
    for _ in range(3):
        w.para(PROSE * 4)
    p = w.parse(tmp_path)
    assert p.title == "Water Budgets for Dry Gardens"
    assert not any("Journal of Dry Gardens" in h for h in _heads(p))
    assert not any("Journal of Dry Gardens" in s.text for s in p.sections)


def test_text_quality_hyphens_ligatures_drop_cap(tmp_path: Path) -> None:
    doc = RawPdf(to_unicode={0x40: "\ufb02", 0x5E: "\u00ad"})  # '@' = the 'fl' ligature, '^' = soft hyphen
    w = Writer(doc=doc)
    w.front()
    w.heading("1 Introduction")
    page = w.need(40)
    page.text("Times-Roman", 34, 72, w.y - 24, "W")  # a drop cap beside the first two lines
    page.text("Helvetica", 10, 100, w.y, "e found that irrigation schedules are in@uenced by the wea-")
    page.text("Helvetica", 10, 100, w.y - 13, "ther and by the water^less days of summer, so we mea^sured them.")
    w.y -= 40
    w.para(PROSE)
    w.heading("2 Method")
    w.para(METHOD)
    p = w.parse(tmp_path)
    intro = p.sections[0].text
    assert intro.startswith("We found that irrigation"), intro[:80]
    assert "influenced" in intro and "weather" in intro
    assert "waterless" in intro and "measured" in intro


def test_a_line_starting_in_the_gutter_right_of_the_left_column_is_the_right_columns() -> None:
    """A hanging-indent entry's first line stands left of its column's usual edge (312 pt against 332 pt): it starts
    right of where every left-column line ends, so it is read in the right column, not with the left one."""
    from motivgraph.ingest.pdf import _order_page
    from motivgraph.ingest.pdf_layout import Line

    def ln(text: str, x0: float, x1: float, y: float) -> Line:
        return Line(page=0, x0=x0, y0=y, x1=x1, y1=y + 9, size=9.0, bold=False, text=text, page_width=612.0,
                    page_height=792.0)

    left = [ln(f"left column line {i}", 54, 300, 700 - 12 * i) for i in range(12)]
    right = [ln(f"right column line {i}", 332, 562, 700 - 12 * i) for i in range(12) if i != 3]
    entry = ln("[11] M. Tran, E. Petrova, R. Mark, A survey of adaptive", 312, 562, 700 - 12 * 3)
    ordered = _order_page(left + right + [entry])
    assert entry.col == 2
    names = [x.text for x in ordered]
    assert names.index(entry.text) == names.index("right column line 2") + 1
    assert names[:12] == [x.text for x in left]
