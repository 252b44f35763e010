"""Foundation benchmark: a paper-scale synthetic graph into the embedded FalkorDB, then the FAISS
node index (exact and HNSW) over it. Prints figures; asserts nothing about time.

    .venv/bin/python -m bench.bench_foundation              # full scale (~12k P, 31k C, 25.5k S, 70k triples)
    .venv/bin/python -m bench.bench_foundation --scale 0.1  # quick run
    .venv/bin/python -m bench.bench_foundation --json out.json

Figures: upsert throughput (nodes/s, relationships/s) on the embedded store, embedding throughput
(texts/s), index build times (graph + exact index beside its floor, upserts + embedding alone; the
HNSW and auto indexes by `reindex --kind`, which reuses the stored vectors), index flush cost (the
old whole-generation rewrite against the append log, same run, interleaved), search latency p50/p99
in process for exact and HNSW (with and without the staleness check, which costs one graph query),
HNSW recall@10 against exact, peak RSS (this process and the FalkorDB server), on-disk size
(FalkorDB data + indexes), JSONL export time and size, total wall time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import resource
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.synthetic import SyntheticGraph
from motivgraph.embeddings import get_embedder
from motivgraph.embeddings.base import Embedder, Precision
from motivgraph.graph import open_store
from motivgraph.graph.embedded import EmbeddedFalkorDB
from motivgraph.graph.interchange import export_to
from motivgraph.graph.models import NodeRef
from motivgraph.settings import EmbeddingSettings, GraphSettings, Settings


class TimedEmbedder(Embedder):
    """Wraps the real embedder and accounts the time spent embedding."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        self.backend = inner.backend  # the index stamps it: a server with the same setting must accept the index
        self.seconds = 0.0
        self.texts = 0
        self.precisions: set[str] = set()

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        t = time.perf_counter()
        out = self.inner.embed(texts, show_progress=show_progress)
        self.seconds += time.perf_counter() - t
        self.texts += len(texts)
        return out

    def embed_bulk(self, texts: Sequence[str], *, show_progress: bool = False) -> tuple[np.ndarray, Precision]:
        t = time.perf_counter()
        out, precision = self.inner.embed_bulk(texts, show_progress=show_progress)
        self.seconds += time.perf_counter() - t
        self.texts += len(texts)
        self.precisions.add(precision)
        return out, precision


class SyntheticVectors(Embedder):
    """Deterministic unit vectors per text, no model: `--synthetic-vectors` measures the graph, FAISS and
    index I/O at paper scale when embedding would take hours on a loaded machine (the model's
    throughput is then measured on a sample and printed separately)."""

    model_name = "synthetic-hash"
    dim = 384

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
            out[i] = np.random.default_rng(seed).standard_normal(self.dim)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def rss_peak_mb(pid: int | None = None) -> float | None:
    if pid is None:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


def say(msg: str) -> None:
    print(msg, flush=True)


def flush_bench(
    settings: Any, store: Any, emb: TimedEmbedder, data_dir: Path, per_flush: int, flushes: int
) -> dict[str, Any]:
    """`flushes` index writes of `per_flush` new nodes each on copies of the built index, interleaved:
    the old path (every flush writes a whole new generation: all vectors, metadata and FAISS) against
    the append path (`NodeIndex.add`: the new rows go to the live generation's log). Vectors are
    computed once beforehand, so only the index write is timed. Then the time to open each result
    (the append path replays its log) and whether both answer the same."""
    from motivgraph.graph.index_store import (  # local: faiss, off the bench's --help path
        apply_record,
        text_hash,
        write_lock,
    )
    from motivgraph.graph.vector_index import NodeIndex, node_text  # local: faiss, off the bench's --help path

    kinds = ("problem", "challenge", "solution")
    nodes = [NodeRef(key=f"{kinds[i % 3]}:flush bench node {i}", type=kinds[i % 3], name=f"Flush bench node {i}",
                     description=f"a node written by index flush {i // per_flush}", level=0)
             for i in range(per_flush * flushes)]
    vecs = emb.inner.embed([node_text(n.name, n.description) for n in nodes])
    idx = {}
    for path in ("rewrite", "append"):
        s = settings.model_copy(deep=True)
        s.data_dir = data_dir / f"flush-{path}"
        shutil.copytree(settings.index_dir, s.index_dir)
        idx[path] = NodeIndex.open(s, store, emb)
    times: dict[str, list[float]] = {"rewrite": [], "append": []}
    for f in range(flushes):
        batch, bv = nodes[f * per_flush : (f + 1) * per_flush], vecs[f * per_flush : (f + 1) * per_flush]
        old = idx["rewrite"]
        t = time.perf_counter()
        with write_lock(old.root):  # what NodeIndex.add did before: copy, grow, write a whole generation
            adds: dict[str, list[list[Any]]] = {}
            order = []
            for g in kinds:
                rows = [(n, v) for n, v in zip(batch, bv, strict=True) if n.type == g]
                adds[g] = [[n.key, n.name, 0, text_hash(node_text(n.name, n.description))] for n, _ in rows]
                order += [v for _, v in rows]
            assert old._stamp is not None
            rec = {"gv": old._stamp["graph_version"], "add": adds}
            old._commit(apply_record(old._groups, rec, np.vstack(order), old.cfg), int(rec["gv"]))
        times["rewrite"].append(time.perf_counter() - t)
        t = time.perf_counter()
        idx["append"].add(batch, vectors=list(bv))
        times["append"].append(time.perf_counter() - t)
    out: dict[str, Any] = {"flushes": flushes, "nodes_per_flush": per_flush,
                           "base_items": sum(idx["append"].status().counts.values()) - len(nodes)}
    for path in ("rewrite", "append"):
        out[f"{path}_mean_s"] = statistics.mean(times[path])
        out[f"{path}_total_s"] = sum(times[path])
        t = time.perf_counter()
        reopened = NodeIndex.open(idx[path].settings, store, emb)
        out[f"{path}_open_s"] = time.perf_counter() - t
        idx[path] = reopened
    q = vecs[:: max(1, len(vecs) // 50)]
    same = [[h.key for h in a] == [h.key for h in b] for a, b in zip(
        idx["rewrite"].search_vectors(q, k=10, check=False), idx["append"].search_vectors(q, k=10, check=False),
        strict=True)]
    out["same_results"] = all(same)
    out["rewrite_vs_append"] = out["rewrite_mean_s"] / out["append_mean_s"]
    say(
        f"index flush of {per_flush} nodes onto {out['base_items']} (x{flushes}, interleaved): full rewrite "
        f"{out['rewrite_mean_s'] * 1000:.0f} ms, append {out['append_mean_s'] * 1000:.0f} ms "
        f"({out['rewrite_vs_append']:.1f}x faster); open after: {out['rewrite_open_s']:.2f}s vs "
        f"{out['append_open_s']:.2f}s (log replayed); same top-10: {out['same_results']}"
    )
    return out



def bulk_precision_baseline(g: SyntheticGraph, inner: Embedder, say: Any, n: int = 4096) -> dict[str, Any]:
    """The build's embedding against fp32 (embedding.bulk_precision=fp32) on the same node texts, in the same
    run, alternating: the baseline the bf16 bulk path is measured against (texts/s each, and the ratio)."""
    texts = [f"{x.name}: {x.description}" for nodes in g.nodes.values() for x in nodes[: n // 3 + 1]][:n]
    fp32 = get_embedder(EmbeddingSettings(bulk_precision="fp32"))
    seconds = {"configured": 0.0, "fp32": 0.0}
    precision = "fp32"
    for r in range(2):
        for name in (("configured", "fp32") if r % 2 == 0 else ("fp32", "configured")):
            t0 = time.perf_counter()
            if name == "fp32":
                fp32.embed(texts)
            else:
                precision = inner.embed_bulk(texts)[1]
            seconds[name] += time.perf_counter() - t0
    rates = {k: 2 * len(texts) / v for k, v in seconds.items()}
    say(f"bulk embedding on {len(texts)} node texts, same run: {precision} {rates['configured']:,.0f} texts/s, "
        f"fp32 {rates['fp32']:,.0f} texts/s = {rates['configured'] / rates['fp32']:.2f}x")
    return {"precision": precision, "texts": len(texts), "texts_per_s": rates["configured"],
            "fp32_texts_per_s": rates["fp32"], "ratio": rates["configured"] / rates["fp32"]}

def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="Fraction of the paper-scale graph (default 1.0).")
    ap.add_argument("--seed", type=int, default=13, help="Seed of the synthetic graph.")
    ap.add_argument("--batch", type=int, default=500, help="Triples per upsert batch.")
    ap.add_argument("--queries", type=int, default=300, help="Search queries per index kind.")
    ap.add_argument("--keep", type=Path, default=None, help="Keep the data directory here (default: temp, removed).")
    ap.add_argument("--json", type=Path, default=None, help="Also write the figures to this JSON file.")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice).")
    ap.add_argument("--synthetic-vectors", action="store_true",
                    help="Hash vectors instead of the model for the index (model throughput sampled apart).")
    ap.add_argument("--flushes", type=int, default=6, help="Index flushes in the flush comparison.")
    ap.add_argument("--flush-nodes", type=int, default=500, help="New nodes per flush (the miner sink's batch).")
    args = ap.parse_args(argv)
    import torch  # local: torch, off the bench's --help path

    if args.threads:
        torch.set_num_threads(args.threads)

    # SIGTERM unwinds like Ctrl-C, so the FalkorDB server this run started is always stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from motivgraph.graph.vector_index import NodeIndex  # local: faiss, off the bench's --help path

    wall0 = time.perf_counter()
    data_dir = args.keep or Path(tempfile.mkdtemp(prefix="mg-bench-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    fig: dict[str, Any] = {
        "scale": args.scale, "seed": args.seed, "cpus": os.cpu_count(), "python": platform.python_version(),
        "machine_load_1m_at_start": os.getloadavg()[0], "torch_threads": torch.get_num_threads(),
    }
    say(
        f"# MotivGraph foundation benchmark  scale={args.scale}  data={data_dir}  "
        f"load1={fig['machine_load_1m_at_start']:.2f}  torch threads={fig['torch_threads']}"
    )

    t = time.perf_counter()
    g = SyntheticGraph(scale=args.scale, seed=args.seed)
    summary = g.summary()
    _ = g.parents
    fig["generate_s"] = time.perf_counter() - t
    fig["graph"] = summary
    say(f"generated {summary} in {fig['generate_s']:.1f}s")

    server = EmbeddedFalkorDB(data_dir)
    server.start()
    try:
        settings = Settings(
            data_dir=data_dir, graph=GraphSettings(falkordb_url=server.url, name="bench"), _env_file=None
        )  # type: ignore[call-arg]
        store = open_store(settings)
        store.clear()
        store.ensure_schema()

        # -- upserts -------------------------------------------------------------------------------
        t = time.perf_counter()
        store.upsert_papers(g.papers)
        t_papers = time.perf_counter() - t
        t = time.perf_counter()
        for n_batches, batch in enumerate(g.triple_batches(args.batch), start=1):
            store.upsert_triples(batch)
            if n_batches % 20 == 0:
                done = n_batches * args.batch
                say(f"  triples {min(done, summary['triple'])}/{summary['triple']}  {time.perf_counter() - t:.0f}s")
        t_triples = time.perf_counter() - t
        t = time.perf_counter()
        for i in range(0, len(g.parents), args.batch):
            store.add_parents(g.parents[i : i + args.batch])
        t_parents = time.perf_counter() - t
        st = store.stats()
        n_nodes = sum(st.nodes.values())
        n_rels = sum(st.relationships.values())
        t_upsert = t_papers + t_triples + t_parents
        fig["store"] = {
            "nodes": st.nodes, "relationships": st.relationships, "triples": st.triples,
            "papers_s": t_papers, "triples_s": t_triples, "parents_s": t_parents, "total_s": t_upsert,
            "nodes_per_s": n_nodes / t_upsert, "rels_per_s": n_rels / t_upsert,
            "triples_per_s": summary["triple"] / t_triples,
        }
        say(
            f"upsert: {n_nodes} nodes, {n_rels} relationships in {t_upsert:.1f}s "
            f"(papers {t_papers:.1f}s, triples {t_triples:.1f}s, parents {t_parents:.1f}s) → "
            f"{n_nodes / t_upsert:,.0f} nodes/s, {n_rels / t_upsert:,.0f} rels/s, "
            f"{summary['triple'] / t_triples:,.0f} triples/s"
        )

        # -- embedding + exact index -----------------------------------------------------------------
        t = time.perf_counter()
        if args.synthetic_vectors:
            model = get_embedder(EmbeddingSettings())
            sample = [f"{n.name}: {n.description}" for n in g.nodes["challenge"][:512]]
            t0 = time.perf_counter()
            model.embed(sample)
            fig["model_texts_per_s_sample"] = len(sample) / (time.perf_counter() - t0)
            say(f"model throughput on {len(sample)} node texts: {fig['model_texts_per_s_sample']:,.0f} texts/s "
                "(the index below uses synthetic vectors)")
            emb = TimedEmbedder(SyntheticVectors())
        else:
            emb = TimedEmbedder(get_embedder(EmbeddingSettings()))
        fig["model_load_s"] = time.perf_counter() - t
        settings.index.kind = "exact"
        idx = NodeIndex.open(settings, store, emb)
        t = time.perf_counter()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            if time.perf_counter() - last[0] > 30:
                last[0] = time.perf_counter()
                say(f"  embedded {done}/{total}  {time.perf_counter() - t:.0f}s")

        status = idx.rebuild(progress=progress)
        t_build = time.perf_counter() - t
        n_items = sum(status.counts.values())
        fig["index_exact"] = {
            "items": n_items, "build_s": t_build, "embed_s": emb.seconds,
            "embed_texts_per_s": emb.texts / emb.seconds, "faiss_and_io_s": t_build - emb.seconds - 0.0,
        }
        fig["index_exact"]["precision"] = status.precision
        say(
            f"exact index: {n_items} nodes in {t_build:.1f}s (embedding {emb.seconds:.1f}s = "
            f"{emb.texts / emb.seconds:,.0f} texts/s in {status.precision}; FAISS + reading the graph + writing "
            f"{t_build - emb.seconds:.1f}s)"
        )
        if not args.synthetic_vectors:
            fig["bulk_precision"] = bulk_precision_baseline(g, emb.inner, say)

        # -- HNSW, and the default `auto` choice, from the same vectors: what `reindex --kind` does now
        # (a copy of the exact index rebuilt with another kind reuses every stored vector) ------------
        def derived(subdir: str, kind_setting: str) -> tuple[NodeIndex, Settings, float, int]:
            dsettings = settings.model_copy(deep=True)
            dsettings.data_dir = data_dir / subdir
            dsettings.index.kind = kind_setting  # type: ignore[assignment]
            shutil.copytree(settings.index_dir, dsettings.index_dir)
            didx = NodeIndex.open(dsettings, store, emb)
            before = emb.texts
            t0 = time.perf_counter()
            didx.rebuild()
            return didx, dsettings, time.perf_counter() - t0, emb.texts - before

        hidx, hsettings, t_hnsw, hnsw_embedded = derived("hnsw", "hnsw")
        # what re-embedding every node (the old `reindex --kind`) costs: measured above, or at the
        # model's sampled rate when the index holds synthetic vectors
        embed_all = n_items / fig["model_texts_per_s_sample"] if args.synthetic_vectors else emb.seconds
        fig["index_hnsw"] = {
            "build_s": t_hnsw, "m": hsettings.index.hnsw_m, "ef_construction": hsettings.index.hnsw_ef_construction,
            "ef_search": hsettings.index.hnsw_ef_search, "texts_embedded": hnsw_embedded,
            "embedding_all_s": embed_all,
        }
        say(
            f"HNSW index (M={hsettings.index.hnsw_m}, efC={hsettings.index.hnsw_ef_construction}) "
            f"by `reindex --kind hnsw`: {t_hnsw:.1f}s, {hnsw_embedded} texts embedded; re-embedding every node "
            f"first would add {embed_all:.0f}s{' (at the sampled model rate)' if args.synthetic_vectors else ''}"
        )
        aidx, asettings, _, _ = derived("auto", "auto")
        auto_kinds = {gname: grp.kind for gname, grp in aidx._groups.items()}
        fig["index_auto_kinds"] = auto_kinds
        say(f"default index (kind=auto, hnsw_threshold={asettings.index.hnsw_threshold}): {auto_kinds}")

        # -- index flushes during an ingest: the old full rewrite per flush vs the append log ---------
        fig["flush"] = flush_bench(settings, store, emb, data_dir, args.flush_nodes, args.flushes)

        # -- search latency ----------------------------------------------------------------------------
        rng = random.Random(args.seed)
        all_nodes = [n for nodes in g.nodes.values() for n in nodes]
        queries = []
        for n in rng.sample(all_nodes, min(args.queries, len(all_nodes))):
            words = n.name.split()
            rng.shuffle(words)  # a fuzzy paraphrase, not the stored text
            queries.append(" ".join(words[: max(2, len(words) - 1)]))
        recall: list[float] = []
        for name, index in (("exact", idx), ("hnsw", hidx), ("auto", aidx)):
            for check in (False, True):
                index.search(queries[0], k=10, check=check)  # warm
                lat = []
                for q in queries:
                    t = time.perf_counter()
                    index.search(q, k=10, check=check)
                    lat.append((time.perf_counter() - t) * 1000)
                key = f"search_{name}{'_checked' if check else ''}_ms"
                fig[key] = {"p50": pct(lat, 50), "p99": pct(lat, 99), "mean": statistics.mean(lat)}
                say(
                    f"search {name:5s} {'(+staleness check)' if check else '                  '} k=10: "
                    f"p50 {pct(lat, 50):.2f} ms  p99 {pct(lat, 99):.2f} ms"
                )
        # FAISS alone (query vectors precomputed), and recall of HNSW against exact
        qv = emb.inner.embed(queries)
        for name, index in (("exact", idx), ("hnsw", hidx)):
            lat = []
            for v in qv:
                t = time.perf_counter()
                index.search_vectors(v[None, :], k=10, check=False)
                lat.append((time.perf_counter() - t) * 1000)
            fig[f"faiss_only_{name}_ms"] = {"p50": pct(lat, 50), "p99": pct(lat, 99)}
            say(f"faiss only {name:5s}: p50 {pct(lat, 50):.3f} ms  p99 {pct(lat, 99):.3f} ms")
        exact_hits = idx.search_vectors(qv, k=10, check=False)
        hnsw_hits = hidx.search_vectors(qv, k=10, check=False)
        for a, b in zip(exact_hits, hnsw_hits, strict=True):
            recall.append(len({h.key for h in a} & {h.key for h in b}) / max(1, len(a)))
        fig["hnsw_recall_at_10"] = statistics.mean(recall)
        say(f"HNSW recall@10 vs exact: {fig['hnsw_recall_at_10']:.3f}")

        # -- export ---------------------------------------------------------------------------------
        t = time.perf_counter()
        out = data_dir / "export.jsonl"
        with open(out, "w", encoding="utf-8") as fh:
            counts = export_to(store, fh)
        fig["export"] = {"s": time.perf_counter() - t, "bytes": out.stat().st_size, "counts": counts}
        say(f"JSONL export: {counts} in {fig['export']['s']:.1f}s, {out.stat().st_size / 1e6:.1f} MB")

        # -- memory and disk -------------------------------------------------------------------------
        fig["peak_rss_mb"] = rss_peak_mb()
        fig["falkordb_peak_rss_mb"] = rss_peak_mb(server.read_pid())
        store.close()
        time.sleep(1.5)  # appendfsync everysec: let the last second reach the file
        fig["disk"] = {
            "falkordb_bytes": dir_bytes(settings.db_dir),
            "index_exact_bytes": dir_bytes(settings.index_dir),
            "index_hnsw_bytes": dir_bytes(hsettings.index_dir),
        }
        say(
            f"peak RSS: this process {fig['peak_rss_mb']:.0f} MB, FalkorDB server "
            f"{fig['falkordb_peak_rss_mb'] or float('nan'):.0f} MB"
        )
        d = fig["disk"]
        say(
            f"on disk: FalkorDB {d['falkordb_bytes'] / 1e6:.1f} MB, exact index {d['index_exact_bytes'] / 1e6:.1f} MB, "
            f"HNSW index {d['index_hnsw_bytes'] / 1e6:.1f} MB"
        )
    finally:
        server.stop()
        if args.keep is None:
            shutil.rmtree(data_dir, ignore_errors=True)

    fig["graph_plus_index_s"] = fig["store"]["total_s"] + fig["index_exact"]["build_s"]
    # the floor of this build measured in the same run: the upserts plus the model embedding every text
    floor = fig["store"]["total_s"] + fig["index_exact"]["embed_s"]
    fig["graph_plus_index_floor_s"] = floor
    bulk = fig.get("bulk_precision")
    if bulk and bulk["precision"] != "fp32":
        # the same build had it embedded in fp32: the embedding at the fp32 rate measured above
        fig["graph_plus_index_fp32_estimate_s"] = (fig["graph_plus_index_s"] - fig["index_exact"]["embed_s"]
                                                   + fig["index_exact"]["items"] / bulk["fp32_texts_per_s"])
    fig["wall_s"] = time.perf_counter() - wall0
    fig["machine_load_1m_at_end"] = os.getloadavg()[0]
    say(
        f"graph + exact index: {fig['graph_plus_index_s']:.0f}s ({fig['graph_plus_index_s'] / 60:.1f} min) = "
        f"{fig['graph_plus_index_s'] / floor:.2f}x its floor (upserts + embedding alone, {floor:.0f}s); "
        f"total wall {fig['wall_s']:.0f}s; load1 at end {fig['machine_load_1m_at_end']:.2f}"
    )
    if "graph_plus_index_fp32_estimate_s" in fig:
        est = fig["graph_plus_index_fp32_estimate_s"]
        say(f"the same build embedding in fp32 (at the rate measured in this run): {est:.0f}s ({est / 60:.1f} min); "
            f"this build {fig['graph_plus_index_s'] / est:.2f}x of it")
    if args.json:
        args.json.write_text(json.dumps(fig, indent=2))
    return fig


if __name__ == "__main__":
    main()
