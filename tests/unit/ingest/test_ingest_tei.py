"""TEI → Paper on every real GROBID file in ../shared/corpus/tei, plus targeted cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from motivgraph.errors import ParseError
from motivgraph.ingest.tei import tei_to_paper

TEI_DIR = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "tei"
TEI_FILES = sorted(TEI_DIR.glob("*.xml")) if TEI_DIR.is_dir() else []
needs_corpus = pytest.mark.skipif(not TEI_FILES, reason=f"TEI corpus not found at {TEI_DIR}")

SHA = "a" * 64


@needs_corpus
@pytest.mark.parametrize("path", TEI_FILES, ids=lambda p: p.name)
def test_every_tei_file_converts_or_fails_clearly(path: Path) -> None:
    data = path.read_bytes()
    if "withdrawn" in path.name:
        with pytest.raises(ParseError, match="no title, abstract or body"):
            tei_to_paper(data, sha256=SHA)
        return
    p = tei_to_paper(data, sha256=SHA, source_path=str(path))
    assert p.title and len(p.title) > 10
    assert p.authors, "every real file names its authors"
    assert p.abstract
    assert p.sections and all(s.text or s.heading for s in p.sections)
    assert p.references and all(r.title or r.authors for r in p.references)
    assert p.parser == "grobid" and p.sha256 == SHA
    assert p.not_a_paper is None  # every real file is a paper
    # no page furniture survives as a section heading
    assert not any(s.heading.lower().startswith(("continued", "figure")) for s in p.sections)
    # back matter (acknowledgements, funding, annex) is not a body section
    assert not any(s.heading.lower() in ("acknowledgements", "funding") for s in p.sections)
    rec = p.to_record()
    assert rec.paper_id == p.paper_id and rec.title == p.title


@needs_corpus
def test_headings_with_n_attribute_keep_numbers_and_roles() -> None:
    p = tei_to_paper((TEI_DIR / "2021.naacl-main.224.grobid.tei.xml").read_bytes(), sha256=SHA)
    assert p.title == "Incorporating External Knowledge to Enhance Tabular Reasoning"
    assert p.authors[:3] == ["J Neeraja", "Vivek Gupta", "Vivek Srikumar"]
    first = p.sections[0]
    assert (first.number, first.heading, first.role) == ("1", "Introduction", "introduction")
    assert p.section("introduction").startswith("Natural Language Inference (NLI)")
    roles = {s.heading: s.role for s in p.sections}
    assert roles["Comparison with Related Work"] == "related_work"
    assert roles["Conclusion & Future Work"] == "conclusion"
    assert roles["Experimental setup"] == "experiments"
    # no DOI in this file: the id falls back to the file hash
    assert p.paper_id == f"sha256:{SHA}"


@needs_corpus
def test_headings_without_n_and_doi_from_header_only() -> None:
    # older GROBID (0.6.1) output: no @n, coords attributes, DOI in the header biblStruct while the
    # reference list has dozens of other DOIs
    p = tei_to_paper((TEI_DIR / "0046d83a-edd6-4631-b57c-755cdcce8b7f.tei.xml").read_bytes(), sha256=SHA)
    assert p.doi == "10.1186/s12984-016-0129-6"
    assert p.paper_id == "doi:10.1186/s12984-016-0129-6"
    assert p.year == 2016
    assert all(s.number is None for s in p.sections)
    assert p.sections[0].heading == "Background" and p.sections[0].role == "introduction"
    assert any(s.role == "method" for s in p.sections)


@needs_corpus
def test_untitled_opening_section_is_the_introduction() -> None:
    p = tei_to_paper((TEI_DIR / "10.1038_s41477-023-01501-1.grobid.tei.xml").read_bytes(), sha256=SHA)
    assert p.sections[0].heading == "" and p.sections[0].role == "introduction"
    assert len(p.section("introduction")) > 500


@needs_corpus
def test_noisy_heads_fold_into_the_section_they_interrupt() -> None:
    data = (TEI_DIR / "10.7554_elife.78558.grobid.tei.xml").read_bytes()
    p = tei_to_paper(data, sha256=SHA)
    heads = [s.heading for s in p.sections]
    assert "supplement 1)." not in heads and "Figure 3 continued on next page" not in heads
    assert "Introduction" in heads and "Discussion" in heads


@needs_corpus
def test_repeated_sections_are_kept_once() -> None:
    p = tei_to_paper((TEI_DIR / "ijms-24-05988.grobid.tei.xml").read_bytes(), sha256=SHA)
    keys = [(s.number, s.heading, s.text) for s in p.sections]
    assert len(keys) == len(set(keys))


@needs_corpus
def test_multi_paragraph_abstract() -> None:
    p = tei_to_paper(
        (TEI_DIR / "mjb3wlzxcb2mc-migowebupload-1766042162782.grobid.tei.xml").read_bytes(), sha256=SHA
    )
    assert p.abstract.count("\n\n") >= 1
    assert p.doi == "10.1253/circj.cj-24-0501"


def test_rejects_non_tei_and_dtd() -> None:
    with pytest.raises(ParseError, match="not a TEI"):
        tei_to_paper(b"<html><body>hi</body></html>")
    with pytest.raises(ParseError, match="invalid TEI"):
        tei_to_paper(b"<TEI><unclosed>")
    with pytest.raises(ParseError, match="DOCTYPE"):
        tei_to_paper(b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><TEI/>')


_TEI = """<?xml version="1.0" encoding="UTF-8"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0">
<teiHeader><fileDesc><titleStmt><title level="a" type="main">{title}</title></titleStmt>
<publicationStmt><publisher/></publicationStmt>
<sourceDesc><biblStruct><analytic>{authors}</analytic><monogr><imprint/></monogr></biblStruct></sourceDesc>
</fileDesc><profileDesc>{abstract}</profileDesc></teiHeader>
<text><body>{body}</body><back><div type="references"><listBibl>{refs}</listBibl></div></back></text></TEI>"""


def _tei(title: str = "", authors: str = "", abstract: str = "", body: str = "", refs: str = "") -> bytes:
    return _TEI.format(title=title, authors=authors, abstract=abstract, body=body, refs=refs).encode()


_AUTHOR = "<author><persName><forename>Ada</forename><surname>Lovelace</surname></persName></author>"
_MID_PAGE = ('<div><head n="5.1">Hyper Parameter Optimization</head><p>We tuned the learning rate on the '
             'validation split and kept the best run.</p></div><div><head n="5.2">Ablations</head><p>Removing the '
             'gate costs two points.</p></div>')


def test_a_page_from_inside_a_paper_is_not_a_paper() -> None:
    from motivgraph.ingest.models import NOT_A_PAPER

    p = tei_to_paper(_tei(body=_MID_PAGE), sha256=SHA)
    assert p.not_a_paper is not None and p.not_a_paper.startswith(NOT_A_PAPER) and "no title" in p.not_a_paper
    assert NOT_A_PAPER in p.notes
    titled = tei_to_paper(_tei(title="5.1 Hyper Parameter Optimization", body=_MID_PAGE), sha256=SHA)
    assert titled.not_a_paper is not None and "has no author names" in titled.not_a_paper


@pytest.mark.parametrize("parts", [
    {"abstract": "<abstract><p>We study gated models.</p></abstract>"},  # an abstract
    {"body": '<div><head n="1">Introduction</head><p>Gated models are everywhere.</p></div>'},  # an Introduction
    {"title": "Gated models for everyone", "authors": _AUTHOR},  # a title block with its authors
])
def test_a_paper_needs_only_one_of_abstract_introduction_or_title_block(parts: dict[str, str]) -> None:
    body = parts.pop("body", _MID_PAGE)
    assert tei_to_paper(_tei(body=body, **parts), sha256=SHA).not_a_paper is None


def test_reference_entries_keep_their_ids_and_printed_text() -> None:
    refs = ('<biblStruct><analytic><title level="a">Gates everywhere</title>' + _AUTHOR + "</analytic>"
            '<monogr><title level="j">J. Gates</title><imprint><date when="2020"/></imprint></monogr>'
            '<idno type="DOI">10.1000/GATES.2020</idno><idno type="arXiv">arXiv:2001.01234v2</idno>'
            '<note type="raw_reference">A. Lovelace. Gates everywhere. J. Gates, 2020.</note></biblStruct>'
            '<biblStruct><analytic><title level="a">No ids here</title></analytic><monogr><imprint/></monogr>'
            '<idno type="DOI">10.1371/journal</idno></biblStruct>')
    p = tei_to_paper(_tei(title="Gated models", authors=_AUTHOR, body=_MID_PAGE, refs=refs), sha256=SHA)
    first, second = p.references
    assert (first.doi, first.arxiv_id, first.year) == ("10.1000/gates.2020", "2001.01234", 2020)
    assert first.raw == "A. Lovelace. Gates everywhere. J. Gates, 2020."
    assert (second.doi, second.arxiv_id, second.raw) == (None, None, "")  # a bare journal prefix is no DOI
