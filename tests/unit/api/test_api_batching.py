"""Natural micro-batching: every caller gets its own result, concurrent callers share batches,
an error reaches exactly the callers of the failed batch."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from motivgraph.api.services.batching import BatchedQueries, Batcher


def test_results_and_batches_under_concurrency():
    sizes: list[int] = []
    gate = threading.Event()

    def fn(xs):
        sizes.append(len(xs))
        if len(sizes) == 1:
            gate.wait(5)  # hold the first batch so the others queue up behind it
        return [x * 2 for x in xs]

    b = Batcher(fn)
    with ThreadPoolExecutor(16) as pool:
        futs = [pool.submit(b, i) for i in range(16)]
        deadline = time.monotonic() + 5
        while len(b._pending) < 15 and time.monotonic() < deadline:
            time.sleep(0.01)
        gate.set()
        assert [f.result() for f in futs] == [i * 2 for i in range(16)]
    assert sizes[0] == 1 and sum(sizes) == 16 and len(sizes) == 2  # 15 callers served by one batch
    assert b(21) == 42  # leadership released: a later lone call runs at once


def test_error_goes_to_its_batch_only():
    calls = []

    def fn(xs):
        calls.append(list(xs))
        if "bad" in xs:
            raise ValueError("bad input")
        return [x.upper() for x in xs]

    b = Batcher(fn)
    with pytest.raises(ValueError, match="bad input"):
        b("bad")
    assert b("ok") == "OK"


class _Embedder:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return np.stack([np.full(3, float(len(t)), dtype=np.float32) for t in texts])


class _Search:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, object, object, bool]] = []

    def search_vectors(self, vectors, k, types=None, min_score=None, *, check):
        self.calls.append((len(vectors), k, types, min_score, check))
        return [[f"hit {int(v[0])}"] for v in vectors]


def test_batched_queries_embed_a_text_once_and_search_without_a_second_readiness_check():
    emb, search = _Embedder(), _Search()
    opened: list[str] = []
    q = BatchedQueries(lambda: emb, lambda: opened.append("search") or search)  # type: ignore[arg-type,func-returns-value]
    assert opened == []  # nothing opened before the first search
    v = q.embed("abc")
    assert np.array_equal(q.embed("abc"), v) and emb.calls == [["abc"]]
    assert q.search("abcd", 5, ["problem"], 0.3) == ["hit 4"]
    assert q.search("ab", 5, ["problem"], 0.3) == ["hit 2"]
    # the caller (ToolContext.search) checked readiness for the request: the backend is told so
    assert search.calls == [(1, 5, ("problem",), 0.3, False), (1, 5, ("problem",), 0.3, False)]
    assert opened == ["search"] and len(q._searchers) == 1  # one batcher per (k, types, min_score)
    q.search("ab", 6)
    assert len(q._searchers) == 2 and search.calls[-1] == (1, 6, None, None, False)


def test_batched_queries_keep_a_bounded_number_of_batchers(monkeypatch):
    q = BatchedQueries(lambda: _Embedder(), lambda: _Search())  # type: ignore[arg-type,return-value]
    monkeypatch.setattr(BatchedQueries, "MAX_SEARCHERS", 3)
    for k in range(1, 8):
        assert q.search("x", k) == ["hit 1"]
    assert len(q._searchers) == 3
