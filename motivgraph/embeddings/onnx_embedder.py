"""The embedding model on ONNX Runtime: the exported graph, the model directory's fast tokenizer,
then sentence-transformers' pooling (attention-masked mean) and L2 normalisation, so the vectors
are the torch backend's (cosine >= 0.9999, tests/unit/embeddings/test_onnx_parity.py) at a
fraction of the per-query cost.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from motivgraph.embeddings.base import Embedder
from motivgraph.embeddings.onnx_export import FP32_FILE, INT8_FILE, reference_vectors
from motivgraph.errors import EmbeddingError, OnnxMismatch

log = logging.getLogger(__name__)

Variant = Literal["fp32", "int8"]

# Lowest cosine to the stored torch vectors at the first-use self-check: fp32 must be the same
# vectors (measured 0.99999+); int8 is allowed its rounding but not a broken graph.
SELF_CHECK_MIN_COSINE: dict[Variant, float] = {"fp32": 0.9999, "int8": 0.98}


class OnnxEmbedder(Embedder):
    def __init__(self, model: str, model_path: Path, export_dir: Path, meta: dict[str, Any], *,
                 variant: Variant = "fp32", batch_size: int = 64, threads: int = 0) -> None:
        self.model_name = model
        self.backend = "onnx" if variant == "fp32" else "onnx-int8"
        self.variant: Variant = variant
        self.batch_size = batch_size
        self.meta = meta
        self.dim = int(meta["dim"])
        self.max_seq_length = int(meta["max_seq_length"])
        self.path = export_dir / (FP32_FILE if variant == "fp32" else INT8_FILE)
        try:
            tok = Tokenizer.from_file(str(model_path / "tokenizer.json"))
        except Exception as e:  # tokenizers raises a bare Exception for a missing or bad file
            raise EmbeddingError(f"Could not load the fast tokenizer from {model_path / 'tokenizer.json'}: {e}") from e
        # tokenizer.json pads and truncates to 128 for every batch; sentence-transformers truncates
        # at max_seq_length (as here) and pads to the longest text of the batch
        tok.enable_truncation(max_length=self.max_seq_length)
        tok.no_padding()  # embed() pads each batch itself, to that batch's longest text
        pad_id = tok.token_to_id("[PAD]")
        self._pad_id = pad_id if pad_id is not None else 0
        self._tok = tok
        try:
            self._session = ort.InferenceSession(str(self.path), session_options(threads),
                                                 providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime raises its own exception types for a missing/bad file
            raise OnnxMismatch(f"Could not load {self.path}: {e}") from e
        self._inputs = {i.name for i in self._session.get_inputs()}

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return mean_pool(self._session.run(None, model_inputs(self._inputs, ids, mask))[0], mask)

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Tokenised once, unpadded; batches are runs of similar token length, each padded to its own
        # longest. A fixed-size batch pads every text to the longest one in it: a tool query, a
        # paper's title + abstract and a dozen 5-word phrases embedded together (the offline
        # extractor, the resolver) cost the transformer 10x the tokens they hold. The pad tokens are
        # masked, so the vectors do not depend on the batching.
        enc = self._tok.encode_batch(list(texts), add_special_tokens=True)
        lengths = np.fromiter((len(e.ids) for e in enc), dtype=np.int64, count=len(enc))
        order = np.argsort(-lengths, kind="stable")
        out = np.empty((len(enc), self.dim), dtype=np.float32)
        for rows in _length_batches(lengths[order], self.batch_size):
            idx = order[rows]
            width = int(lengths[idx[0]])
            ids = np.full((len(idx), width), self._pad_id, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for r, i in enumerate(idx.tolist()):
                n = int(lengths[i])
                ids[r, :n] = enc[i].ids
                mask[r, :n] = 1
            out[idx] = self._run(ids, mask)
        return out

    def self_check(self) -> float:
        """Embed the export's reference texts and compare with the torch vectors stored beside the
        file; raise OnnxMismatch below the variant's minimum. Returns the lowest cosine."""
        texts, expected = reference_vectors(self.meta)
        got = self.embed(texts)
        worst = float(np.min(np.sum(got * expected, axis=1)))
        if not worst >= SELF_CHECK_MIN_COSINE[self.variant]:  # also catches NaN
            raise OnnxMismatch(
                f"{self.path} gives other vectors than torch on its reference texts (cosine {worst:.6f} < "
                f"{SELF_CHECK_MIN_COSINE[self.variant]}); re-export with `motivgraph embeddings export --force`"
            )
        return worst


def session_options(threads: int = 0) -> Any:
    """ONNX Runtime options for an embedding session: `threads` intra-op threads (0: one per core)."""

    opts = ort.SessionOptions()
    opts.log_severity_level = 3  # ORT's warnings about unused initialisers are noise here
    # no busy-waiting between runs: on a shared machine (and beside the API's own threads, or torch in
    # a bench) spinning intra-op threads burn the cores other work needs
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads:
        opts.intra_op_num_threads = threads
    return opts


def model_inputs(names: Collection[str], ids: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
    """The feed of an exported BERT-style graph whose inputs are `names`."""
    feed = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in names:
        feed["token_type_ids"] = np.zeros_like(ids)  # one segment: BERT's type ids are all 0
    return feed


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """sentence-transformers' pooling: the mean of the token states the attention mask keeps, L2-normalised."""
    m = mask[..., None].astype(np.float32)
    pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.clip(norms, 1e-12, None)


# A batch is cut where padding to its first (longest) text would spend more than this share of its
# token slots on padding; runs of similar length then share one session call, lone outliers get their own.
PAD_WASTE = 0.25


def _length_batches(sorted_lengths: np.ndarray, max_batch: int) -> list[slice]:
    """Slices of `sorted_lengths` (longest first) into batches of at most `max_batch` whose padded
    size (count x first length) wastes at most PAD_WASTE of it."""
    out: list[slice] = []
    n = len(sorted_lengths)
    start = 0
    while start < n:
        width = int(sorted_lengths[start])
        end = start + 1
        real = width
        while end < n and end - start < max_batch:
            real_next = real + int(sorted_lengths[end])
            if real_next < (1 - PAD_WASTE) * width * (end - start + 1):
                break
            real = real_next
            end += 1
        out.append(slice(start, end))
        start = end
    return out
