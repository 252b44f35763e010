"""The offline parser on the held-out set (#40 "Accuracy measured where nobody tuned"): 41 papers typeset from
invented text in the real publisher classes (bench/heldout/generate.py), scored against the truth known from their
source. The targets hold on the whole set (dev + frozen); no timing is asserted.

Typesetting needs pdflatex and TeX Live's publisher classes (`./scripts/setup.sh --with-tex`); without them the
set test skips with that reason. The set is cached by the digest of its sources (~1 minute to build on 2 cores)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.heldout.generate import DOCS, NoTeX, ensure_set
from bench.heldout.score import FIELDS, TARGETS, run, score
from motivgraph.ingest.models import Paper, Reference, Section


@pytest.fixture(scope="module")
def heldout() -> Path:
    try:
        return ensure_set()
    except NoTeX as e:
        if os.environ.get("MOTIVGRAPH_REQUIRE_TEX") == "1":  # CI installs TeX (setup.sh --with-tex): it must run
            pytest.fail(f"held-out parser set not typeset with MOTIVGRAPH_REQUIRE_TEX=1: {e}")
        pytest.skip(f"held-out parser set not typeset: {e}")


def test_the_parser_meets_the_targets_on_the_held_out_set(heldout: Path) -> None:
    dev, frozen = run(heldout, "dev"), run(heldout, "frozen")
    n = dev.n + frozen.n
    assert (dev.n, frozen.n) == tuple(sum(d.split == s for d in DOCS) for s in ("dev", "frozen"))
    rates = {f: (dev.right[f] + frozen.right[f]) / n for f in FIELDS}
    # only totals are reported: the frozen split's documents are never looked at one by one
    shown = {f: f"{dev.right[f]}+{frozen.right[f]}/{n}" for f in FIELDS}
    for field, target in TARGETS.items():
        assert rates[field] >= target, f"{field}: {shown[field]} right, target {target:.0%} ({shown})"
    assert rates["not_a_paper"] == 1.0, f"real papers judged 'not a paper': {shown['not_a_paper']} right"


def test_the_set_holds_every_document_with_its_truth(heldout: Path) -> None:
    manifest = json.loads((heldout / "MANIFEST.json").read_text())
    assert sorted(manifest["frozen"] + manifest["dev"]) == sorted(d.name for d in DOCS)
    for doc in DOCS:
        truth = json.loads((heldout / doc.split / f"{doc.name}.json").read_text(encoding="utf-8"))
        assert (heldout / doc.split / f"{doc.name}.pdf").read_bytes()[:5] == b"%PDF-"
        assert truth["split"] == doc.split and truth["references"] == doc.refs
        assert len(truth["authors"]) == doc.n_authors


TRUTH: dict[str, object] = {
    "title": "Carbon Burial in Brackish Marshes", "authors": ["Ines Araujo"], "first_heading": "Introduction",
    "first_heading_number": "1", "first_words": "Coastal wetlands store carbon",
    "abstract_first_words": "We combine sediment cores", "abstract_last_words": "the most carbon per area.",
    "references": 10, "doi": None,
}


def _paper(abstract: str, refs: int = 10, not_a_paper: str | None = None) -> Paper:
    return Paper(paper_id="x", title="Carbon Burial in Brackish Marshes", authors=["Ines Araujo"], abstract=abstract,
                 sections=[Section(heading="Introduction", number="1", text="Coastal wetlands store carbon ...")],
                 references=[Reference(raw=f"entry {k}") for k in range(refs)], not_a_paper=not_a_paper)


def test_the_score_checks_both_ends_of_the_abstract_and_the_reference_count() -> None:
    """The scorer itself: an abstract with the author block's e-mail glued on, or cut short, is a wrong boundary."""
    right = score(_paper("We combine sediment cores ... the most carbon per area."), TRUTH)
    assert all(right[f] for f in ("title", "abstract", "first_section", "references", "authors"))
    assert not right["not_a_paper"]
    assert not score(_paper("a@b.org We combine sediment cores ... the most carbon per area."), TRUTH)["abstract"]
    assert not score(_paper("We combine sediment cores ... the most"), TRUTH)["abstract"]
    assert score(_paper("We combine sediment cores ... the most carbon per area.", refs=11), TRUTH)["references"]
    assert not score(_paper("We combine sediment cores ... the most carbon per area.", refs=12), TRUTH)["references"]
    assert score(_paper("", not_a_paper="not a research paper: ..."), TRUTH)["not_a_paper"]
    assert not any(score(None, TRUTH).values())
