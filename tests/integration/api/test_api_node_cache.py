"""The warm node cache (api.node_cache): a server fills it from the graph in the background, node_search
hits and random_nodes draws are then answered without reading node records from the graph, and a graph
change drops it (no stale brief is served) and fills it again; a fill begun before a change never lands
after it."""

from __future__ import annotations

import time

import pytest

from motivgraph.api.contract.models import NodeSearchRequest, RandomNodesRequest
from motivgraph.api.services import ToolService, briefs
from motivgraph.api.services.node_search import node_search
from motivgraph.api.services.random_nodes import random_nodes
from motivgraph.graph.models import NodeIn, TripleIn
from tests.integration.api.conftest import PAPERS, QUANT, build_graph, make_settings


@pytest.fixture
def graph_settings(tmp_path, falkordb_server, embedder):
    s = make_settings(tmp_path, falkordb_server.url, version_check_s=0.0)
    build_graph(s, embedder)
    return s


def wait_for(cond, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_warm_cache_answers_hits_without_the_graph_and_a_change_drops_it(graph_settings, monkeypatch):
    monkeypatch.setattr(briefs, "REWARM_DELAY_S", 0.05)
    svc = ToolService(graph_settings)
    ctx = svc.ctx
    try:
        cache = ctx.brief_cache
        ctx.graph_version()
        cache.keep_warm()
        wait_for(lambda: not cache.filling)
        n = len(cache)
        assert n == sum(1 for _ in ctx.store.iter_nodes()) and n > 5

        fetched: list[list[str]] = []
        real_fetch = cache._fetch
        monkeypatch.setattr(cache, "_fetch", lambda keys: fetched.append(keys) or real_fetch(keys))
        res = node_search(ctx, NodeSearchRequest(query="LLM compression", k=3, types=["solution"]))
        assert res.hits and res.hits[0].key == QUANT
        assert fetched == []  # every hit came from the cache
        # random_nodes: the same nodes as the store draws for the seed, their briefs from the cache
        store = ctx.store
        want = store.random_nodes(4, seed=11)
        read: list[list[str]] = []
        real_get = store.get_nodes
        monkeypatch.setattr(store, "get_nodes", lambda keys: read.append(list(keys)) or real_get(keys))
        drawn = random_nodes(ctx, RandomNodesRequest(n=4, seed=11))
        assert [(x.key, x.name) for x in drawn.nodes] == [(r.key, r.name) for r in want]
        assert fetched == [] and read == []

        # a change: the cache is dropped at the next version check, and filled again with the new node
        ctx.store.upsert_triples([TripleIn(
            paper_id=PAPERS[0].paper_id, index=99,
            problem=NodeIn(name="Serving compressed language models", description="Latency of 4-bit serving."),
            challenge=NodeIn(name="Dequantisation overhead", description="Unpacking weights costs time."),
            solution=NodeIn(name="Fused low-bit kernels", description="Kernels that multiply packed weights."),
            section="introduction")])
        ctx.graph_version()
        wait_for(lambda: "solution:fused low bit kernels" in cache.nodes)
        wait_for(lambda: not cache.filling)
        assert len(cache) == n + 3
    finally:
        svc.close()


def test_a_fill_begun_before_a_clear_puts_nothing(graph_settings):
    svc = ToolService(graph_settings)
    try:
        cache = svc.ctx.brief_cache.nodes
        generation = cache.generation
        cache.clear()
        assert cache.put_many([("k", "v")], generation) is False and len(cache) == 0
        assert cache.put_many([("k", "v")], cache.generation) is True and len(cache) == 1
    finally:
        svc.close()


def test_node_cache_zero_turns_it_off(tmp_path, falkordb_server, embedder):
    s = make_settings(tmp_path, falkordb_server.url, node_cache=0)
    build_graph(s, embedder)
    svc = ToolService(s)
    try:
        svc.ctx.brief_cache.keep_warm()
        assert svc.ctx.brief_cache._thread is None
        res = node_search(svc.ctx, NodeSearchRequest(query="LLM compression", k=3, types=["solution"]))
        assert res.hits[0].key == QUANT and len(svc.ctx.brief_cache) == 0
    finally:
        svc.close()


@pytest.mark.parametrize("settle", [True, False])
def test_a_server_settles_its_heap_once_the_cache_is_warm(graph_settings, settle):
    """api.settle_heap: after the served app's fill, the long-lived objects are frozen out of full collections
    (api/heap.py); off, nothing is frozen."""
    import gc

    from fastapi.testclient import TestClient

    from motivgraph.api.app import create_app

    graph_settings.api.settle_heap = settle
    gc.unfreeze()
    try:
        app = create_app(graph_settings)
        with TestClient(app):
            cache = app.state.service.ctx.brief_cache
            wait_for(lambda: len(cache) > 5 and not cache.filling)
            assert (gc.get_freeze_count() > 0) is settle
    finally:
        gc.unfreeze()
