"""The ONNX Runtime embedder against the torch one (sentence-transformers) on the packaged
all-MiniLM-L6-v2: the same vectors (cosine >= 0.9999) on varied texts, the first-use self-check,
the fall-back to torch on a mismatch, and the errors that name the fix.

Both models load once per session; the ONNX file is the setup's export (`motivgraph embeddings
export`), made here from the packaged weights when it is missing, and the tests skip with the
reason when it cannot be made (no torch)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from motivgraph.embeddings import _load, get_embedder, onnx_export, open_onnx
from motivgraph.embeddings.base import Embedder
from motivgraph.embeddings.minilm import SentenceTransformerEmbedder, max_seq_length, resolve_model_path
from motivgraph.embeddings.onnx_embedder import OnnxEmbedder
from motivgraph.errors import ConfigError, EmbeddingError, OnnxMismatch
from motivgraph.settings import EmbeddingSettings

LONG = " ".join(f"Paragraph {i}: hierarchical retrieval over scientific claims with sparse cross-attention."
                for i in range(40))
TEXTS = [
    "Graph neural networks for molecule property prediction",
    "",
    "   ",
    "?!",
    "Échantillonnage de données — Wörterbücher, naïve façade",
    "深度学习中的长文档摘要",
    "نموذج لغوي كبير 🚀 with emoji and ünïcödé",
    "a",
    LONG,
    "Quadratic attention cost: self-attention memory grows with the square of the sequence length.",
]


@pytest.fixture(scope="session")
def torch_embedder() -> Embedder:
    return get_embedder(EmbeddingSettings(backend="torch"))


@pytest.fixture(scope="session")
def onnx_embedder() -> OnnxEmbedder:
    if not onnx_export.torch_available() and onnx_export.current_export(
        onnx_export.export_dir("all-MiniLM-L6-v2", resolve_model_path("all-MiniLM-L6-v2"), None),
        resolve_model_path("all-MiniLM-L6-v2"),
    ) is None:
        pytest.skip("no ONNX export of the embedding model and no torch to make one (motivgraph embeddings export)")
    try:
        emb = open_onnx(EmbeddingSettings(backend="onnx"), check=False)
    except EmbeddingError as e:
        pytest.skip(f"the ONNX file cannot be built here: {e}")
    assert isinstance(emb, OnnxEmbedder)
    return emb


def test_long_text_really_is_truncated(onnx_embedder: OnnxEmbedder) -> None:
    # otherwise the parity below would not cover truncation
    assert len(onnx_embedder._tok.encode(LONG).ids) == 256 == onnx_embedder.max_seq_length
    assert len(onnx_embedder._tok.encode(LONG, add_special_tokens=False).ids) == 256  # truncation cut it
    untruncated = onnx_embedder._tok.encode_batch([LONG])[0].overflowing
    assert untruncated, "the long text must be longer than max_seq_length"


def test_onnx_vectors_match_torch(torch_embedder: Embedder, onnx_embedder: OnnxEmbedder) -> None:
    want = torch_embedder.embed(TEXTS)
    batch = onnx_embedder.embed(TEXTS)
    single = np.stack([onnx_embedder.embed([t])[0] for t in TEXTS])
    assert batch.shape == want.shape == (len(TEXTS), 384) and batch.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    for got in (batch, single):
        cos = np.sum(got * want, axis=1)
        worst = int(np.argmin(cos))
        assert cos[worst] >= 0.9999, f"text {TEXTS[worst][:40]!r}: cosine {cos[worst]:.6f}"
    # distinct texts stay distinct (a broken pooling would map everything to one vector)
    assert float(np.max(batch[0] @ batch[5:7].T)) < 0.9


def test_small_batches_keep_the_input_order(onnx_embedder: OnnxEmbedder) -> None:
    small = OnnxEmbedder(onnx_embedder.model_name, resolve_model_path("all-MiniLM-L6-v2"),
                         onnx_embedder.path.parent, onnx_embedder.meta, batch_size=3)
    np.testing.assert_allclose(small.embed(TEXTS), onnx_embedder.embed(TEXTS), atol=1e-5)
    assert small.embed([]).shape == (0, 384)


def test_vectors_do_not_depend_on_what_they_are_batched_with(onnx_embedder: OnnxEmbedder) -> None:
    # batches are runs of similar token length: a short phrase embedded beside a long paragraph, or alone,
    # or among many others, gets the same vector
    phrases = [f"phrase number {i} about sparse attention" for i in range(70)]
    together = onnx_embedder.embed([LONG, *phrases, TEXTS[0]])
    alone = np.vstack([onnx_embedder.embed([t]) for t in [LONG, *phrases, TEXTS[0]]])
    assert float(np.min(np.sum(together * alone, axis=1))) > 0.99999


def test_length_batches_cut_where_padding_would_be_wasted() -> None:
    from motivgraph.embeddings.onnx_embedder import PAD_WASTE, _length_batches

    lengths = np.array([120, 9, 9, 8, 8, 8, 7, 7, 3, 3, 3])
    batches = _length_batches(lengths, max_batch=4)
    covered = [i for b in batches for i in range(len(lengths))[b]]
    assert covered == list(range(len(lengths)))  # every row once, in order
    assert batches[0] == slice(0, 1)  # the long text alone
    for b in batches:
        rows = lengths[b]
        assert len(rows) <= 4
        assert rows.sum() >= (1 - PAD_WASTE) * rows[0] * len(rows)
    assert _length_batches(np.array([], dtype=np.int64), 8) == []


def test_max_seq_length_is_read_from_the_model_dir(torch_embedder: Embedder) -> None:
    assert isinstance(torch_embedder, SentenceTransformerEmbedder)
    assert max_seq_length(resolve_model_path("all-MiniLM-L6-v2")) == torch_embedder._model.max_seq_length == 256


def test_self_check_passes_on_the_export_and_fails_on_other_vectors(onnx_embedder: OnnxEmbedder) -> None:
    assert onnx_embedder.self_check() >= 0.9999
    ref = onnx_embedder.meta["reference"]
    wrong = {**onnx_embedder.meta, "reference": {**ref, "vectors": [v[1:] + v[:1] for v in ref["vectors"]]}}
    broken = OnnxEmbedder(onnx_embedder.model_name, resolve_model_path("all-MiniLM-L6-v2"),
                          onnx_embedder.path.parent, wrong)
    with pytest.raises(OnnxMismatch, match="motivgraph embeddings export --force"):
        broken.self_check()


def _copy_export(src: OnnxEmbedder, dest_root: Path, meta: dict) -> EmbeddingSettings:
    """An onnx_dir holding the real graph (symlinked) with the given metadata."""
    dest = dest_root / "all-MiniLM-L6-v2"
    dest.mkdir(parents=True)
    (dest / onnx_export.FP32_FILE).symlink_to(src.path)
    (dest / onnx_export.META_FILE).write_text(json.dumps(meta))
    return EmbeddingSettings(backend="onnx", onnx_dir=dest_root)


def test_a_mismatch_at_first_use_falls_back_to_torch_with_a_warning(
    onnx_embedder: OnnxEmbedder, torch_embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ref = onnx_embedder.meta["reference"]
    meta = {**onnx_embedder.meta, "reference": {**ref, "vectors": [[-x for x in v] for v in ref["vectors"]]}}
    cfg = _copy_export(onnx_embedder, tmp_path, meta)
    import motivgraph.embeddings as embeddings

    monkeypatch.setattr(embeddings, "_torch", lambda cfg: torch_embedder)  # the session's torch model
    with caplog.at_level(logging.WARNING, logger="motivgraph.embeddings"):
        emb = _load(cfg)
    assert emb is torch_embedder and emb.backend == "torch"
    assert any("embedding with torch instead" in r.getMessage() for r in caplog.records)


def test_a_good_export_in_onnx_dir_is_used(onnx_embedder: OnnxEmbedder, tmp_path: Path) -> None:
    emb = _load(_copy_export(onnx_embedder, tmp_path, onnx_embedder.meta))
    assert isinstance(emb, OnnxEmbedder) and emb.backend == "onnx" and emb.path.parent == tmp_path / "all-MiniLM-L6-v2"


def test_no_export_and_no_torch_is_an_error_naming_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_export, "torch_available", lambda: False)
    with pytest.raises(EmbeddingError, match="motivgraph embeddings export"):
        _load(EmbeddingSettings(backend="onnx", onnx_dir=tmp_path))
    with pytest.raises(EmbeddingError, match="needs torch"):
        onnx_export.export("all-MiniLM-L6-v2", resolve_model_path("all-MiniLM-L6-v2"), tmp_path / "x")


def test_export_from_other_weights_is_not_current(onnx_embedder: OnnxEmbedder, tmp_path: Path) -> None:
    meta = {**onnx_embedder.meta, "signature": [["model.safetensors", 1, 2]]}
    cfg = _copy_export(onnx_embedder, tmp_path, meta)
    assert onnx_export.current_export(tmp_path / "all-MiniLM-L6-v2", resolve_model_path(cfg.model)) is None
    assert onnx_export.current_export(onnx_embedder.path.parent, resolve_model_path(cfg.model)) is not None


@pytest.mark.skipif(onnx_export.INT8_GATE_PASSED, reason="the int8 recipe passed its gate: onnx-int8 is allowed")
def test_int8_is_refused_while_its_recipe_fails_the_gate() -> None:
    with pytest.raises(ConfigError, match="bench_embeddings"):
        _load(EmbeddingSettings(backend="onnx-int8"))


def test_set_threads_applies_to_onnx_sessions_made_after_it(
    onnx_embedder: OnnxEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import motivgraph.embeddings as embeddings

    monkeypatch.setattr(embeddings, "_threads", 0)
    embeddings.set_threads(1)
    emb = _load(_copy_export(onnx_embedder, tmp_path, onnx_embedder.meta))
    assert isinstance(emb, OnnxEmbedder)
    assert emb._session.get_session_options().intra_op_num_threads == 1
    assert onnx_embedder._session.get_session_options().intra_op_num_threads == 0  # made before: ORT's default


def test_an_export_that_cannot_be_written_falls_back_to_torch(
    torch_embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import motivgraph.embeddings as embeddings

    def unwritable(*_a: object, **_k: object) -> dict:
        raise PermissionError(13, "Permission denied", str(tmp_path))

    monkeypatch.setattr(onnx_export, "export", unwritable)
    monkeypatch.setattr(embeddings, "_torch", lambda cfg: torch_embedder)
    with caplog.at_level(logging.WARNING, logger="motivgraph.embeddings"):
        emb = _load(EmbeddingSettings(backend="onnx", onnx_dir=tmp_path / "ro"))
    assert emb is torch_embedder
    assert any("MOTIVGRAPH_EMBEDDING_ONNX_DIR" in r.getMessage() for r in caplog.records)


def test_mean_pool_averages_the_kept_tokens_only_and_normalises():
    from motivgraph.embeddings.onnx_embedder import mean_pool

    rng = np.random.default_rng(0)
    hidden = rng.standard_normal((2, 5, 8)).astype(np.float32)
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    got = mean_pool(hidden, mask)
    want0 = hidden[0, :3].mean(axis=0)
    np.testing.assert_allclose(got[0], want0 / np.linalg.norm(want0), rtol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-5)
    hidden[0, 3:] = 1e6  # what the pad positions hold does not matter
    np.testing.assert_allclose(mean_pool(hidden, mask)[0], got[0], rtol=1e-6)
