"""Offline parser text quality on PDFs built byte by byte (tests/fixtures/ingest/rawpdf.py)."""

from __future__ import annotations

from pathlib import Path

from motivgraph.ingest.pdf import parse_pdf
from tests.fixtures.ingest.rawpdf import RawPdf, wrap

BODY = (
    "Research papers state problems, the challenges that make them hard and the solutions they propose. "
    "We describe a reader that finds them in the text of many papers and keeps them in a graph for later use. "
)


def _paper(doc: RawPdf, intro: str) -> RawPdf:
    p = doc.page()
    p.text("Helvetica-Bold", 18, 72, 720, "Reading Motivations from Papers")
    p.text("Helvetica", 11, 72, 696, "Ada Lovelace and Alan Turing")
    p.text("Helvetica-Bold", 12, 72, 660, "Abstract")
    y = p.paragraph("Helvetica", 10, 72, 644, wrap(BODY * 2))
    p.text("Helvetica-Bold", 12, 72, y - 14, "1 Introduction")
    y = p.paragraph("Helvetica", 10, 72, y - 30, wrap(intro))
    p.text("Helvetica-Bold", 12, 72, y - 14, "2 Method")
    p.paragraph("Helvetica", 10, 72, y - 30, wrap(BODY * 3))
    return doc


def test_astral_characters_are_rejoined_not_lone_surrogates(tmp_path: Path) -> None:
    doc = RawPdf(to_unicode={0x40: "\U0001d707"})  # '@' in the content stream is the math letter mu
    _paper(doc, "The parameter @ controls the rate. " + BODY * 2).save(tmp_path / "astral.pdf")
    paper = parse_pdf(tmp_path / "astral.pdf")
    intro = paper.section("introduction")
    assert "\U0001d707" in intro
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in intro)
    paper.model_dump_json()  # the failure users saw: pydantic refused to serialise surrogates
    assert paper.text_repairs.get("surrogate_pairs_joined", 0) >= 1  # and the report can say so
