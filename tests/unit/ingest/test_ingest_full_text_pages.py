"""Paper.full_text() (the text evidence offsets refer to) and page boundaries from both parsers (#39)."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium

from motivgraph.ingest.models import FULL_TEXT_SEP, Paper, Section
from motivgraph.ingest.pdf import parse_pdf
from motivgraph.ingest.tei import tei_to_paper
from tests.fixtures.ingest.pdfgen import write_paper


def _paper() -> Paper:
    return Paper(
        paper_id="x", title="A Title", abstract="The abstract.", title_page=1, abstract_pages=[(0, 1)],
        sections=[
            Section(heading="Introduction", number="1", text="First part. Second part.", pages=[(0, 1), (12, 2)]),
            Section(heading="", text="Untitled body."),
            Section(heading="Method", number="2", text="", pages=[]),
        ],
    )


def test_full_text_layout_is_fixed_and_spans_point_into_it() -> None:
    p = _paper()
    ft = p.full_text()
    assert ft == FULL_TEXT_SEP.join(["A Title", "The abstract.", "1 Introduction", "First part. Second part.",
                                     "Untitled body.", "2 Method"])
    spans = p.text_spans()
    assert [s.label for s in spans] == ["title", "abstract", "Introduction", "untitled section", "Method"]
    intro = spans[2]
    assert ft[intro.start:intro.end] == "1 Introduction\n\nFirst part. Second part."
    assert ft[intro.body:intro.end] == "First part. Second part."
    assert ft[spans[4].start:spans[4].end] == "2 Method"  # a heading without text is a block of its own
    for s in spans:
        assert 0 <= s.start <= s.body <= s.end <= len(ft)


def test_page_starts_map_offsets_to_pages_and_records_without_pages_have_none() -> None:
    p = _paper()
    ft, starts = p.full_text(), p.page_starts()
    assert Paper.page_in(starts, ft.index("First part")) == 1
    assert Paper.page_in(starts, ft.index("Second part")) == 2
    assert Paper.page_in(starts, ft.index("The abstract")) == 1
    json_record = Paper(paper_id="j", title="T", abstract="Only an abstract here.")
    assert json_record.page_starts() == []
    assert Paper.page_in(json_record.page_starts(), 5) is None


def test_offline_pdf_parse_keeps_page_boundaries(tmp_path: Path) -> None:
    path = write_paper(tmp_path / "long.pdf", filler_pages=2)
    paper = parse_pdf(path, sha256="d" * 64)
    ft, starts = paper.full_text(), paper.page_starts()
    assert len({p for _, p in starts}) >= 3
    doc = pdfium.PdfDocument(str(path))
    try:
        page_text = [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    finally:
        doc.close()
    checked = 0
    for i in range(0, 160, 7):
        line = f"Filler line {i} with some words"
        if line not in ft:
            continue
        on = [k + 1 for k, t in enumerate(page_text) if line in t]
        assert on, line
        assert Paper.page_in(starts, ft.index(line)) == on[0], line
        checked += 1
    assert checked >= 10
    assert Paper.page_in(starts, ft.index("Knowledge graphs of research motivations")) == 1


TEI = """<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc><titleStmt><title>A title here</title>
</titleStmt></fileDesc><profileDesc><abstract><p>An abstract paragraph.</p></abstract></profileDesc></teiHeader>
<text><body>{pb1}<div><head n="1">Introduction</head><p>First para on page one.</p>{pb2}<p>Second para on page
two.</p></div><div><head>Figure 3 continued on next page</head>{pb3}<p>Folded text after the caption.</p></div>
</body></text></TEI>"""


def test_tei_page_breaks_become_pages_and_folded_text_keeps_them() -> None:
    p = tei_to_paper(TEI.format(pb1='<pb n="4"/>', pb2='<pb n="5"/>', pb3="<pb/>"))
    ft, starts = p.full_text(), p.page_starts()
    assert Paper.page_in(starts, ft.index("First para")) == 4
    assert Paper.page_in(starts, ft.index("Second para")) == 5
    assert Paper.page_in(starts, ft.index("Folded text")) == 6  # a <pb> without n counts on
    assert "Folded text" in p.sections[0].text


def test_tei_without_page_breaks_has_no_pages() -> None:
    p = tei_to_paper(TEI.format(pb1="", pb2="", pb3=""))
    assert p.page_starts() == []
    assert p.title_page is None
