"""Offline parser against the independent ground truth (tests/fixtures/ingest/parse_truth.json, written by
reading the PDFs): title and first body section on the 28 papers, and coverage of both shared folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from motivgraph.errors import ParseError
from motivgraph.ingest.pdf import parse_pdf
from motivgraph.ingest.quality import FIELDS, truth_scores

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO.parent / "shared" / "corpus"
TRUTH = json.loads((REPO / "tests" / "fixtures" / "ingest" / "parse_truth.json").read_text())
needs_corpus = pytest.mark.skipif(
    not (CORPUS / "journals").is_dir() or not (CORPUS / "pdf").is_dir(),
    reason=f"shared corpus not found at {CORPUS} (journals/ and pdf/): the ground-truth bars cannot be measured",
)


@needs_corpus
def test_title_and_first_body_section_on_the_ground_truth() -> None:
    totals = dict.fromkeys(FIELDS, 0)
    n = 0
    wrong: list[str] = []
    for folder in ("journals", "pdf"):
        for name, entry in TRUTH[folder].items():
            n += 1
            try:
                scores = truth_scores(parse_pdf(CORPUS / folder / name), entry)
            except ParseError as e:
                wrong.append(f"{folder}/{name}: {e}")
                continue
            for f in FIELDS:
                totals[f] += scores[f]
            if not (scores["title"] and scores["first_section"]):
                wrong.append(f"{folder}/{name}: {scores}")
    print(f"\nground truth on {n} papers: " + ", ".join(f"{f} {totals[f]}/{n}" for f in FIELDS))
    assert n == 28
    assert totals["title"] >= 27, wrong
    assert totals["first_section"] >= 27, wrong
    assert totals["abstract_clean"] >= 24, wrong


@needs_corpus
def test_every_shared_pdf_has_a_title_and_a_section_or_a_reason() -> None:
    for folder in ("journals", "pdf"):
        for path in sorted((CORPUS / folder).glob("*.pdf")):
            try:
                p = parse_pdf(path)
            except ParseError as e:
                assert "no text layer" in str(e), (path.name, e)
                continue
            assert p.title.strip(), path.name
            assert p.sections, path.name
            p.model_dump_json()  # serialisable (no lone surrogates)
