"""Offline parser on rotated pages built byte by byte: pages with /Rotate whose text is set turned to
display upright (TeX landscape / 2-up preprints), pages typeset sideways without /Rotate, a word
set in another direction on an ordinary page (a margin stamp), and TeX OT1 ligature codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from motivgraph.ingest.models import Paper
from motivgraph.ingest.pdf_layout import page_lines
from tests.fixtures.ingest.rawpdf import RawPdf
from tests.unit.ingest.test_ingest_pdf_layouts import INTRO_START, Writer


class FrameWriter(Writer):
    """The layout tests' writer, with the top of each page taken from the page's reading frame."""

    def new_page(self) -> None:
        self.page = self.doc.page()
        self.y = self.page.frame[1] - 62


def _paper(tmp_path: Path, doc: RawPdf, stamp: str = "") -> Paper:
    w = FrameWriter(doc=doc)
    w.front()
    if stamp:
        assert w.page is not None
        # a large word run up the left margin of page 1, as repositories stamp papers
        w.page.text("Helvetica-Bold", 20, 40, 120, stamp, turn=(w.page.turn + 90) % 360)
    w.body()
    return w.parse(tmp_path)


def _check(p: Paper) -> None:
    assert p.title == "Water Budgets for Dry Gardens"
    assert [s.heading for s in p.sections][:3] == ["Introduction", "Method", "Results"]
    assert p.sections[0].text.startswith(INTRO_START)
    assert p.abstract.startswith("We study irrigation in dry gardens")
    assert p.authors and p.authors[0] == "Mara Quinn"


def test_upright_page_baseline(tmp_path: Path) -> None:
    _check(_paper(tmp_path, RawPdf()))


@pytest.mark.parametrize("rotate", [90, 180, 270])
def test_rotated_pages_read_like_upright_ones(tmp_path: Path, rotate: int) -> None:
    _check(_paper(tmp_path, RawPdf(rotate=rotate)))


@pytest.mark.parametrize("turn", [90, 270])
def test_pages_typeset_sideways_without_rotate(tmp_path: Path, turn: int) -> None:
    _check(_paper(tmp_path, RawPdf(turn=turn)))


@pytest.mark.parametrize("rotate", [0, 270])
def test_words_in_another_direction_are_left_out(tmp_path: Path, rotate: int) -> None:
    p = _paper(tmp_path, RawPdf(rotate=rotate), stamp="Preprint Stamp Running Up The Margin")
    _check(p)
    text = " ".join([p.title, p.abstract, *(s.text for s in p.sections)])
    assert "Stamp" not in text and "Margin" not in text


def test_line_geometry_is_in_the_reading_frame(tmp_path: Path) -> None:
    import pypdfium2 as pdfium

    doc = RawPdf(rotate=270)
    page = doc.page()
    page.text("Times-Roman", 10, 72, 500, "first line of text")
    page.text("Times-Roman", 10, 72, 486, "second line of text")
    pdf = pdfium.PdfDocument(str(doc.save(tmp_path / "r.pdf")))
    try:
        lines = page_lines(pdf[0], 0)
    finally:
        pdf.close()
    assert [ln.text for ln in lines] == ["first line of text", "second line of text"]
    assert (lines[0].page_width, lines[0].page_height) == (792.0, 612.0)
    assert abs(lines[0].x0 - 72) < 2 and lines[0].y0 > lines[1].y0 and lines[0].size == 10


def test_tex_ot1_ligature_codes_become_letters(tmp_path: Path) -> None:
    import pypdfium2 as pdfium

    # a font without a usable Unicode map passes TeX's OT1 slots through: 0x0B ff, 0x0C fi, 0x0E ffi
    doc = RawPdf(to_unicode={0x0B: "\x0b", 0x0C: "\x0c", 0x0E: "\x0e"})
    page = doc.page()
    page.text("Helvetica", 10, 72, 700, "e\x0bective con\x0cning e\x0ecient")
    pdf = pdfium.PdfDocument(str(doc.save(tmp_path / "l.pdf")))
    try:
        lines = page_lines(pdf[0], 0)
    finally:
        pdf.close()
    assert [ln.text for ln in lines] == ["effective confining efficient"]
