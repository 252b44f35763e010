"""Real papers are never judged "not a research paper" (#40 item 1): a blank first page, front matter in another
language, a figure whose axis labels are the largest type on page 1. A single page from inside a paper still is."""

from __future__ import annotations

from pathlib import Path

from motivgraph.ingest.pdf import parse_pdf
from tests.fixtures.ingest.pdfgen import _wrap, write_pages

PROSE = (
    "Coastal wetlands store carbon in their soils for centuries, yet the rate at which they bury it varies widely "
    "between sites. We combine sediment cores with tide gauge records to estimate burial rates along a gradient of "
    "salinity and find that brackish marshes bury the most carbon per unit area. "
)
BODY = (
    "The cores were sliced at two centimetre intervals and dated with lead isotopes. Burial rates follow from "
    "the dated depth profiles and the measured carbon density of each slice. "
)
Block = tuple[str, float, str]


def _write(path: Path, pages: list[list[Block]], *, x_of: dict[str, float] | None = None) -> Path:
    return write_pages(path, pages, at={t: (x, None) for t, x in (x_of or {}).items()})


def _body_pages(intro: str, refs: str) -> list[list[Block]]:
    lines = [("Helvetica", 10.0, ln) for ln in _wrap(BODY * 6)]
    return [
        [("Helvetica-Bold", 12, f"1 {intro}"), *lines, ("Helvetica-Bold", 12, "2 Methods"), *lines],
        [("Helvetica-Bold", 12, "3 Results"), *lines, ("Helvetica-Bold", 12, refs),
         ("Helvetica", 10, "[1] B. Way. Tidal marsh sediments. Estuaries, 2001."),
         ("Helvetica", 10, "[2] C. Young. Lead dating of cores. Geochimica, 1999.")],
    ]


def _front(label: str | None) -> list[Block]:
    abstract = [("Helvetica", 10.0, ln) for ln in _wrap(PROSE * 2)]
    return [("Helvetica-Bold", 20, "Carbon Burial in Brackish Tidal Marshes"),
            ("Helvetica", 12, "Ines Araújo and Tomas Berg"),
            *([("Helvetica-Bold", 12, label)] if label else []), *abstract]


def test_a_blank_first_page_is_skipped_and_the_title_read_on_page_two(tmp_path: Path) -> None:
    body = _body_pages("Introduction", "References")
    pdf = _write(tmp_path / "blank.pdf", [[], _front("Abstract") + body[0], body[1]])
    paper = parse_pdf(pdf)
    assert paper.not_a_paper is None
    assert paper.title == "Carbon Burial in Brackish Tidal Marshes"
    assert paper.title_page == 2  # where a quote of the title is found
    assert paper.abstract.startswith("Coastal wetlands store carbon")
    assert paper.authors == ["Ines Araújo", "Tomas Berg"]


def test_front_matter_in_german_is_a_paper_with_its_abstract(tmp_path: Path) -> None:
    body = _body_pages("Einleitung", "Literatur")
    paper = parse_pdf(_write(tmp_path / "de.pdf", [_front("Zusammenfassung") + body[0], body[1]]))
    assert paper.not_a_paper is None
    assert paper.title == "Carbon Burial in Brackish Tidal Marshes"
    assert paper.abstract.startswith("Coastal wetlands store carbon")  # the label is not part of it
    assert paper.sections[0].heading == "Einleitung"
    assert len(paper.references) == 2


def test_a_figure_label_larger_than_the_title_is_no_title(tmp_path: Path) -> None:
    """Page 1: title, authors, an unlabelled abstract, running text, then a plot whose axis label is set in 28 pt.
    The body's headings are not the usual names, so only the document as a whole shows it is a paper."""
    lines = [("Helvetica", 10.0, ln) for ln in _wrap(BODY * 5)]
    first = [("Helvetica-Bold", 14, "Carbon Burial in Brackish Tidal Marshes"), ("Helvetica", 12, "Ines Araújo"),
             *[("Helvetica", 10.0, ln) for ln in _wrap(PROSE * 2)], *lines, ("Helvetica", 28, "Salinity"),
             *lines]
    rest = [[("Helvetica-Bold", 12, "Sediment Cores"), *lines, ("Helvetica-Bold", 12, "Burial Rates"), *lines],
            [("Helvetica-Bold", 12, "References"),
             ("Helvetica", 10, "[1] B. Way. Tidal marsh sediments. Estuaries, 2001."),
             ("Helvetica", 10, "[2] C. Young. Lead dating of cores. Geochimica, 1999.")]]
    title_x = {"Carbon Burial in Brackish Tidal Marshes": 150.0}
    paper = parse_pdf(_write(tmp_path / "fig.pdf", [first, *rest], x_of=title_x))
    assert paper.not_a_paper is None
    assert paper.title == "Carbon Burial in Brackish Tidal Marshes"


def test_a_single_page_from_inside_a_paper_is_still_not_one(tmp_path: Path) -> None:
    lines = [("Helvetica", 10.0, ln) for ln in _wrap(BODY * 4)]
    page = [*lines, ("Helvetica-Bold", 12, "3.2 Burial Rates"), *lines]
    paper = parse_pdf(_write(tmp_path / "inner.pdf", [page]))
    assert paper.not_a_paper is not None
    assert paper.title == ""
