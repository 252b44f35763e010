"""CLI start-up benchmark: wall time of `motivgraph --help` and a few commands that need no graph,
beside floors measured in the same run (`python -c pass`, `python -c "import motivgraph"`). Every
contender is a fresh process; the contenders are interleaved round by round, so a change in machine
load hits all of them alike, and each figure is the median over the rounds. Prints figures; asserts
nothing about time.

    .venv/bin/python bench/bench_cli.py                    # 15 rounds
    .venv/bin/python bench/bench_cli.py --rounds 30 --json out.json
    .venv/bin/python bench/bench_cli.py --modules          # also: which heavy libraries each command imports
    .venv/bin/python bench/bench_cli.py --vs-tree /tmp/old  # also each command from another source tree, same run

`--vs-tree DIR` times every command a second time with PYTHONPATH=DIR (interleaved with the first), for a
before/after in one run. DIR holds an older commit with the layer folders linked into the package:
`git archive COMMIT | tar -x -C DIR && for l in graph ingest miner api agents; do ln -s ../$l DIR/motivgraph/$l; done`.

Runs in a temporary MOTIVGRAPH_DATA_DIR (nothing is written to the user's data dir). Target (issue #19):
`motivgraph --help` <= 0.3 s on a quiet 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable
FLOORS: dict[str, list[str]] = {
    "python -c pass": [PY, "-c", "pass"],
    "python -c 'import motivgraph'": [PY, "-c", "import motivgraph"],
}
COMMANDS: tuple[str, ...] = (
    "--help",
    "--version",
    "graph stats --help",
    "llm check --help",
    "ingest --help",
    "search --help",
    "config show --json",
    "runs list --json",
    "llm roles --json",
)
# Libraries a command that needs no graph, no model and no server should not pay for at start-up.
HEAVY = ("redis", "numpy", "faiss", "torch", "sentence_transformers", "langchain", "langchain_core",
         "fastapi", "starlette", "uvicorn", "falkordb", "pypdfium2", "onnxruntime", "transformers",
         "pydantic_settings")
_PROBE = """
import runpy, sys
sys.argv = ["motivgraph", *sys.argv[1:]]
try:
    runpy.run_module("motivgraph", run_name="__main__")
except SystemExit:
    pass
heavy = {heavy!r}
print("\\n" + ",".join(sorted(h for h in heavy if h in sys.modules)), file=sys.stderr)
"""


def run_once(argv: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    # cwd: the data dir's parent, so `python -m` finds the installed package (or --vs-tree's), not the cwd's
    subprocess.run(argv, env=env, cwd=Path(env["MOTIVGRAPH_DATA_DIR"]).parent, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def heavy_imports(cmd: str, env: dict[str, str]) -> list[str]:
    res = subprocess.run([PY, "-c", _PROBE.format(heavy=HEAVY), *cmd.split()], env=env, capture_output=True,
                         cwd=Path(env["MOTIVGRAPH_DATA_DIR"]).parent, text=True, check=False)
    last = res.stderr.rstrip("\n").rsplit("\n", 1)[-1]
    return [m for m in last.split(",") if m]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=15, help="fresh processes per contender (median reported)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--modules", action="store_true", help="list the heavy libraries each command imports")
    ap.add_argument("--vs-tree", type=Path, help="also time each command from this source tree (PYTHONPATH)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="mg-bench-cli-") as tmp:
        env = {**os.environ, "MOTIVGRAPH_DATA_DIR": str(Path(tmp) / "data"), "HF_HUB_OFFLINE": "1",
               "PYTHONDONTWRITEBYTECODE": "1"}
        contenders = {**FLOORS, **{f"motivgraph {c}": [PY, "-m", "motivgraph", *c.split()] for c in COMMANDS}}
        envs = dict.fromkeys(contenders, env)
        if args.vs_tree:
            old_env = {**env, "PYTHONPATH": str(args.vs_tree.resolve())}
            for c in COMMANDS:
                contenders[f"[vs-tree] motivgraph {c}"] = [PY, "-m", "motivgraph", *c.split()]
                envs[f"[vs-tree] motivgraph {c}"] = old_env
        for name, argv in contenders.items():  # warm the page cache and the bytecode caches once
            run_once(argv, envs[name])
        load_start = os.getloadavg()[0]
        times: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(args.rounds):
            for name, argv in contenders.items():
                times[name].append(run_once(argv, envs[name]))
        load_end = os.getloadavg()[0]
        modules = {c: heavy_imports(c, env) for c in COMMANDS} if args.modules else {}

    med = {name: statistics.median(ts) for name, ts in times.items()}
    floor_py, floor_pkg = med["python -c pass"], med["python -c 'import motivgraph'"]
    print(f"CLI start-up, {args.rounds} rounds interleaved, median wall time per fresh process "
          f"(cpus {os.cpu_count()}, load1 {load_start:.2f} at start, {load_end:.2f} at end)")
    print(f"{'contender':48s} {'median s':>9s} {'min s':>7s} {'× python':>9s} {'− import motivgraph':>20s}")
    for name, ts in times.items():
        m = med[name]
        print(f"{name:48s} {m:9.3f} {min(ts):7.3f} {m / floor_py:9.2f} {m - floor_pkg:+19.3f}s")
    if args.vs_tree:
        print(f"this tree / --vs-tree {args.vs_tree} (median over median):")
        for c in COMMANDS:
            print(f"  motivgraph {c:36s} {med[f'motivgraph {c}'] / med[f'[vs-tree] motivgraph {c}']:.2f}")
    for cmd, mods in modules.items():
        print(f"imports  motivgraph {cmd:28s} {', '.join(mods) or '(none of the heavy libraries)'}")
    if args.json:
        args.json.write_text(json.dumps({
            "rounds": args.rounds, "cpus": os.cpu_count(), "load1_at_start": load_start, "load1_at_end": load_end,
            "median_s": med, "min_s": {n: min(ts) for n, ts in times.items()}, "heavy_imports": modules,
        }, indent=2))


if __name__ == "__main__":
    main()
