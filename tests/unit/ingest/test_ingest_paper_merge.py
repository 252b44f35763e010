"""Merging the documents of one paper field by field (ingest.paper_merge, Ledger.merge_paper_fields): a value
beats no value, a metadata record's bibliographic fields beat a parse's, a parsed file names the file, the same
document replaces its own values, and the result does not depend on the order the documents came in."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from motivgraph.graph.models import PaperRecord
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.paper_json import record_to_paper, stable_id
from motivgraph.ingest.paper_merge import Held, merge_field, merge_fields, rank

PDF = {"title": "Water Budgets for Dry Gardens", "authors": ["Mara Quinn", "Tomas Vale"], "abstract": "We study.",
       "year": 2020, "venue": None, "doi": "10.5555/a.1", "arxiv_id": None, "source_path": "papers/a.pdf",
       "sha256": "f" * 64}
RECORD = {"title": "Water budgets for dry gardens", "authors": [], "abstract": "", "year": None,
          "venue": "Journal of Dry Land", "doi": "10.5555/a.1", "arxiv_id": "2101.01234", "source_path": None,
          "sha256": None}


def test_a_record_without_authors_or_year_does_not_wipe_the_pdfs() -> None:
    held = merge_fields({}, PDF, "pdf", "pdf:papers/a.pdf")
    out = merge_fields(held, RECORD, "json", "json:papers.jsonl:3")
    assert out["authors"].value == ["Mara Quinn", "Tomas Vale"] and out["authors"].source == "pdf:papers/a.pdf"
    assert out["year"].value == 2020 and out["source_path"].value == "papers/a.pdf"
    assert out["sha256"].value == "f" * 64
    # where both have a value, the record's bibliographic fields win
    assert out["title"].value == "Water budgets for dry gardens" and out["title"].source == "json:papers.jsonl:3"
    assert out["venue"].source == "json:papers.jsonl:3" and out["arxiv_id"].value == "2101.01234"


def test_a_records_year_outranks_a_parsed_guess_and_a_file_outranks_a_record_for_its_path() -> None:
    assert rank("year", "json") > rank("year", "grobid") > rank("year", "pdf")
    assert rank("source_path", "pdf") > rank("source_path", "json")
    held = merge_fields({}, {**RECORD, "year": 2021}, "json", "json:r")
    out = merge_fields(held, PDF, "pdf", "pdf:a")
    assert out["year"].value == 2021 and out["source_path"].value == "papers/a.pdf"


def test_the_same_document_replaces_its_own_value() -> None:
    held = Held("Old title", "json:r:1", 3)
    assert merge_field(held, Held("New title", "json:r:1", 3)).value == "New title"
    assert merge_field(held, Held("", "json:r:1", 3)).value == "Old title"  # still no wipe


@pytest.mark.parametrize("n", [3])
def test_the_result_does_not_depend_on_the_order(n: int) -> None:
    docs: list[tuple[dict[str, Any], str, str]] = [
        (PDF, "pdf", "pdf:papers/a.pdf"),
        ({**PDF, "source_path": "copies/b.pdf", "year": 2019}, "pdf", "pdf:copies/b.pdf"),
        (RECORD, "json", "json:papers.jsonl:3"),
    ]
    results = []
    for order in itertools.permutations(docs, n):
        held: dict[str, Held] = {}
        for values, parser, source in order:
            held = merge_fields(held, values, parser, source)
        results.append({f: (h.value, h.source) for f, h in held.items()})
    assert all(r == results[0] for r in results)


def test_the_ledger_keeps_the_best_values_across_documents(tmp_path: Path) -> None:
    led = Ledger(tmp_path / "ledger.sqlite")
    try:
        led.merge_paper_fields("doi:10.5555/a.1", PDF, "pdf", "pdf:papers/a.pdf")
        out = led.merge_paper_fields("doi:10.5555/a.1", RECORD, "json", "json:papers.jsonl:3")
        assert out["authors"].value == ["Mara Quinn", "Tomas Vale"] and out["year"].value == 2020
    finally:
        led.close()
    again = Ledger(tmp_path / "ledger.sqlite")  # durable: a resumed run merges into the same values
    try:
        out = again.merge_paper_fields("doi:10.5555/a.1", {}, "json", "json:other:1")
        assert out["source_path"].value == "papers/a.pdf" and out["venue"].value == "Journal of Dry Land"
    finally:
        again.close()


@pytest.mark.parametrize(("given", "expected"), [
    ("doi:10.5555/A.1", "doi:10.5555/a.1"),
    ("arxiv:2101.01234", "arxiv:2101.01234"),
    ("sha256:" + "AB" * 32, "sha256:" + "ab" * 32),
    ("s2:abc123", "s2:abc123"),
    ("id:my-paper", "id:my-paper"),
    ("my-paper", "id:my-paper"),
])
def test_a_record_paper_id_in_the_projects_own_form_is_that_identifier(given: str, expected: str) -> None:
    rec = {"paper_id": given, "title": "Water Budgets for Dry Gardens"}
    assert stable_id(rec) == expected
    paper = record_to_paper(rec)
    assert paper.paper_id == expected
    if expected.startswith("doi:"):
        assert paper.doi == "10.5555/a.1"


def test_the_paper_record_reads_provenance_as_a_store_keeps_it() -> None:
    rec = PaperRecord.model_validate({"paper_id": "doi:10.5555/a.1", "provenance": '{"year": "json:r:1"}'})
    assert rec.provenance == {"year": "json:r:1"}
    assert PaperRecord.model_validate({"paper_id": "x", "provenance": None}).provenance == {}
