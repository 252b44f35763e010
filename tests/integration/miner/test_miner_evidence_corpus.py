"""The evidence verifier on real papers (#39): the offline extractor's quotes, and the planted set
(tests/evidence_planted.py) built at test time from a sample of the shared corpus (every third PDF of
corpus/pdf and corpus/journals, offline parser). Rates, never times. The full-corpus figures and every miss
are in bench/bench_evidence.py; these are in-sample (the verifier was written looking at this corpus)."""

from __future__ import annotations

import asyncio
from collections import defaultdict

import pytest

from motivgraph.ingest.models import Paper
from motivgraph.miner.evidence import COVERAGE_THRESHOLD, PaperText, QuoteTally, _Stream, triple_evidence, verify_quote
from motivgraph.miner.heuristic import HeuristicExtractor
from motivgraph.settings import MinerSettings
from tests.conftest import CORPUS_DIR
from tests.evidence_planted import planted_set

FOLDERS = ("pdf", "journals")
pytestmark = pytest.mark.skipif(not (CORPUS_DIR / "pdf").is_dir(), reason=f"no shared corpus at {CORPUS_DIR}")


@pytest.fixture(scope="module")
def papers() -> list[Paper]:
    from motivgraph.ingest.pdf import parse_pdf

    out = []
    for folder in FOLDERS:
        for path in sorted((CORPUS_DIR / folder).glob("*.pdf"))[::3]:
            try:
                out.append(parse_pdf(path))
            except Exception:
                continue
    assert len(out) >= 8
    return out


def test_offline_extractor_quotes_are_located(papers: list[Paper], embedder) -> None:  # type: ignore[no-untyped-def]
    ext = HeuristicExtractor(embedder, MinerSettings())
    tally = QuoteTally()
    misses = []
    for paper in papers:
        res = asyncio.run(ext.extract(paper))
        pt = PaperText.of(paper)
        for t in res.triples:
            ev = triple_evidence(pt, t)
            tally.add(ev)
            misses += [(paper.paper_id, q.text, q.reason) for e in ("problem", "challenge", "solution")
                       for q in ev.of(e) if not q.verified]  # type: ignore[arg-type]
    assert tally.given >= 30
    assert tally.rate is not None and tally.rate >= 0.99, misses


def test_planted_set_separates_pdf_damage_from_inventions(papers: list[Paper]) -> None:
    planted = planted_set(papers)
    ok: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    prepared: dict[int, PaperText] = {}
    for p in planted:
        pt = prepared.get(id(p.paper)) or prepared.setdefault(id(p.paper), PaperText.of(p.paper))
        if p.kind == "other paper" and _Stream.of(p.quote).norm in pt.stream.norm:
            continue  # the same sentence is in this paper too: not a negative
        q = verify_quote(pt, p.quote)
        ok[p.kind][0] += int(q.verified == p.positive)
        ok[p.kind][1] += 1
    positives = ("hyphen", "ligature", "typography", "page", "citation dropped")
    negatives = ("paraphrase", "invented", "other paper")
    for kind in ("hyphen", "typography", "page", "paraphrase", "invented", "other paper"):
        assert ok[kind][1] >= 10, (kind, ok[kind])  # each kind is really exercised
    pos = sum(ok[k][0] for k in positives) / sum(ok[k][1] for k in positives)
    neg = sum(ok[k][0] for k in negatives) / sum(ok[k][1] for k in negatives)
    assert pos >= 0.99, dict(ok)
    assert neg >= 0.95, dict(ok)
    assert 0.5 < COVERAGE_THRESHOLD < 1


def test_offline_extractor_does_not_quote_a_title_too_short_to_locate(embedder) -> None:  # type: ignore[no-untyped-def]
    from tests.miner_support import make_paper

    ext = HeuristicExtractor(embedder, MinerSettings())
    for title, quoted in (("Low-Resource Neural Machine Translation", False),
                          ("FooNet: Transfer Learning for Low-Resource Translation", True)):
        res = asyncio.run(ext.extract(make_paper(title=title)))
        assert res.triples, res.reason
        assert all((title in t.problem.quotes) == quoted for t in res.triples)
