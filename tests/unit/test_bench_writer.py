"""The writer bench's own helpers (no timing, no store): the synthetic graph regrouped into one record per
paper, the texts the resolver may embed, the per-quarter rates, and the measured embedder's table lookups."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from bench import bench_writer as bw
from bench.synthetic import SyntheticGraph
from motivgraph.embeddings.base import Embedder


class _Counting(Embedder):
    model_name, dim, backend = "fake", 4, "torch"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        self.calls.append(list(texts))
        v = np.array([[len(t), 1.0, 0.0, 0.0] for t in texts], dtype=np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_synthetic_records_hold_every_triple_once_under_its_paper_in_order():
    g = SyntheticGraph(scale=0.005)
    records = bw.synthetic_records(g)
    assert [p.paper_id for p, _ in records] == [p.paper_id for p in g.papers]
    assert all(p.paper_id == r.paper_id for p, r in records)
    got = [(p.paper_id, t.problem.name, t.challenge.name, t.solution.name, t.section)
           for p, r in records for t in r.triples]
    want = [(t.paper_id, t.problem.name, t.challenge.name, t.solution.name, t.section) for t in g.triples]
    assert sorted(got) == sorted(want)
    # triple i of a paper is the paper's i-th synthetic triple (the stored index is its position)
    pid, first = records[0][0].paper_id, records[0][1].triples
    assert [t.problem.name for t in first] == [t.problem.name for t in g.triples if t.paper_id == pid]
    assert len(bw.synthetic_records(g, limit=3)) == 3


def test_mention_texts_are_each_node_text_and_description_once():
    records = bw.synthetic_records(SyntheticGraph(scale=0.005), limit=4)
    texts = bw.mention_texts(records)
    assert len(texts) == len(set(texts))
    for _, r in records:
        for t in r.triples:
            for node in (t.problem, t.challenge, t.solution):
                assert node.text() in texts
                assert node.description in texts


def test_quarter_rates_count_each_slice_over_its_own_span():
    # 8 papers: two finish per second in the first half, one per second after
    done = [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert bw.quarter_rates(done, 0.0) == pytest.approx([2.0, 2.0, 1.0, 1.0])
    assert bw.quarter_rates(done[:3], 0.0) == []


def test_measured_embedder_looks_up_given_vectors_and_embeds_only_the_misses():
    inner = _Counting()
    table = {"a": inner.embed(["a"])[0]}
    inner.calls.clear()
    m = bw.MeasuredEmbedder(inner, table)
    out = m.embed(["a", "bb", "a", "bb"])
    assert inner.calls == [["bb"]]  # one call, the miss once
    assert m.misses == 1 and "bb" in table
    np.testing.assert_array_equal(out[0], table["a"])
    np.testing.assert_array_equal(out[1], out[3])
    assert m.embed([]).shape == (0, 4)
    plain = bw.MeasuredEmbedder(inner)
    plain.embed(["x", "y"])
    assert plain.texts == 2 and plain.misses == 0
    assert (plain.model_name, plain.dim, plain.backend) == ("fake", 4, "torch")
