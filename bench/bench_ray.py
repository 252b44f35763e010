"""Ingest on the local engine beside Ray with 1 and 2 workers, in one run; then the writer's own throughput.
Prints figures, never fails on time.

    .venv/bin/python -m bench.bench_ray                        # the shared corpus, 1 round, + the writer (scale 0.05)
    .venv/bin/python -m bench.bench_ray --rounds 3 --skip-writer
    .venv/bin/python -m bench.bench_ray --corpus DIR --json out.json

Each run is the real command, `motivgraph ingest CORPUS` (offline parser and extractor, no LLM), as a fresh
process into a fresh data directory with its own embedded FalkorDB: the local engine (its default concurrency,
parser worker processes on this machine's cores), then `--engine ray` on a local Ray the command starts with
`MOTIVGRAPH_RAY_NUM_CPUS` 1 and 2 (the engine's default documents in flight). Rounds alternate the order. The
wall time is the command's, Ray's start and stop included; Ray's own start + stop (`ray.init` + `ray.shutdown`,
no work) is timed apart in the same run, and every engine also ingests the first half of the corpus (by file
name), which pays the same fixed costs (start-up, model loads, Ray's start and stop, the index repair): the
documents beyond it over the time beyond it are the papers/s a long ingest would see. Every run's
canonical graph export (timestamps removed, lines sorted) is compared with the local engine's: a Ray figure
for a different graph would be no figure.

Then `bench.bench_writer` on synthetic pre-extracted records: the one writer every engine funnels into (identity
resolution + store writes on the driver), the serial part that caps any cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from motivgraph.graph import open_store

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "pdf"
ENGINES: dict[str, dict[str, str]] = {  # label -> the command's extra environment
    "local": {},
    "ray, 1 worker": {"MOTIVGRAPH_RAY_NUM_CPUS": "1"},
    "ray, 2 workers": {"MOTIVGRAPH_RAY_NUM_CPUS": "2"},
}


@dataclass
class Run:
    engine: str
    round: int
    wall_s: float
    rc: int
    stored: int
    failed: int
    load: tuple[float, float]
    same_graph: bool | None = None  # canonical export equal to the local engine's (of the same round)
    export_lines: int = 0
    small: bool = False  # the half-corpus run: the same fixed costs, fewer documents

    @property
    def papers_per_s(self) -> float:
        return self.stored / self.wall_s if self.wall_s else 0.0


@dataclass
class Figures:
    corpus: str
    documents: int
    runs: list[Run] = field(default_factory=list)
    ray_start_stop_s: list[float] = field(default_factory=list)
    writer: Any = None


def command_env(data_dir: Path, extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MOTIVGRAPH_", "RAY_"))}
    env.update({"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "MOTIVGRAPH_DATA_DIR": str(data_dir), "MOTIVGRAPH_INGEST_PARSER": "pdf",
                "MOTIVGRAPH_LLM_MODEL": "", "RAY_USAGE_STATS_ENABLED": "0"})
    env.update(extra)
    return env


def ledger_counts(data_dir: Path) -> tuple[int, int]:
    """(stored, failed) documents in the run's ledger."""
    con = sqlite3.connect(f"file:{data_dir / 'ingest' / 'ledger.sqlite'}?mode=ro", uri=True)
    try:
        rows = dict(con.execute("SELECT state, COUNT(*) FROM documents GROUP BY state").fetchall())
    finally:
        con.close()
    return int(rows.get("stored", 0)), int(rows.get("failed", 0))


def canonical_export(data_dir: Path) -> list[str]:
    """The graph's export as the chaos suite compares it, then the run's embedded store stopped."""
    from motivgraph.graph.embedded import EmbeddedFalkorDB  # local: the embedded store, off the bench's --help path
    from motivgraph.graph.interchange import export_lines  # local: pydantic, off the bench's --help path
    from motivgraph.settings import GraphSettings, Settings  # local: the settings tree, off the bench's --help path
    from tests.reliability.harness import canonical_lines  # local: tests/ support code, needed only on this path

    settings = Settings(data_dir=data_dir, graph=GraphSettings(), _env_file=None)
    store = open_store(settings, ensure_schema=False)
    try:
        return canonical_lines(list(export_lines(store)))
    finally:
        store.close()
        EmbeddedFalkorDB(data_dir).stop(timeout_s=30)


def ingest_once(corpus: Path, engine: str, rnd: int, work: Path, small: bool = False) -> tuple[Run, list[str]]:
    data = work / f"{engine.replace(' ', '').replace(',', '-')}-{rnd}{'-small' if small else ''}" / "data"
    data.parent.mkdir(parents=True)
    cmd = [sys.executable, "-m", "motivgraph", "ingest", str(corpus)]
    if engine != "local":
        cmd += ["--engine", "ray"]
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    with open(data.parent / "ingest.log", "wb") as log:
        rc = subprocess.run(cmd, env=command_env(data, ENGINES[engine]), stdout=log, stderr=subprocess.STDOUT,
                            cwd=work, check=False).returncode
    wall = time.perf_counter() - t0
    stored, failed = ledger_counts(data)
    export = canonical_export(data)
    (data.parent / "export.canonical.jsonl").write_text("\n".join(export) + "\n")  # kept with --keep, to compare
    run = Run(engine, rnd, wall, rc, stored, failed, (load0, os.getloadavg()[0]), export_lines=len(export),
              small=small)
    if rc not in (0, 1):  # 1: some document failed (the corpus holds a scanned PDF no parser reads)
        tail = (data.parent / "ingest.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"{engine} ingest exited {rc}:\n{tail}")
    return run, export


def ray_start_stop(cpus: int = 2) -> float:
    """Seconds for a local Ray to start and stop with no work, in a fresh process (as the command pays it)."""
    code = ("import os, time; os.environ['RAY_USAGE_STATS_ENABLED'] = '0'; import ray; t0 = time.perf_counter(); "
            f"ray.init(address='local', num_cpus={cpus}, include_dashboard=False, log_to_driver=False, "
            "logging_level='ERROR'); ray.shutdown(); print(time.perf_counter() - t0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
    return float(out.stdout.strip().splitlines()[-1])


def median_by_engine(runs: list[Run], small: bool = False) -> dict[str, Run]:
    """The run of median wall time per engine, the lower middle of an even count (of the full or of the
    half-corpus runs)."""
    out = {}
    for eng in ENGINES:
        rs = sorted((r for r in runs if r.engine == eng and r.small == small), key=lambda r: r.wall_s)
        if rs:
            out[eng] = rs[(len(rs) - 1) // 2]
    return out


def marginal_rate(full: Run, part: Run | None) -> float:
    """Papers/s past the command's fixed costs (start-up, model loads, Ray's start and stop, the index repair):
    the documents the full run stored beyond the half-corpus run, over the time it took beyond it."""
    if part is None or full.wall_s <= part.wall_s or full.stored <= part.stored:
        return float("nan")
    return (full.stored - part.stored) / (full.wall_s - part.wall_s)


def same_graph(runs: list[Run], engine: str) -> bool | None:
    """Whether every full run of `engine` gave the local engine's graph (None for the local engine itself; the
    half-corpus runs are not compared)."""
    if engine == "local":
        return None
    return all(r.same_graph for r in runs if r.engine == engine and not r.small)


def print_table(f: Figures) -> None:
    start = statistics.median(f.ray_start_stop_s) if f.ray_start_stop_s else 0.0
    print(f"\ncorpus: {f.corpus} ({f.documents} PDFs), offline parser + offline extractor, fresh data dir per run")
    print("| engine | wall (median) | papers stored / failed | papers/s | half-corpus run "
          "| papers/s past the fixed costs | vs local | same graph as local | load (1 min) start -> end |")
    print("|---|---|---|---|---|---|---|---|---|")
    med, half = median_by_engine(f.runs), median_by_engine(f.runs, small=True)
    local = med.get("local")
    for eng, r in med.items():
        net_rate = marginal_rate(r, half.get(eng))
        fixed = f"{half[eng].wall_s:.1f} s ({half[eng].stored} stored)" if eng in half else "-"
        ratio = f"{local.wall_s / r.wall_s:.2f}x" if local else "-"
        same = {True: "yes", False: "NO", None: "-"}[same_graph(f.runs, eng)]
        print(f"| {eng} | {r.wall_s:.1f} s | {r.stored} / {r.failed} | {r.papers_per_s:.2f} | {fixed} | "
              f"{net_rate:.2f} | {ratio} | {same} | {r.load[0]:.2f} -> {r.load[1]:.2f} |")
    if f.ray_start_stop_s:
        print(f"Ray's own start + stop (2 CPUs, no work, a fresh process): median {start:.1f} s over "
              f"{len(f.ray_start_stop_s)}")
    print("every run (round, engine, wall): " + "; ".join(f"{r.round} {r.engine} {r.wall_s:.1f}s" for r in f.runs))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--rounds", type=int, default=1, help="runs per engine, order alternating between rounds")
    ap.add_argument("--skip-writer", action="store_true", help="leave out the writer's throughput")
    ap.add_argument("--writer-scale", type=float, default=0.05, help="SyntheticGraph scale for the writer part")
    ap.add_argument("--keep", type=Path, default=None, help="keep the runs' data dirs and logs here")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    pdfs = sorted(args.corpus.glob("*.pdf"))
    if not pdfs:
        print(f"no PDFs in {args.corpus}", file=sys.stderr)
        return 2
    try:
        import ray  # noqa: F401  # local: ray is an optional extra
    except ImportError:
        print("Ray is not installed: pip install 'motivgraph[ray]' (or ./scripts/setup.sh --with-ray)", file=sys.stderr)
        return 2
    f = Figures(str(args.corpus), len(pdfs))
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench_ray_"))
    work.mkdir(parents=True, exist_ok=True)
    half = work / "half-corpus"
    half.mkdir(exist_ok=True)
    for pdf in pdfs[: len(pdfs) // 2]:
        shutil.copy(pdf, half / pdf.name)
    try:
        for rnd in range(args.rounds):
            order = list(ENGINES) if rnd % 2 == 0 else list(reversed(ENGINES))
            exports: dict[str, list[str]] = {}
            for eng in order:
                run, exports[eng] = ingest_once(args.corpus, eng, rnd, work)
                f.runs.append(run)
                print(f"round {rnd} {eng}: {run.wall_s:.1f} s, exit {run.rc}, {run.stored} stored / {run.failed} "
                      f"failed, {run.papers_per_s:.2f} papers/s, load {run.load[0]:.2f} -> {run.load[1]:.2f}",
                      flush=True)
            for r in f.runs:
                if r.round == rnd and r.engine != "local" and not r.small:
                    r.same_graph = exports[r.engine] == exports["local"]
            for eng in order:  # the same fixed costs over half the documents
                run, _ = ingest_once(half, eng, rnd, work, small=True)
                f.runs.append(run)
                print(f"round {rnd} {eng}, half the corpus: {run.wall_s:.1f} s, {run.stored} stored", flush=True)
            f.ray_start_stop_s.append(ray_start_stop())
        print_table(f)
        if not args.skip_writer:
            from bench.bench_writer import (  # local: onnxruntime, off the bench's --help path
                measure,
                print_figures,
                synthetic_records,
            )
            from bench.synthetic import SyntheticGraph  # local: pydantic, off the bench's --help path

            records = synthetic_records(SyntheticGraph(scale=args.writer_scale))
            print(f"\nthe writer alone (bench.bench_writer, SyntheticGraph scale {args.writer_scale}):")
            f.writer = measure(records, describe=f"{len(records)} synthetic papers, 5 triples each")
            print_figures(f.writer)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(asdict(f), indent=2, default=str))
    return 0 if all(r.same_graph is not False for r in f.runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
