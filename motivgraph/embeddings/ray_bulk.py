"""Bulk embedding on Ray (`motivgraph reindex --engine ray`): an index build's texts in batches over the
cluster's workers, so the build is not bound to one machine's cores.

`RayEmbedder` is an Embedder: the index code is unchanged, it only calls `embed_bulk` on a wider
engine. Each worker loads the same model from the same settings (`get_embedder`, cached per worker
process) and embeds its batch as the local build would (`embed_bulk`: bf16 where the settings and the
CPU allow, else fp32), so the vectors are the local build's up to float noise (batching changes the
padding of a forward pass, not its result). Model name, dimension and backend come from a worker, so the
index stamp is the one a local build writes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from motivgraph.embeddings import get_embedder
from motivgraph.embeddings.base import Embedder, Precision
from motivgraph.ray_cluster import import_ray

if TYPE_CHECKING:
    from motivgraph.settings import EmbeddingSettings

# Below this many texts per worker a batch is not split further: a task's fixed cost (scheduling, the
# texts and vectors through the object store) would outweigh the forward passes it saves.
MIN_BATCH = 64


def describe_model(cfg: EmbeddingSettings) -> tuple[str, int, str]:
    emb = get_embedder(cfg)
    return emb.model_name, emb.dim, emb.backend


def embed_batch(cfg: EmbeddingSettings, texts: list[str], bulk: bool) -> tuple[np.ndarray, str]:
    emb = get_embedder(cfg)  # loaded once per worker process
    if bulk:
        vecs, precision = emb.embed_bulk(texts)
        return vecs, precision
    return emb.embed(texts), "fp32"


class RayEmbedder(Embedder):
    """Embeds through Ray tasks; needs a Ray session (motivgraph.ray_cluster.ray_session)."""

    def __init__(self, cfg: EmbeddingSettings, *, workers: int, max_batch: int, retries: int) -> None:
        ray = import_ray()
        self._ray = ray
        self.workers = max(1, workers)
        self.max_batch = max_batch
        self._embed = ray.remote(embed_batch).options(num_cpus=1, max_retries=retries)
        self._cfg = ray.put(cfg)
        describe = ray.remote(describe_model).options(num_cpus=1, max_retries=retries)
        self.model_name, self.dim, self.backend = ray.get(describe.remote(self._cfg))
        self.bulk = None  # each worker decides bf16 for its own batch, as `embed_bulk` does locally

    def _run(self, texts: list[str], bulk: bool) -> tuple[np.ndarray, Precision]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32), "fp32"
        size = min(self.max_batch, max(MIN_BATCH, math.ceil(len(texts) / self.workers)))
        refs: list[Any] = [self._embed.remote(self._cfg, texts[i : i + size], bulk) for i in range(0, len(texts), size)]
        outs = self._ray.get(refs)  # in submission order: row i is text i
        vecs = np.vstack([v for v, _ in outs]).astype(np.float32, copy=False)
        return vecs, "bf16" if any(p == "bf16" for _, p in outs) else "fp32"

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        return self._run(list(texts), bulk=False)[0]

    def embed_bulk(self, texts: Sequence[str], *, show_progress: bool = False) -> tuple[np.ndarray, Precision]:
        return self._run(list(texts), bulk=True)


__all__ = ["RayEmbedder", "describe_model", "embed_batch"]
