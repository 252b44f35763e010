"""Embedding models. `get_embedder(settings)` returns the process-wide instance (loading is slow).

`embedding.backend` picks what runs the model: ONNX Runtime (default; `onnx_embedder.py`, file
exported by `onnx_export.py`) or torch through sentence-transformers (`minilm.py`). An ONNX
model that is missing is exported once from the packaged weights (torch needed, nothing is
downloaded); one that fails its first-use self-check falls back to torch with a warning.
`embedding.bulk_precision` adds a bfloat16 path for index builds (`bulk.py`).
"""

from __future__ import annotations

import logging
import threading

from motivgraph.embeddings import onnx_export
from motivgraph.embeddings.base import Embedder
from motivgraph.embeddings.bulk import attach_bulk
from motivgraph.embeddings.minilm import SentenceTransformerEmbedder, resolve_model_path
from motivgraph.embeddings.onnx_embedder import OnnxEmbedder, Variant
from motivgraph.errors import ConfigError, EmbeddingError, OnnxMismatch
from motivgraph.settings import EmbeddingSettings

log = logging.getLogger(__name__)

_lock = threading.Lock()
_cache: dict[tuple[str, ...], Embedder] = {}
_threads = 0  # ONNX Runtime intra-op threads for sessions made from now on; 0 = its default (one per core)


def set_threads(n: int) -> None:
    """Threads per ONNX model run, for embedders loaded after this call (an API worker sets it from
    api.compute_threads before it loads anything, as it does for torch and FAISS)."""
    global _threads
    _threads = max(0, int(n))


def get_embedder(cfg: EmbeddingSettings) -> Embedder:
    key = (cfg.model, cfg.device, cfg.backend, str(cfg.onnx_dir or ""), cfg.bulk_precision)
    with _lock:
        if key not in _cache:
            emb = _load(cfg)
            attach_bulk(emb, cfg.bulk_precision, cfg.batch_size)
            _cache[key] = emb
        return _cache[key]


def _torch(cfg: EmbeddingSettings) -> Embedder:
    return SentenceTransformerEmbedder(cfg.model, device=cfg.device, batch_size=cfg.batch_size)


def _load(cfg: EmbeddingSettings) -> Embedder:
    if cfg.backend == "torch":
        return _torch(cfg)

    if cfg.backend == "onnx-int8" and not onnx_export.INT8_GATE_PASSED:
        raise ConfigError(
            "MOTIVGRAPH_EMBEDDING_BACKEND=onnx-int8 is refused: no int8 recipe keeps top-10 neighbour overlap "
            ">= 0.99 and mean cosine >= 0.995 against torch (bench/bench_embeddings.py); use 'onnx' (fp32, the "
            "same vectors as torch and the default) or 'torch'"
        )
    try:
        return open_onnx(cfg)
    except OnnxMismatch as e:
        if not onnx_export.torch_available():
            raise EmbeddingError(f"{e}; torch is not installed to fall back on (set MOTIVGRAPH_EMBEDDING_BACKEND="
                                 "torch after `pip install torch`, or re-export where torch is)") from e
        log.warning("%s; embedding with torch instead (an index built with ONNX will ask for `motivgraph reindex`)", e)
        return _torch(cfg)


def open_onnx(cfg: EmbeddingSettings, *, check: bool = True) -> Embedder:
    """The ONNX embedder for `cfg`, exported first when the file is missing or from other weights
    (needs torch; EmbeddingError naming the fix otherwise). Raises OnnxMismatch when `check` and
    the self-check against the stored torch vectors fails."""

    variant: Variant = "int8" if cfg.backend == "onnx-int8" else "fp32"
    model_path = resolve_model_path(cfg.model)
    dest = onnx_export.export_dir(cfg.model, model_path, cfg.onnx_dir)
    meta = onnx_export.current_export(dest, model_path)
    missing_int8 = variant == "int8" and not (dest / onnx_export.INT8_FILE).is_file()
    if meta is None or missing_int8:
        if not onnx_export.torch_available():
            raise EmbeddingError(
                f"No ONNX export of {cfg.model!r} in {dest}, and torch is not installed to make one: run "
                "`motivgraph embeddings export` where torch is installed (scripts/setup.sh does), point "
                "MOTIVGRAPH_EMBEDDING_ONNX_DIR at an export, or set MOTIVGRAPH_EMBEDDING_BACKEND=torch"
            )
        log.warning("no current ONNX export of %s in %s: exporting it now from the packaged weights (once; "
                    "`motivgraph embeddings export` at setup avoids this)", cfg.model, dest)
        try:
            meta = onnx_export.export(cfg.model, model_path, dest, int8=variant == "int8")
        except EmbeddingError:
            raise
        except Exception as e:  # an unwritable directory, or torch failing to trace: torch can still embed
            raise OnnxMismatch(f"Could not export {cfg.model!r} to ONNX in {dest} ({type(e).__name__}: {e}); "
                               "set MOTIVGRAPH_EMBEDDING_ONNX_DIR to a writable directory and run "
                               "`motivgraph embeddings export`") from e
    emb = OnnxEmbedder(cfg.model, model_path, dest, meta, variant=variant, batch_size=cfg.batch_size,
                       threads=_threads)
    if check:
        emb.self_check()
    return emb


__all__ = ["Embedder", "get_embedder", "open_onnx", "set_threads"]
