"""Embedding models. `get_embedder(settings)` returns the process-wide instance (loading is slow)."""

from __future__ import annotations

import threading

from motivgraph.embeddings.base import Embedder
from motivgraph.settings import EmbeddingSettings

_lock = threading.Lock()
_cache: dict[tuple[str, str], Embedder] = {}


def get_embedder(cfg: EmbeddingSettings) -> Embedder:
    key = (cfg.model, cfg.device)
    with _lock:
        if key not in _cache:
            from motivgraph.embeddings.minilm import SentenceTransformerEmbedder

            _cache[key] = SentenceTransformerEmbedder(cfg.model, device=cfg.device, batch_size=cfg.batch_size)
        return _cache[key]


__all__ = ["Embedder", "get_embedder"]
