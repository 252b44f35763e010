"""Node search through a real Neo4j's vector indexes (MOTIVGRAPH_INDEX_BACKEND=neo4j) agrees with FAISS.

Runs on the real Neo4j of tests/neo4j_support.py, like the conformance suite. The database is
wiped of MotivGraph labels first.
Neo4j's vector index is HNSW (approximate), so on this small graph the top hits are compared, not the tail.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from motivgraph.api.contract.models import NodeSearchRequest
from motivgraph.api.services.node_search import node_search
from motivgraph.graph.models import NodeIn, TripleIn
from motivgraph.graph.runtime import Runtime
from motivgraph.settings import Settings
from tests.integration.api.conftest import PAPERS, PARENTS, QUANT, S_ACO, TRIPLES

pytestmark = [pytest.mark.e2e, pytest.mark.neo4j]


def _online(vec: Any, timeout_s: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        st = vec.status()
        if st.state != "missing" or "populated" not in st.message or time.monotonic() > deadline:
            return st
        time.sleep(0.5)


def test_tools_search_through_neo4j_vector_indexes(neo4j_settings: Settings, embedder: Any) -> None:
    from motivgraph.api.services import ToolService
    from motivgraph.graph import open_store
    from motivgraph.graph.neo4j_search import Neo4jNodeVectors
    from motivgraph.graph.vector_index import NodeIndex

    settings = neo4j_settings.model_copy(deep=True)
    settings.index.backend = "neo4j"
    store = open_store(settings)
    store.clear()
    try:
        store.upsert_papers(PAPERS)
        store.upsert_triples(TRIPLES)
        store.add_parents(PARENTS)
        vec = Neo4jNodeVectors(settings, store, embedder)
        assert vec.status().state == "missing"
        vec.rebuild()
        st = _online(vec)
        assert st.state == "ok", st.message
        faiss = NodeIndex.open(settings, store, embedder)
        faiss.rebuild()
        for text in ("LLM compression", "ant colony pheromone routing", "routing in big networks"):
            q = embedder.embed([text])
            a = faiss.search_vectors(q, 5)[0]
            b = vec.search_vectors(q, 5)[0]
            assert [h.key for h in a[:3]] == [h.key for h in b[:3]], text
            assert all(abs(x.score - y.score) < 1e-3 for x, y in zip(a[:3], b[:3], strict=True))
        got = vec.vectors_for([QUANT, S_ACO, "solution:not there"])
        assert set(got) == {QUANT, S_ACO}

        rt = Runtime(settings)
        rt.__dict__["store"], rt.__dict__["embedder"] = store, embedder
        svc = ToolService(rt)
        assert isinstance(svc.ctx.node_search, Neo4jNodeVectors)
        res = node_search(svc.ctx, NodeSearchRequest(query="LLM compression", k=3, types=["solution"]))
        assert res.hits[0].key == QUANT and not res.index_stale

        store.upsert_triples([TripleIn(paper_id=PAPERS[0].paper_id, index=9, problem=NodeIn(name="A new problem"),
                                       challenge=NodeIn(name="A new challenge"), solution=NodeIn(name="A new fix"))])
        st = vec.status()  # a node written after the embeddings: reported, not silently missing
        assert st.state == "stale" and "motivgraph reindex" in st.message
    finally:
        store.clear()
        store.close()


def test_a_vector_index_made_with_other_options_is_reported_then_made_again(neo4j_settings: Settings,
                                                                             embedder: Any) -> None:
    """`CREATE … IF NOT EXISTS` keeps an index of the same name made earlier with other options (here by hand:
    euclidean, quantized). The rebuild must drop and remake it, and `status()` must not call it ok."""
    from motivgraph.graph import open_store
    from motivgraph.graph.neo4j_search import INDEX_STATES, VECTOR_INDEXES, Neo4jNodeVectors, config_drift
    from motivgraph.graph.vector_index import NodeIndex

    settings = neo4j_settings.model_copy(deep=True)
    settings.index.backend = "neo4j"
    store = open_store(settings)
    store.clear()
    name = VECTOR_INDEXES["Challenge"]

    def make_odd_index() -> None:
        with store.driver.session(database=store.database) as session:
            session.run(f"DROP INDEX {name} IF EXISTS").consume()
            session.run(f"CREATE VECTOR INDEX {name} FOR (n:Challenge) ON (n.embedding) OPTIONS {{indexConfig: "
                        f"{{`vector.dimensions`: {embedder.dim}, `vector.similarity_function`: 'euclidean', "
                        "`vector.quantization.enabled`: true}}").consume()

    try:
        store.upsert_papers(PAPERS)
        store.upsert_triples(TRIPLES)
        make_odd_index()
        vec = Neo4jNodeVectors(settings, store, embedder)
        vec.rebuild()
        st = _online(vec)
        assert st.state == "ok", st.message
        options = {r["name"]: r["options"] for r in store._read(INDEX_STATES, {"names": [name]})}
        assert config_drift(options[name], embedder.dim) == [], options
        faiss = NodeIndex.open(settings, store, embedder)
        faiss.rebuild()
        q = embedder.embed(["routing in big networks"])
        a = faiss.search_vectors(q, 3, types=["challenge"])[0]
        b = vec.search_vectors(q, 3, types=["challenge"])[0]
        assert [h.key for h in a] == [h.key for h in b]
        assert all(abs(x.score - y.score) < 1e-5 for x, y in zip(a, b, strict=True))

        make_odd_index()  # made again behind the stamp's back: reported, with the fix
        st = _online(vec)
        assert st.state == "stale" and name in st.message and "motivgraph reindex" in st.message, st.message
    finally:
        with store.driver.session(database=store.database) as session:  # the next test makes it afresh
            session.run(f"DROP INDEX {name} IF EXISTS").consume()
        store.clear()
        store.close()
