"""One query's embedding on other runtimes and weight formats, beside ONNX Runtime fp32 (the default
query embedder, whose vectors are torch's): is there a faster per-query path that keeps the search
results? Contenders interleaved in one process, one thread each (as an API worker embeds); asserts nothing.

    .venv/bin/python -m bench.bench_query_embed                # 4000 synthetic node texts
    .venv/bin/python -m bench.bench_query_embed --n 20000 --json out.json

Contenders, each skipped with the reason when its package is missing (neither is a dependency):
- `ort-w8a8`, `ort-w8`, `ort-w4a8`: onnxruntime's weight-only quantiser (MatMulNBits, blocks of 32
  along the input dimension, symmetric; needs `onnx-ir`): 8-bit weights with int8 compute (activations
  quantised per block), 8-bit weights with fp32 compute, 4-bit weights with int8 compute.
- `ov-f32`, `ov-bf16`: the same ONNX graph compiled by OpenVINO (`openvino`), fp32 or bfloat16
  inference precision (bfloat16 runs on AMX / AVX-512 BF16 where the CPU has them).

Figures: single-query p50 interleaved, alone in a tight loop, and alone after 256 MB of other memory
was read (a serving worker's query finds the weights evicted by FAISS, HTTP and the graph store); batch
texts/s; against ONNX fp32 over the N texts: mean and lowest cosine, top-10 neighbour overlap, the share
of ONNX fp32 queries' top-10 kept over the contender's vectors (what queries embedded by it would find
in an fp32 index, by the symmetry of exact search) and the quality gate of bench_embeddings.py.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import onnxruntime as ort

from bench.bench_embeddings import (
    GATE_COSINE,
    GATE_OVERLAP,
    latency,
    mixed_overlap,
    passes_gate,
    quality,
    synthetic_texts,
)
from motivgraph.embeddings import open_onnx, set_threads
from motivgraph.embeddings.onnx_embedder import mean_pool, model_inputs, session_options
from motivgraph.settings import EmbeddingSettings

Run = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (ids, mask) -> last hidden state


def fp32_embedder() -> Any:
    """ONNX Runtime fp32 on one thread, no spinning (as api.compute_threads = 1 runs it)."""
    set_threads(1)
    return open_onnx(EmbeddingSettings(backend="onnx"))


def with_run(base: Any, run: Run) -> Any:
    """`base`'s tokenisation, batching and pooling around another forward pass (OnnxEmbedder._run's)."""
    emb = copy.copy(base)
    emb._run = lambda ids, mask: mean_pool(run(ids, mask), mask)
    return emb


def ort_weight_only(src: Path, out_dir: Path, bits: int, accuracy_level: int) -> Run:
    import onnx  # local: onnx, off the bench's --help path
    from onnxruntime.quantization.matmul_nbits_quantizer import (  # local: it needs onnx_ir, no dependency
        DefaultWeightOnlyQuantConfig,
        MatMulNBitsQuantizer,
    )

    cfg = DefaultWeightOnlyQuantConfig(block_size=32, is_symmetric=True, accuracy_level=accuracy_level, bits=bits)
    quant = MatMulNBitsQuantizer(onnx.load(str(src)), algo_config=cfg)
    quant.process()
    path = out_dir / f"w{bits}a{accuracy_level}.onnx"
    quant.model.save_model_to_file(str(path), use_external_data_format=False)
    sess = ort.InferenceSession(str(path), session_options(1), providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}
    return lambda ids, mask: sess.run(None, model_inputs(names, ids, mask))[0]


def openvino_run(src: Path, precision: str) -> Run:
    import openvino as ov  # local: openvino is no dependency; only the ov-* variants need it

    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(src)), "CPU", {
        "INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY",
        "INFERENCE_PRECISION_HINT": precision})
    req = compiled.create_infer_request()
    names = {i.get_any_name() for i in compiled.inputs}
    out = compiled.outputs[0]
    return lambda ids, mask: req.infer(model_inputs(names, ids, mask))[out]


CONTENDERS: dict[str, tuple[str, Callable[[Path, Path], Run]]] = {
    "ort-w8a8": ("onnx-ir", lambda src, tmp: ort_weight_only(src, tmp, 8, 4)),
    "ort-w8": ("onnx-ir", lambda src, tmp: ort_weight_only(src, tmp, 8, 0)),
    "ort-w4a8": ("onnx-ir", lambda src, tmp: ort_weight_only(src, tmp, 4, 4)),
    "ov-f32": ("openvino", lambda src, tmp: openvino_run(src, "f32")),
    "ov-bf16": ("openvino", lambda src, tmp: openvino_run(src, "bf16")),
}


def p50(values: list[float]) -> float:
    return float(statistics.median(values))


def alone(emb: Any, queries: list[str], junk: np.ndarray) -> tuple[float, float]:
    """p50 ms of one query in a tight loop, and after reading `junk` before each query."""
    tight, cold = [], []
    half = len(queries) // 2
    for q in queries[:half]:
        t = time.perf_counter()
        emb.embed([q])
        tight.append((time.perf_counter() - t) * 1000)
    for q in queries[half:]:
        junk.sum()
        t = time.perf_counter()
        emb.embed([q])
        cold.append((time.perf_counter() - t) * 1000)
    return p50(tight), p50(cold)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4000, help="texts for the quality comparison (default 4000)")
    ap.add_argument("--queries", type=int, default=200, help="single-text calls per contender (default 200)")
    ap.add_argument("--only", default="", help="comma-separated contenders (default: all whose package is there)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    fig: dict[str, Any] = {"cpus": os.cpu_count(), "load_1m_at_start": os.getloadavg()[0], "skipped": {}}
    t0 = time.perf_counter()
    base = fp32_embedder()
    embs: dict[str, Any] = {"ort-fp32": base}
    wanted = [c for c in args.only.split(",") if c] or list(CONTENDERS)
    with tempfile.TemporaryDirectory(prefix="mg-qembed-") as tmp:
        for name in wanted:
            package, make = CONTENDERS[name]
            try:
                embs[name] = with_run(base, make(base.path, Path(tmp)))
            except ImportError as e:
                fig["skipped"][name] = f"needs {package} ({e})"
        texts = synthetic_texts(args.n, args.seed)
        queries = [t.split(":")[0] for t in texts[: args.queries]]
        inter = latency(embs, queries)  # interleaved, after a warm-up
        junk = np.ones(256 * 2**20 // 8)
        ref = base.embed(texts)
        rows: dict[str, dict[str, Any]] = {}
        for n, emb in embs.items():
            tight, cold = alone(emb, queries, junk)
            t = time.perf_counter()
            vec = emb.embed(texts)
            rate = len(texts) / (time.perf_counter() - t)
            q = quality(ref, vec)
            rows[n] = {"interleaved_p50_ms": p50(inter[n]), "tight_p50_ms": tight, "cold_p50_ms": cold,
                       "batch_texts_per_s": rate, **q, "fp32_queries_top10_kept": mixed_overlap(ref, vec),
                       "gate_passed": passes_gate(q)}
    fig["rows"] = rows
    fig["load_1m_at_end"] = os.getloadavg()[0]
    fig["wall_s"] = time.perf_counter() - t0
    b = rows["ort-fp32"]
    print(f"one query's embedding, all-MiniLM-L6-v2, one thread; quality over {len(texts)} synthetic node texts "
          f"against ONNX Runtime fp32; load {fig['load_1m_at_start']:.1f} -> {fig['load_1m_at_end']:.1f}")
    print(f"{'contender':<10} {'interleaved':>11} {'tight':>7} {'cold':>7} {'vs fp32 cold':>12} {'batch/s':>8} "
          f"{'mean cos':>9} {'top10':>7} {'kept':>7}  gate")
    for n, r in rows.items():
        print(f"{n:<10} {r['interleaved_p50_ms']:>9.2f}ms {r['tight_p50_ms']:>5.2f}ms {r['cold_p50_ms']:>5.2f}ms "
              f"{b['cold_p50_ms'] / r['cold_p50_ms']:>11.2f}x {r['batch_texts_per_s']:>8.0f} {r['mean_cosine']:>9.6f} "
              f"{r['top10_overlap']:>7.4f} {r['fp32_queries_top10_kept']:>7.4f}  "
              f"{'pass' if r['gate_passed'] else 'FAIL'}")
    for n, why in fig["skipped"].items():
        print(f"{n}: skipped, {why}")
    print(f"gate: top-10 overlap >= {GATE_OVERLAP} and mean cosine >= {GATE_COSINE}; wall {fig['wall_s']:.0f}s")
    if args.json:
        args.json.write_text(json.dumps(fig, indent=2))
    return fig


if __name__ == "__main__":
    main()
