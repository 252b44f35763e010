"""The evidence verifier (miner/evidence.py): what PDFs do to text is tolerated, what a model makes up
is not, and every bad input has its defined outcome (#39)."""

from __future__ import annotations

import pytest

from motivgraph.ingest.models import Paper, Section
from motivgraph.limits import MAX_QUOTE_CHARS
from motivgraph.miner.evidence import (
    COVERAGE_THRESHOLD,
    MIN_QUOTE_WORDS,
    PaperText,
    QuoteTally,
    triple_evidence,
    verify_quote,
)
from motivgraph.miner.schemas import ExtractedTriple

CHALLENGE = ("However, the performance of graph neural networks degrades sharply when node labels are noisy, "
             "because message passing propagates label errors to neighbouring nodes.")
SOLUTION = ("In this paper we propose a robust training scheme that re-weights edges by the estimated "
            "agreement of the labels at their two ends.")
INTRO = (
    "Graph neural networks have become the standard tool for learning on relational data such as citation "
    f"networks and molecules. {CHALLENGE[:60]}"  # the challenge sentence runs across a page break ...
    "\n\nJournal of Graph Learning 12 (2024) 1-20\n\n"  # ... with a running head between its halves
    f"{CHALLENGE[60:]} {SOLUTION} Our experiments on five benchmarks show consistent gains."
)
METHOD = (f"We now detail the scheme. {SOLUTION} The weights are updated after every epoch from the current "
          "predictions of the network.")


def paper(**kw: object) -> Paper:
    base: dict[str, object] = dict(
        paper_id="p", title="Robust graph learning under label noise by edge re-weighting",
        abstract="Label noise harms graph neural networks. We re-weight edges to stop errors from spreading.",
        title_page=1, abstract_pages=[(0, 1)],
        sections=[Section(heading="Introduction", number="1", text=INTRO, role="introduction",
                          pages=[(0, 1), (INTRO.index("Journal of"), 2)]),
                  Section(heading="Method", number="2", text=METHOD, role="method", pages=[(0, 3)])],
    )
    base.update(kw)
    return Paper(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def pt() -> PaperText:
    return PaperText.of(paper())


def located(pt: PaperText, q: str, role: str | None = "introduction"):  # type: ignore[no-untyped-def]
    r = verify_quote(pt, q, role)
    assert r.verified, (q, r.reason)
    assert r.reason is None and r.start is not None and r.end is not None
    return r


def test_exact_quote_is_located_with_section_page_and_offsets(pt: PaperText) -> None:
    q = "Graph neural networks have become the standard tool for learning on relational data"
    r = located(pt, q)
    assert (r.section, r.page) == ("Introduction", 1)
    assert pt.text[r.start:r.end] == q


@pytest.mark.parametrize("damaged", [
    "Graph neural net- works have become the standard tool for learning on re-\nlational data",  # line-end hyphens
    "Graph neural networks have become the standard tool for learning on relational data",
    "\u201cGraph neural networks have become the standard tool\u201d for learning on relational data",  # curly
    "GRAPH  NEURAL\tNETWORKS have become the standard tool for learning on relational data",  # case, spaces
])
def test_pdf_damage_to_the_quote_is_tolerated(pt: PaperText, damaged: str) -> None:
    located(pt, damaged)


def test_ligatures_and_dashes_in_the_paper_are_tolerated() -> None:
    p = paper(sections=[Section(heading="Introduction", text="We de\ufb01ne an e\ufb03cient \ufb02ow\u2014based "
                                "method for dense retrieval over very large corpora.", role="introduction")])
    r = located(PaperText.of(p), "We define an efficient flow-based method for dense retrieval")
    assert p.full_text()[r.start:r.end].startswith("We de\ufb01ne")


def test_a_sentence_across_a_page_break_is_located_on_its_first_page(pt: PaperText) -> None:
    r = located(pt, CHALLENGE)
    assert r.page == 1
    assert r.end is not None and r.start is not None and r.end - r.start > len(CHALLENGE)  # spans the running head


def test_paraphrase_invention_and_other_papers_sentence_are_rejected(pt: PaperText) -> None:
    paraphrase = ("Nevertheless, graph neural network accuracy falls steeply whenever node annotations contain "
                  "noise, since neighbourhood aggregation spreads wrong labels to adjacent vertices.")
    invented = "Our method is the first to guarantee robustness to arbitrary label noise on any graph."
    other = "Transformers trained on web-scale corpora acquire surprising few-shot abilities in translation."
    for q in (paraphrase, invented, other):
        r = verify_quote(pt, q, "introduction")
        assert not r.verified and r.start is None and r.reason, q


def test_reordered_clauses_are_a_paraphrase(pt: PaperText) -> None:
    reordered = ("Because message passing propagates label errors to neighbouring nodes, the performance of "
                 "graph neural networks degrades sharply when node labels are noisy.")
    assert not verify_quote(pt, reordered).verified


def test_quote_occurring_twice_prefers_the_named_section_else_the_first(pt: PaperText) -> None:
    in_intro = located(pt, SOLUTION, "introduction")
    in_method = located(pt, SOLUTION, "method")
    assert (in_intro.section, in_method.section) == ("Introduction", "Method")
    assert in_method.page == 3
    assert located(pt, SOLUTION, None).start == in_intro.start  # no section named: the first occurrence
    assert located(pt, SOLUTION, "abstract").start == in_intro.start  # named section lacks it: the first


def test_three_word_quote_is_too_short_to_locate(pt: PaperText) -> None:
    r = verify_quote(pt, "graph neural networks")
    assert not r.verified and r.reason is not None and "too short" in r.reason
    assert MIN_QUOTE_WORDS > 3


def test_quote_longer_than_its_section_runs_on_and_names_the_first_section(pt: PaperText) -> None:
    tail = "Our experiments on five benchmarks show consistent gains. 2 Method We now detail the scheme."
    r = located(pt, tail)
    assert r.section == "Introduction"


def test_quote_longer_than_a_quote_is_unverified_and_cut() -> None:
    long = "word " * (MAX_QUOTE_CHARS // 4)
    r = verify_quote(PaperText.of(paper()), long)
    assert not r.verified and r.reason is not None and "longer than a quote" in r.reason
    assert len(r.text) <= MAX_QUOTE_CHARS


def test_paper_without_text_verifies_nothing() -> None:
    empty = Paper(paper_id="e")
    r = verify_quote(PaperText.of(empty), CHALLENGE)
    assert not r.verified and r.reason == "the paper has no text to check against"


def test_abstract_only_record_locates_in_the_abstract_with_no_page() -> None:
    rec = Paper(paper_id="j", title="T", abstract="Label noise harms graph neural networks in many applications.")
    r = located(PaperText.of(rec), "Label noise harms graph neural networks in many applications", None)
    assert (r.section, r.page) == ("abstract", None)


def test_markup_is_stripped_and_a_translation_is_not_a_quote(pt: PaperText) -> None:
    located(pt, "<em>Graph neural networks</em> have become the \\textbf{standard tool} for learning")
    zh = "然而，当节点标签有噪声时，图神经网络的性能会急剧下降。"
    r = verify_quote(pt, zh)
    assert not r.verified and r.reason is not None and "another script" in r.reason


def test_triple_evidence_and_the_tally(pt: PaperText) -> None:
    t = ExtractedTriple(
        problem={"name": "Graph learning", "description": "d",
                 "quotes": ["Graph neural networks have become the standard tool for learning on relational data"]},
        challenge={"name": "Label noise", "description": "d", "quotes": [CHALLENGE, CHALLENGE]},  # a repeat counts once
        solution={"name": "Edge re-weighting", "description": "d",
                  "quotes": ["We propose an entirely new paradigm that nobody has seen before in graphs."]},
        section="introduction",
    )
    ev = triple_evidence(pt, t)
    assert ev.verified("problem") and ev.verified("challenge") and not ev.verified("solution")
    assert len(ev.challenge) == 1 and not ev.fully_verified
    tally = QuoteTally()
    tally.add(ev)
    assert (tally.located, tally.given) == (2, 3)
    empty = QuoteTally()
    empty.add(triple_evidence(pt, ExtractedTriple(problem={"name": "a", "description": "b"},
                                                  challenge={"name": "a", "description": "b"},
                                                  solution={"name": "a", "description": "b"})))
    assert (empty.located, empty.given) == (0, 3)  # an element without a quote counts as one not located


def test_threshold_is_a_share() -> None:
    assert 0.5 < COVERAGE_THRESHOLD < 1
