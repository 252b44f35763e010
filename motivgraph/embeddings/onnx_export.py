"""The ONNX files of the embedding model: where they live, how they are exported, and the int8 recipe.

The embeddings package ships only safetensors, so the ONNX graph is exported here with torch from
those packaged weights (`motivgraph embeddings export`, run by scripts/setup.sh; nothing is
downloaded). Next to the graph, `export.json` records what it was exported from (the weight
files' size and mtime, so reinstalled weights are noticed) and the torch backend's vectors for a
few fixed texts: the ONNX embedder compares itself to those at first use (`reference_vectors`),
which costs one tiny batch instead of loading torch.

Files: `<onnx_dir>/<model slug>/{model.onnx, model-int8.onnx, export.json}`. The default onnx_dir
is `<python prefix>/share/motivgraph/onnx` (the virtualenv: the files belong to the install, not
to any data directory), or ~/.cache/motivgraph/onnx where the prefix is not writable.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from motivgraph.embeddings.minilm import PACKAGED_MODEL, SentenceTransformerEmbedder, max_seq_length
from motivgraph.errors import EmbeddingError
from motivgraph.fsutil import atomic_write

log = logging.getLogger(__name__)

FP32_FILE = "model.onnx"
INT8_FILE = "model-int8.onnx"
META_FILE = "export.json"
META_FORMAT = 1
OPSET = 17  # native LayerNormalization; supported by every onnxruntime this project pins against

# Fixed texts whose torch vectors are stored at export: plain English, non-ASCII (accents, CJK,
# an emoji) and one far past the 256-token limit, so truncation is checked too.
REFERENCE_TEXTS: tuple[str, ...] = (
    "Graph neural networks for molecule property prediction: message passing over atoms and bonds.",
    "Échantillonnage rapide de graphes — 深度学习 für Wörterbücher 🚀",
    " ".join(f"Sentence {i} about sparse attention, long documents and retrieval-augmented generation."
             for i in range(60)),
)

# int8: dynamic quantisation of the weight MatMuls only (per output channel); the attention score
# MatMuls (activation x activation) and the embedding lookups stay fp32. Against torch on 2,000 synthetic
# node texts (mean cosine / top-10 neighbour overlap): per-tensor everything 0.950 / 0.787; this recipe
# 0.9936 / 0.898; also keeping every output projection fp32 0.9969 / 0.927; only the FFN input MatMuls
# int8 0.9982 / 0.940; only Q/K/V int8 0.9988 / 0.959 -- none reaches the gate, so INT8_GATE_PASSED is
# False and this, the fastest of them, is what the bench measures.
INT8_RECIPE: dict[str, Any] = {"per_channel": True, "op_types_to_quantize": ["MatMul"], "keep_fp32": []}
# Whether INT8_RECIPE met the gate (top-10 neighbour overlap >= 0.99 and mean cosine >= 0.995 against
# torch over node texts, bench/bench_embeddings.py); `embedding.backend=onnx-int8` is refused otherwise.
INT8_GATE_PASSED = False


def model_slug(model: str, path: Path) -> str:
    """A directory name per model: the packaged one by name, a local directory by name + path hash."""

    if model in (PACKAGED_MODEL, f"sentence-transformers/{PACKAGED_MODEL}"):
        return PACKAGED_MODEL
    digest = hashlib.sha1(str(path.resolve()).encode("utf-8")).hexdigest()[:10]
    return f"{path.name or 'model'}-{digest}"


def _writable(path: Path) -> bool:
    """Whether `path` exists writable or could be created (its nearest existing ancestor is writable)."""
    for p in (path, *path.parents):
        if p.exists():
            return os.access(p, os.W_OK)
    return False


def default_onnx_dir() -> Path:
    prefix_dir = Path(sys.prefix) / "share" / "motivgraph" / "onnx"
    if (prefix_dir.is_dir() and os.access(prefix_dir, os.R_OK | os.X_OK)) or _writable(prefix_dir):
        return prefix_dir
    return Path.home() / ".cache" / "motivgraph" / "onnx"


def _share(path: Path) -> None:
    """Readable by every user: the CLI's umask 077 protects data, while these files are derived from
    public weights and an image exports them as root for an unprivileged service user."""
    with contextlib.suppress(OSError):
        path.chmod(0o755 if path.is_dir() else 0o644)


def export_dir(model: str, path: Path, onnx_dir: Path | None) -> Path:
    return (onnx_dir.expanduser() if onnx_dir else default_onnx_dir()) / model_slug(model, path)


def source_signature(path: Path) -> list[list[Any]]:
    """Name, size and mtime of the weight files: a reinstall or other weights change the signature."""
    files = sorted(p for p in path.iterdir() if p.suffix in (".safetensors", ".bin") and p.is_file())
    return [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in files]


def read_meta(dest: Path) -> dict[str, Any] | None:
    try:
        meta = json.loads((dest / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) and meta.get("format") == META_FORMAT else None


def current_export(dest: Path, model_path: Path) -> dict[str, Any] | None:
    """The export metadata when `dest` holds a complete fp32 export of the weights at `model_path`."""
    meta = read_meta(dest)
    if meta is None or not (dest / FP32_FILE).is_file():
        return None
    if meta.get("signature") != source_signature(model_path):
        log.info("ONNX export in %s was made from other weights than %s; it will be re-exported", dest, model_path)
        return None
    return meta


def reference_vectors(meta: dict[str, Any]) -> tuple[list[str], np.ndarray]:
    ref = meta.get("reference") or {}
    texts = [str(t) for t in ref.get("texts", [])]
    vectors = np.asarray(ref.get("vectors", []), dtype=np.float32)
    if not texts or vectors.shape[0] != len(texts):
        raise EmbeddingError(
            "the ONNX export metadata holds no reference vectors; run `motivgraph embeddings export --force`"
        )
    return texts, vectors


@contextlib.contextmanager
def _export_lock(dest: Path) -> Iterator[None]:
    """One exporter per directory at a time (parallel test lanes or servers may all start at once)."""
    for d in reversed([dest, *dest.parents][:3]):  # <onnx_dir>/.. (share/motivgraph), onnx_dir, the model's
        if not d.exists():
            d.mkdir(parents=True, exist_ok=True)
            _share(d)
    _share(dest)
    with open(dest / ".export.lock", "a+") as fh:
        try:
            import fcntl  # local: not on every platform
        except ImportError:  # not POSIX: exports are rare enough to go unlocked
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def torch_available() -> bool:
    return importlib.util.find_spec("torch") is not None and importlib.util.find_spec("transformers") is not None


def export(model: str, model_path: Path, dest: Path, *, int8: bool = True, force: bool = False) -> dict[str, Any]:
    """Export the model at `model_path` to `dest` (fp32, and the int8 file when `int8`), unless a
    current export is already there. Needs torch; downloads nothing. Returns the metadata."""
    if not torch_available():
        raise EmbeddingError(
            "Exporting the embedding model to ONNX needs torch and transformers (scripts/setup.sh installs them; "
            "or `pip install torch transformers`), or set MOTIVGRAPH_EMBEDDING_BACKEND=torch"
        )
    with _export_lock(dest):
        meta = None if force else current_export(dest, model_path)
        if meta is None:
            meta = _export_fp32(model, model_path, dest)
        if int8 and (force or not (dest / INT8_FILE).is_file()):
            quantize_int8(dest / FP32_FILE, dest / INT8_FILE)
        return meta


def _export_fp32(model: str, model_path: Path, dest: Path) -> dict[str, Any]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch  # local: optional extra
    from transformers import AutoModel  # local: optional extra


    t0 = time.perf_counter()
    # the reference vectors come from the torch backend itself, as `motivgraph reindex` would embed
    reference = SentenceTransformerEmbedder(str(model_path), device="cpu").embed(list(REFERENCE_TEXTS))
    # eager attention: plain MatMul/Softmax nodes (the SDPA path traces shape checks into the graph)
    hf = AutoModel.from_pretrained(str(model_path), local_files_only=True, attn_implementation="eager").eval()

    class LastHidden(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor) -> torch.Tensor:
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    sample = tuple(torch.ones((2, 8), dtype=torch.long) for _ in names)
    tmp = dest / f".{FP32_FILE}.{os.getpid()}.tmp"
    try:
        with warnings.catch_warnings(), torch.inference_mode():
            # the TorchScript exporter (dynamo=False) needs no onnxscript and traces BERT exactly; its
            # tracer warnings are about shape checks that hold for every batch/sequence size
            warnings.simplefilter("ignore")
            torch.onnx.export(
                LastHidden(hf), sample, str(tmp), dynamo=False, opset_version=OPSET,
                input_names=names, output_names=["last_hidden_state"],
                dynamic_axes={n: {0: "batch", 1: "sequence"} for n in [*names, "last_hidden_state"]},
            )
        _share(tmp)
        os.replace(tmp, dest / FP32_FILE)
    finally:
        tmp.unlink(missing_ok=True)
    meta = {
        "format": META_FORMAT,
        "model": model,
        "source": str(model_path),
        "signature": source_signature(model_path),
        "max_seq_length": max_seq_length(model_path),
        "dim": int(reference.shape[1]),
        "torch": str(torch.__version__),
        "opset": OPSET,
        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "reference": {"texts": list(REFERENCE_TEXTS), "vectors": [[float(x) for x in v] for v in reference]},
    }

    atomic_write(dest / META_FILE, json.dumps(meta, indent=1))
    _share(dest / META_FILE)
    # the int8 file was quantised from the previous fp32 graph
    (dest / INT8_FILE).unlink(missing_ok=True)
    log.info("exported %s to %s in %.1fs", model, dest / FP32_FILE, time.perf_counter() - t0)
    return meta


def quantize_int8(src: Path, out: Path) -> None:
    """Apply INT8_RECIPE to the fp32 graph (onnxruntime's dynamic quantisation; needs the `onnx` package)."""
    try:
        import onnx  # local: a clear error when onnx is missing
        from onnxruntime.quantization import QuantType, quantize_dynamic  # local: a clear error when onnx is missing
    except ImportError as e:
        raise EmbeddingError(f"int8 quantisation needs the onnx package (pip install onnx): {e}") from e
    graph = onnx.load(str(src), load_external_data=False)
    keep = [n.name for n in graph.graph.node if any(pat in n.name for pat in INT8_RECIPE["keep_fp32"])]
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        quantize_dynamic(
            str(src), str(tmp), weight_type=QuantType.QInt8, per_channel=INT8_RECIPE["per_channel"],
            op_types_to_quantize=INT8_RECIPE["op_types_to_quantize"], nodes_to_exclude=keep,
        )
        _share(tmp)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
