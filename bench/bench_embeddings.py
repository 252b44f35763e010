"""Embedding backends side by side: torch (sentence-transformers), ONNX Runtime fp32 and the int8
recipe (motivgraph/embeddings/onnx_export.INT8_RECIPE), all in one run, contenders interleaved.
Prints figures beside the torch baseline of the same run; asserts nothing about time.

    .venv/bin/python -m bench.bench_embeddings                 # 20k synthetic node texts
    .venv/bin/python -m bench.bench_embeddings --n 3000        # quicker quality estimate
    .venv/bin/python -m bench.bench_embeddings --graph         # node texts of the configured graph instead
    .venv/bin/python -m bench.bench_embeddings --json out.json

Figures per backend: single-query latency p50/p90 (one short text per call, as a node_search
embeds its query) and batch throughput (texts/s over batches of --batch texts), each with its
ratio to torch; against torch's vectors over the N texts: mean and lowest cosine, top-10
neighbour overlap (each text a query over all N, itself excluded) and same-top-1 share. The int8
gate (what `embedding.backend=onnx-int8` needs): top-10 overlap >= 0.99 and mean cosine >= 0.995.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from bench.synthetic import SyntheticGraph
from motivgraph.embeddings import get_embedder, onnx_export, open_onnx, set_threads
from motivgraph.embeddings.base import Embedder
from motivgraph.embeddings.bulk import Bf16Bulk
from motivgraph.embeddings.minilm import resolve_model_path
from motivgraph.graph.runtime import Runtime
from motivgraph.settings import EmbeddingSettings, Settings

GATE_OVERLAP = 0.99
GATE_COSINE = 0.995


def synthetic_texts(n: int, seed: int) -> list[str]:
    from motivgraph.graph.vector_index import node_text  # local: faiss, off the bench's --help path

    graph = SyntheticGraph(scale=max(0.05, min(20.0, n / 60_000 * 1.2)), seed=seed)
    texts = [node_text(x.name, x.description) for nodes in graph.nodes.values() for x in nodes]
    random.Random(seed).shuffle(texts)
    return texts[:n]


def graph_texts(n: int, seed: int) -> list[str]:
    from motivgraph.graph.vector_index import node_text  # local: faiss, off the bench's --help path

    rt = Runtime(Settings())
    texts = [node_text(x.name, x.description) for x in rt.store.iter_nodes()]
    random.Random(seed).shuffle(texts)
    return texts[:n]


def load_backends(with_int8: bool) -> dict[str, Embedder]:
    out: dict[str, Embedder] = {"torch": get_embedder(EmbeddingSettings(backend="torch"))}
    out["onnx"] = open_onnx(EmbeddingSettings(backend="onnx"))
    if with_int8:
        cfg = EmbeddingSettings(backend="onnx-int8")
        dest = onnx_export.export_dir(cfg.model, resolve_model_path(cfg.model), cfg.onnx_dir)
        # always the current recipe: the file on disk may come from an older one
        onnx_export.quantize_int8(dest / onnx_export.FP32_FILE, dest / onnx_export.INT8_FILE)
        out["onnx-int8"] = open_onnx(cfg, check=False)  # the bench measures; the gate is not applied here
    return out


class Bf16Forced(Embedder):
    """The bf16 bulk path (embedding.bulk_precision=bf16) for every call, whatever the batch size."""

    backend = "onnx"

    def __init__(self, fp32: Embedder) -> None:
        self.model_name, self.dim = fp32.model_name, fp32.dim
        self.path = Bf16Bulk(fp32, batch_size=64, setting="bf16")

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        vecs, precision = self.path.embed(texts)
        if precision != "bf16":
            raise RuntimeError("the bf16 path is unusable here (see the warning above)")
        return vecs


def mixed_overlap(ref: np.ndarray, index: np.ndarray, k: int = 10, chunk: int = 2048) -> float:
    """Top-k overlap of fp32 query vectors (`ref`) searched over `index` vectors against over `ref` itself."""
    a = top_k(ref, k)
    hits = np.empty_like(a)
    for s in range(0, len(ref), chunk):
        sims = ref[s:s + chunk] @ index.T
        sims[np.arange(len(sims)), np.arange(s, s + len(sims))] = -np.inf
        part = np.argpartition(-sims, k, axis=1)[:, :k]
        hits[s:s + chunk] = part
    return float(np.mean([len(set(x) & set(y)) / k for x, y in zip(a, hits, strict=True)]))


def latency(backends: dict[str, Embedder], queries: list[str]) -> dict[str, list[float]]:
    """Milliseconds per single-text embed call; the backends take turns on every query."""
    names = list(backends)
    for name in names:  # warm-up: first calls allocate
        for q in queries[:5]:
            backends[name].embed([q])
    out: dict[str, list[float]] = {n: [] for n in names}
    for i, q in enumerate(queries):
        for name in names[i % len(names):] + names[: i % len(names)]:
            t = time.perf_counter()
            backends[name].embed([q])
            out[name].append((time.perf_counter() - t) * 1000)
    return out


def throughput(backends: dict[str, Embedder], texts: list[str], rounds: int) -> dict[str, float]:
    """Texts per second over `rounds` interleaved passes of `texts`."""
    seconds = dict.fromkeys(backends, 0.0)
    for r in range(rounds):
        names = list(backends)[r % len(backends):] + list(backends)[: r % len(backends)]
        for name in names:
            t = time.perf_counter()
            backends[name].embed(texts)
            seconds[name] += time.perf_counter() - t
    return {n: rounds * len(texts) / s for n, s in seconds.items()}


def top_k(vectors: np.ndarray, k: int, chunk: int = 2048) -> np.ndarray:
    """Each row's k nearest other rows by inner product (exact), in chunks to bound memory."""
    out = np.empty((len(vectors), k), dtype=np.int64)
    for s in range(0, len(vectors), chunk):
        sims = vectors[s:s + chunk] @ vectors.T
        sims[np.arange(len(sims)), np.arange(s, s + len(sims))] = -np.inf
        part = np.argpartition(-sims, k, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(sims, part, axis=1), axis=1)
        out[s:s + chunk] = np.take_along_axis(part, order, axis=1)
    return out


def passes_gate(q: dict[str, float]) -> bool:
    """The quality gate (what `embedding.backend=onnx-int8` would need) on `quality`'s figures."""
    return bool(q["top10_overlap"] >= GATE_OVERLAP and q["mean_cosine"] >= GATE_COSINE)


def quality(ref: np.ndarray, got: np.ndarray, k: int = 10) -> dict[str, float]:
    cos = np.sum(ref * got, axis=1)
    a, b = top_k(ref, k), top_k(got, k)
    overlap = np.mean([len(set(x) & set(y)) / k for x, y in zip(a, b, strict=True)])
    return {"mean_cosine": float(cos.mean()), "min_cosine": float(cos.min()),
            f"top{k}_overlap": float(overlap), "same_top1": float(np.mean(a[:, 0] == b[:, 0]))}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20_000, help="texts for the quality comparison (default 20000)")
    ap.add_argument("--queries", type=int, default=200, help="single-text calls per backend for latency")
    ap.add_argument("--batch", type=int, default=256, help="texts per batch for throughput")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved throughput passes")
    ap.add_argument("--graph", action="store_true", help="node texts of the configured graph, not synthetic ones")
    ap.add_argument("--no-int8", action="store_true", help="skip the int8 recipe")
    ap.add_argument("--no-bf16", action="store_true", help="skip the bf16 bulk path (embedding.bulk_precision)")
    ap.add_argument("--threads", type=int, default=0,
                    help="torch and ONNX Runtime threads (0: each library's default, one per core); the API "
                    "workers use api.compute_threads = 1")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)

    fig: dict[str, Any] = {"cpus": os.cpu_count(), "load_1m_at_start": os.getloadavg()[0]}
    t_start = time.perf_counter()
    texts = graph_texts(args.n, args.seed) if args.graph else synthetic_texts(args.n, args.seed)
    fig.update(n=len(texts), source="graph" if args.graph else "synthetic")
    import torch  # local: torch, off the bench's --help path

    if args.threads:
        torch.set_num_threads(args.threads)
        set_threads(args.threads)
    backends = load_backends(not args.no_int8)
    if not args.no_bf16:
        backends["bf16-bulk"] = Bf16Forced(backends["onnx"])

    fig["torch_threads"] = torch.get_num_threads()
    rng = random.Random(args.seed + 1)
    # a node_search query is short: the name part of a node text
    queries = [t.split(":")[0] for t in rng.sample(texts, min(args.queries, len(texts)))]
    lat = latency(backends, queries)
    thr = throughput(backends, texts[: args.batch], args.rounds)
    vectors: dict[str, np.ndarray] = {}
    embed_s: dict[str, float] = {}
    for name, emb in backends.items():
        t = time.perf_counter()
        vectors[name] = emb.embed(texts)
        embed_s[name] = time.perf_counter() - t
    rows: dict[str, dict[str, float]] = {}
    base_p50 = statistics.median(lat["torch"])
    for name in backends:
        p50 = statistics.median(lat[name])
        p90 = float(np.percentile(lat[name], 90))
        rows[name] = {"single_p50_ms": p50, "single_p90_ms": p90, "single_speedup_vs_torch": base_p50 / p50,
                      "batch_texts_per_s": thr[name], "batch_speedup_vs_torch": thr[name] / thr["torch"],
                      "embed_all_n_s": embed_s[name], **quality(vectors["torch"], vectors[name])}
    fig["backends"] = rows
    if "onnx-int8" in rows:
        r = rows["onnx-int8"]
        fig["int8_gate_passed"] = passes_gate(r)
    if "bf16-bulk" in rows:
        r = rows["bf16-bulk"]
        r["fp32_queries_top10_overlap"] = mixed_overlap(vectors["onnx"], vectors["bf16-bulk"])
        fig["bf16_gate_passed"] = passes_gate(r)
    fig["load_1m_at_end"] = os.getloadavg()[0]
    fig["wall_s"] = time.perf_counter() - t_start

    print(f"embedding backends, all-MiniLM-L6-v2, N={fig['n']} {fig['source']} node texts, {fig['cpus']} CPUs, "
          f"load {fig['load_1m_at_start']:.1f} -> {fig['load_1m_at_end']:.1f}, torch threads {fig['torch_threads']}")
    head = (f"{'backend':<10} {'1-query p50':>12} {'vs torch':>9} {'p90':>8} {'batch txt/s':>12} {'vs torch':>9} "
            f"{'mean cos':>9} {'min cos':>8} {'top10 ovl':>10} {'same top1':>10}")
    print(head)
    for name, r in rows.items():
        print(f"{name:<10} {r['single_p50_ms']:>10.2f}ms {r['single_speedup_vs_torch']:>8.2f}x "
              f"{r['single_p90_ms']:>6.2f}ms {r['batch_texts_per_s']:>12.1f} {r['batch_speedup_vs_torch']:>8.2f}x "
              f"{r['mean_cosine']:>9.6f} {r['min_cosine']:>8.5f} {r['top10_overlap']:>10.4f} {r['same_top1']:>10.4f}")
    if "int8_gate_passed" in fig:
        print(f"int8 gate (top-10 overlap >= {GATE_OVERLAP}, mean cosine >= {GATE_COSINE}): "
              f"{'PASSED' if fig['int8_gate_passed'] else 'FAILED'}")
    if "bf16_gate_passed" in fig:
        print(f"bf16 bulk: same gate {'PASSED' if fig['bf16_gate_passed'] else 'FAILED'}; fp32 queries over the bf16 "
              f"vectors keep {rows['bf16-bulk']['fp32_queries_top10_overlap']:.4f} of their top-10; batch "
              f"{rows['bf16-bulk']['batch_texts_per_s'] / rows['onnx']['batch_texts_per_s']:.2f}x ONNX fp32")
    print(f"wall {fig['wall_s']:.0f}s")
    if args.json:
        args.json.write_text(json.dumps(fig, indent=2))
    return fig


if __name__ == "__main__":
    main()
