"""Paper identity (ingest.identity): DOI and arXiv syntax, the title key, and which stored paper a document
is (`decide`, and the ledger's key table through `Ledger.resolve_paper`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from motivgraph.ingest.identity import (
    PaperKeys,
    decide,
    find_arxiv_ids,
    find_dois,
    normalize_arxiv,
    normalize_doi,
    stable_paper_id,
    title_key,
)
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.paper_json import record_to_paper, stable_id

# -- DOI syntax ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "doi"), [
    ("10.5555/abc.2020.0042", "10.5555/abc.2020.0042"),
    ("doi:10.5555/ABC.2020.0042.", "10.5555/abc.2020.0042"),  # case folded, sentence period dropped
    ("https://doi.org/10.5555/jdl.0212345)", "10.5555/jdl.0212345"),  # a bracket it does not open
    ("(see 10.5555/x(2001)12-3)", "10.5555/x(2001)12-3"),  # brackets it opens stay
    ("https://doi.org/10.5555%2Fabc.12", "10.5555/abc.12"),  # URL-encoded
    ("10.5555/s41586-023\ufffe", None),  # pdfium's line-end hyphen: cut, so no id
    ("10.5555/(SICI)1098-1136(199809)24:1<39::AID-GLIA5>3.0.CO;2-W",
     "10.5555/(sici)1098-1136(199809)24:1<39::aid-glia5>3.0.co;2-w"),
])
def test_doi_values(value: str, doi: str | None) -> None:
    assert normalize_doi(value) == doi


@pytest.mark.parametrize("value", [
    "10.1371/journal",  # a journal prefix: no digit in the suffix
    "10.5555/journal.",  # cut at a line end
    "10.1016/j.",
    "10.1/abc1",  # a one-digit registrant
    "10.5555/(ISSN)1098-1136",  # a journal's DOI, not a paper's
    "ISBN 0-10.5555/12",  # glued to a number before it
])
def test_not_dois(value: str) -> None:
    assert normalize_doi(value) is None


def test_a_doi_wrapped_across_lines_is_joined_and_a_cut_one_dropped() -> None:
    wrapped = "Water budgets. J Dry Land 12(3):\ne0212345. https://doi.org/10.5555/journal.\njdl.0212345\nEditor: X"
    assert [(m.doi, m.joined, m.labeled) for m in find_dois(wrapped)] == [("10.5555/journal.jdl.0212345", True, True)]
    assert [m.doi for m in find_dois("doi:10.5555/s41586-\n023-05895-y")] == ["10.5555/s41586-023-05895-y"]
    assert [m.doi for m in find_dois("doi:10.5555/cell.2019.\n05.031 and")] == ["10.5555/cell.2019.05.031"]
    # a sentence that ends with a DOI goes on in capitals on the next line: no join
    assert [m.doi for m in find_dois("see doi:10.5555/abc123.\nThe next")] == ["10.5555/abc123"]
    # cut at a separator with nothing that completes it: not an id at all
    assert find_dois("https://doi.org/10.5555/journal.\nReceived: 3 May 2020") == []
    assert find_dois("doi:10.5555/abc-\nReceived") == []


# -- arXiv syntax ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "aid"), [
    ("arXiv:2101.01234v2", "2101.01234"),
    ("2101.01234", "2101.01234"),
    ("https://arxiv.org/abs/1504.06236v3", "1504.06236"),
    ("arXiv:0706.0001", "0706.0001"),  # first month of new-style ids (4 digits until 1412)
    ("arXiv:cs/0112017", "cs/0112017"),
    ("math.gt/0309136v1", "math.GT/0309136"),
    ("hep-th/9901001", "hep-th/9901001"),
    ("10.48550/arXiv.2101.01234", "2101.01234"),  # arXiv's DOI
    ("2113.01234", None),  # month 13
    ("1501.1234", None),  # 4-digit numbers ended in 2014
    ("1412.12345", None),  # 5-digit numbers began in 2015
    ("0703.1234", None),  # before new-style ids
    ("foo/0112017", None),  # no such archive
    ("cs/0813017", None),  # month 13
])
def test_arxiv_values(value: str, aid: str | None) -> None:
    assert normalize_arxiv(value) == aid


def test_arxiv_ids_in_text_need_a_label_or_the_stamp_form() -> None:
    [stamp] = find_arxiv_ids("arXiv:2101.01234v2  [cs.CL]  5 Jan 2021\nA Title")
    assert (stamp.arxiv_id, stamp.stamp, stamp.labeled) == ("2101.01234", True, True)
    [old] = find_arxiv_ids("cs/0112017v1 7 Dec 2001\nA Title")  # old stamps had no label
    assert (old.arxiv_id, old.stamp) == ("cs/0112017", True)
    assert find_arxiv_ids("we measured 2101.01234 units and cs/0112017 cited") == []
    [cited] = find_arxiv_ids("BERT (arXiv preprint arXiv:1810.04805, 2018)")
    assert (cited.arxiv_id, cited.stamp) == ("1810.04805", False)


def test_stable_paper_id_checks_its_ids() -> None:
    assert stable_paper_id("10.1371/journal", None, "f" * 64) == "sha256:" + "f" * 64
    assert stable_paper_id("10.1371/journal", "arXiv:2101.01234v2", None) == "arxiv:2101.01234"
    assert stable_paper_id("https://doi.org/10.48550/arXiv.2101.01234", None, None) == "arxiv:2101.01234"


def test_json_records_use_the_same_syntax() -> None:
    assert stable_id({"title": "T", "doi": "10.1371/journal", "arxiv_id": "2101.01234v1"}) == "arxiv:2101.01234"
    assert stable_id({"title": "T", "externalIds": {"ArXiv": "cs/0112017"}}) == "arxiv:cs/0112017"
    p = record_to_paper({"title": "T", "externalIds": {"DOI": "10.5555/ABC.12", "ArXiv": "2101.01234"}})
    # both ids kept on the paper (the id is the DOI): a PDF of the preprint finds it by its arXiv id
    assert (p.paper_id, p.doi, p.arxiv_id) == ("doi:10.5555/abc.12", "10.5555/abc.12", "2101.01234")


def test_title_key() -> None:
    a = title_key("Water Budgets for Dry Gardens", ["Mara Quinn*", "Tomas Vale"])
    assert a == "title+author:water budgets for dry gardens|quinn"
    assert title_key("WATER BUDGETS FOR DRY GARDENS.", ["Quinn, M."]) == a
    assert title_key("Water Budgets for Dry Gardens", ["Mära Quinn"]) != title_key("Water Budgets", ["Mara Quinn"])
    assert title_key("Introduction", ["Mara Quinn"]) is None  # too short to tell papers apart
    assert title_key("Water Budgets for Dry Gardens", []) is None


# -- which paper a document is ---------------------------------------------------------------------------------------

TITLE, AUTHORS = "Water Budgets for Dry Gardens", ["Mara Quinn", "Tomas Vale"]


def _keys(pid: str, doi: str | None = None, arxiv: str | None = None, title: str = TITLE,
          authors: list[str] | None = None) -> PaperKeys:
    return PaperKeys.of(pid, doi, arxiv, title, AUTHORS if authors is None else authors)


def test_decide_without_a_key_table_keeps_the_own_id() -> None:
    res = decide(_keys("doi:10.5555/a.1", "10.5555/a.1"), lambda k: None, lambda p: [])
    assert (res.paper_id, res.merged_into, res.conflicts) == ("doi:10.5555/a.1", None, [])


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    led = Ledger(tmp_path / "ledger.sqlite")
    yield led
    led.close()


def test_a_json_record_and_a_pdf_of_one_paper_are_one_paper(ledger: Ledger) -> None:
    # the record knows the DOI and the arXiv id; the PDF (a preprint) only its arXiv stamp
    rec, _ = ledger.resolve_paper("json:1", "papers.jsonl", _keys("doi:10.5555/a.1", "10.5555/a.1", "2101.01234"),
                                  2021, year_from_record=True)
    pdf, year = ledger.resolve_paper("sha-pdf", "a.pdf", _keys("arxiv:2101.01234", None, "2101.01234"), 2020)
    assert rec.paper_id == "doi:10.5555/a.1"
    assert (pdf.paper_id, pdf.merged_into, pdf.via) == ("doi:10.5555/a.1", "doi:10.5555/a.1", "arxiv:2101.01234")
    assert year == 2021  # the record's year outranks the one read off the PDF
    again, _ = ledger.resolve_paper("sha-pdf", "a.pdf", _keys("arxiv:2101.01234", None, "2101.01234"), 2020)
    assert again.paper_id == "doi:10.5555/a.1"  # resolving again is stable


def test_the_pdf_first_then_the_record(ledger: Ledger) -> None:
    pdf, _ = ledger.resolve_paper("sha-pdf", "a.pdf", _keys("sha256:" + "a" * 64), 2020)
    assert pdf.paper_id == "sha256:" + "a" * 64
    rec, year = ledger.resolve_paper("json:1", "p.jsonl", _keys("doi:10.5555/a.1", "10.5555/a.1"), 2019,
                                     year_from_record=True)
    # no common id: the title and first author tie them
    assert (rec.paper_id, rec.via) == ("sha256:" + "a" * 64, "title and first author")
    assert year == 2019
    # the record's DOI is now one of the paper's keys: another copy with only the DOI joins it too
    other, _ = ledger.resolve_paper("json:2", "q.jsonl", _keys("doi:10.5555/a.1", "10.5555/a.1", title="Other"), None)
    assert other.paper_id == "sha256:" + "a" * 64


def test_same_title_and_author_with_conflicting_dois_are_reported_not_merged(ledger: Ledger) -> None:
    ledger.resolve_paper("d1", "conf.pdf", _keys("doi:10.5555/conf.1", "10.5555/conf.1"), 2019)
    res, _ = ledger.resolve_paper("d2", "journal.pdf", _keys("doi:10.5555/jour.2", "10.5555/jour.2"), 2020)
    assert res.paper_id == "doi:10.5555/jour.2" and res.merged_into is None
    assert [other for other, _ in res.conflicts] == ["doi:10.5555/conf.1"]
    [(path, pid, other, why)] = ledger.identity_conflicts()
    assert (path, pid, other) == ("journal.pdf", "doi:10.5555/jour.2", "doi:10.5555/conf.1")
    assert "differs" in why


def test_ids_naming_two_stored_papers_are_reported(ledger: Ledger) -> None:
    ledger.resolve_paper("d1", "a.pdf", _keys("doi:10.5555/a.1", "10.5555/a.1", title="Paper One About Soils"), None)
    ledger.resolve_paper("d2", "b.pdf", _keys("arxiv:2101.01234", None, "2101.01234", title="Paper Two On Soils"),
                         None)
    res, _ = ledger.resolve_paper("d3", "c.jsonl", _keys("doi:10.5555/a.1", "10.5555/a.1", "2101.01234"), None)
    assert res.paper_id == "doi:10.5555/a.1"
    assert [other for other, _ in res.conflicts] == ["arxiv:2101.01234"]


def test_a_stored_paper_with_another_arxiv_id_is_not_joined_by_doi(ledger: Ledger) -> None:
    ledger.resolve_paper("d1", "a.jsonl", _keys("doi:10.5555/a.1", "10.5555/a.1", "2101.01234"), None)
    res, _ = ledger.resolve_paper("d2", "b.pdf", _keys("doi:10.5555/a.1", "10.5555/a.1", "2202.04321"), None)
    # the same DOI is the same paper id whatever happens; the arXiv disagreement is reported
    assert res.paper_id == "doi:10.5555/a.1" and [o for o, _ in res.conflicts] == ["doi:10.5555/a.1"]
