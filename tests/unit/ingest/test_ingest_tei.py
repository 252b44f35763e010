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
