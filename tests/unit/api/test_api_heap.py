"""api/heap.py: the long-lived heap is frozen out of full collections, and still freed by reference counting."""

from __future__ import annotations

import gc
import weakref

import pytest

from motivgraph.api.heap import settle_long_lived


@pytest.fixture
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()  # other tests run with the collector as they expect


class _Row:
    pass


def test_settle_freezes_what_exists_and_a_dropped_object_is_still_freed(unfrozen) -> None:
    rows = [_Row() for _ in range(1000)]
    probe = weakref.ref(rows[0])
    assert gc.get_freeze_count() == 0
    settle_long_lived()
    assert gc.get_freeze_count() >= 1000  # the rows (and everything else alive) are out of the full passes
    tracked_after = len(gc.get_objects(generation=2))
    assert tracked_after < gc.get_freeze_count()  # a full pass now walks less than what was frozen
    del rows
    assert probe() is None  # reference counting frees a frozen object as soon as it is dropped
