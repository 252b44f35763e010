"""The embedded FalkorDB store and Neo4j side by side: one run, the same synthetic graph, the same machine.

    .venv/bin/python -m bench.bench_neo4j                    # quick: 1,000 papers (~5.4k nodes), a few minutes
    .venv/bin/python -m bench.bench_neo4j --papers 14000     # paper scale (~75k nodes, 70k triples)
    .venv/bin/python -m bench.bench_neo4j --papers 14000 --vectors words   # paper scale without the model
    .venv/bin/python -m bench.bench_neo4j --neo4j-uri bolt://127.0.0.1:7687   # a Neo4j already running
                                             # (MOTIVGRAPH_NEO4J_PASSWORD; its MotivGraph labels are wiped)

Without --neo4j-uri it starts a private Neo4j 5.26 (graph/neo4j_server.py: Java 17/21, artefacts from
Maven) in a temporary home on free loopback ports, and an embedded FalkorDB in a temporary data directory;
both are stopped at exit (Ctrl-C and SIGTERM included). Figures, each store beside the other:

- upserts through the GraphStore write path (papers, triples in batches, parents): nodes + relationships/s;
- the reads the tools are built from, p50/p99 over the same inputs on both: node_relation (find_nodes by
  name + get_node, as the service does), random_nodes(10), a page of 50 triples (a cursor walk) and a page
  filtered by a problem key;
- node_search by vector, k=10 over all types: FAISS (exact, and HNSW as `MOTIVGRAPH_INDEX_KIND=hnsw`
  builds it) against Neo4j's vector indexes (`MOTIVGRAPH_INDEX_BACKEND=neo4j`), p50/p99 and recall@10 of
  each against brute-force search over the very same vectors (both sides index one set of vectors,
  computed once);
- `graph push` (embedded -> Neo4j, `--replace`, the calls the command makes): nodes + relationships/s
  without embeddings, then the embeddings' write and Neo4j's index population;
- proof the push lost nothing: counts per label / relationship type on both sides, every node and paper
  record field by field, a sample of nodes (--sample) with all their relationships and properties, a
  sample of papers' triples (graph/compare.py), and the canonical JSONL export of both graphs line by line.

Prints a markdown table (with the command and the 1-minute load average at start and end: on a shared
machine the figures move with it). Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import signal
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.bench_api import free_port, time_calls
from bench.bench_api import queries as phrases
from bench.bench_foundation import pct, say
from bench.synthetic import FULL, TRIPLES_PER_PAPER, SyntheticGraph
from bench.synthetic_vectors import NOISE, WordVectors, bag
from motivgraph.embeddings import get_embedder
from motivgraph.embeddings.base import Embedder, Precision
from motivgraph.graph import open_store
from motivgraph.graph.compare import compare_stores
from motivgraph.graph.embedded import EmbeddedFalkorDB
from motivgraph.graph.identity import node_key
from motivgraph.graph.interchange import copy_graph, export_lines
from motivgraph.graph.models import TripleFilter
from motivgraph.graph.neo4j_server import Neo4jServer
from motivgraph.settings import EmbeddingSettings, GraphSettings, Neo4jSettings, Settings

PAPER_SCALE = FULL["triple"] // TRIPLES_PER_PAPER  # 14,000 papers: the source paper's graph
K = 10
STORES = ("falkordb", "neo4j")


# ------------------------------------------------------------------------------------ pure parts


def recall_at_k(hits: Sequence[str], truth: Sequence[str], k: int = K) -> float:
    """Share of the exact top-k keys found in the first k hits (1.0 when the truth is empty)."""
    want = set(truth[:k])
    if not want:
        return 1.0
    return len(want & set(hits[:k])) / len(want)


def exact_top_k(matrix: np.ndarray, keys: Sequence[str], queries: np.ndarray, k: int = K) -> list[list[str]]:
    """Brute-force top-k keys by inner product (cosine for unit rows), best first; ties by key."""
    scores = np.atleast_2d(queries) @ matrix.T
    out = []
    for row in scores:
        top = np.argpartition(-row, min(k, len(row) - 1))[: k + 1] if len(row) > k else np.arange(len(row))
        out.append([keys[i] for i in sorted(top, key=lambda i: (-row[i], keys[i]))[:k]])
    return out


def latency(ms: Sequence[float]) -> str:
    """'p50 / p99 ms' with the precision the magnitude deserves."""
    def f(x: float) -> str:
        return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:,.0f}"
    return f"{f(pct(list(ms), 50))} / {f(pct(list(ms), 99))} ms"


@dataclass
class Row:
    figure: str
    falkordb: str = ""
    neo4j: str = ""
    note: str = ""


@dataclass
class Report:
    command: str
    load_start: float
    load_end: float | None = None
    rows: list[Row] = field(default_factory=list)

    def add(self, figure: str, falkordb: str = "", neo4j: str = "", note: str = "") -> None:
        self.rows.append(Row(figure, falkordb, neo4j, note))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(report: Report) -> str:
    """The figures as a markdown table, headed by the command and the load average at start and end."""
    end = "?" if report.load_end is None else f"{report.load_end:.2f}"
    lines = [f"`{report.command}` (1-minute load average {report.load_start:.2f} at start, {end} at end)", "",
             "| figure | embedded FalkorDB | Neo4j 5 | note |", "|---|---|---|---|"]
    lines += [f"| {_cell(r.figure)} | {_cell(r.falkordb)} | {_cell(r.neo4j)} | {_cell(r.note)} |" for r in report.rows]
    return "\n".join(lines)


def rate(items: float, seconds: float) -> str:
    return f"{items / seconds:,.0f}/s" if seconds > 0 else "n/a"


# ------------------------------------------------------------------------------------ vectors


class TableEmbedder(Embedder):
    """Vectors computed once per node text and served to both indexes, so FAISS and Neo4j index the very same
    vectors and the model runs once; any other text (a query) goes to the inner embedder."""

    def __init__(self, inner: Embedder, table: dict[str, np.ndarray], precision: Precision = "fp32") -> None:
        self.inner = inner
        self.model_name, self.dim, self.backend = inner.model_name, inner.dim, inner.backend
        self.table = table
        self.precision: Precision = precision
        self.misses = 0

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.table))
        if missing:
            self.misses += len(missing)
            self.table.update(zip(missing, self.inner.embed(missing), strict=True))
        return np.stack([self.table[t] for t in texts]) if texts else np.empty((0, self.dim), np.float32)

    def embed_bulk(self, texts: Sequence[str], *, show_progress: bool = False) -> tuple[np.ndarray, Precision]:
        return self.embed(texts), self.precision


class WordEmbedder(Embedder):
    """`--vectors words`: bench_scale's word model (a fixed random vector per word, summed, plus per-text
    noise seeded by the text), no neural model: clustered like real embeddings, instant at paper scale."""

    model_name = "bench-word-model"
    dim = 384
    backend = "words"

    def __init__(self, seed: int) -> None:
        self.words = WordVectors(seed)

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        ids = [self.words.ids(t) for t in texts]
        v = bag(self.words.matrix(), ids) if texts else np.empty((0, self.dim), np.float32)
        for i, t in enumerate(texts):
            noise = np.random.default_rng(zlib.crc32(t.encode())).standard_normal(self.dim).astype(np.float32)
            v[i] += NOISE * noise / np.linalg.norm(noise)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def node_texts(g: SyntheticGraph) -> list[str]:
    from motivgraph.graph.vector_index import node_text  # local: faiss, off the bench's --help path

    return [node_text(n.name, n.description) for nodes in g.nodes.values() for n in nodes] + [
        node_text(p.parent.name, p.parent.description) for p in g.parents]


def make_embedder(kind: str, g: SyntheticGraph, seed: int) -> tuple[TableEmbedder, float]:
    """The table embedder over every node text of the graph, and the seconds the vectors took."""
    if kind == "words":
        inner: Embedder = WordEmbedder(seed)
    else:
        inner = get_embedder(EmbeddingSettings())
    texts = list(dict.fromkeys(node_texts(g)))
    t = time.perf_counter()
    table: dict[str, np.ndarray] = {}
    precision: Precision = "fp32"
    step = 4096
    for i in range(0, len(texts), step):
        chunk = texts[i : i + step]
        vecs, precision = inner.embed_bulk(chunk)
        table.update(zip(chunk, vecs, strict=True))
        if len(texts) > step:
            say(f"  embedded {min(i + step, len(texts))}/{len(texts)}  {time.perf_counter() - t:.0f}s")
    return TableEmbedder(inner, table, precision), time.perf_counter() - t


def search_queries(rng: random.Random, g: SyntheticGraph, n: int) -> list[str]:
    """Half agent-style phrases (bench_api), half fuzzy paraphrases of node names (never indexed as such)."""
    names = [x.name for nodes in g.nodes.values() for x in nodes]
    out = phrases(rng, n // 2)
    for name in rng.sample(names, n - n // 2):
        words = name.split()
        rng.shuffle(words)
        out.append(" ".join(words[: max(2, len(words) - 1)]))
    return out


# ------------------------------------------------------------------------------------ servers


class Servers:
    """The embedded FalkorDB and the Neo4j (private unless a URI is given), stopped by `stop()`."""

    def __init__(self, root: Path, args: argparse.Namespace) -> None:
        self.root, self.args = root, args
        self.falkordb: Any = None
        self.neo4j: Any = None

    def start(self) -> tuple[Any, Any]:
        self.falkordb = EmbeddedFalkorDB(self.root / "falkordb-data")
        self.falkordb.start()
        fsettings = Settings(data_dir=self.root / "falkordb-data",
                             graph=GraphSettings(falkordb_url=self.falkordb.url, name="bench"),
                             _env_file=None)  # type: ignore[call-arg]
        a = self.args
        if a.neo4j_uri:
            neo = Neo4jSettings(uri=a.neo4j_uri, user=a.neo4j_user, password=a.neo4j_password or "",
                                database=a.database)
        else:
            self.neo4j = Neo4jServer(self.root / "neo4j-home", password="bench-" + os.urandom(6).hex(),
                                     bolt_port=free_port(), http_port=free_port(), heap=a.neo4j_heap,
                                     pagecache=a.neo4j_pagecache)
            t = time.perf_counter()
            st = self.neo4j.start()
            say(f"private Neo4j {st.version} started in {time.perf_counter() - t:.1f}s at {self.neo4j.bolt_uri} "
                f"(heap {a.neo4j_heap}, page cache {a.neo4j_pagecache})")
            neo = Neo4jSettings(uri=self.neo4j.bolt_uri, user=self.neo4j.user, password=self.neo4j.password,
                                database="neo4j")
        nsettings = Settings(data_dir=self.root / "neo4j-data", graph=GraphSettings(backend="neo4j"), neo4j=neo,
                             _env_file=None)  # type: ignore[call-arg]
        return fsettings, nsettings

    def stop(self) -> None:
        for server in (self.neo4j, self.falkordb):
            if server is not None:
                try:
                    server.stop()
                except Exception as e:  # stopping is best effort; say so
                    say(f"stopping {type(server).__name__}: {e}")


# ------------------------------------------------------------------------------------ measurements


def upsert_all(store: Any, g: SyntheticGraph, batch: int) -> dict[str, Any]:
    """The graph written through the GraphStore write path; nodes + relationships/s."""
    t = time.perf_counter()
    store.upsert_papers(g.papers)
    for b in g.triple_batches(batch):
        store.upsert_triples(b)
    for i in range(0, len(g.parents), batch):
        store.add_parents(g.parents[i : i + batch])
    seconds = time.perf_counter() - t
    st = store.stats()
    nodes, rels = sum(st.nodes.values()), sum(st.relationships.values())
    return {"s": seconds, "nodes": nodes, "rels": rels, "per_s": (nodes + rels) / seconds,
            "triples_per_s": len(g.triples) / seconds}


def warm_up(stores: dict[str, Any], seed: int) -> None:
    """A small other graph written, read and cleared on each store before anything is timed: a server that
    has been up a while has its query plans cached and its code compiled (a fresh JVM runs the first
    thousand statements several times slower), and the figures are about that server."""
    small = SyntheticGraph(scale=100 / PAPER_SCALE, seed=seed + 7)
    for store in stores.values():
        upsert_all(store, small, 100)
        for x in small.nodes["challenge"][:20]:
            node_relation(store, x.name)
        store.random_nodes(10, seed=1)
        store.page_triples(limit=50)
        store.clear()
        store.ensure_schema()


def node_relation(store: Any, name: str) -> int:
    """What the node_relation service asks of the store for one name (api/services/node_relation.py)."""
    n = 0
    for rec in store.find_nodes(name):
        if store.get_node(rec.key, cap=31, triples=21) is not None:
            n += 1
    return n


def page_walk(store: Any, pages: int) -> Callable[[int], Any]:
    """page_triples(limit=50) following next_cursor, starting over at the end."""
    cursor: list[str | None] = [None]

    def one(_i: int) -> Any:
        page = store.page_triples(cursor=cursor[0], limit=50)
        cursor[0] = page.next_cursor
        return page

    return one


def read_latencies(stores: dict[str, Any], g: SyntheticGraph, n: int, seed: int) -> dict[str, dict[str, list[float]]]:
    rng = random.Random(seed)
    named = [(t, x.name) for t, nodes in g.nodes.items() for x in nodes] + [(p.type, p.parent.name) for p in g.parents]
    names = [nm for _, nm in rng.sample(named, min(n, len(named)))]
    seeds = [rng.randrange(2**31) for _ in range(n)]
    problems = [node_key("problem", x.name) for x in rng.sample(g.nodes["problem"], min(n, len(g.nodes["problem"])))]
    out: dict[str, dict[str, list[float]]] = {}
    for name, store in stores.items():
        calls: dict[str, tuple[Callable[[Any], Any], list[Any]]] = {
            "round_trip": (lambda _i, s=store: s._read("RETURN 1 AS one"), list(range(n))),
            "node_relation": (lambda nm, s=store: node_relation(s, nm), names),
            "random_nodes": (lambda sd, s=store: s.random_nodes(10, seed=sd), seeds),
            "page": (page_walk(store, n), list(range(n))),
            "page_problem": (lambda pk, s=store: s.page_triples(TripleFilter(problem=pk), limit=50), problems),
        }
        out[name] = {what: time_calls(fn, inputs, warm=5) for what, (fn, inputs) in calls.items()}
        say(f"  reads on {name}: " + ", ".join(f"{k} {latency(v)}" for k, v in out[name].items()))
    return out


def wait_online(vec: Any, timeout_s: float = 600.0) -> tuple[Any, float]:
    t = time.perf_counter()
    while True:
        st = vec.status()
        if st.state != "missing" or "populated" not in st.message or time.perf_counter() - t > timeout_s:
            return st, time.perf_counter() - t
        time.sleep(0.2)


def search_latency(fn: Callable[[np.ndarray], list[list[Any]]], qv: np.ndarray) -> tuple[list[float], list[list[str]]]:
    for v in qv[:5]:
        fn(v[None, :])
    lat, keys = [], []
    for v in qv:
        t = time.perf_counter()
        hits = fn(v[None, :])[0]
        lat.append((time.perf_counter() - t) * 1000)
        keys.append([h.key for h in hits])
    return lat, keys


def export_equal(a: Any, b: Any) -> tuple[int, int, float]:
    """(lines, lines that differ, seconds): the canonical JSONL export of both graphs, line by line."""
    t = time.perf_counter()
    lines = differ = 0
    for x, y in zip_longest(export_lines(a), export_lines(b)):
        lines += 1
        differ += x != y
    return lines, differ, time.perf_counter() - t


# ------------------------------------------------------------------------------------ main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--papers", type=int, default=1000,
                      help=f"Papers of the synthetic graph, 5 triples each (default 1000; {PAPER_SCALE} is the "
                      "paper's scale).")
    size.add_argument("--paper-scale", action="store_true", help=f"Same as --papers {PAPER_SCALE}.")
    ap.add_argument("--seed", type=int, default=13, help="Seed of the synthetic graph and of the workloads.")
    ap.add_argument("--queries", type=int, default=300, help="Calls per read and search measurement (default 300).")
    ap.add_argument("--sample", type=int, default=200, help="Nodes and papers compared in full after the push.")
    ap.add_argument("--batch", type=int, default=500, help="Triples per upsert batch (the default batch size).")
    ap.add_argument("--vectors", choices=("model", "words"), default="model",
                    help="model: all-MiniLM-L6-v2 (bf16 bulk where the CPU has it); words: bench_scale's word "
                    "model, no neural network (paper scale in minutes).")
    ap.add_argument("--neo4j-uri", default=None, help="Use this Neo4j (its MotivGraph labels are wiped) instead of a "
                    "private one.")
    ap.add_argument("--neo4j-user", default="neo4j")
    ap.add_argument("--neo4j-password", default=os.environ.get("MOTIVGRAPH_NEO4J_PASSWORD"),
                    help="(default: $MOTIVGRAPH_NEO4J_PASSWORD)")
    ap.add_argument("--database", default="neo4j")
    ap.add_argument("--neo4j-heap", default="1g", help="Heap of the private Neo4j (default 1g).")
    ap.add_argument("--neo4j-pagecache", default="1g", help="Page cache of the private Neo4j (default 1g).")
    ap.add_argument("--json", type=Path, default=None, help="Also write the figures to this JSON file.")
    args = ap.parse_args(argv)
    if args.paper_scale:
        args.papers = PAPER_SCALE
    if args.papers < 10:
        ap.error("--papers must be at least 10")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwinds like Ctrl-C: both servers are stopped
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    command = "python -m bench.bench_neo4j " + shlex.join(sys.argv[1:] if argv is None else argv)
    report = Report(command=command.strip(), load_start=os.getloadavg()[0])
    fig: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items() if k != "neo4j_password"},
                           "load_start": report.load_start, "cpus": os.cpu_count()}
    wall = time.perf_counter()
    say(f"# FalkorDB vs Neo4j  papers={args.papers}  vectors={args.vectors}  load1={report.load_start:.2f}")

    g = SyntheticGraph(scale=args.papers / PAPER_SCALE, seed=args.seed)
    summary = g.summary()
    fig["graph"] = summary
    say(f"synthetic graph: {summary}")

    root = Path(tempfile.mkdtemp(prefix="mg-bench-neo4j-"))
    servers = Servers(root, args)
    stores: dict[str, Any] = {}
    try:
        fsettings, nsettings = servers.start()
        stores = {"falkordb": open_store(fsettings), "neo4j": open_store(nsettings)}
        for s in stores.values():
            s.clear()
            s.ensure_schema()
        run(args, g, stores, fsettings, nsettings, report, fig)
    finally:
        for s in stores.values():
            s.close()
        servers.stop()
        shutil.rmtree(root, ignore_errors=True)
    report.load_end = fig["load_end"] = os.getloadavg()[0]
    fig["wall_s"] = time.perf_counter() - wall
    report.add("wall time of the run", f"{fig['wall_s']:.0f} s")
    print()
    print(markdown_table(report), flush=True)
    if args.json:
        args.json.write_text(json.dumps(fig, indent=2, default=str))
    return fig


def run(args: argparse.Namespace, g: SyntheticGraph, stores: dict[str, Any], fsettings: Any, nsettings: Any,
        report: Report, fig: dict[str, Any]) -> None:
    from motivgraph.graph.neo4j_search import (  # local: faiss, off the bench's --help path
        Neo4jNodeVectors,
        push_embeddings,
    )
    from motivgraph.graph.vector_index import NodeIndex, node_text  # local: faiss, off the bench's --help path

    falkor, neo = stores["falkordb"], stores["neo4j"]
    summary = fig["graph"]
    nodes_total = summary["problem"] + summary["challenge"] + summary["solution"] + summary["parent"]
    report.add("graph", f"{summary['paper']:,} papers, {summary['triple']:,} triples, ~{nodes_total:,} P/C/S nodes "
               f"(synthetic, seed {args.seed})")

    # -- upserts through the GraphStore write path ---------------------------------------------------
    t = time.perf_counter()
    warm_up(stores, args.seed)
    say(f"both stores warmed up on a 100-paper graph ({time.perf_counter() - t:.0f}s)")
    up = {}
    for name, store in stores.items():
        up[name] = upsert_all(store, g, args.batch)
        say(f"upsert on {name}: {up[name]['nodes']} nodes + {up[name]['rels']} rels in {up[name]['s']:.1f}s = "
            f"{up[name]['per_s']:,.0f}/s")
    fig["upsert"] = up
    f, n = up["falkordb"], up["neo4j"]
    report.add("upsert (papers, triples, parents)", f"{f['s']:.1f} s: {f['per_s']:,.0f} nodes+rels/s",
               f"{n['s']:.1f} s: {n['per_s']:,.0f} nodes+rels/s",
               f"{f['nodes']:,} nodes + {f['rels']:,} rels; batches of {args.batch} triples; after a warm-up")

    # -- reads -------------------------------------------------------------------------------------------
    reads = read_latencies(stores, g, args.queries, args.seed)
    fig["reads_ms"] = {s: {k: {"p50": pct(v, 50), "p99": pct(v, 99)} for k, v in r.items()} for s, r in reads.items()}
    for key, what, note in (
        ("round_trip", "one read round trip p50 / p99", "RETURN 1 through the store's read path: the floor"),
        ("node_relation", "node_relation p50 / p99", "find_nodes(name) + get_node, as the service"),
        ("random_nodes", "random_nodes(10) p50 / p99", "seeded"),
        ("page", "triples page of 50 p50 / p99", "page_triples, cursor walk"),
        ("page_problem", "triples page by problem key p50 / p99", "page_triples(problem=key)"),
    ):
        report.add(what, latency(reads["falkordb"][key]), latency(reads["neo4j"][key]), note)

    # -- graph push: embedded -> Neo4j -----------------------------------------------------------------
    say("graph push (replace, no embeddings) ...")
    t = time.perf_counter()
    push = copy_graph(falkor, neo, batch_size=nsettings.graph.batch_size, replace=True)
    push_s = time.perf_counter() - t
    assert push.ok, push.errors[:5]
    items = up["falkordb"]["nodes"] + up["falkordb"]["rels"]
    fig["push"] = {"s": push_s, "per_s": items / push_s, "report": push.model_dump(exclude={"errors"})}
    say(f"  pushed in {push_s:.1f}s = {items / push_s:,.0f} nodes+rels/s")

    say("comparing the two graphs ...")
    t = time.perf_counter()
    cmp = compare_stores(falkor, neo, sample=args.sample, seed=args.seed, progress=lambda m: say(f"  {m}"))
    cmp_s = time.perf_counter() - t
    lines, differ, export_s = export_equal(falkor, neo)
    fig["push_check"] = {"ok": cmp.ok, "differences": cmp.differences, "counts": cmp.counts, "s": cmp_s,
                         "export_lines": lines, "export_lines_differ": differ, "export_s": export_s}
    say(f"  {cmp.summary()} ({cmp_s:.1f}s); export: {lines} lines, {differ} differ ({export_s:.1f}s)")
    for name, (a, b) in cmp.counts.items():
        say(f"    {name:28s} {a:>9,} {b:>9,}{'' if a == b else '  <-- differs'}")

    # -- vectors: once, the same for both indexes -----------------------------------------------------
    say(f"vectors ({args.vectors}) for {nodes_total} node texts ...")
    emb, embed_s = make_embedder(args.vectors, g, args.seed)
    fig["embed"] = {"s": embed_s, "texts": len(emb.table), "precision": emb.precision}

    say("graph push: the embeddings and Neo4j's vector + full-text indexes ...")
    t = time.perf_counter()
    pushed = push_embeddings(neo, emb, falkor.iter_nodes())
    emb_write_s = time.perf_counter() - t
    nvec = Neo4jNodeVectors(nsettings, neo, emb)
    st, online_s = wait_online(nvec)
    fig["push_embeddings"] = {"write_s": emb_write_s, "online_s": online_s, "nodes": pushed.nodes, "state": st.state}
    say(f"  {pushed.nodes} embeddings written in {emb_write_s:.1f}s, indexes online after {online_s:.1f}s more "
        f"({st.state})")
    with_emb_s = push_s + emb_write_s + online_s
    report.add("graph push, no embeddings", "(source)",
               f"{push_s:.1f} s: {items / push_s:,.0f} nodes+rels/s", "copy_graph --replace, as the command")
    report.add("graph push with embeddings", "(source)",
               f"{with_emb_s:.1f} s: {items / with_emb_s:,.0f} nodes+rels/s",
               f"+ {pushed.nodes:,} vectors written {emb_write_s:.1f} s, index population {online_s:.1f} s; "
               f"the model's time not included (below)")
    report.add("push check", "", "identical" if cmp.ok and not differ else
               f"{cmp.n_differences} differences, {differ} export lines differ",
               f"counts of {len(cmp.counts)} kinds equal: {cmp.counts_equal}; {cmp.nodes_compared:,} nodes + "
               f"{cmp.papers_compared:,} papers field by field; {cmp.nodes_sampled} sampled nodes with "
               f"{cmp.relationships_compared:,} relationships; {cmp.papers_sampled} papers' {cmp.triples_compared} "
               f"triples; {lines:,} export lines ({cmp_s + export_s:.0f} s)")

    # -- node_search by vector ---------------------------------------------------------------------------
    recs = list(falkor.iter_nodes())
    keys = [r.key for r in recs]
    matrix = emb.embed([node_text(r.name, r.description) for r in recs])
    rng = random.Random(args.seed + 1)
    queries = search_queries(rng, g, args.queries)
    qv = emb.inner.embed(queries)
    truth = exact_top_k(matrix, keys, qv)
    searchers: dict[str, Callable[[np.ndarray], list[list[Any]]]] = {}
    build: dict[str, float] = {}
    for kind in ("exact", "hnsw"):
        s = fsettings.model_copy(deep=True)
        s.data_dir = fsettings.data_dir / f"index-{kind}"
        s.index.kind = kind
        idx = NodeIndex.open(s, falkor, emb)
        t = time.perf_counter()
        idx.rebuild()
        build[kind] = time.perf_counter() - t
        searchers[f"faiss_{kind}"] = lambda v, i=idx: i.search_vectors(v, k=K, check=False)
    searchers["neo4j"] = lambda v: nvec.search_vectors(v, k=K)
    # queryNodes(index, n, v) explores n candidates: the search asks index.hnsw_ef_search of them (as FAISS's
    # efSearch); with 8 it asks k = 10, the search before fb4a646
    narrow = nsettings.model_copy(deep=True)
    narrow.index.hnsw_ef_search = 8
    nvec_k = Neo4jNodeVectors(narrow, neo, emb)
    searchers["neo4j_k"] = lambda v: nvec_k.search_vectors(v, k=K)
    search: dict[str, dict[str, Any]] = {}
    for name, fn in searchers.items():
        lat, got = search_latency(fn, qv)
        rec = float(np.mean([recall_at_k(h, tr) for h, tr in zip(got, truth, strict=True)]))
        search[name] = {"p50": pct(lat, 50), "p99": pct(lat, 99), "recall_at_10": rec, "lat": lat}
        say(f"  node_search {name}: {latency(lat)}, recall@10 {rec:.3f}")
    fig["search"] = {k: {x: y for x, y in v.items() if x != "lat"} for k, v in search.items()}
    fig["index_build_s"] = build
    def found(name: str) -> str:
        return f"{latency(search[name]['lat'])}, recall@10 {search[name]['recall_at_10']:.3f}"

    report.add("node_search by vector, k=10, all types: FAISS HNSW / Neo4j vector index (HNSW)",
               found("faiss_hnsw"), found("neo4j"),
               f"{len(queries)} queries, the query vectors given; recall against brute force over the same "
               f"vectors; {fsettings.index.hnsw_ef_search} candidates on both (FAISS efSearch, Neo4j queryNodes), "
               f"FAISS M={fsettings.index.hnsw_m}; Neo4j: one read per node type")
    report.add("node_search by vector: Neo4j searching only k = 10 candidates", "", found("neo4j_k"),
               "queryNodes(index, 10, v): the search before fb4a646 (now hnsw_ef_search candidates, best 10 kept)")
    report.add("node_search by vector, FAISS exact (the default up to "
               f"{fsettings.index.hnsw_threshold:,} nodes per type)", found("faiss_exact"), "",
               f"index builds from the computed vectors: exact {build['exact']:.1f} s, HNSW {build['hnsw']:.1f} s")
    vec_note = (f"all-MiniLM-L6-v2 {emb.precision}, {len(emb.table) / embed_s:,.0f} texts/s"
                if args.vectors == "model" else "bench_scale's word model (no neural network)")
    report.add("vectors (computed once, both indexes)", f"{len(emb.table):,} texts in {embed_s:.1f} s", "", vec_note)
    fig["load_end"] = os.getloadavg()[0]


if __name__ == "__main__":
    main()
