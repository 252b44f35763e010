"""The tools give the same answers whichever node search backend runs (graph/search_backends.py).

The FAISS service is the module's real graph (embedded FalkorDB, MiniLM, FAISS). The Neo4j one reads the
same graph but searches through `Neo4jNodeVectors` on the recording fake driver, whose responder answers
the vector statements as Neo4j documents them, after `push_embeddings` wrote the same nodes' vectors
through it. node_search, random_nodes(far_from), transfer_candidates and the did-you-mean suggestions are
compared hit for hit. Against a live Neo4j: tests/e2e/test_neo4j_live_vector_search.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from motivgraph.api.contract.models import NodeSearchRequest, RandomNodesRequest, TransferRequest
from motivgraph.api.services import ToolService
from motivgraph.api.services.node_search import node_search
from motivgraph.api.services.random_nodes import random_nodes
from motivgraph.api.services.transfer import transfer_candidates
from motivgraph.errors import ConfigError, IndexMissing
from motivgraph.graph.neo4j_search import Neo4jNodeVectors
from motivgraph.graph.runtime import Runtime
from motivgraph.graph.search_backends import open_node_search
from motivgraph.graph.vector_index import NodeIndex
from motivgraph.settings import Settings
from tests.unit.graph.neo4j_vector_fake import VectorGraph
from tests.unit.graph.test_neo4j_backend import FakeDriver
from tests.unit.graph.test_neo4j_backend import settings as neo4j_settings


def fake_neo4j(nodes: list[Any], version: int) -> tuple[Any, VectorGraph, Settings]:
    from motivgraph.graph.backends.neo4j import Neo4jStore

    graph = VectorGraph(nodes, node_version=version)
    s = neo4j_settings()
    s.index.backend = "neo4j"
    return Neo4jStore.from_settings(s, driver=FakeDriver(graph)), graph, s


@pytest.fixture(scope="module")
def neo4j_service(service: ToolService, embedder: Any) -> Iterator[tuple[ToolService, VectorGraph]]:
    from motivgraph.graph.neo4j_search import push_embeddings

    real = service.ctx.store
    nodes = list(real.iter_nodes())
    store, graph, s = fake_neo4j(nodes, int(real.node_version()))
    push_embeddings(store, embedder, nodes)
    svc = ToolService(service.ctx.runtime.settings)
    # graph reads from the same FalkorDB graph; node search from the Neo4j vector statements
    svc.ctx.node_search = Neo4jNodeVectors(s, store, embedder)  # type: ignore[misc]
    yield svc, graph
    svc.ctx.runtime.close()


def _hits(res: Any) -> list[tuple[str, float]]:
    return [(h.key, h.score) for h in res.hits]


def _same(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> None:
    assert [k for k, _ in a] == [k for k, _ in b]
    assert all(abs(x - y) <= 2e-4 for (_, x), (_, y) in zip(a, b, strict=True))


@pytest.mark.parametrize("req", [
    {"query": "LLM compression", "k": 5},
    {"query": "LLM compression", "k": 3, "types": ["solution"]},
    {"query": "ant colony pheromone routing", "k": 100},
    {"query": "ant colony pheromone routing", "min_score": 0.5},
    {"query": "routing in big networks", "k": 4, "types": ["challenge", "problem"]},
])
def test_node_search_same_hits_on_both_backends(service: ToolService, neo4j_service: Any, req: dict) -> None:
    neo, graph = neo4j_service
    before = len(graph.searches)
    a = node_search(service.ctx, NodeSearchRequest(**req))
    b = node_search(neo.ctx, NodeSearchRequest(**req))
    assert len(graph.searches) > before  # answered through db.index.vector.queryNodes
    assert a.hits and not b.index_stale
    _same(_hits(a), _hits(b))
    assert [h.model_dump(exclude={"score"}) for h in a.hits] == [h.model_dump(exclude={"score"}) for h in b.hits]


def test_far_from_transfer_and_suggestions_agree(service: ToolService, neo4j_service: Any) -> None:
    neo, _ = neo4j_service
    for mode in ("nodes", "triples"):
        req = RandomNodesRequest(n=5, mode=mode, seed=11, far_from="large language models", max_similarity=0.2)
        a, b = random_nodes(service.ctx, req), random_nodes(neo.ctx, req)
        assert a.model_dump() == b.model_dump()
        assert (a.nodes or a.triples)
    req_t = TransferRequest(topic="energy-efficient routing in wireless sensor networks")
    a_t, b_t = transfer_candidates(service.ctx, req_t), transfer_candidates(neo.ctx, req_t)
    assert a_t.candidates, "the module graph holds a transfer case"
    assert [(c.target_challenge.key, c.solution.key) for c in a_t.candidates] == \
        [(c.target_challenge.key, c.solution.key) for c in b_t.candidates]
    assert service.ctx.suggestions("quantisation of LLM weights") == neo.ctx.suggestions("quantisation of LLM weights")


def test_missing_neo4j_embeddings_is_a_503_naming_the_fix(service: ToolService, embedder: Any) -> None:
    store, _, s = fake_neo4j(list(service.ctx.store.iter_nodes()), int(service.ctx.store.node_version()))
    svc = ToolService(service.ctx.runtime.settings)
    svc.ctx.node_search = Neo4jNodeVectors(s, store, embedder)  # type: ignore[misc]
    try:
        with pytest.raises(IndexMissing, match="motivgraph reindex"):
            node_search(svc.ctx, NodeSearchRequest(query="LLM compression"))
        assert svc.ctx.suggestions("LLM compression") == []  # did-you-mean degrades, never fails
    finally:
        svc.ctx.runtime.close()


def test_the_setting_picks_the_backend(api_settings: Settings, embedder: Any) -> None:
    assert isinstance(open_node_search(Runtime(api_settings)), NodeIndex)

    wrong = api_settings.model_copy(deep=True)
    wrong.index.backend = "neo4j"  # graph on FalkorDB: Neo4j's vector indexes are not there to search
    with pytest.raises(ConfigError, match="MOTIVGRAPH_GRAPH_BACKEND=neo4j"):
        open_node_search(Runtime(wrong))

    store, _, s = fake_neo4j([], 0)
    rt = Runtime(s)
    rt.__dict__["store"], rt.__dict__["embedder"] = store, embedder  # the Neo4j store the settings name
    backend = open_node_search(rt)
    assert isinstance(backend, Neo4jNodeVectors) and backend.status().state == "missing"
