"""Chaos table for the closing note: `python bench/chaos.py --trials 20` runs N seeded trials of every
fault kind (tests/reliability/harness.py) and prints identical-graph counts per kind.

Each trial runs the real `motivgraph ingest` on a small corpus (6 PDFs from ../shared/corpus/pdf, offline
parser, concurrency 1; for json_kill the same papers as a papers.jsonl), injects its fault at a seeded random
point, re-runs the same command until it exits 0, and compares the canonical export with an uninterrupted run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.reliability.harness import CORPUS_PDF, FAULTS, Chaos, Trial, table


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=20, help="trials per fault kind")
    ap.add_argument("--faults", default=",".join(FAULTS), help=f"comma-separated subset of {', '.join(FAULTS)}")
    ap.add_argument("--seed", type=int, default=0, help="first trial seed (trial i uses seed+i)")
    ap.add_argument("--docs", type=int, default=6, help="PDFs in the corpus")
    ap.add_argument("--cap-s", type=float, default=900.0, help="per-trial time cap (seconds)")
    ap.add_argument("--workdir", type=Path, default=None, help="where trials run (default: a temp dir)")
    ap.add_argument("--json", type=Path, default=None, help="also write every trial as JSON lines here")
    args = ap.parse_args()
    if not CORPUS_PDF.is_dir():
        print(f"corpus not found at {CORPUS_PDF}: the chaos bench needs ../shared/corpus/pdf", file=sys.stderr)
        return 2
    faults = [f for f in args.faults.split(",") if f]
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="motivgraph-chaos-"))
    chaos = Chaos(workdir, n_docs=args.docs, trial_cap_s=args.cap_s)
    trials: list[Trial] = []
    t0 = time.monotonic()
    for fault in faults:
        for i in range(args.trials):
            try:
                t = chaos.trial(fault, args.seed + i)
            except Exception as e:  # a broken baseline or harness: say so in the table, keep going
                t = Trial(fault, args.seed + i, note=f"harness error: {type(e).__name__}: {e}"[:500])
            trials.append(t)
            print(f"{fault:14s} seed {t.seed:3d}: identical={t.identical} ledger={t.ledger_same} first_rc={t.first_rc} "
                  f"reruns={t.reruns} pauses={t.pauses} orphans={t.orphans} at={t.killed_at_s:.1f}s "
                  f"{t.seconds:.0f}s {t.note}",
                  flush=True)
            for d in t.diff:
                print("    " + d, flush=True)
            if args.json:
                with args.json.open("a") as fh:
                    fh.write(json.dumps(asdict(t)) + "\n")
    base = ", ".join(f"{m}: {b.seconds:.0f}s" for m, b in chaos.baselines.items())
    print(f"\ncorpus: {args.docs} PDFs, offline parser, concurrency 1; uninterrupted runs {base}; "
          f"total {time.monotonic() - t0:.0f}s; workdir {workdir}\n")
    print(table(trials))
    return 0 if all(t.identical and t.orphans == 0 for t in trials) else 1


if __name__ == "__main__":
    raise SystemExit(main())
