"""Score the offline parser on the held-out set (bench/heldout/generate.py): per document the five target fields,
per split the totals. Used by bench/bench_parse_quality.py and tests/unit/ingest/test_ingest_heldout.py."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from motivgraph.errors import ParseError
from motivgraph.ingest.models import Paper
from motivgraph.ingest.pdf import parse_pdf
from motivgraph.ingest.quality import truth_scores

# the targets of issue #40 on the held-out set: share of documents right, and real papers judged "not a paper"
TARGETS = {"title": 0.97, "abstract": 0.95, "first_section": 0.95, "references": 0.90}
FIELDS = ("title", "abstract", "first_section", "references", "not_a_paper", "authors", "doi")


def _alnum(s: str) -> str:
    s = unicodedata.normalize("NFKC", s)
    return "".join(ch for ch in s.lower() if ch.isalnum())


def score(paper: Paper | None, truth: dict[str, object]) -> dict[str, bool]:
    """The fields of one parsed document (None: a ParseError) against its truth.

    - title: the same letters and digits as the typeset title;
    - abstract: its boundary on both sides — it starts with the abstract's first words and ends with its last
      words (nothing lost, nothing from the author block or the body glued on);
    - first_section: the first body section's heading (and printed number) and its first words;
    - references: the reference count within ±10 % of the typeset count;
    - not_a_paper: the parser judged this real paper "not a research paper" (should never be);
    - authors: every typeset author name found (informational); doi: the printed DOI (when there is one).
    """
    out = dict.fromkeys(FIELDS, False)
    if paper is None:
        return out
    base = truth_scores(paper, truth)
    out["title"] = base["title"]
    out["first_section"] = base["first_section"]
    abstract = _alnum(paper.abstract)
    out["abstract"] = base["abstract"] and abstract.endswith(_alnum(str(truth["abstract_last_words"])))
    want_refs = int(str(truth["references"]))
    out["references"] = abs(len(paper.references) - want_refs) <= 0.1 * want_refs
    out["not_a_paper"] = bool(paper.not_a_paper)
    want_authors = [str(a) for a in truth["authors"]]  # type: ignore[attr-defined]
    got = {_alnum(a) for a in paper.authors}
    out["authors"] = all(_alnum(a) in got for a in want_authors)
    doi = truth.get("doi")
    out["doi"] = (paper.doi or "").lower() == str(doi).lower() if doi else paper.doi is None
    return out


@dataclass
class SplitResult:
    n: int = 0
    right: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FIELDS, 0))
    misses: dict[str, list[str]] = field(default_factory=lambda: {f: [] for f in FIELDS})

    def rate(self, f: str) -> float:
        return self.right[f] / self.n if self.n else 0.0


def run(folder: Path, split: str, details: list[str] | None = None) -> SplitResult:
    """Parse every PDF of one split and total its fields. `details` (when given) receives one line per wrong field
    — pass it for the dev split only: the frozen split's documents are not looked at one by one."""
    res = SplitResult()
    for pdf in sorted((folder / split).glob("*.pdf")):
        truth = json.loads(pdf.with_suffix(".json").read_text(encoding="utf-8"))
        try:
            paper: Paper | None = parse_pdf(pdf)
        except ParseError:
            paper = None
        s = score(paper, truth)
        res.n += 1
        for f in FIELDS:
            hit = s[f] if f != "not_a_paper" else not s[f]  # right = not judged "not a paper"
            res.right[f] += hit
            if not hit:
                res.misses[f].append(pdf.stem)
        if details is not None and paper is not None and not all(s[f] != (f == "not_a_paper") for f in FIELDS):
            wrong = [f for f in FIELDS if s[f] == (f == "not_a_paper")]
            first = paper.sections[0] if paper.sections else None
            details.append(
                f"{pdf.stem}: wrong {wrong}\n    title={paper.title[:80]!r}\n    abstract={paper.abstract[:70]!r}"
                f" ... {paper.abstract[-50:]!r}\n    first={(first.number, first.heading[:40]) if first else None} "
                f"{(first.text[:50] if first else '')!r}\n    refs={len(paper.references)}/{truth['references']} "
                f"authors={paper.authors} not_a_paper={paper.not_a_paper!r}"
            )
    return res
