"""Embedder interface: texts in, L2-normalised float32 vectors out (cosine = inner product)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Literal, Protocol

import numpy as np

# The precision a bulk call's vectors came in; an index stamps it.
Precision = Literal["fp32", "bf16"]

# Below this many texts a bulk call stays on the fp32 embedder: loading torch's model costs seconds,
# and a small batch gains nothing worth a second set of weights in memory.
BULK_MIN_TEXTS = 256


class BulkPath(Protocol):
    """A second way to embed large batches (bulk.py's bf16 path): the vectors and the precision they came in."""

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> tuple[np.ndarray, Precision]: ...


class Embedder(ABC):
    model_name: str
    dim: int
    # What computed the vectors ("torch", "onnx", "onnx-int8"): an index records it and refuses another.
    backend: str = "torch"
    # The bf16 path for large batches (embedding.bulk_precision, see bulk.py); None: bulk is fp32 too.
    bulk: BulkPath | None = None

    @abstractmethod
    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        """Return an array of shape (len(texts), dim), float32, each row of unit norm."""

    def embed_bulk(self, texts: Sequence[str], *, show_progress: bool = False) -> tuple[np.ndarray, Precision]:
        """Many texts at once (an index build): the vectors and the precision they came in -- bf16 through
        `bulk` for a large batch where embedding.bulk_precision allows it, else `embed`'s fp32."""
        if self.bulk is not None and len(texts) >= BULK_MIN_TEXTS:
            return self.bulk.embed(texts, show_progress=show_progress)
        return self.embed(texts, show_progress=show_progress), "fp32"
