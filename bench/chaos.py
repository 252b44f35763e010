"""Chaos table for the closing note: `python bench/chaos.py --trials 20` runs N seeded trials of every
fault kind (tests/reliability/harness.py) and prints identical-graph counts per kind.

Each trial runs the real `motivgraph ingest` on a small corpus (6 PDFs from ../shared/corpus/pdf, offline
parser, concurrency 1; for json_kill the same papers as a papers.jsonl), injects its fault at a seeded random
point, re-runs the same command until it exits 0, and compares the canonical export with an uninterrupted run.
The Neo4j kinds (neo4j_kill) run on a private local Neo4j the harness starts and stops (Java 17/21 and Maven);
where it cannot be had they are left out with the reason. The Ray kinds (ray_kill_worker, ray_kill_driver,
ray_store_down; tests/reliability/ray_harness.py) run `motivgraph ingest --engine ray` on a local Ray the command
starts and are compared with the local engine's run; without Ray they are left out with the reason.
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

from tests.reliability.harness import CORPUS_PDF, FAULTS, NEO4J_FAULTS, Trial, table
from tests.reliability.ray_harness import RAY_FAULTS, RayChaos, ray_reason

KINDS = (*FAULTS, *RAY_FAULTS)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=20, help="trials per fault kind")
    ap.add_argument("--faults", default=",".join(KINDS), help=f"comma-separated subset of {', '.join(KINDS)}")
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
    if any(f in NEO4J_FAULTS for f in faults):
        from tests.neo4j_support import local_server_reason  # local: tests/ support code, needed only on this path

        reason = local_server_reason()
        if reason:
            print(f"leaving out {', '.join(f for f in faults if f in NEO4J_FAULTS)}: {reason}", file=sys.stderr)
            faults = [f for f in faults if f not in NEO4J_FAULTS]
    if any(f in RAY_FAULTS for f in faults):
        reason = ray_reason()
        if reason:
            print(f"leaving out {', '.join(f for f in faults if f in RAY_FAULTS)}: {reason}", file=sys.stderr)
            faults = [f for f in faults if f not in RAY_FAULTS]
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="motivgraph-chaos-"))
    chaos = RayChaos(workdir, n_docs=args.docs, trial_cap_s=args.cap_s)  # the base harness plus the Ray kinds
    trials: list[Trial] = []
    t0 = time.monotonic()
    try:
        for fault in faults:
            for i in range(args.trials):
                try:
                    t = chaos.trial(fault, args.seed + i)
                except Exception as e:  # a broken baseline or harness: say so in the table, keep going
                    t = Trial(fault, args.seed + i, note=f"harness error: {type(e).__name__}: {e}"[:500])
                trials.append(t)
                outage = f" outage={t.outage_s:.1f}s" if t.fault in NEO4J_FAULTS else ""
                print(f"{fault:14s} seed {t.seed:3d}: identical={t.identical} ledger={t.ledger_same} "
                      f"first_rc={t.first_rc} reruns={t.reruns} pauses={t.pauses} orphans={t.orphans} "
                      f"tracebacks={t.tracebacks} at={t.killed_at_s:.1f}s{outage} {t.seconds:.0f}s {t.note}",
                      flush=True)
                for d in t.diff:
                    print("    " + d, flush=True)
                if args.json:
                    with args.json.open("a") as fh:
                        fh.write(json.dumps(asdict(t)) + "\n")
        same = ""
        if "neo4j" in chaos.baselines and "offline" in chaos.baselines:
            verdict = "equals" if chaos.neo4j_matches_embedded() else "DIFFERS FROM"
            same = (f"; the uninterrupted Neo4j ingest {verdict} the embedded one (export and ledger), which the "
                    "Neo4j kinds are compared with")
        if "ray" in chaos.baselines and "offline" in chaos.baselines:
            verdict = "equals" if chaos.ray_matches_local() else "DIFFERS FROM"
            same += (f"; the uninterrupted Ray ingest {verdict} the local engine's (export and ledger), which the "
                     "Ray kinds are compared with")
    finally:
        chaos.close()
    base = ", ".join(f"{m}: {b.seconds:.0f}s" for m, b in chaos.baselines.items())
    print(f"\ncorpus: {args.docs} PDFs, offline parser, concurrency 1; uninterrupted runs {base}{same}; "
          f"total {time.monotonic() - t0:.0f}s; workdir {workdir}\n")
    print(table(trials))
    strict = (*NEO4J_FAULTS, *RAY_FAULTS)  # kinds where an outage must end in a pause or a clear error, not a crash
    ok = all(t.identical and t.orphans == 0 and (t.fault not in strict or t.tracebacks == 0) for t in trials)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
