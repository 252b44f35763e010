"""The offline parser reads a paper's own DOI and arXiv id from all of page 1 and from the PDF's metadata
(ingest.pdf_identity): arXiv's stamp set up the margin, a DOI in the header or footer band, a DOI wrapped
across lines, XMP and Info dictionary fields — and not the ids of works page 1 cites, nor a DOI cut short.
PDFs are built byte by byte here (tests/fixtures/ingest/rawpdf.py); metadata is added with pypdf."""

from __future__ import annotations

from pathlib import Path

import pytest

from motivgraph.ingest.models import Paper
from motivgraph.ingest.pdf import parse_pdf
from tests.fixtures.ingest.rawpdf import RawPage, RawPdf
from tests.unit.ingest.test_ingest_pdf_layouts import Writer

SHA = "e" * 64
TITLE = "Water Budgets for Dry Gardens"
OWN = "10.5555/jdl.2020.0012"
CITED = "10.5555/soil.2010.003"


def _writer(extra: str = "") -> Writer:
    w = Writer(doc=RawPdf())
    w.front()
    w.heading("1 Introduction")
    w.para("Irrigation wastes water in dry gardens. " * 6 + extra)
    w.heading("2 Method")
    w.para("We placed probes at three depths in twelve plots. " * 30)
    w.heading("References")
    w.para("[1] A. Author. A book about water. Dry Press, 2001.")
    return w


def _page1(w: Writer) -> RawPage:
    return w.doc.pages[0]


def _parse(tmp_path: Path, w: Writer, name: str = "paper.pdf") -> Paper:
    p = parse_pdf(w.doc.save(tmp_path / name), sha256=SHA)
    assert p.title == TITLE  # the ids never disturb the rest of the parse
    return p


def _with_metadata(src: Path, info: dict[str, str] | None = None, xmp: str | None = None) -> Path:
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import DecodedStreamObject, NameObject

    w = PdfWriter(clone_from=PdfReader(str(src)))
    if info:
        w.add_metadata(info)
    if xmp is not None:
        s = DecodedStreamObject()
        s.set_data(xmp.encode())
        s[NameObject("/Type")] = NameObject("/Metadata")
        s[NameObject("/Subtype")] = NameObject("/XML")
        w._root_object[NameObject("/Metadata")] = w._add_object(s.flate_encode())  # compressed, as many are
    out = src.with_name("meta-" + src.name)
    with out.open("wb") as f:
        w.write(f)
    return out


def _xmp(fields: str, pdf: bool = True) -> str:
    return (
        '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/">'
        + ("<dc:format>application/pdf</dc:format>" if pdf else "<dc:format>image/jpeg</dc:format>")
        + fields + '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
    )


# -- arXiv -------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("stamp", "aid"), [
    ("arXiv:2101.01234v2 [cs.CL] 5 Jan 2021", "2101.01234"),
    ("arXiv:cs/0112017v1 [cs.CL] 7 Dec 2001", "cs/0112017"),
])
def test_the_arxiv_stamp_up_the_margin_is_the_papers_id(tmp_path: Path, stamp: str, aid: str) -> None:
    w = _writer()
    _page1(w).text("Times-Roman", 20, 30, 220, stamp, turn=90)  # rotated, in the left margin
    p = _parse(tmp_path, w)
    assert (p.arxiv_id, p.paper_id) == (aid, f"arxiv:{aid}")
    assert "arXiv" not in p.abstract and all("arXiv" not in s.text for s in p.sections)


def test_a_stamp_set_one_character_at_a_time_is_read(tmp_path: Path) -> None:
    # each character its own text object up the margin, advanced unevenly: pdfium's text of it has stray
    # spaces ("ar Xi v: 2101. 01234v2 [ cs. CL] ...")
    w = _writer()
    y = 200.0
    for ch in "arXiv:2101.01234v2 [cs.CL] 5 Jan 2021":
        _page1(w).ops.append(b"BT /F3 20 Tf 0 1 -1 0 30 %.2f Tm (%s) Tj ET" % (y, ch.encode()))
        y += 6.0 if ch == " " else 11.0
    assert _parse(tmp_path, w).arxiv_id == "2101.01234"


def test_an_arxiv_id_page_1_cites_is_not_the_papers(tmp_path: Path) -> None:
    p = _parse(tmp_path, _writer("As in BERT (J. Devlin et al., arXiv preprint arXiv:1810.04805, 2018). "))
    assert p.arxiv_id is None and p.paper_id == f"sha256:{SHA}"


# -- DOIs on page 1 ----------------------------------------------------------------------------------------------------


def test_a_doi_in_the_footer_band_is_found(tmp_path: Path) -> None:
    w = _writer()
    _page1(w).text("Times-Roman", 8, 72, 30, f"J Dry Land 12 (2020) 1-9 | doi:{OWN}")
    assert _parse(tmp_path, w).paper_id == f"doi:{OWN}"


def test_the_papers_own_doi_wins_over_a_doi_it_cites(tmp_path: Path) -> None:
    cite = f"Probes follow [4]. [4] R. Moss et al. Roots in dry soil. Soil 3 (2010) 1-9. doi:{CITED} "
    w = _writer(cite)
    assert _parse(tmp_path, w, "cites-only.pdf").doi is None  # a cited DOI alone is not the paper's
    _page1(w).text("Times-Roman", 8, 72, 760, f"Journal of Dry Land 12 (2020) 1-9. doi:{OWN}")
    p = _parse(tmp_path, w, "own-and-cited.pdf")
    assert (p.doi, p.paper_id) == (OWN, f"doi:{OWN}")


def test_a_doi_in_the_reference_list_on_page_1_is_not_the_papers(tmp_path: Path) -> None:
    w = Writer(doc=RawPdf())
    w.front()
    w.heading("1 Introduction")
    w.para("Irrigation wastes water in dry gardens. " * 40)
    w.heading("References")
    w.para(f"Moss R, Vale T (2010) Roots in dry soil. Soil 3:1-9. doi:{CITED}")
    w.para("Lund A (2001) A book about water. Dry Press.")
    assert _parse(tmp_path, w).doi is None


def test_a_doi_wrapped_across_lines_is_read_whole(tmp_path: Path) -> None:
    w = _writer()
    page = _page1(w)
    # a citation block in the side column: the DOI breaks after "journal."; the footer prints it whole
    page.text("Times-Roman", 8, 430, 560, "Citation: Quinn M, Vale T (2020) Water")
    page.text("Times-Roman", 8, 430, 550, "budgets. J Dry Land 12(3): e0212345.")
    page.text("Times-Roman", 8, 430, 540, "https://doi.org/10.5555/journal.")
    page.text("Times-Roman", 8, 430, 530, "jdl.0212345")
    assert _parse(tmp_path, w, "wrapped.pdf").doi == "10.5555/journal.jdl.0212345"
    page.text("Times-Roman", 8, 72, 30, "J Dry Land | https://doi.org/10.5555/journal.jdl.0212345 March 2020 1 / 9")
    assert _parse(tmp_path, w, "wrapped-and-footer.pdf").doi == "10.5555/journal.jdl.0212345"


def test_a_doi_cut_at_a_line_end_is_no_id(tmp_path: Path) -> None:
    w = _writer()
    page = _page1(w)
    page.text("Times-Roman", 8, 430, 540, "https://doi.org/10.5555/journal.")
    page.text("Times-Roman", 8, 430, 530, "Received: 3 May 2020")
    p = _parse(tmp_path, w)
    assert p.doi is None and p.paper_id == f"sha256:{SHA}"  # before: doi:10.5555/journal, shared by a journal


# -- metadata ----------------------------------------------------------------------------------------------------------


def test_xmp_doi_without_a_doi_on_the_page(tmp_path: Path) -> None:
    src = _writer().doc.save(tmp_path / "plain.pdf")
    pdf = _with_metadata(src, xmp=_xmp(f"<prism:doi>{OWN}</prism:doi><dc:identifier>doi:{OWN}</dc:identifier>"))
    assert parse_pdf(pdf, sha256=SHA).paper_id == f"doi:{OWN}"


def test_xmp_arxiv_identifier(tmp_path: Path) -> None:
    src = _writer().doc.save(tmp_path / "plain.pdf")
    pdf = _with_metadata(src, xmp=_xmp("<dc:identifier>arXiv:2101.01234v3</dc:identifier>"))
    assert parse_pdf(pdf, sha256=SHA).arxiv_id == "2101.01234"


@pytest.mark.parametrize(("info", "doi"), [
    ({"/doi": OWN}, OWN),
    ({"/Subject": f"Journal of Dry Land 12 (2020) 1-9. doi:{OWN}"}, OWN),
    ({"/JournalDOI": "10.5555/(ISSN)1234-5678"}, None),  # the journal's DOI is not the paper's
    ({"/Subject": "Journal of Dry Land. doi:10.5555/journal"}, None),  # a bare journal prefix is no DOI
])
def test_info_dictionary(tmp_path: Path, info: dict[str, str], doi: str | None) -> None:
    src = _writer().doc.save(tmp_path / "plain.pdf")
    assert parse_pdf(_with_metadata(src, info=info), sha256=SHA).doi == doi


def test_metadata_settles_between_two_dois_on_the_page(tmp_path: Path) -> None:
    w = _writer()
    page = _page1(w)
    page.text("Times-Roman", 8, 72, 760, "doi:10.5555/other.2020.0001")
    page.text("Times-Roman", 8, 72, 30, f"doi:{OWN}")
    src = w.doc.save(tmp_path / "two.pdf")
    assert parse_pdf(_with_metadata(src, info={"/doi": OWN}), sha256=SHA).doi == OWN


def test_an_images_xmp_counts_less_than_the_page(tmp_path: Path) -> None:
    w = _writer()
    _page1(w).text("Times-Roman", 8, 72, 30, f"Journal of Dry Land 12 (2020) 1-9. doi:{OWN}")
    src = w.doc.save(tmp_path / "fig.pdf")
    # a packet that describes a JPEG (a figure reused from another paper) names that paper's DOI
    pdf = _with_metadata(src, xmp=_xmp(f"<prism:doi>{CITED}</prism:doi>", pdf=False))
    assert parse_pdf(pdf, sha256=SHA).doi == OWN
