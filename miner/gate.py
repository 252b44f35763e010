"""The extraction gate: an ingest stops when its extractor's quotes are not found in the papers.

A weak or misconfigured model builds a graph of inventions (or an empty one) without a word unless
something checks it. The gate counts, per ingest, the quotes the extractor gave and the quotes the
verifier (miner/evidence.py) located. Once `gate_papers` papers with text have been mined it decides
once: a verified-quote rate under `gate_min_verified_rate` stops the ingest (ExtractionGateStop, exit 6)
unless `accept_unverified` is set. The decision, with its figures, stays on the gate for the report.
"""

from __future__ import annotations

from dataclasses import dataclass

from motivgraph.errors import ExtractionGateStop
from motivgraph.miner.evidence import QuoteTally


@dataclass
class GateDecision:
    passed: bool
    rate: float | None
    papers: int
    quotes: int
    located: int
    threshold: float
    accepted: bool = False  # failed, but accept_unverified let the ingest go on

    def summary(self) -> str:
        rate = "no quotes" if self.rate is None else f"{self.rate:.0%} of {self.quotes} quotes located"
        verdict = "passed" if self.passed else ("failed, accepted (--accept-unverified)" if self.accepted else "FAILED")
        return f"{verdict}: {rate} in the first {self.papers} papers (threshold {self.threshold:.0%})"


def gate_message(d: GateDecision, model: str | None) -> str:
    """The stop message: the cause, the figures, and the two ways on."""
    who = f"the extractor model {model}" if model else "the extractor"
    if d.rate is None:
        return (
            f"extraction gate: {who} gave no triple for any of the first {d.papers} papers with text, so nothing "
            "would be stored. Check it with `motivgraph llm check --extraction`; use a stronger extractor model "
            "(MOTIVGRAPH_LLM_MODEL) or the offline extractor (MOTIVGRAPH_MINER_EXTRACTOR=heuristic). The papers "
            "mined so far are recorded; re-run the same command to resume."
        )
    rate = f"had {d.rate:.0%} of its quotes found in the papers"
    return (
        f"extraction gate: {who} {rate} ({d.located} of {d.quotes}, first {d.papers} papers; the gate needs "
        f"{d.threshold:.0%}, MOTIVGRAPH_MINER_GATE_MIN_VERIFIED_RATE). Its triples are not supported by the "
        "papers' text: it writes its own quotes instead of copying the paper. Use a stronger extractor model "
        "(MOTIVGRAPH_LLM_MODEL, see `motivgraph llm check`), or accept unverified triples with "
        "`motivgraph ingest --accept-unverified` (they are stored marked unverified). The papers mined so "
        "far are stored; re-run the same command to resume."
    )


class ExtractionGate:
    """Per-ingest tally and the one decision (see module doc). Not thread-safe: the sink calls it under
    its write lock."""

    def __init__(self, papers: int, threshold: float, accept: bool, model: str | None = None) -> None:
        self.papers_needed = papers
        self.threshold = threshold
        self.accept = accept
        self.model = model
        self.tally = QuoteTally()
        self.papers = 0
        self.decision: GateDecision | None = None

    def record(self, tally: QuoteTally) -> None:
        """One mined paper with text: its quotes (a paper without triples counts as a paper, no quotes)."""
        if self.decision is not None:
            return
        self.papers += 1
        self.tally.given += tally.given
        self.tally.located += tally.located
        if self.papers >= self.papers_needed:
            self.decide()

    def decide(self) -> GateDecision | None:
        """Decide on what was mined so far (at the N-th paper, or at the end of a shorter ingest)."""
        if self.decision is None and self.papers:
            rate = self.tally.rate
            ok = rate is not None and rate >= self.threshold
            self.decision = GateDecision(ok, rate, self.papers, self.tally.given, self.tally.located, self.threshold,
                                         accepted=not ok and self.accept)
        return self.decision

    def check(self) -> None:
        """Raise ExtractionGateStop when the gate has failed and the failure is not accepted."""
        d = self.decision
        if d is not None and not d.passed and not d.accepted:
            raise ExtractionGateStop(gate_message(d, self.model), rate=d.rate, papers=d.papers)
