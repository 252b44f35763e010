"""Paper model: heading roles, section(), stable ids, PaperRecord conversion."""

from __future__ import annotations

import pytest

from motivgraph.ingest.models import Paper, Section, assign_roles, classify_heading, clean_doi, stable_paper_id


@pytest.mark.parametrize(
    ("heading", "role"),
    [
        ("1 Introduction", "introduction"),
        ("I. INTRODUCTION", "introduction"),
        ("2 Related Work", "related_work"),
        ("Background and Related Works", "related_work"),
        ("3.1 Proposed Method", "method"),
        ("Materials and methods", "method"),
        ("5 Experiments", "experiments"),
        ("Results and Discussion", "experiments"),
        ("6 Conclusions and Future Work", "conclusion"),
        ("Discussion", "conclusion"),
        ("Acknowledgements", "other"),
    ],
)
def test_classify_heading(heading: str, role: str) -> None:
    assert classify_heading(heading) == role


def test_subsections_inherit_their_parent_role() -> None:
    secs = assign_roles(
        [
            Section(heading="Introduction", number="1", text="a"),
            Section(heading="Our Framework", number="1.1", text="b"),
            Section(heading="Approach", number="2", text="c"),
            Section(heading="Encoder", number="2.1", text="d"),
            Section(heading="Participants", text="e"),
        ]
    )
    assert [s.role for s in secs] == ["introduction", "introduction", "method", "method", "method"]
    p = Paper(paper_id="x", sections=secs)
    assert p.section("introduction") == "a\n\nb"
    assert p.section("related_work") == ""


def test_stable_ids_and_record() -> None:
    assert stable_paper_id("10.1234/ABC5", None, "f" * 64) == "doi:10.1234/abc5"
    # ids are checked: "10.1/ABC" (a 1-digit registrant, no digit in the suffix) is no DOI
    assert stable_paper_id("10.1/ABC", None, "f" * 64) == "sha256:" + "f" * 64
    assert stable_paper_id(None, "2101.00001", "f" * 64) == "arxiv:2101.00001"
    assert stable_paper_id(None, None, "f" * 64) == "sha256:" + "f" * 64
    with pytest.raises(ValueError):
        stable_paper_id(None, None, None)
    assert clean_doi("https://doi.org/10.1145/3292500.3330919.") == "10.1145/3292500.3330919"
    p = Paper(paper_id="doi:10.1/x", title="T", authors=["A B"], year=2020, sha256="f" * 64, source_path="/a.pdf")
    rec = p.to_record()
    assert (rec.paper_id, rec.title, rec.authors, rec.year, rec.sha256) == ("doi:10.1/x", "T", ["A B"], 2020, "f" * 64)
