"""bench_neo4j's own arithmetic, no server: the brute-force truth, recall@k, the table it prints, the shared
vectors (both indexes must get the same vector for a text however it is batched) and its size knob."""

from __future__ import annotations

import numpy as np
import pytest

from bench import bench_neo4j as bn


def _unit(rng: np.random.Generator, n: int, dim: int = 16) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_exact_top_k_is_the_full_sort():
    rng = np.random.default_rng(3)
    m, q = _unit(rng, 200), _unit(rng, 7)
    keys = [f"challenge:{i:03d}" for i in range(len(m))]
    got = bn.exact_top_k(m, keys, q, k=10)
    for qi, row in enumerate(got):
        assert row == [keys[i] for i in np.argsort(-(m @ q[qi]), kind="stable")[:10]]
    assert bn.exact_top_k(m[:4], keys[:4], q[:1], k=10) == [
        [keys[i] for i in np.argsort(-(m[:4] @ q[0]))]]  # fewer items than k: all of them, best first


def test_exact_top_k_breaks_ties_by_key():
    m = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    assert bn.exact_top_k(m, ["b", "a", "c"], np.array([[1.0, 0.0]], dtype=np.float32), k=2) == [["a", "b"]]


def test_recall_counts_the_share_of_the_truth_found():
    truth = [f"k{i}" for i in range(10)]
    assert bn.recall_at_k(truth, truth) == 1.0
    assert bn.recall_at_k([*truth[:7], "x", "y", "z"], truth) == pytest.approx(0.7)
    assert bn.recall_at_k(list(reversed(truth)), truth) == 1.0  # order inside the top k does not matter
    assert bn.recall_at_k(["x"] * 3 + truth, truth) == pytest.approx(0.7)  # only the first k hits count
    assert bn.recall_at_k([], truth) == 0.0
    assert bn.recall_at_k(["a"], []) == 1.0


def test_the_table_heads_with_the_command_and_load_and_escapes_cells():
    r = bn.Report(command="python -m bench.bench_neo4j --papers 50", load_start=1.234)
    r.add("upsert", "1.0 s: 9/s", "2.0 s: 4/s", "a | b")
    r.add("check", neo4j="identical")
    r.load_end = 2.5
    lines = bn.markdown_table(r).splitlines()
    assert lines[0] == "`python -m bench.bench_neo4j --papers 50` (1-minute load average 1.23 at start, 2.50 at end)"
    assert lines[2] == "| figure | embedded FalkorDB | Neo4j 5 | note |"
    assert lines[4] == "| upsert | 1.0 s: 9/s | 2.0 s: 4/s | a \\| b |"
    assert lines[5] == "| check |  | identical |  |"
    assert all(line.replace("\\|", "").count("|") == 5 for line in lines[2:])  # four cells a row


def test_latency_and_rate_format():
    assert bn.latency([1.0] * 99 + [3.0]) == "1.00 / 1.02 ms"
    assert bn.latency([250.0, 250.0]) == "250 / 250 ms"
    assert bn.rate(1000, 2.0) == "500/s" and bn.rate(1, 0) == "n/a"


def test_word_vectors_do_not_depend_on_the_batch():
    emb = bn.WordEmbedder(seed=1)
    texts = ["Sparse attention: attend to few positions", "Label scarcity in clinical NER", "x"]
    together = emb.embed(texts)
    apart = np.vstack([emb.embed([t]) for t in reversed(texts)])[::-1]
    assert np.allclose(together, apart, atol=1e-6)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert together[0] @ emb.embed(["attention sparse: few positions attended"])[0] > together[0] @ together[1]


def test_the_table_embedder_serves_computed_vectors_and_embeds_only_the_rest():
    inner = bn.WordEmbedder(seed=2)
    table = {"known": np.ones(inner.dim, dtype=np.float32) / np.sqrt(inner.dim)}
    emb = bn.TableEmbedder(inner, dict(table), precision="bf16")
    out, precision = emb.embed_bulk(["known", "new text", "known"])
    assert precision == "bf16" and emb.misses == 1
    assert np.array_equal(out[0], table["known"]) and np.array_equal(out[2], table["known"])
    assert np.allclose(out[1], inner.embed(["new text"])[0])
    emb.embed(["new text"])
    assert emb.misses == 1  # computed once, then served
    assert (emb.model_name, emb.dim, emb.backend) == (inner.model_name, inner.dim, inner.backend)


def test_size_knob():
    assert bn.parse_args([]).papers == 1000
    assert bn.parse_args(["--paper-scale"]).papers == bn.PAPER_SCALE == 14_000
    assert bn.parse_args(["--papers", "300"]).papers == 300
    with pytest.raises(SystemExit):
        bn.parse_args(["--papers", "3"])
