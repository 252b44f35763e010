"""Text renderings for an LLM: right content, bounded by the token cap, honest about cuts."""

from __future__ import annotations

from motivgraph.agents.tools.render import render
from motivgraph.api.contract.models import (
    LiteraturePaper,
    LiteratureSearchResult,
    NodeBrief,
    NodeRelation,
    NodeRelationResult,
    NodeSearchResult,
    PaperBrief,
    RandomNode,
    RandomNodesResult,
    ScoredNode,
    TransferCandidate,
    TransferResult,
    TripleOut,
    Unresolved,
)
from motivgraph.llm.tokens import count_tokens


def _n(t: str, name: str, desc: str = "", level: int = 0) -> NodeBrief:
    return NodeBrief(key=f"{t}:{name.lower()}", type=t, name=name, description=desc, level=level)


def _hits(k: int) -> NodeSearchResult:
    return NodeSearchResult(query="LLM compression", hits=[
        ScoredNode(**_n("solution", f"Quantization variant {i}", "Compress weights to few bits. " * 8).model_dump(),
                   score=0.9 - i / 1000) for i in range(k)])


def test_node_search_render_and_cap():
    text = render(_hits(3))
    assert "node_search('LLM compression'): 3 nodes" in text
    assert "[solution] Quantization variant 0 (0.90)" in text
    big = render(_hits(100), cap=300)
    assert count_tokens(big) <= 300 + 20
    assert "more nodes cut to fit 300 tokens" in big
    assert render(NodeSearchResult(query="q", hits=[])).startswith("node_search('q'): no nodes found")
    stale = _hits(1)
    stale.index_stale = True
    assert "index is stale" in render(stale)


def test_node_relation_render():
    p, c = _n("problem", "Efficient LLM inference"), _n("challenge", "Memory footprint")
    s = _n("solution", "Quantization")
    rel = NodeRelation(query="Quantization", node=s.model_copy(update={"description": "4-bit weights"}),
                       aliases=["LLM quantization"], challenges=[c], problems=[p],
                       triples=[TripleOut(problem=p, challenge=c, solution=s, papers=["doi:1"])],
                       papers=[PaperBrief(paper_id="doi:1", title="Low-bit LLMs", year=2024)])
    text = render(NodeRelationResult(nodes=[rel], unresolved=[Unresolved(query="foo", suggestions=["Quantization"])]))
    assert "[solution] Quantization: 4-bit weights" in text
    assert "also called: LLM quantization" in text
    assert "triple: Efficient LLM inference → Memory footprint → Quantization" in text
    assert "papers: Low-bit LLMs (2024)" in text
    assert "No node named 'foo'. Did you mean: Quantization?" in text


def test_random_literature_transfer_render():
    r = RandomNodesResult(mode="nodes", seed=4, nodes=[RandomNode(**_n("problem", "Protein folding").model_dump(),
                                                                   similarity=0.05)], note="only 1")
    text = render(r)
    assert "seed 4" in text and "similarity to topic 0.05" in text and "(only 1)" in text
    lit = LiteratureSearchResult(query="q", source="local", papers=[
        LiteraturePaper(title="Ant colonies", authors=["M. Dorigo", "T. Stützle"], year=2004, venue="MIT Press",
                        abstract="Pheromones.")])
    assert "Ant colonies — M. Dorigo et al., 2004, MIT Press. Pheromones." in render(lit)
    assert "from the local corpus" in render(lit)
    none = LiteratureSearchResult(query="q", source="none", papers=[], fallback_reason="offline")
    assert "(offline)" in render(none)
    c = _n("challenge", "WSN routing")
    tr = TransferResult(topic="t", candidates=[TransferCandidate(
        target_challenge=c, topic_similarity=0.8, source_challenge=_n("challenge", "Vehicle paths"),
        source_problems=[_n("problem", "Vehicle routing")], challenge_similarity=0.6,
        solution=_n("solution", "Ant colony optimization"), score=0.48)])
    text = render(tr)
    assert "'WSN routing'" in text and "in Vehicle routing" in text and "'Ant colony optimization'" in text


def test_literature_render_names_the_outbound_source():
    for source, name in (("openalex", "OpenAlex"), ("arxiv", "arXiv"), ("semantic_scholar", "Semantic Scholar")):
        lit = LiteratureSearchResult(query="q", source=source, papers=[LiteraturePaper(title="T", source=source)])
        assert f"1 papers from {name}" in render(lit)


def test_node_relation_render_shows_quotes_within_the_evidence_budget():
    from motivgraph.api.contract.models import QuoteOut

    s = _n("solution", "Quantization")
    quotes = [QuoteOut(text=f"Quote number {i} says that weights fit in four bits on small devices.", verified=i < 3,
                       element="solution", paper_id=f"doi:{i}", title=f"Paper {i}", year=2020 + i,
                       section="Method", page=i + 1, reason=None if i < 3 else "not found in the paper")
              for i in range(6)]
    rel = NodeRelation(query="Quantization", node=s, evidence=quotes)
    full = render(NodeRelationResult(nodes=[rel]), evidence_cap=10_000)
    assert "  quote: “Quote number 0 says that weights fit in four bits on small devices.” — Paper 0 (2020), p. 1, " \
           "Method" in full
    assert full.count("quote: “") == 6 and full.count("[unverified]") == 3
    tight = render(NodeRelationResult(nodes=[rel]), evidence_cap=60)
    assert 1 <= tight.count("quote: “") < 6 and "more quotes cut to fit 60 tokens" in tight
    assert "quote:" not in render(NodeRelationResult(nodes=[rel]), evidence_cap=0)
    only_bad = rel.model_copy(update={"evidence": quotes[3:]})
    assert "treat it as unverified" in render(NodeRelationResult(nodes=[only_bad]))
    none = rel.model_copy(update={"evidence": []})
    assert "no quoted evidence stored" in render(NodeRelationResult(nodes=[none]))
