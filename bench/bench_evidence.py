"""Evidence benchmark (#39): how many of the offline extractor's quotes the verifier locates in the papers,
how well the verifier separates PDF-damaged true quotes from paraphrases / inventions / other papers'
sentences (the planted set, tests/evidence_planted.py), and what verification costs.

    .venv/bin/python bench/bench_evidence.py                 # corpus/pdf and corpus/journals, offline parser
    .venv/bin/python bench/bench_evidence.py --limit 5 --json
    flock /tmp/motivgraph-heavy.lock .venv/bin/python bench/bench_evidence.py --out bench-evidence.json

Figures (all from one run, over the same parsed papers):
- verified-quote rate of the offline extractor per folder, and every quote not located with its reason;
- planted set: located share of each positive kind (hyphen breaks, ligatures, typography, a page break with a
  running head inside the sentence, citations dropped), rejected share of each negative kind (paraphrase,
  invented, other paper), and the word-coverage range of each kind: the verifier's threshold
  (evidence.COVERAGE_THRESHOLD) must sit between the positives' minimum and the negatives' maximum;
- cost: CPU seconds of offline ingest's per-paper work (parse + extract) without verification (the baseline)
  and the CPU seconds verification adds, same papers, same run: the added share.
These are in-sample figures: the verifier's normalisation was written while looking at this corpus.
Figures only; nothing passes or fails (tests/integration/miner/test_miner_evidence_corpus.py asserts rates).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests.evidence_planted

from motivgraph.choices import NODE_TYPES  # noqa: E402
from motivgraph.embeddings import get_embedder  # noqa: E402
from motivgraph.ingest.pdf import parse_pdf  # noqa: E402
from motivgraph.miner.evidence import (  # noqa: E402
    COVERAGE_THRESHOLD,
    PaperText,
    QuoteTally,
    _Stream,
    coverage,
    triple_evidence,
    verify_quote,
)
from motivgraph.miner.heuristic import HeuristicExtractor  # noqa: E402
from motivgraph.settings import Settings  # noqa: E402
from tests.evidence_planted import planted_set  # noqa: E402

FOLDERS = ("pdf", "journals")


def corpus(shared: Path, limit: int | None) -> list[tuple[str, Path]]:
    out = []
    for folder in FOLDERS:
        files = sorted((shared / "corpus" / folder).glob("*.pdf"))
        out += [(folder, f) for f in files[:limit]]
    return out


def run(shared: Path, limit: int | None) -> dict[str, Any]:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    extractor = HeuristicExtractor(get_embedder(settings.embedding), settings.miner)
    per_folder: dict[str, QuoteTally] = defaultdict(QuoteTally)
    misses: list[dict[str, Any]] = []
    papers = []
    cpu_base = cpu_verify = cpu_stream = 0.0
    no_triples: Counter[str] = Counter()
    failed: list[str] = []
    for folder, path in corpus(shared, limit):
        t0 = time.process_time()
        try:
            paper = parse_pdf(path)
        except Exception as e:  # a PDF the parser refuses (no text layer, ...) is a figure, not a crash
            failed.append(f"{folder}/{path.name}: {e}")
            continue
        result = asyncio.run(extractor.extract(paper))
        t1 = time.process_time()
        pt = PaperText.of(paper)
        evidence = [triple_evidence(pt, t) for t in result.triples]
        t2 = time.process_time()
        _ = PaperText.of(paper).stream  # what a paper costs when a quote is not found as it stands (LLM quotes)
        cpu_stream += time.process_time() - t2
        cpu_base += t1 - t0
        cpu_verify += t2 - t1
        papers.append(paper)
        if not result.triples:
            no_triples[result.reason or "no reason"] += 1
        for t, ev in zip(result.triples, evidence, strict=True):
            per_folder[folder].add(ev)
            for e in NODE_TYPES:
                for q, text in zip(ev.of(e), getattr(t, e).quotes, strict=False):  # type: ignore[arg-type]
                    if not q.verified:
                        misses.append({"paper": f"{folder}/{path.name}", "element": e, "quote": text[:200],
                                       "reason": q.reason, "coverage": round(coverage(pt, text), 3)})
        print(f"  {folder}/{path.name}: {len(result.triples)} triples", file=sys.stderr)
    total = QuoteTally()
    for t in per_folder.values():
        total.given += t.given
        total.located += t.located

    # the planted set, from the same parsed papers
    planted = planted_set(papers)
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    covs: dict[str, list[float]] = defaultdict(list)
    prepared: dict[int, PaperText] = {}
    for p in planted:
        pt = prepared.get(id(p.paper)) or prepared.setdefault(id(p.paper), PaperText.of(p.paper))
        if p.kind == "other paper" and _Stream.of(p.quote).norm in pt.stream.norm:
            continue  # the sentence is in this paper too (shared boilerplate): not a negative
        q = verify_quote(pt, p.quote)
        kinds[p.kind][0] += int(q.verified == p.positive)
        kinds[p.kind][1] += 1
        covs[p.kind].append(coverage(pt, p.quote))
    pos = [k for k in kinds if any(x.kind == k and x.positive for x in planted)]
    neg = [k for k in kinds if k not in pos]

    def share(ks: list[str]) -> float | None:
        n = sum(kinds[k][1] for k in ks)
        return round(sum(kinds[k][0] for k in ks) / n, 4) if n else None

    return {
        "load": os.getloadavg(),
        "papers": len(papers), "unparsed": failed, "papers_without_triples": dict(no_triples),
        "verified_rate": {f: {"located": t.located, "quotes": t.given,
                              "rate": t.rate} for f, t in per_folder.items()},
        "verified_rate_overall": {"located": total.located, "quotes": total.given, "rate": total.rate},
        "misses": misses,
        "planted": {
            "located_rate (positives)": share(pos), "rejected_rate (negatives)": share(neg),
            "by_kind": {k: {"ok": a, "n": n, "rate": round(a / n, 4), "coverage_min": round(min(covs[k]), 3),
                            "coverage_max": round(max(covs[k]), 3)} for k, (a, n) in kinds.items()},
            "positives_coverage_min": round(min(c for k in pos for c in covs[k]), 3) if pos else None,
            "negatives_coverage_max": round(max(c for k in neg for c in covs[k]), 3) if neg else None,
            "threshold": COVERAGE_THRESHOLD,
        },
        "cost": {"baseline_cpu_s (parse + extract)": round(cpu_base, 2), "verification_cpu_s": round(cpu_verify, 3),
                 "added_share": round(cpu_verify / cpu_base, 4) if cpu_base else None,
                 # the letter stream of every paper: the cost when quotes are not found as they stand
                 "normalised_text_cpu_s": round(cpu_stream, 3),
                 "normalised_share": round(cpu_stream / cpu_base, 4) if cpu_base else None},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--limit", type=int, default=None, help="At most N PDFs per folder.")
    ap.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    ap.add_argument("--out", type=Path, default=None, help="Also write the JSON figures here.")
    args = ap.parse_args()
    fig = run(args.shared, args.limit)
    if args.out:
        args.out.write_text(json.dumps(fig, indent=2, default=str))
    if args.json:
        print(json.dumps(fig, indent=2, default=str))
        return
    o = fig["verified_rate_overall"]
    print(f"load {fig['load']}; {fig['papers']} papers parsed, {len(fig['unparsed'])} unparsed")
    for f, t in fig["verified_rate"].items():
        print(f"verified-quote rate {f}: {t['located']}/{t['quotes']} = {t['rate']:.2%}")
    print(f"verified-quote rate overall: {o['located']}/{o['quotes']} = {o['rate']:.2%}")
    for m in fig["misses"]:
        print(f"  miss {m['paper']} {m['element']}: {m['reason']} (coverage {m['coverage']}): {m['quote'][:100]!r}")
    p = fig["planted"]
    print(f"planted: positives located {p['located_rate (positives)']}, negatives rejected "
          f"{p['rejected_rate (negatives)']}; positives' coverage >= {p['positives_coverage_min']}, negatives' <= "
          f"{p['negatives_coverage_max']}, threshold {p['threshold']}")
    for k, v in p["by_kind"].items():
        print(f"  {k:18s} {v['ok']}/{v['n']} = {v['rate']:.2%}  coverage {v['coverage_min']}..{v['coverage_max']}")
    c = fig["cost"]
    print(f"cost: baseline {c['baseline_cpu_s (parse + extract)']} CPU s, verification {c['verification_cpu_s']} "
          f"CPU s, added {c['added_share']:.2%}; every paper's letter stream (quotes not found as they stand) "
          f"{c['normalised_text_cpu_s']} CPU s = {c['normalised_share']:.2%}")


if __name__ == "__main__":
    main()
