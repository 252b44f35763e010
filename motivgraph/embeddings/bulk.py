"""Bulk embedding in bfloat16, for index builds on CPUs that compute bfloat16 natively.

An index build embeds every node text once; on this project's 2-core machine that is 99 % of
`reindex` and of a graph + index build, and the fp32 forward passes run near the cores' fp32 peak.
CPUs with AMX or AVX-512 BF16 (Intel Sapphire Rapids and later, AMD Zen 4 and later) multiply
bfloat16 matrices several times faster, so large batches go through torch under bfloat16 autocast:
the matrix products take bfloat16 inputs and accumulate in fp32, layer norms and softmax stay fp32.

The vectors are not bit-identical to fp32 ones. Measured by `bench/bench_embeddings.py` on 20,000
synthetic node texts: mean cosine to fp32 0.99999 (lowest 0.99997), top-10 neighbour overlap 0.995,
and fp32 queries over the bf16 vectors keep 0.996 of their top-10 -- inside the quality gate the int8
recipes fail (overlap >= 0.99, mean cosine >= 0.995). Queries stay on the fp32 embedder (ONNX), whose
per-call cost is what `node_search` pays; an index stamps the precision its bulk vectors came in.

`embedding.bulk_precision`: 'auto' (bf16 where the CPU has native support and torch is installed;
fp32 elsewhere, where emulated bf16 would be slower), 'bf16' (always; a warning without native
support) or 'fp32' (exactly the query embedder's vectors).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

import numpy as np

from motivgraph.embeddings.base import Embedder, Precision
from motivgraph.embeddings.minilm import load_sentence_transformer
from motivgraph.embeddings.onnx_export import REFERENCE_TEXTS
from motivgraph.errors import ConfigError, EmbeddingError

log = logging.getLogger(__name__)

# Lowest cosine between bf16 and fp32 vectors of the ONNX export's reference texts (plain, non-ASCII, past
# the token limit) at first use (measured 0.99997 at worst over 20,000 node texts): below it the bf16 path
# is broken here and fp32 is used instead.
SELF_CHECK_MIN_COSINE = 0.9995


def native_bf16() -> bool:
    """Whether this CPU multiplies bfloat16 natively (AMX tiles or AVX-512 BF16), as torch sees it."""
    try:
        import torch  # local: optional extra
    except ImportError:
        return False
    cpu = getattr(torch, "cpu", None)
    checks = [getattr(cpu, name, None) for name in ("_is_amx_tile_supported", "_is_avx512_bf16_supported")]
    return any(bool(check()) for check in checks if callable(check))


def planned_precision(setting: str) -> Precision:
    """What a bulk call will embed in under `setting`, before the first-use check: bf16 when asked for, or
    under 'auto' where the CPU has native bfloat16 (which needs torch)."""
    return "bf16" if setting == "bf16" or (setting == "auto" and native_bf16()) else "fp32"


class Bf16Bulk:
    """The model on torch under bfloat16 autocast. Nothing is imported or loaded until the first bulk
    call (an API worker or a CLI search never makes one); that call decides whether bf16 is used here
    and checks its vectors against fp32 ones."""

    def __init__(self, fp32: Embedder, *, batch_size: int, setting: str) -> None:
        self.fp32 = fp32
        self.batch_size = batch_size
        self.setting = setting
        self._lock = threading.Lock()
        self._loaded = False
        self._st: object | None = None  # the SentenceTransformer, or None when the bf16 path is off

    @property
    def loaded(self) -> bool:
        return self._loaded

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> tuple[np.ndarray, Precision]:
        """Vectors of `texts` and the precision they were computed in (fp32 when bf16 is unusable here)."""
        st = self._model()
        if st is None:
            return self.fp32.embed(texts, show_progress=show_progress), "fp32"
        return self._encode(st, texts, show_progress), "bf16"

    def _encode(self, st: object, texts: Sequence[str], show_progress: bool) -> np.ndarray:
        import torch  # local: optional extra

        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
            out = st.encode(  # type: ignore[attr-defined]
                list(texts), batch_size=self.batch_size, convert_to_tensor=True, show_progress_bar=show_progress)
        vecs = out.float().numpy()
        # normalised after the cast back to fp32: a bf16 norm would leave rows 0.4 % off unit length
        return np.ascontiguousarray(vecs / np.clip(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12, None),
                                    dtype=np.float32)

    def _model(self) -> object | None:
        with self._lock:
            if not self._loaded:
                self._st = self._load()
                self._loaded = True
            return self._st

    def _load(self) -> object | None:
        try:
            import torch  # noqa: F401  # local: optional extra
        except ImportError as e:
            if self.setting == "bf16":
                raise ConfigError("MOTIVGRAPH_EMBEDDING_BULK_PRECISION=bf16 needs torch (pip install torch, CPU "
                                  "build); or set it to 'auto' or 'fp32'") from e
            log.debug("bulk embedding in fp32: torch is not installed")
            return None
        if planned_precision(self.setting) == "fp32":
            log.debug("bulk embedding in fp32: this CPU has no native bfloat16")
            return None
        if not native_bf16():
            log.warning("MOTIVGRAPH_EMBEDDING_BULK_PRECISION=bf16 on a CPU without native bfloat16: emulated, so "
                        "index builds get slower, not faster ('auto' picks fp32 here)")

        try:
            st = load_sentence_transformer(self.fp32.model_name)
        except EmbeddingError as e:
            log.warning("bf16 bulk embedding unavailable (%s); embedding in fp32", e)
            return None
        got = self._encode(st, REFERENCE_TEXTS, False)
        worst = float(np.min(np.sum(got * self.fp32.embed(list(REFERENCE_TEXTS)), axis=1)))
        if not worst >= SELF_CHECK_MIN_COSINE:  # also catches NaN
            log.warning("bf16 vectors differ from fp32 ones here (cosine %.6f < %s); embedding in fp32 "
                        "(MOTIVGRAPH_EMBEDDING_BULK_PRECISION=fp32 skips this check)", worst, SELF_CHECK_MIN_COSINE)
            return None
        log.info("bulk embedding in bf16 (lowest cosine to fp32 on the check texts %.6f)", worst)
        return st


def attach_bulk(emb: Embedder, setting: str, batch_size: int) -> None:
    """Give `emb` the bulk path `embedding.bulk_precision` asks for (nothing is imported or loaded yet)."""
    if setting == "fp32" or emb.backend == "onnx-int8":
        return
    emb.bulk = Bf16Bulk(emb, batch_size=batch_size, setting=setting)
