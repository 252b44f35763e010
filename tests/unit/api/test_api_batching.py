"""Natural micro-batching: every caller gets its own result, concurrent callers share batches,
an error reaches exactly the callers of the failed batch."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from motivgraph.api.services.batching import Batcher


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
