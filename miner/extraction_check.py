"""`motivgraph llm check --extraction`: the configured extractor on the shipped research text
(miner/check_paper.py) — triples valid, quotes located, the expected sentences it quoted, time per paper,
and what the ingest gate would decide on that rate."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from motivgraph.choices import NODE_TYPES
from motivgraph.miner.check_paper import EXPECTED, check_paper
from motivgraph.miner.evidence import PaperText, QuoteTally, triple_evidence
from motivgraph.miner.gate import ExtractionGate

if TYPE_CHECKING:
    from motivgraph.miner.extract import LLMExtractor
    from motivgraph.miner.heuristic import HeuristicExtractor
    from motivgraph.settings import MinerSettings


@dataclass
class ExtractionCheck:
    extractor: str
    model: str | None
    triples_valid: int
    triples_rejected: int
    quotes: int
    quotes_located: int
    expected_quoted: dict[str, int]  # per element: expected sentences quoted (and located)
    expected_total: dict[str, int]
    seconds: float
    gate_passes: bool
    gate_threshold: float
    reason: str | None = None
    unlocated: list[str] = field(default_factory=list)  # "element: quote — why", for the reader

    @property
    def rate(self) -> float | None:
        return self.quotes_located / self.quotes if self.quotes else None

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "verified_rate": None if self.rate is None else round(self.rate, 4)}


async def run_extraction_check(
    extractor: LLMExtractor | HeuristicExtractor, cfg: MinerSettings, model: str | None = None
) -> ExtractionCheck:
    paper = check_paper()
    t0 = time.perf_counter()
    result = await extractor.extract(paper)
    seconds = time.perf_counter() - t0
    pt = PaperText.of(paper)
    tally = QuoteTally()
    quoted: dict[str, set[str]] = {e: set() for e in NODE_TYPES}
    unlocated: list[str] = []
    norm = {e: {" ".join(s.split()) for s in EXPECTED[e]} for e in NODE_TYPES}
    for t in result.triples:
        ev = triple_evidence(pt, t)
        tally.add(ev)
        for e in NODE_TYPES:
            for q in ev.of(e):
                if q.verified and q.start is not None and q.end is not None:
                    located = " ".join(pt.text[q.start:q.end].split())
                    quoted[e].update(s for s in norm[e] if located in s or s in located)
                else:
                    unlocated.append(f"{e}: {q.text[:120]!r} — {q.reason}")
    gate = ExtractionGate(1, cfg.gate_min_verified_rate, accept=False, model=model)
    gate.record(tally)
    decision = gate.decide()
    return ExtractionCheck(
        extractor=result.extractor, model=model, triples_valid=len(result.triples),
        triples_rejected=len(result.rejected), quotes=tally.given, quotes_located=tally.located,
        expected_quoted={e: len(quoted[e]) for e in NODE_TYPES},
        expected_total={e: len(EXPECTED[e]) for e in NODE_TYPES}, seconds=round(seconds, 3),
        gate_passes=bool(decision and decision.passed), gate_threshold=cfg.gate_min_verified_rate,
        reason=result.reason, unlocated=unlocated[:10],
    )
