"""The offline extractor on real papers from ../shared/corpus/pdf (parsed with the offline parser)."""

from __future__ import annotations

from pathlib import Path

import pytest

from motivgraph.miner.heuristic import HeuristicExtractor, candidate_phrases
from motivgraph.miner.text import select_input
from motivgraph.miner.validation import validate
from motivgraph.settings import MinerSettings

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "pdf"
# A spread of fields and layouts: NLP, vision, databases, web, theory-heavy ML.
SAMPLE = ["sp_fader11.pdf", "sp_seung08.pdf", "sp_pedersen04.pdf", "sp_bagnell11.pdf", "sp_P14-1059.pdf",
          "sp_roark13.pdf"]

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus PDFs not found at {CORPUS}")


@pytest.fixture(scope="module")
def papers():  # type: ignore[no-untyped-def]
    from motivgraph.ingest.pdf import parse_pdf

    return {name: parse_pdf(CORPUS / name) for name in SAMPLE if (CORPUS / name).exists()}


def test_candidate_phrases_are_noun_phrase_like() -> None:
    got = candidate_phrases("However, the computational expense of inference in probabilistic models is high.")
    assert "computational expense" in got or "computational expense of inference" in got
    assert all(not p.lower().startswith(("the ", "however")) for p in got)


def test_offline_extractor_on_real_papers(papers, embedder) -> None:  # type: ignore[no-untyped-def]
    cfg = MinerSettings()
    ex = HeuristicExtractor(embedder, cfg)
    with_triples = 0
    for name, paper in papers.items():
        res = ex.extract_sync(paper)
        assert res.extractor == "heuristic"
        if not res.triples:
            assert res.reason, f"{name}: zero triples must come with a reason"
            continue
        with_triples += 1
        assert len(res.triples) <= cfg.heuristic_max_triples
        # what is kept passes the same rules as LLM output
        text = select_input(paper, cfg).full_text()
        assert validate(res.triples, cfg, title=paper.title, text=text, embedder=embedder) == [[] for _ in res.triples]
        for t in res.triples:
            assert t.problem.name and t.challenge.description and t.solution.description
    assert with_triples >= len(papers) * 2 // 3, f"only {with_triples}/{len(papers)} papers gave triples"


def test_known_paper_gets_its_task_as_problem(papers, embedder) -> None:  # type: ignore[no-untyped-def]
    if "sp_fader11.pdf" not in papers:
        pytest.skip("sp_fader11.pdf not in the corpus")
    res = HeuristicExtractor(embedder, MinerSettings()).extract_sync(papers["sp_fader11.pdf"])
    assert res.triples and res.triples[0].problem.name.lower() == "open information extraction"
    # the system's own name (REVERB) never appears in a solution name
    assert all("reverb" not in t.solution.name.lower() for t in res.triples)


def test_non_research_text_yields_no_triples(embedder) -> None:  # type: ignore[no-untyped-def]
    from motivgraph.ingest.models import Paper, Section

    notice = Paper(paper_id="n", title="Retraction", abstract="",
                   sections=[Section(heading="", role="introduction",
                                     text="This article has been retracted at the request of the editors. " * 20)])
    res = HeuristicExtractor(embedder, MinerSettings()).extract_sync(notice)
    assert res.triples == [] and "not a research paper" in (res.reason or "")
