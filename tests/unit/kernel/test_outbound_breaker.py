"""The outbound toolkit's circuit breaker: opens after N consecutive failures, refuses while open, half-opens
after the cooldown (one failure re-opens it, one success closes it), and holds for a server's longer pause."""

from __future__ import annotations

import pytest

from motivgraph.outbound import CircuitBreaker


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_opens_after_threshold_consecutive_failures_and_a_success_resets_the_count() -> None:
    clock = Clock()
    b = CircuitBreaker(3, 60.0, clock=clock)
    assert not b.record_failure() and not b.record_failure()
    b.record_success()  # not consecutive any more
    assert not b.record_failure() and not b.record_failure()
    assert b.state == "closed" and b.open_for() == 0
    assert b.record_failure()
    assert b.state == "open" and b.open_for() == pytest.approx(60.0)


def test_half_open_after_cooldown_one_failure_reopens_one_success_closes() -> None:
    clock = Clock()
    b = CircuitBreaker(2, 30.0, clock=clock)
    b.record_failure()
    b.record_failure()
    clock.now += 29.0
    assert b.state == "open" and b.open_for() == pytest.approx(1.0)
    clock.now += 1.0
    assert b.state == "half_open" and b.open_for() == 0  # a trial call may go out
    assert b.record_failure()  # the trial failed: open again at once, not after 2 more
    assert b.state == "open" and b.open_for() == pytest.approx(30.0)
    clock.now += 30.0
    b.record_success()
    assert b.state == "closed" and b.failures == 0
    assert not b.record_failure()  # closed again: the full threshold applies


def test_retry_after_longer_than_the_cooldown_keeps_it_open_longer() -> None:
    clock = Clock()
    b = CircuitBreaker(1, 10.0, clock=clock)
    assert b.record_failure(hold_s=120.0)
    assert b.open_for() == pytest.approx(120.0)
    b2 = CircuitBreaker(5, 10.0, clock=clock)
    b2.hold(3600.0)  # a server asking for an hour's pause opens it whatever the count
    assert b2.state == "open" and b2.open_for() == pytest.approx(3600.0)
    clock.now += 3600.0
    assert b2.state == "half_open"


def test_threshold_must_be_positive() -> None:
    with pytest.raises(ValueError):
        CircuitBreaker(0, 1.0)
