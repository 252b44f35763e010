"""Embedder interface: texts in, L2-normalised float32 vectors out (cosine = inner product)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np


class Embedder(ABC):
    model_name: str
    dim: int
    # What computed the vectors ("torch", "onnx", "onnx-int8"): an index records it and refuses another.
    backend: str = "torch"

    @abstractmethod
    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        """Return an array of shape (len(texts), dim), float32, each row of unit norm."""

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]
