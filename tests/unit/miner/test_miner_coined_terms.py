"""Only the paper's OWN coined names are coined terms (issue #30 item 6): decided by evidence in the
paper's text, so cited baselines, datasets and prior models keep their names in the offline
extractor's descriptions and never trip the naming rule. All sentences here are written for the test."""

from __future__ import annotations

from motivgraph.miner.heuristic import HeuristicExtractor
from motivgraph.miner.validation import coined_terms


def test_the_object_of_the_authors_contribution_verb_is_theirs_a_cited_baseline_is_not() -> None:
    text = (
        "Unlike GraphSAGE [4] and other samplers, we propose FlowMixer, a model that mixes neighbour "
        "messages. Our model is trained only on WebGraph-2 and compared with the NodeRank baseline."
    )
    assert coined_terms("Scalable Message Passing on Large Graphs", text) == {"flowmixer"}


def test_datasets_and_systems_named_outside_the_contribution_stay_general() -> None:
    text = (
        "Our parser is trained only on WebTreebank (Smith, 2009) and evaluated against StanfordCore. "
        "We present a shift-reduce parser using BiLSTM-CRFs that outperforms TagMaster on NewsCorp-2."
    )
    assert coined_terms("Fast Parsing of Noisy User Text", text) == set()


def test_naming_verbs_count_only_for_the_authors_own_work() -> None:
    text = (
        "We propose a link analysis method (named SeedRank) which outperforms a baseline called OldRank. "
        "Earlier systems, such as a crawler called SpiderBot, ignore link farms."
    )
    assert coined_terms("Finding Spam Pages", text) == {"seedrank"}
    own = "Our approach is implemented in a system called LinkSieve, compared with a crawler called WebHound."
    assert coined_terms("Finding Spam Pages", own) == {"linksieve"}
    apposed = "We introduce a learning semantic parser, MeaningMap, that maps questions to queries."
    assert coined_terms("Parsing Questions", apposed) == {"meaningmap"}
    assert coined_terms("Finding Spam Pages", "We call this variant QuickSeed-2 in what follows.") == {"quickseed-2"}


def test_the_title_names_the_own_method_before_a_colon_or_after_with() -> None:
    assert "spamguard" in coined_terms("Combating Link Farms with SpamGuard", "Link farms distort ranking.")
    assert "deepsieve" in coined_terms("DeepSieve: Filtering Noisy Labels", "Labels are noisy.")
    # a cited name stays cited even in a contribution sentence
    assert coined_terms("Filtering Noisy Labels", "We extend CleanNet [7] to streams.") == set()


def test_an_abbreviation_the_text_defines_as_a_general_term_is_not_coined() -> None:
    text = (
        "Semantic role labelling (SRL) assigns roles to the arguments of a predicate. "
        "We introduce an SRL system that needs no syntax. "
        "The main contributions are: • Introduce RoleFree, a tagger without parse trees."
    )
    assert coined_terms("Role Labelling without Syntax", text) == {"rolefree"}


def test_descriptions_replace_only_the_own_name_and_keep_the_grammar() -> None:
    coined = coined_terms("Scalable Message Passing", "In this paper we introduce FlowMixer, a sampler.")
    text = (
        "We compare FlowMixer with GraphSAGE. The FlowMixer model is trained only on WebGraph-2, "
        "a fully implemented FlowMixer system. FlowMixer's memory stays flat."
    )
    assert HeuristicExtractor._decoin(text, coined) == (
        "We compare the proposed method with GraphSAGE. The proposed model is trained only on WebGraph-2, "
        "a fully implemented proposed system. The proposed method's memory stays flat."
    )
    assert HeuristicExtractor._decoin("the Mixing Flow (FlowMixer) approach", coined) == "the Mixing Flow approach"
    # the naming phrase goes with the name: "(named the proposed method)" said nothing
    assert HeuristicExtractor._decoin("We propose a sampler (named FlowMixer) for graphs.", coined) == (
        "We propose a sampler for graphs."
    )
    assert HeuristicExtractor._decoin("We build a sampler, called FlowMixer, that mixes.", coined) == (
        "We build a sampler that mixes."
    )
