"""Input selection/trimming and the checkable B.3 naming rules."""

from __future__ import annotations

from motivgraph.ingest.models import Paper, Section
from motivgraph.miner.schemas import ExtractedTriple
from motivgraph.miner.text import estimate_tokens, select_input
from motivgraph.miner.validation import check_triple, coined_terms, validate
from motivgraph.settings import MinerSettings
from tests.miner_support import COINED_TRIPLE, GOOD_TRIPLE, INTRO, make_paper


def test_select_input_uses_title_abstract_intro_and_method_when_intro_is_thin() -> None:
    cfg = MinerSettings()
    inp = select_input(make_paper(), cfg)
    assert inp.unusable_reason is None
    # The synthetic introduction is ~190 words, below thin_intro_words=250: the method is added.
    assert inp.sections_used == ["abstract", "introduction", "method"]
    assert "FooNet trains a single encoder" in inp.render()
    rich = MinerSettings(thin_intro_words=50)
    assert "method" not in select_input(make_paper(), rich).sections_used


def test_long_introduction_is_trimmed_by_rule_keeping_first_and_cue_paragraphs() -> None:
    filler = [f"Paragraph {i} describes background facts about corpora and tokenisers in detail. " * 6
              for i in range(40)]
    intro = "\n\n".join([filler[0], *filler[1:20], "However, the main difficulty remains costly annotation.",
                         *filler[20:], "In this paper we propose a cheaper annotation scheme."])
    paper = make_paper(intro=intro, method="")
    cfg = MinerSettings(input_token_budget=800)
    a, b = select_input(paper, cfg), select_input(paper, cfg)
    assert a.render() == b.render()  # deterministic
    assert a.trimmed
    assert a.tokens <= 800 + 50
    text = a.introduction
    assert text.startswith("Paragraph 0")  # the opening states the task
    assert "main difficulty remains costly annotation" in text  # challenge cue kept
    assert "we propose a cheaper annotation scheme" in text  # contribution cue kept
    assert estimate_tokens(text) < estimate_tokens(intro)


def test_too_short_and_non_research_text_yield_reasons() -> None:
    cfg = MinerSettings()
    short = Paper(paper_id="s", title="Note", abstract="Tiny.", sections=[])
    assert "too short" in (select_input(short, cfg).unusable_reason or "")
    withdrawn = make_paper(intro="This article has been withdrawn at the request of the authors. " * 30)
    assert "not a research paper" in (select_input(withdrawn, cfg).unusable_reason or "")


def test_a_document_the_parser_judged_not_a_paper_yields_its_reason_whatever_its_text() -> None:
    cfg = MinerSettings()
    why = "not a research paper: no title block, no abstract and no Introduction on its first page (...)"
    page = make_paper().model_copy(update={"not_a_paper": why})  # plenty of text, but a page from inside a paper
    inp = select_input(page, cfg)
    assert inp.unusable_reason == why and inp.render().count("INTRODUCTION") == 0


def test_untitled_first_section_stands_in_for_missing_introduction() -> None:
    paper = Paper(paper_id="x", title="T", abstract="A " * 20,
                  sections=[Section(heading="", text=INTRO, role="other")])
    inp = select_input(paper, MinerSettings())
    assert "introduction" in inp.sections_used


def test_coined_terms_found_in_title_and_naming_sentences() -> None:
    text = "In this paper we propose FooNet, a method. We call the variant BarGraph-2 in our experiments."
    found = coined_terms("FooNet: Transfer Learning", text)
    assert {"foonet", "bargraph-2"} <= found
    assert "cnn" not in coined_terms("", "We use a CNN (CNN) encoder as in prior work that we propose to extend.")


def test_check_triple_flags_each_rule() -> None:
    cfg = MinerSettings()
    good = ExtractedTriple(**GOOD_TRIPLE)
    assert check_triple(good, cfg, {"foonet"}, 0.6) == []
    bad = check_triple(ExtractedTriple(**COINED_TRIPLE), cfg, {"foonet"}, 0.6)
    assert any("coined term 'foonet'" in v for v in bad)

    t = ExtractedTriple(**{
        **GOOD_TRIPLE,
        "problem": {"name": "Translation", "description": "Translation is difficult because data is scarce."},
        "challenge": {"name": "Data scarcity", "description": ""},
        "solution": {"name": "Transfer", "description": "Share parameters across languages."},
    })
    v = " | ".join(check_triple(t, cfg, set(), 0.05))
    assert "solution name 'Transfer' has 1 words" in v
    assert "challenge description is empty" in v
    assert "problem description mentions a difficulty" in v
    assert "'[difficulty] in [context]' shape" in v
    assert "does not appear to belong to problem" in v


def test_word_count_tolerance_is_a_setting() -> None:
    t = ExtractedTriple(**{**GOOD_TRIPLE, "problem": {"name": "Translation", "description": "Converting text."}})
    assert any("problem name" in v for v in check_triple(t, MinerSettings(name_word_tolerance=0)))
    assert not any("problem name" in v for v in check_triple(t, MinerSettings(name_word_tolerance=2)))


def test_validate_uses_embeddings_for_challenge_problem_relatedness(embedder) -> None:  # type: ignore[no-untyped-def]
    unrelated = ExtractedTriple(**{
        **GOOD_TRIPLE,
        "challenge": {"name": "Soil erosion in alpine pastures during storms",
                      "description": "Heavy rain washes topsoil from steep grazing land in mountain regions."},
    })
    res = validate([ExtractedTriple(**GOOD_TRIPLE), unrelated], MinerSettings(challenge_problem_min_similarity=0.2),
                   embedder=embedder)
    assert res[0] == []
    assert any("does not appear to belong" in v for v in res[1])
