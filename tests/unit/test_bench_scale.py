"""The 10x-scale bench's own arithmetic on a tiny dataset: ground truth, merged search, recall and
the re-rank wrapper, the word-model vectors, and the synthetic graph's name widening (no timing)."""

from __future__ import annotations

import random

import numpy as np
import pytest

faiss = pytest.importorskip("faiss")

from bench import bench_scale as bs  # noqa: E402
from bench import synthetic  # noqa: E402


def _tiny(seed: int = 3) -> tuple[dict[str, np.ndarray], dict[str, list[str]], np.ndarray]:
    rng = np.random.default_rng(seed)
    vectors, ids = {}, {}
    for gi, g in enumerate(bs.GROUPS):
        v = rng.standard_normal((60 + 10 * gi, bs.DIM)).astype(np.float32)
        vectors[g] = v / np.linalg.norm(v, axis=1, keepdims=True)
        ids[g] = [f"{g}:{i:03d}" for i in range(len(v))]
    q = rng.standard_normal((12, bs.DIM)).astype(np.float32)
    return vectors, ids, q / np.linalg.norm(q, axis=1, keepdims=True)


def test_truth_is_the_exact_merged_top_k_and_flat_search_recalls_all_of_it():
    vectors, ids, q = _tiny()
    truth = bs.exact_truth(vectors, q)
    allv = np.concatenate([vectors[g] for g in bs.GROUPS])
    owner = [(g, r) for g in bs.GROUPS for r in range(len(vectors[g]))]
    for qi in range(len(q)):
        brute = [owner[i] for i in np.argsort(-(allv @ q[qi]))[: bs.K]]
        assert truth[qi] == brute
        flat = {}
        for g in bs.GROUPS:
            flat[g] = faiss.IndexFlatIP(bs.DIM)
            flat[g].add(vectors[g])
        hits = bs.merged_search(flat, ids, q[qi : qi + 1], bs.K)
        assert [(g, r) for _, g, r in hits] == brute
        assert bs.recall_at_k(hits, truth[qi]) == 1.0


def test_a_union_index_maps_its_rows_back_to_groups_as_the_merged_search_does():
    vectors, ids, q = _tiny(5)
    q = np.concatenate([q, *(vectors[g][:1] for g in bs.GROUPS)])  # each group's first row as a top hit
    union_index = faiss.IndexFlatIP(bs.DIM)
    union_index.add(np.concatenate([vectors[g] for g in bs.GROUPS]))
    union = bs.Union(union_index, {g: len(vectors[g]) for g in bs.GROUPS})
    flat = {}
    for g in bs.GROUPS:
        flat[g] = faiss.IndexFlatIP(bs.DIM)
        flat[g].add(vectors[g])
    for qi in range(len(q)):
        got = bs.union_search(union, ids, q[qi : qi + 1], bs.K)
        want = bs.merged_search(flat, ids, q[qi : qi + 1], bs.K)
        assert [(g, r) for _, g, r in got] == [(g, r) for _, g, r in want]
        assert {g for _, g, _ in got} <= set(bs.GROUPS)


def test_recall_counts_the_share_found():
    truth = [("problem", i) for i in range(10)]
    hits = [(1.0, "problem", i) for i in range(7)] + [(0.5, "solution", i) for i in range(3)]
    assert bs.recall_at_k(hits, truth) == pytest.approx(0.7)
    assert bs.recall_at_k([], truth) == 0.0


class _Poor:
    """An 'approximate' index that ranks by the wrong sign: only a full re-rank recovers the truth."""

    def __init__(self, v: np.ndarray) -> None:
        self.v = v

    def search(self, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        s = -(q @ self.v.T)
        r = np.argsort(-s, axis=1)[:, :k]
        return np.take_along_axis(s, r, axis=1), r


def test_refine_reranks_the_candidates_by_exact_inner_product():
    vectors, ids, q = _tiny(5)
    truth = bs.exact_truth(vectors, q)
    poor = {g: _Poor(vectors[g]) for g in bs.GROUPS}
    full = {g: bs.Refined(poor[g], vectors[g], factor=10) for g in bs.GROUPS}  # k*10 >= every row
    recalls_poor = [bs.recall_at_k(bs.merged_search(poor, ids, q[i : i + 1], bs.K), truth[i]) for i in range(len(q))]
    recalls_full = [bs.recall_at_k(bs.merged_search(full, ids, q[i : i + 1], bs.K), truth[i]) for i in range(len(q))]
    assert max(recalls_poor) < 0.5
    assert recalls_full == [1.0] * len(q)


def test_word_model_vectors_are_unit_deterministic_and_cluster_by_shared_words():
    names = ["Robust clinical summarization", "Robust clinical summarization at web scale", "Sparse protein folding"]
    a = bs.vectorise(bs.WordVectors(1), names, None, np.random.default_rng(0))
    b = bs.vectorise(bs.WordVectors(1), names, None, np.random.default_rng(0))
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(a, b)
    assert a[0] @ a[1] > a[0] @ a[2] + 0.3


def test_synthetic_names_widen_only_past_the_base_vocabulary():
    base = [f"name {i}" for i in range(10)]
    assert synthetic._widen(base, 10) is base
    wide = synthetic._unique_names(random.Random(0), 50, base)
    assert len(set(wide)) == 50
    assert any(" ".join(n.split()[2:]) in synthetic.VARIANTS for n in wide)
    with pytest.raises(ValueError):
        synthetic._unique_names(random.Random(0), len(base) * (len(synthetic.VARIANTS) + 1) + 1, base)
