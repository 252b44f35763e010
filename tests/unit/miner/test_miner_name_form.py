"""Offline node names are whole noun phrases of their type (SoIQ B.3) or no node at all: no problem cut from a
longer phrase of the title, no challenge ending in a piece of the title, no name ending in a function word or a
verb of the sentence, no problem named after the paper's own method (miner.validation.name_form_violations;
the offline extractor's `_phrase` cuts only at phrase ends)."""

from __future__ import annotations

from motivgraph.miner.heuristic import DIFFICULTY_WORDS, _phrase
from motivgraph.miner.validation import cut_from, name_form_violations, own_method_phrases, verbs_in

TITLE = "Construction of the Literature Graph in Semantic Scholar"
TEXT = ("We describe a deployed scalable system for organizing published scientific literature into a "
        "heterogeneous graph. To extend the graph, we train a model on new capabilities.")


def test_a_name_cut_from_a_longer_phrase_of_the_title_is_a_fragment() -> None:
    assert cut_from("Construction of the literature graph in Semantic", TITLE)
    assert not cut_from("Construction of the literature graph in Semantic Scholar", TITLE)
    assert not cut_from("Construction of the literature graph", TITLE)  # the title goes on with "in": a phrase end
    [why] = name_form_violations("problem", "Construction of the literature graph in Semantic", title=TITLE)
    assert "cut from a longer phrase" in why


def test_a_challenge_ending_in_a_piece_of_the_title_is_a_fragment() -> None:
    out = name_form_violations("challenge", "Lack of scale in literature graph in Semantic", title=TITLE)
    assert any("piece of a longer phrase" in v for v in out)
    assert not name_form_violations("challenge", "Lack of labelled data in graph construction", title=TITLE,
                                    text=TEXT)


def test_a_name_ending_in_a_function_word_or_a_verb_of_the_text_is_a_fragment() -> None:
    assert "extend" in verbs_in(TEXT) and "graph" not in verbs_in(TEXT)
    [why] = name_form_violations("solution", "Method based on capabilities and extend", text=TEXT)
    assert "verb 'extend'" in why
    [why] = name_form_violations("solution", "Graph construction method based on", text=TEXT)
    assert "ends in 'on'" in why


def test_a_problem_named_after_the_papers_own_method_is_refused() -> None:
    text = "We present graph attention networks (GATs), novel neural network architectures for graph data."
    assert own_method_phrases(text)[0][:3] == ["graph", "attention", "networks"]
    [why] = name_form_violations("problem", "Graph attention networks", title="Graph Attention Networks", text=text)
    assert "own method" in why
    assert not name_form_violations("problem", "Node classification on graphs", text=text)


def test_the_offline_extractor_cuts_names_only_where_a_phrase_ends() -> None:
    cut = _phrase("Construction of the Literature Graph in Semantic Scholar", 7)
    assert cut == "Construction of the Literature Graph"
    assert _phrase("Short task name", 7) == "Short task name"
    assert _phrase("Scalable incremental distributed approximate nearest neighbour search engines", 5) == ""
    # content words the keyphrase ranker skips ("paper", "number") are not phrase ends: nothing is cut off
    assert _phrase("Citation counts per paper", 7) == "Citation counts per paper"
    assert _phrase("Generated store fault paper number 0", 4) == ""


def test_difficulty_words_are_general_not_fitted_to_one_papers_topic() -> None:
    assert not DIFFICULTY_WORDS.search("privacy") and not DIFFICULTY_WORDS.search("spam pages")
    for phrase in ("privacy leakage", "adversarial attacks", "label noise", "misclassification of rare classes"):
        assert DIFFICULTY_WORDS.search(phrase), phrase
