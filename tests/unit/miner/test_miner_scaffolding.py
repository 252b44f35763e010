"""Captions and roadmap sentences never become problem/challenge/solution statements (issue #30 item 6):
the rules read the sentence's structure (exhibit labels, numbered-section references, organisation
phrases). All sentences are written for the test."""

from __future__ import annotations

import pytest

from motivgraph.miner.heuristic import HeuristicExtractor
from motivgraph.miner.scaffolding import is_caption, is_roadmap, is_scaffolding, strip_pointers
from motivgraph.settings import MinerSettings
from tests.miner_support import make_paper

CAPTIONS = [
    "Figure 3: Examples of how existing samplers fail to scale to dense graphs.",
    "Fig. 1 Overview of the proposed pipeline, which overcomes the memory bottleneck.",
    "Table 2. Error rates of the baselines, which suffer from label noise.",
    "Figure 4 shows that the cost of training remains prohibitive for long videos.",
    "Tables 1 and 2 list the limitations of prior detectors.",
    "We sample patches and for each patch compute Figure 2: Diagram of the proposed detector.",
]
ROADMAPS = [
    "The rest of this paper is organised as follows.",
    "The remainder of the paper describes how we overcome the lack of labels.",
    "In Section 8 we describe several examples of how the store is used in production.",
    "Examples of how the index is deployed are given in Section 6, and lessons in Section 7.",
    "Sections 3 and 4 present the challenging cases and our solution to them.",
    "This article is structured as follows: background, method, experiments.",
    "Finally, we conclude the paper with open problems in streaming inference.",
    "We introduce the notation in Sec. 2.1 and propose our algorithm in §3.",
]
CONTENT = [
    "However, existing samplers fail to scale to graphs with billions of edges.",
    "We propose a streaming sampler that bounds memory (see Section 3) and keeps accuracy.",
    "Training on long videos remains prohibitively expensive (Figure 2).",
    "The table of contents of a manuscript is rarely parsed by extraction tools.",
    "We propose a method that sections images into regions and figures out their labels.",
    "However, as discussed in Section 2, existing samplers fail to scale to dense graphs.",
]


@pytest.mark.parametrize("sentence", CAPTIONS)
def test_captions_are_scaffolding(sentence: str) -> None:
    assert is_caption(sentence) and is_scaffolding(sentence)


@pytest.mark.parametrize("sentence", ROADMAPS)
def test_roadmap_sentences_are_scaffolding(sentence: str) -> None:
    assert is_roadmap(sentence) and is_scaffolding(sentence)


@pytest.mark.parametrize("sentence", CONTENT)
def test_research_sentences_with_pointers_are_kept(sentence: str) -> None:
    assert not is_scaffolding(sentence)


def test_a_pointer_is_stripped_from_the_sentence_it_annotates() -> None:
    assert strip_pointers("We propose a sampler (see Section 3) that bounds memory (Fig. 2).") == (
        "We propose a sampler that bounds memory."
    )
    assert strip_pointers("However, as discussed in Section 2, samplers fail to scale, as shown in Fig. 3.") == (
        "However, samplers fail to scale."
    )


TITLE = "Memory-Bounded Sampling for Graph Neural Network Training"
ABSTRACT = (
    "Training graph neural networks on large graphs requires sampling neighbourhoods of nodes. "
    "Existing neighbourhood samplers fail to scale because their memory grows with node degree. "
    "We propose a streaming reservoir sampler that bounds memory per node independently of the degree."
)
INTRO_WITH_SCAFFOLDING = "\n\n".join(
    [
        "Graph neural networks learn node representations by aggregating messages from neighbouring nodes, "
        "and sampling keeps the cost of each training step bounded on large graphs.",
        "However, neighbourhood sampling suffers from memory blow-up on dense graphs with hub nodes.",
        "Figure 1: Examples of how existing samplers fail to scale and suffer from memory blow-up on hub nodes.",
        "We propose a streaming reservoir sampler that keeps a fixed-size sample per node.",
        "Table 2. Limitations of prior samplers that remain challenging: cost, memory and bias.",
        "In Section 5 we describe several examples of how the sampler is used in production systems.",
        "The rest of this paper is organised as follows, and in Section 6 we discuss the remaining "
        "challenges of distributed training.",
    ]
)


def test_the_offline_extractor_takes_no_caption_or_roadmap_sentence(embedder) -> None:  # type: ignore[no-untyped-def]
    paper = make_paper("g1", title=TITLE, abstract=ABSTRACT, intro=INTRO_WITH_SCAFFOLDING, method="")
    res = HeuristicExtractor(embedder, MinerSettings(heuristic_max_triples=4)).extract_sync(paper)
    nodes = [
        getattr(t, kind)
        for t in [*res.triples, *(r.triple for r in res.rejected)]
        for kind in ("problem", "challenge", "solution")
    ]
    assert nodes, res.reason
    for n in nodes:
        assert "Section" not in n.name and "Section" not in n.description, n
        assert not any(w in n.description for w in ("Figure 1", "Table 2", "Examples of how")), n
    # the research statements themselves are still found
    assert any("memory blow-up" in t.challenge.description for t in res.triples)
    assert any("reservoir sampler" in t.solution.description for t in res.triples)
