"""The bf16 bulk path (embedding.bulk_precision): used only for large batches, vectors within the
self-check's cosine of fp32, nothing loaded until a bulk call, fp32 when the CPU has no native bf16
under 'auto' or when the first-use check fails, and `fp32` keeping exactly the query embedder's vectors."""

from __future__ import annotations

import logging
import random

import numpy as np
import pytest

from motivgraph.embeddings import bulk, get_embedder
from motivgraph.embeddings.base import BULK_MIN_TEXTS
from motivgraph.embeddings.bulk import SELF_CHECK_MIN_COSINE, Bf16Bulk
from motivgraph.settings import EmbeddingSettings

pytest.importorskip("torch", reason="the bf16 bulk path runs the model on torch")

WORDS = ("graph", "attention", "sparse", "retrieval", "protein", "folding", "noise", "robust", "contrastive",
         "diffusion", "latency", "memory", "federated", "privacy", "causal", "benchmark", "tokenizer", "molecule")


def node_texts(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [f"{' '.join(rng.sample(WORDS, 3))}: {' '.join(rng.choices(WORDS, k=rng.randint(4, 30)))}"
            for _ in range(n)]


def fresh(setting: str) -> object:
    """A new embedder (not the process-wide cached one) with the bulk path `setting` asks for."""
    from motivgraph.embeddings import _load

    cfg = EmbeddingSettings(bulk_precision=setting)  # type: ignore[arg-type]
    emb = _load(cfg)
    bulk.attach_bulk(emb, cfg.bulk_precision, cfg.batch_size)
    return emb


def test_small_batches_stay_fp32_and_load_nothing() -> None:
    emb = fresh("bf16")
    assert isinstance(emb.bulk, Bf16Bulk)
    texts = node_texts(BULK_MIN_TEXTS - 1)
    vecs, precision = emb.embed_bulk(texts)
    assert precision == "fp32"
    assert not emb.bulk.loaded
    np.testing.assert_array_equal(vecs, emb.embed(texts))


def test_bf16_bulk_vectors_are_unit_and_close_to_fp32() -> None:
    emb = fresh("bf16")
    texts = node_texts(BULK_MIN_TEXTS + 40)
    vecs, precision = emb.embed_bulk(texts)
    assert precision == "bf16"
    assert vecs.dtype == np.float32 and vecs.shape == (len(texts), emb.dim)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    ref = emb.embed(texts)
    cos = np.sum(vecs * ref, axis=1)
    assert cos.min() >= SELF_CHECK_MIN_COSINE
    assert not np.array_equal(vecs, ref)  # really another computation, not the fp32 path renamed
    # each text's nearest other text is the same under both (a coarse form of the bench's overlap gate)
    def nearest(v: np.ndarray) -> np.ndarray:
        sims = v @ v.T
        np.fill_diagonal(sims, -np.inf)
        return sims.argmax(axis=1)
    assert np.mean(nearest(vecs) == nearest(ref)) >= 0.95


def test_fp32_setting_has_no_bulk_path() -> None:
    emb = get_embedder(EmbeddingSettings(bulk_precision="fp32"))
    assert emb.bulk is None
    texts = node_texts(BULK_MIN_TEXTS + 1)
    vecs, precision = emb.embed_bulk(texts)
    assert precision == "fp32"
    np.testing.assert_array_equal(vecs, emb.embed(texts))


def test_auto_without_native_bf16_is_fp32(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bulk, "native_bf16", lambda: False)
    emb = fresh("auto")
    texts = node_texts(BULK_MIN_TEXTS)
    vecs, precision = emb.embed_bulk(texts)
    assert precision == "fp32"
    np.testing.assert_array_equal(vecs, emb.embed(texts))


def test_a_failed_first_use_check_falls_back_to_fp32_with_a_warning(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    emb = fresh("bf16")
    rng = np.random.default_rng(0)

    def broken(self: Bf16Bulk, st: object, texts: list[str], show_progress: bool) -> np.ndarray:
        v = rng.standard_normal((len(texts), emb.dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    monkeypatch.setattr(Bf16Bulk, "_encode", broken)
    texts = node_texts(BULK_MIN_TEXTS)
    with caplog.at_level(logging.WARNING, logger="motivgraph.embeddings.bulk"):
        vecs, precision = emb.embed_bulk(texts)
    assert precision == "fp32"
    np.testing.assert_array_equal(vecs, emb.embed(texts))
    assert "BULK_PRECISION=fp32" in caplog.text
