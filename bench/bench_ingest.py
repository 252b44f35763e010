"""Ingest benchmark: offline parser throughput and ledger overhead; prints figures, never fails on time.

    .venv/bin/python bench/bench_ingest.py [--corpus ../shared/corpus/pdf] [--rounds 1]

Figures: pages/s and papers/s of the offline parser (worker processes, as the pipeline runs it)
at concurrency 1 and 2; the full pipeline (hash + ledger + cache + parse, no graph) at
concurrency 2; ledger + cache overhead per document; projected parse time for 8,625 papers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from pathlib import Path

from motivgraph.ingest.cache import ParsedCache
from motivgraph.ingest.ledger import Ledger
from motivgraph.ingest.models import Paper, Section
from motivgraph.ingest.pdf import parse_pdf
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.ingest.sinks import NullSink
from motivgraph.ingest.workers import ProcessParserPool
from motivgraph.settings import IngestSettings, Settings

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "pdf"
TARGET = 8625


async def parse_all(files: list[Path], concurrency: int, max_pages: int) -> tuple[float, int, int, int]:
    pool = ProcessParserPool(concurrency)
    # start and warm the workers outside the timed part (a real run pays this once, not per doc)
    smallest = min(files, key=lambda f: f.stat().st_size)
    warm = [
        pool.parse(str(smallest), max_pages=1, sha256=None, source_path=None, timeout=300) for _ in range(concurrency)
    ]
    await asyncio.gather(*warm, return_exceptions=True)
    sem = asyncio.Semaphore(concurrency)
    pages = ok = failed = 0

    async def one(f: Path) -> None:
        nonlocal pages, ok, failed
        async with sem:
            try:
                p = await pool.parse(str(f), max_pages=max_pages, sha256=None, source_path=str(f), timeout=300)
                pages += min(p.page_count or 0, max_pages)
                ok += 1
            except Exception:
                failed += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(one(f) for f in files))
    dt = time.perf_counter() - t0
    await pool.aclose()
    return dt, pages, ok, failed


def in_process(files: list[Path], max_pages: int) -> tuple[float, float]:
    """Baseline: the same parser called directly in this process, one file after another.
    Returns (wall seconds, CPU seconds) — CPU time does not depend on what else the machine runs."""
    t0, c0 = time.perf_counter(), time.process_time()
    for f in files:
        with contextlib.suppress(Exception):  # the text-less PDF in the corpus
            parse_pdf(f, max_pages=max_pages)
    return time.perf_counter() - t0, time.process_time() - c0


def ledger_overhead(n: int = 500) -> tuple[float, float]:
    """Seconds per document for the ledger transitions and the cache write+read of one paper."""
    with tempfile.TemporaryDirectory() as d:
        led = Ledger(Path(d) / "ledger.sqlite")
        t0 = time.perf_counter()
        for i in range(n):
            sha = f"{i:064x}"
            led.register(sha, f"/corpus/{i}.pdf", 1000)
            led.mark(sha, "parsed", paper_id=f"sha256:{sha}", parser="pdf")
            led.mark(sha, "stored", counts={"papers": 1})
        per_ledger = (time.perf_counter() - t0) / n
        led.close()
        cache = ParsedCache(Path(d) / "parsed")
        body = "word " * 8000  # a typical paper's text
        t0 = time.perf_counter()
        for i in range(n // 5):
            sha = f"{i:064x}"
            cache.put(Paper(paper_id=sha, sha256=sha, title="t", sections=[Section(heading="x", text=body)]))
            cache.get(sha)
        per_cache = (time.perf_counter() - t0) / (n // 5)
    return per_ledger, per_cache


async def pipeline_run(files_dir: Path, concurrency: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as d:
        s = Settings(data_dir=Path(d), ingest=IngestSettings(parser="pdf"), _env_file=None)  # type: ignore[call-arg]
        t0 = time.perf_counter()
        summary = await ingest_async([files_dir], s, sink=NullSink(), concurrency=concurrency)
        dt = time.perf_counter() - t0
        # the second run must hit the ledger/cache only
        t1 = time.perf_counter()
        again = await ingest_async([files_dir], s, sink=NullSink(), concurrency=concurrency)
        dt_again = time.perf_counter() - t1
        assert again.parsed == 0
        print(f"  resume/no-op re-run over the same corpus: {dt_again:.2f}s (nothing parsed)")
        return dt, summary.processed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--rounds", type=int, default=1, help="Repeat each measurement and report the median.")
    ap.add_argument("--max-pages", type=int, default=IngestSettings().max_pages)
    args = ap.parse_args()
    files = sorted(args.corpus.glob("*.pdf"))
    if not files:
        raise SystemExit(f"no PDFs in {args.corpus}")
    print(f"corpus: {len(files)} PDFs in {args.corpus} (page cap {args.max_pages})")
    rates: dict[int, float] = {}
    total_pages = 0
    for conc in (1, 2):
        runs = [asyncio.run(parse_all(files, conc, args.max_pages)) for _ in range(args.rounds)]
        dt = statistics.median(r[0] for r in runs)
        _, pages, ok, failed = runs[0]
        total_pages = pages
        rates[conc] = len(files) / dt
        print(
            f"offline parser, concurrency {conc}: {dt:.2f}s  {pages / dt:.1f} pages/s  {len(files) / dt:.2f} papers/s"
            f"  ({ok} ok, {failed} failed, {pages} pages, {pages / max(ok, 1):.1f} pages/paper)"
        )
    print(f"speed-up concurrency 2 vs 1: {rates[2] / rates[1]:.2f}x (2 cores, shared with other work)")
    base, cpu = in_process(files, args.max_pages)
    print(f"in-process baseline (no worker processes): {base:.2f}s  {len(files) / base:.2f} papers/s "
          f"→ worker-process overhead at concurrency 1: {(len(files) / base) / rates[1]:.2f}x")
    cpu_per_paper = cpu / len(files)
    ms_page = cpu / max(total_pages, 1) * 1000
    print(f"CPU time: {cpu_per_paper:.3f} s/paper, {ms_page:.0f} ms/page (independent of machine load)")
    per_ledger, per_cache = ledger_overhead()
    print(f"ledger overhead: {per_ledger * 1000:.2f} ms/document (register + parsed + stored, WAL)")
    print(f"parsed-paper cache: {per_cache * 1000:.2f} ms/document (write + read, ~40 kB JSON)")
    parse_per_doc = 1 / rates[2]
    print(
        f"ledger+cache share of per-document time at concurrency 2: "
        f"{(per_ledger + per_cache) / parse_per_doc * 100:.1f}%"
    )
    dt, n = asyncio.run(pipeline_run(args.corpus, 2))
    print(f"full pipeline (hash, ledger, cache, parse; no graph), concurrency 2: {dt:.2f}s, {n / dt:.2f} papers/s")
    for conc, rate in rates.items():
        secs = TARGET / rate
        print(f"projection for {TARGET} papers, offline parser at concurrency {conc}: {secs / 60:.1f} min")
    secs = TARGET / (n / dt)
    print(f"projection for {TARGET} papers, full pipeline at concurrency 2: {secs / 60:.1f} min")
    for cores in (1, 2, 8):
        print(f"projection for {TARGET} papers from CPU time alone on {cores} idle core(s): "
              f"{TARGET * cpu_per_paper / cores / 60:.1f} min")


if __name__ == "__main__":
    main()
