"""The evidence lines of `ingest report`: each stored document's verified-quote rate and the triples
rejected for unverified evidence (with their reasons), and the rate over all of them (#39).

The figures come from the ledger's per-document counts (the sink writes `quotes`, `quotes_verified` and
`unverified` with every stored paper) and the reasons from the decision log's `rejected` entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from motivgraph.ingest.ledger import DocRow
    from motivgraph.miner.decisions import DecisionLog

UNVERIFIED_PREFIX = "unverified evidence: "


@dataclass
class EvidenceReport:
    # (document path, paper id) -> figures: one document (a JSONL file) may hold several papers
    by_doc: dict[tuple[str, str | None], dict[str, Any]] = field(default_factory=dict)
    quotes: int = 0
    located: int = 0

    @property
    def rate(self) -> float | None:
        return self.located / self.quotes if self.quotes else None

    def overall(self) -> dict[str, Any]:
        return {"quotes": self.quotes, "located": self.located,
                "rate": round(self.rate, 4) if self.rate is not None else None}

    def get(self, path: str, paper_id: str | None) -> dict[str, Any] | None:
        return self.by_doc.get((path, paper_id))

    def cell(self, path: str, paper_id: str | None) -> str:
        """The report table's cell for one stored paper ('' when it has no figures)."""
        e = self.get(path, paper_id)
        if not e:
            return ""
        rate = f" ({e['rate']:.0%})" if e["rate"] is not None else ""
        text = f"{e['located']}/{e['quotes']} quotes located{rate}"
        if e["rejected_unverified"]:
            text += "; rejected unverified: " + " | ".join(e["rejected_unverified"][:3])
        return text


def evidence_report(rows: list[DocRow], decisions: DecisionLog | None) -> EvidenceReport:
    rep = EvidenceReport()
    for r in rows:
        c = r.counts or {}
        if r.state != "stored" or "quotes" not in c:
            continue
        q, v = int(c.get("quotes", 0)), int(c.get("quotes_verified", 0))
        rejected: list[str] = []
        if decisions is not None and r.paper_id and c.get("rejected"):
            last = decisions.extractions(r.paper_id, "rejected")[-1:]
            for entry in last:
                for t in entry.get("detail") or []:
                    why = [v2.removeprefix(UNVERIFIED_PREFIX) for v2 in t.get("violations", [])
                           if v2.startswith(UNVERIFIED_PREFIX)]
                    if why:
                        rejected.append("; ".join(why))
        rep.by_doc[(r.path, r.paper_id)] = {"quotes": q, "located": v, "rate": (v / q) if q else None,
                               "unverified_triples": int(c.get("unverified", 0)), "rejected_unverified": rejected}
        rep.quotes += q
        rep.located += v
    return rep
