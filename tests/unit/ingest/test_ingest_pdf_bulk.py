"""The layout passes that read a page's characters in bulk (the C pass where the C loops are built, and the
array pass without them) give the lines of the per-character reference pass, on pages built byte by byte:
upright, rotated and sideways-typeset pages, a word in another direction, astral characters (surrogate
halves rejoined and counted), control characters, and text without a usable type size (measured by its
glyph boxes). Line breaks inside a pdfium line and word gaps without a space char, which pdfium does not
produce on these simple pages, are covered on the real corpus by the golden digest
(test_ingest_pdf_golden.py, test_ingest_pdf_native.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest

from motivgraph.ingest import pdf_layout, pdf_native
from motivgraph.ingest.pdf_layout import Line, page_lines
from motivgraph.text_hygiene import Repairs
from tests.fixtures.ingest.rawpdf import RawPdf, wrap

TEXT = (
    "Research papers state problems, the challenges that make them hard and the solutions they propose. "
    "We describe a reader that finds them in the text of many papers and keeps them in a graph. "
)


@pytest.fixture(autouse=True, params=["c", "arrays"])
def bulk_pass(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test runs against both bulk passes: the C one (skipped where it cannot be built) and the array one."""
    if request.param == "c":
        if pdf_native.library() is None:
            pytest.skip("the C loops are not available here")
        monkeypatch.setattr(pdf_layout, "_lines_in_bulk", lambda *a, **k: pytest.fail("array pass used"))
    else:
        monkeypatch.setattr(pdf_layout, "_native", lambda: None)
    return str(request.param)


def _row(ln: Line) -> tuple[Any, ...]:
    return (ln.page, ln.x0, ln.y0, ln.x1, ln.y1, ln.size, ln.bold, ln.text, ln.font, ln.page_width,
            ln.page_height, ln.chars)


def _both(path: Path) -> list[tuple[list[tuple[Any, ...]], list[Repairs], list[tuple[Any, ...]], list[Repairs]]]:
    out = []
    pdf = pdfium.PdfDocument(str(path))
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            bulk_rep: list[Repairs] = []
            char_rep: list[Repairs] = []
            bulk = [_row(ln) for ln in page_lines(page, i, bulk_rep)]
            char = [_row(ln) for ln in page_lines(page, i, char_rep, per_char=True)]
            out.append((bulk, bulk_rep, char, char_rep))
            page.close()
    finally:
        pdf.close()
    return out


def _page(doc: RawPdf, stamp: bool = False) -> RawPdf:
    p = doc.page()
    top = p.frame[1] - 72
    p.text("Helvetica-Bold", 18, 72, top, "Reading Motivations from Papers")
    p.text("Helvetica", 11, 72, top - 24, "Ada Lovelace and Alan Turing")
    # a superscript beside a word, words set apart, a second column
    p.text("Helvetica", 10, 72, top - 50, "Energy E=mc")
    p.text("Helvetica", 7, 128.5, top - 46, "2")
    p.text("Times-Roman", 10, 72, top - 66, "Left")
    p.text("Times-Roman", 10, 98, top - 66, "right")
    p.text("Times-Bold", 10, 300, top - 66, "far column")
    p.paragraph("Times-Roman", 10, 72, top - 90, wrap(TEXT * 4))
    if stamp:
        p.text("Helvetica-Bold", 20, 40, 120, "Preprint Stamp Up The Margin", turn=(p.turn + 90) % 360)
    return doc


@pytest.mark.parametrize(
    ("rotate", "turn", "stamp"),
    [(0, None, False), (90, None, False), (180, None, False), (270, None, True), (0, 90, False), (0, 0, True)],
)
def test_bulk_pass_gives_the_per_char_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rotate: int,
                                            turn: int | None, stamp: bool) -> None:
    path = _page(RawPdf(rotate=rotate, turn=turn), stamp=stamp).save(tmp_path / "p.pdf")
    results = _both(path)
    for bulk, bulk_rep, char, char_rep in results:
        assert len(bulk) > 5
        assert bulk == char
        assert bulk_rep == char_rep
    # and the bulk pass is what ran (not a fallback to the per-char one)
    monkeypatch.setattr(pdf_layout, "_lines_char_by_char", lambda *a, **k: pytest.fail("per-char pass used"))
    pdf = pdfium.PdfDocument(str(path))
    try:
        assert page_lines(pdf[0], 0)
    finally:
        pdf.close()


def test_astral_characters_and_controls_are_repaired_alike(tmp_path: Path) -> None:
    # '@' is the math letter mu (two UTF-16 units in pdfium), '~' a C0 control, '^' a C1 control
    doc = RawPdf(to_unicode={0x40: "\U0001d707", 0x7E: "\x01", 0x5E: "\x90"})
    p = doc.page()
    p.text("Helvetica", 12, 72, 700, "The parameter @ sets the rate~ of ^decay")
    p.paragraph("Helvetica", 10, 72, 680, wrap("Plain words follow @ here. " * 12))
    doc.save(tmp_path / "astral.pdf")
    [(bulk, bulk_rep, char, char_rep)] = _both(tmp_path / "astral.pdf")
    assert bulk == char
    assert bulk_rep == char_rep
    total = sum(bulk_rep, Repairs())
    assert total.surrogate_pairs_joined >= 1 and total.controls >= 2, total
    assert "\U0001d707" in bulk[0][7]


def test_text_without_a_usable_type_size_is_measured_alike(tmp_path: Path) -> None:
    doc = RawPdf()
    p = doc.page()
    p.paragraph("Helvetica", 1.5, 72, 700, wrap(TEXT * 2))  # below 2 pt: no type size to go by
    p.paragraph("Helvetica", 10, 72, 600, wrap(TEXT))
    doc.save(tmp_path / "tiny.pdf")
    [(bulk, bulk_rep, char, char_rep)] = _both(tmp_path / "tiny.pdf")
    assert bulk and bulk == char and bulk_rep == char_rep
