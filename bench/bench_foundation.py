"""Foundation benchmark: a paper-scale synthetic graph into the embedded FalkorDB, then the FAISS
node index (exact and HNSW) over it. Prints figures; asserts nothing about time.

    .venv/bin/python -m bench.bench_foundation              # full scale (~12k P, 31k C, 25.5k S, 70k triples)
    .venv/bin/python -m bench.bench_foundation --scale 0.1  # quick run
    .venv/bin/python -m bench.bench_foundation --json out.json

Figures: upsert throughput (nodes/s, relationships/s) on the embedded store, embedding throughput
(texts/s), index build times, search latency p50/p99 in process for exact and HNSW (with and
without the staleness check, which costs one graph query), HNSW recall@10 against exact, peak RSS
(this process and the FalkorDB server), on-disk size (FalkorDB data + indexes), JSONL export time
and size, total wall time.
"""

from __future__ import annotations

import argparse
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
from motivgraph.embeddings.base import Embedder


class TimedEmbedder(Embedder):
    """Wraps the real embedder and accounts the time spent embedding."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        self.seconds = 0.0
        self.texts = 0

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        t = time.perf_counter()
        out = self.inner.embed(texts, show_progress=show_progress)
        self.seconds += time.perf_counter() - t
        self.texts += len(texts)
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


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="Fraction of the paper-scale graph (default 1.0).")
    ap.add_argument("--seed", type=int, default=13, help="Seed of the synthetic graph.")
    ap.add_argument("--batch", type=int, default=500, help="Triples per upsert batch.")
    ap.add_argument("--queries", type=int, default=300, help="Search queries per index kind.")
    ap.add_argument("--keep", type=Path, default=None, help="Keep the data directory here (default: temp, removed).")
    ap.add_argument("--json", type=Path, default=None, help="Also write the figures to this JSON file.")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice).")
    args = ap.parse_args(argv)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)

    # SIGTERM unwinds like Ctrl-C, so the FalkorDB server this run started is always stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from motivgraph.embeddings import get_embedder
    from motivgraph.graph import open_store
    from motivgraph.graph.embedded import EmbeddedFalkorDB
    from motivgraph.graph.interchange import export_to
    from motivgraph.graph.vector_index import Group, NodeIndex, build_faiss, choose_kind
    from motivgraph.settings import EmbeddingSettings, GraphSettings, Settings

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
        say(
            f"exact index: {n_items} nodes in {t_build:.1f}s (embedding {emb.seconds:.1f}s = "
            f"{emb.texts / emb.seconds:,.0f} texts/s; FAISS + reading the graph + writing {t_build - emb.seconds:.1f}s)"
        )

        # -- HNSW, and the default `auto` choice, from the same vectors (no second embedding pass) -----
        def derived(kind_of: Any, subdir: str, kind_setting: str) -> tuple[NodeIndex, Settings, float]:
            dsettings = settings.model_copy(deep=True)
            dsettings.data_dir = data_dir / subdir
            dsettings.index.kind = kind_setting
            didx = NodeIndex(dsettings, store, emb)
            t0 = time.perf_counter()
            groups = {}
            for gname, grp in idx._groups.items():
                kind = kind_of(dsettings, grp)
                groups[gname] = Group(
                    ids=list(grp.ids), labels=list(grp.labels), levels=list(grp.levels), vectors=grp.vectors,
                    kind=kind, index=build_faiss(grp.vectors, kind, dsettings.index, emb.dim), pos=dict(grp.pos),
                )
            took = time.perf_counter() - t0
            didx._commit(groups, status.index_version)  # same vectors, same graph version
            return didx, dsettings, took

        hidx, hsettings, t_hnsw = derived(lambda _s, _g: "hnsw", "hnsw", "hnsw")
        fig["index_hnsw"] = {
            "build_s": t_hnsw, "m": hsettings.index.hnsw_m, "ef_construction": hsettings.index.hnsw_ef_construction,
            "ef_search": hsettings.index.hnsw_ef_search,
        }
        say(
            f"HNSW index (M={hsettings.index.hnsw_m}, efC={hsettings.index.hnsw_ef_construction}) "
            f"built in {t_hnsw:.1f}s"
        )
        aidx, asettings, _ = derived(lambda s_, g_: choose_kind(s_.index, len(g_)), "auto", "auto")
        auto_kinds = {gname: grp.kind for gname, grp in aidx._groups.items()}
        fig["index_auto_kinds"] = auto_kinds
        say(f"default index (kind=auto, hnsw_threshold={asettings.index.hnsw_threshold}): {auto_kinds}")

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
    fig["wall_s"] = time.perf_counter() - wall0
    fig["machine_load_1m_at_end"] = os.getloadavg()[0]
    say(
        f"graph + exact index: {fig['graph_plus_index_s']:.0f}s ({fig['graph_plus_index_s'] / 60:.1f} min); "
        f"total wall {fig['wall_s']:.0f}s; load1 at end {fig['machine_load_1m_at_end']:.2f}"
    )
    if args.json:
        args.json.write_text(json.dumps(fig, indent=2))
    return fig


if __name__ == "__main__":
    main()
