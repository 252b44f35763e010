"""The writer's own throughput: identity resolution + batched store writes on one node. Prints figures, never
fails on time.

    .venv/bin/python -m bench.bench_writer                    # 2,100 synthetic papers (scale 0.15), ~3 min
    .venv/bin/python -m bench.bench_writer --scale 0.05       # quick
    .venv/bin/python -m bench.bench_writer --corpus ../shared/corpus/pdf   # the corpus, offline-extracted

However many workers parse and extract, every paper's extraction passes through one writer
(`MinerSink.commit`: the resolver's prefetch, then under the sink's lock `Resolver.resolve` and the store
upserts, with the node index appended every 500 new nodes). That writer is the serial part that caps any
cluster, so this bench feeds it pre-extracted records — no parsing, no extraction — and times it alone on the
embedded FalkorDB, three ways over the same records, each into a fresh graph:

- **writer, embedding included**: what the writer does when the mentions reach it as text (the model runs in
  the writer's process: the resolver embeds mentions and same-name descriptions);
- **writer, vectors given**: the same, with every text's vector computed beforehand (untimed), as workers that
  embed their own mentions would ship them: the floor of the serial part (decisions, lookups, upserts, index
  appends);
- **raw upserts** (the baseline of the same run): the same papers and triples upserted per paper with no
  resolution, as a writer that trusted its input would.

Records: `SyntheticGraph(scale)` (bench/synthetic.py) regrouped per paper — 5 triples each, nodes that recur
across papers with a popularity skew, so resolution meets exact-name merges and new nodes — or, with
`--corpus`, the PDFs parsed with the offline parser and extracted with the offline heuristic extractor
beforehand. Papers/s are printed per quarter of the run too: whether the writer slows as the graph grows.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

from bench.synthetic import SyntheticGraph
from motivgraph.embeddings import get_embedder
from motivgraph.embeddings.base import Embedder
from motivgraph.graph import open_store
from motivgraph.graph.embedded import EmbeddedFalkorDB
from motivgraph.graph.models import NodeIn, TripleIn
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.models import Paper
from motivgraph.miner.heuristic import HeuristicExtractor
from motivgraph.miner.schemas import ExtractedTriple, ExtractionResult, NodeText
from motivgraph.settings import Settings

Record = tuple[Paper, ExtractionResult]


# -- inputs -----------------------------------------------------------------------------------------------------
def synthetic_records(graph: SyntheticGraph, limit: int | None = None) -> list[Record]:
    """The synthetic graph's triples as one pre-extracted record per paper, in paper order (each triple keeps
    its index within the paper, so the stored graph is the synthetic one)."""
    by_paper: dict[str, list[ExtractedTriple]] = defaultdict(list)
    for t in graph.triples:
        by_paper[t.paper_id].append(ExtractedTriple(
            problem=NodeText(name=t.problem.name, description=t.problem.description),
            challenge=NodeText(name=t.challenge.name, description=t.challenge.description),
            solution=NodeText(name=t.solution.name, description=t.solution.description),
            section=t.section,
        ))
    out: list[Record] = []
    for rec in graph.papers[:limit]:
        paper = Paper(paper_id=rec.paper_id, title=rec.title, abstract=rec.abstract, year=rec.year,
                      venue=rec.venue, authors=rec.authors, parser="bench")
        out.append((paper, ExtractionResult(paper_id=rec.paper_id, extractor="llm", triples=by_paper[rec.paper_id])))
    return out


def corpus_records(corpus: Path, settings: Settings) -> list[Record]:
    """The corpus PDFs parsed (offline parser) and extracted (offline heuristic extractor) — untimed: the
    writer bench starts from the records."""
    from motivgraph.ingest.pdf import parse_pdf  # local: pdfium, off the bench's --help path

    extractor = HeuristicExtractor(get_embedder(settings.embedding), settings.miner)
    out: list[Record] = []
    for pdf in sorted(corpus.glob("*.pdf")):
        try:
            paper = parse_pdf(pdf)
        except Exception as e:  # a PDF without text: the ingest records it as failed, the writer never sees it
            print(f"  skipped {pdf.name}: {e}")
            continue
        out.append((paper, asyncio.run(extractor.extract(paper))))
    return out


def mention_texts(records: Sequence[Record]) -> list[str]:
    """Every text the resolver may embed for these records: each mention's `name: description` and each
    description alone (compared when a name already exists), deduplicated in first-seen order."""
    texts: dict[str, None] = {}
    for _, res in records:
        for t in res.triples:
            for node in (t.problem, t.challenge, t.solution):
                texts[node.text()] = None
                if node.description:
                    texts[node.description] = None
    return list(texts)


# -- the embedder the writer sees ---------------------------------------------------------------------------------
class MeasuredEmbedder(Embedder):
    """The configured embedder, with the time spent in it counted; given a table of precomputed vectors, texts
    found there are looked up instead of embedded (the 'vectors given' run), and the rest counted as misses."""

    def __init__(self, inner: Embedder, table: dict[str, np.ndarray] | None = None) -> None:
        self.inner = inner
        self.model_name, self.dim, self.backend, self.bulk = inner.model_name, inner.dim, inner.backend, inner.bulk
        self.table = table
        self.seconds = 0.0
        self.texts = 0
        self.misses = 0

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        t0 = time.perf_counter()
        try:
            if self.table is None:
                self.texts += len(texts)
                return self.inner.embed(texts, show_progress=show_progress)
            missing = list(dict.fromkeys(t for t in texts if t not in self.table))
            if missing:
                self.misses += len(missing)
                for t, v in zip(missing, self.inner.embed(missing), strict=True):
                    self.table[t] = v
            out = np.vstack([self.table[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)
            return out.astype(np.float32, copy=False)
        finally:
            self.seconds += time.perf_counter() - t0


# -- runs -------------------------------------------------------------------------------------------------------
@dataclass
class WriterRun:
    label: str
    papers: int = 0
    triples: int = 0
    wall_s: float = 0.0
    locked_s: float = 0.0  # inside the sink's lock: resolve + upserts + index appends
    embed_s: float = 0.0  # in the embedder (prefetch and resolve)
    texts_embedded: int = 0
    new_nodes: int = 0
    decisions: dict[str, int] = field(default_factory=dict)
    quarter_rates: list[float] = field(default_factory=list)  # papers/s over each quarter of the papers

    @property
    def papers_per_s(self) -> float:
        return self.papers / self.wall_s if self.wall_s else 0.0

    @property
    def triples_per_s(self) -> float:
        return self.triples / self.wall_s if self.wall_s else 0.0


def quarter_rates(done_at: Sequence[float], start: float, parts: int = 4) -> list[float]:
    """Papers/s over each of `parts` equal slices of the papers, from the times they finished (sorted)."""
    n = len(done_at)
    if n < parts:
        return []
    out = []
    prev = start
    for i in range(1, parts + 1):
        end = done_at[i * n // parts - 1]
        count = i * n // parts - (i - 1) * n // parts
        out.append(count / (end - prev) if end > prev else float("inf"))
        prev = end
    return out


async def _commit_all(sink: Any, records: Sequence[Record], concurrency: int) -> tuple[float, list[float]]:
    """Every record through `sink.commit` with `concurrency` papers in flight (the prefetch overlaps, the locked
    part is serial, as in the local engine); returns the wall time and when each paper finished."""
    sem = asyncio.Semaphore(concurrency)
    done_at: list[float] = []

    async def one(paper: Paper, res: ExtractionResult) -> None:
        async with sem:
            r = await sink.commit(paper, res)
            if r.status != "stored":
                raise RuntimeError(f"{paper.paper_id}: {r.status} {r.error}")
            done_at.append(time.perf_counter())

    t0 = time.perf_counter()
    await asyncio.gather(*(one(p, r) for p, r in records))
    await asyncio.to_thread(sink.close)  # the last index append is the writer's work too
    wall = time.perf_counter() - t0
    return wall, [t - t0 for t in sorted(done_at)]


def writer_run(label: str, settings: Settings, records: Sequence[Record], embedder: MeasuredEmbedder,
               concurrency: int) -> WriterRun:
    from motivgraph.miner.sink import MinerSink  # local: pdfium, off the bench's --help path

    rt = Runtime(settings)
    rt.embedder = embedder  # the runtime's lazily opened embedder, replaced by the measured one
    try:
        sink = MinerSink(rt, mode="heuristic")  # no LLM: band mentions are kept apart (no resolver calls)
        wall, done_at = asyncio.run(_commit_all(sink, records, concurrency))
        s = sink.stats
        return WriterRun(label, papers=len(records), triples=s.triples, wall_s=wall, locked_s=s.write_s,
                         embed_s=embedder.seconds, texts_embedded=embedder.texts or embedder.misses,
                         new_nodes=s.new_nodes, decisions=dict(s.decisions),
                         quarter_rates=quarter_rates(done_at, 0.0))
    finally:
        rt.close()


def raw_run(settings: Settings, records: Sequence[Record]) -> WriterRun:
    """The baseline: the same papers and triples upserted per paper, no resolution (each mention its own key)."""
    store = open_store(settings)
    try:
        done_at = []
        n_triples = 0
        t0 = time.perf_counter()
        for paper, res in records:
            store.upsert_papers([paper.to_record()])
            triples = [TripleIn(paper_id=paper.paper_id, index=i, section=t.section, extractor=res.extractor,
                                **{k: NodeIn(name=getattr(t, k).name, description=getattr(t, k).description)
                                   for k in ("problem", "challenge", "solution")})
                       for i, t in enumerate(res.triples)]
            if triples:
                store.upsert_triples(triples)
            n_triples += len(triples)
            done_at.append(time.perf_counter() - t0)
        wall = time.perf_counter() - t0
    finally:
        store.close()
    return WriterRun("raw upserts (no resolution)", papers=len(records), triples=n_triples, wall_s=wall,
                     locked_s=wall, quarter_rates=quarter_rates(done_at, 0.0))


@dataclass
class WriterFigures:
    records: str
    runs: list[WriterRun]
    load: tuple[float, float]
    precompute_s: float = 0.0
    texts_precomputed: int = 0

    def by_label(self, prefix: str) -> WriterRun:
        return next(r for r in self.runs if r.label.startswith(prefix))


def measure(records: Sequence[Record], *, concurrency: int = 2, describe: str = "",
            work: Path | None = None) -> WriterFigures:
    """The three runs over `records`, each into a fresh graph on one embedded FalkorDB started here (and
    stopped before returning)."""
    from bench.bench_miner import fresh_settings  # local: the LLM stack, off the bench's --help path

    load0 = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp(prefix="bench_writer_", dir=work))
    server = EmbeddedFalkorDB(tmp / "fdb")
    try:
        server.start()
        inner = get_embedder(fresh_settings(tmp / "warm", server.url).embedding)
        inner.embed(["warm up"])  # the model's load is not the writer's
        runs = [writer_run("writer, embedding included", fresh_settings(tmp / "a", server.url), records,
                           MeasuredEmbedder(inner), concurrency)]
        texts = mention_texts(records)
        t0 = time.perf_counter()
        vecs = inner.embed(texts)  # the writer's own path: the same vectors, so the same decisions
        pre_s = time.perf_counter() - t0
        table = {t: v for t, v in zip(texts, vecs, strict=True)}
        runs.append(writer_run("writer, vectors given", fresh_settings(tmp / "b", server.url), records,
                               MeasuredEmbedder(inner, table), concurrency))
        runs.append(raw_run(fresh_settings(tmp / "c", server.url), records))
    finally:
        if server.status().running:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return WriterFigures(describe, runs, (load0, os.getloadavg()[0]), pre_s, len(texts))


def print_figures(f: WriterFigures) -> None:
    print(f"records: {f.records}")
    print("| run | papers/s | triples/s | wall | in the lock | in the embedder | texts embedded | new nodes "
          "| papers/s by quarter |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in f.runs:
        q = " / ".join(f"{x:.0f}" for x in r.quarter_rates)
        print(f"| {r.label} | {r.papers_per_s:.1f} | {r.triples_per_s:.0f} | {r.wall_s:.1f} s | {r.locked_s:.1f} s "
              f"| {r.embed_s:.1f} s | {r.texts_embedded} | {r.new_nodes} | {q} |")
    inc, given, raw = f.by_label("writer, embedding"), f.by_label("writer, vectors"), f.by_label("raw")
    same = "the same" if given.decisions == inc.decisions else f"DIFFERENT with vectors given: {given.decisions}"
    print(f"decisions: {inc.decisions} ({same})")
    print(f"vectors given beforehand: {f.texts_precomputed} texts in {f.precompute_s:.1f} s "
          f"({f.texts_precomputed / max(f.precompute_s, 1e-9):.0f} texts/s, one process, untimed for the writer)")
    print(f"writer with vectors given vs raw upserts: {given.wall_s / max(raw.wall_s, 1e-9):.2f}x the time; "
          f"embedding included vs vectors given: {inc.wall_s / max(given.wall_s, 1e-9):.2f}x")
    per_day = given.papers_per_s * 86_400
    print(f"=> one writer caps a cluster at ~{given.papers_per_s:.0f} papers/s with vectors given "
          f"({per_day / 1e6:.1f} M papers/day), ~{inc.papers_per_s:.0f} papers/s embedding in the writer "
          f"({inc.papers_per_s * 86_400 / 1e6:.2f} M/day)")
    print(f"load average (1 min): {f.load[0]:.2f} at start, {f.load[1]:.2f} at end")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=0.15, help="SyntheticGraph scale (1.0 = 14,000 papers)")
    ap.add_argument("--papers", type=int, default=None, help="only the first N papers of the synthetic graph")
    ap.add_argument("--corpus", type=Path, default=None, help="PDFs to parse and extract offline instead")
    ap.add_argument("--concurrency", type=int, default=2, help="papers in flight at the writer (prefetch overlap)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    if args.corpus is not None:
        records = corpus_records(args.corpus, Settings(_env_file=None))
        describe = f"{len(records)} PDFs of {args.corpus}, offline parser + heuristic extractor"
    else:
        records = synthetic_records(SyntheticGraph(scale=args.scale), args.papers)
        describe = f"{len(records)} synthetic papers (SyntheticGraph scale {args.scale}), 5 triples each"
    if not records:
        raise SystemExit("no records to write")
    figures = measure(records, concurrency=args.concurrency, describe=describe)
    print_figures(figures)
    if args.json:
        args.json.write_text(json.dumps(asdict(figures), indent=2))


if __name__ == "__main__":
    main()
