"""The Ray bench's own arithmetic (no Ray, no timing): the median run per engine, papers/s past the fixed costs
priced by the half-corpus run, and the same-graph verdict over the full runs only."""

from __future__ import annotations

import math

from bench import bench_ray as br


def _run(engine: str, wall: float, stored: int = 28, *, small: bool = False, same: bool | None = None) -> br.Run:
    return br.Run(engine, 0, wall, 0, stored, 1, (0.0, 0.0), same_graph=same, small=small)


def test_median_run_per_engine_keeps_full_and_half_corpus_runs_apart():
    runs = [_run("local", 30), _run("local", 10), _run("local", 20), _run("local", 2, 1, small=True),
            _run("ray, 2 workers", 40, same=True), _run("ray, 2 workers", 9, 1, small=True)]
    med = br.median_by_engine(runs)
    assert med["local"].wall_s == 20 and med["ray, 2 workers"].wall_s == 40
    assert br.median_by_engine(runs, small=True)["local"].wall_s == 2
    assert "ray, 1 worker" not in med


def test_marginal_rate_counts_only_the_documents_and_time_beyond_the_half_corpus_run():
    assert br.marginal_rate(_run("local", 30, 28), _run("local", 16, 14, small=True)) == 1.0
    assert math.isnan(br.marginal_rate(_run("local", 30, 28), None))
    assert math.isnan(br.marginal_rate(_run("local", 3, 28), _run("local", 5, 1, small=True)))


def test_same_graph_is_judged_on_the_full_runs_alone():
    runs = [_run("ray, 1 worker", 30, same=True), _run("ray, 1 worker", 9, 1, small=True),
            _run("ray, 2 workers", 30, same=True), _run("ray, 2 workers", 31, same=False)]
    assert br.same_graph(runs, "ray, 1 worker") is True  # the half-corpus run (never compared) does not count
    assert br.same_graph(runs, "ray, 2 workers") is False
    assert br.same_graph(runs, "local") is None
