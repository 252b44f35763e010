"""Node search through Neo4j's vector indexes (MOTIVGRAPH_INDEX_BACKEND=neo4j), against the recording fake
driver with a responder that answers the statements as Neo4j documents them (not a live Neo4j).

Checks the protocol: every statement parameterised (index name, k, vectors, min score, keys), one read
per node type, the (1 + cos) / 2 score turned back into a cosine, hits merged across types best first,
and the state machine (missing → ok → stale on a graph change or another model; populating; failed)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from motivgraph.errors import ConfigError, IndexCorrupt, IndexMissing, IndexStale
from motivgraph.graph.models import NodeRecord
from motivgraph.graph.neo4j_search import (
    FULLTEXT_INDEX,
    VECTOR_INDEXES,
    VECTOR_SEARCH,
    Neo4jNodeVectors,
    push_embeddings,
    vectors_statement,
)
from motivgraph.graph.vector_index import node_text
from tests.unit.graph.neo4j_vector_fake import VectorGraph
from tests.unit.graph.test_neo4j_backend import EVIL, FakeDriver, assert_parameterised, settings
from tests.unit.graph.test_neo4j_search import NODES

MORE = [
    NodeRecord(key="challenge:scarce labelled data", type="challenge", name="Scarce labelled data",
               description="Few examples carry labels because annotation is expensive."),
    NodeRecord(key="problem:routing in sensor networks", type="problem", name="Routing in sensor networks",
               description="Delivering readings across battery-powered sensor nodes.", level=1),
]


def open_vectors(embedder: Any, nodes: list[NodeRecord] | None = None, **index: Any) -> tuple[Neo4jNodeVectors,
                                                                                               VectorGraph,
                                                                                               FakeDriver]:
    from motivgraph.graph.backends.neo4j import Neo4jStore

    graph = VectorGraph(nodes if nodes is not None else NODES + MORE)
    driver = FakeDriver(graph)
    s = settings()
    for k, v in index.items():
        setattr(s.index, k, v)
    s.index.backend = "neo4j"
    store = Neo4jStore.from_settings(s, driver=driver)
    return Neo4jNodeVectors(s, store, embedder), graph, driver


def test_missing_until_pushed_then_ok_then_stale_on_a_graph_change(embedder: Any) -> None:
    vec, graph, driver = open_vectors(embedder)
    st = vec.status()
    assert st.state == "missing" and "motivgraph reindex" in st.message
    with pytest.raises(IndexMissing):
        vec.ensure_ready()

    report = push_embeddings(vec.store, embedder, list(graph.nodes.values()))
    assert report.counts == {"problem": 2, "challenge": 2, "solution": 2}
    st = vec.status()
    assert st.state == "ok", st.message
    assert st.index_version == st.graph_version == 7
    assert st.model == embedder.model_name and st.dim == embedder.dim and st.backend == embedder.backend
    assert st.counts == report.counts and set(st.kinds.values()) == {"neo4j-vector"}
    vec.ensure_ready()

    graph.meta["node_version"] = 8  # another process added a node after the embeddings were written
    st = vec.status()
    assert st.state == "stale" and "version 7" in st.message and "version 8" in st.message
    with pytest.raises(IndexStale):
        vec.ensure_ready()
    for mode, text, params, _ in driver.calls:
        assert mode in ("read", "write", "auto")
        assert_parameterised(text, params, [EVIL])


def test_stale_on_another_model_populating_and_failed_states(embedder: Any) -> None:
    vec, graph, _ = open_vectors(embedder)
    push_embeddings(vec.store, embedder, list(graph.nodes.values()))
    graph.meta["model"] = "some-other-model"
    assert vec.status().state == "stale" and "some-other-model" in vec.status().message
    graph.meta["model"] = embedder.model_name
    graph.meta["backend"] = "onnx-int8" if embedder.backend != "onnx-int8" else "torch"
    st = vec.status()
    assert st.state == "stale" and repr(graph.meta["backend"]) in st.message and "motivgraph reindex" in st.message
    graph.meta["backend"] = None  # written before backends were recorded: torch
    assert vec.status().state == ("ok" if embedder.backend == "torch" else "stale")
    graph.meta["backend"] = embedder.backend
    assert vec.status().state == "ok"

    graph.indexes[VECTOR_INDEXES["Challenge"]] = "POPULATING"
    st = vec.status()
    assert st.state == "missing" and "populated" in st.message  # a 503 "try again", not a wrong answer
    graph.indexes[VECTOR_INDEXES["Challenge"]] = "FAILED"
    with pytest.raises(IndexCorrupt, match="FAILED"):
        vec.ensure_ready()
    del graph.indexes[VECTOR_INDEXES["Challenge"]]
    assert vec.status().state == "missing" and VECTOR_INDEXES["Challenge"] in vec.status().message


def test_search_is_one_parameterised_read_per_type_with_cosine_scores(embedder: Any) -> None:
    vec, graph, driver = open_vectors(embedder)
    push_embeddings(vec.store, embedder, list(graph.nodes.values()))
    driver.calls.clear()
    driver.transactions.clear()

    queries = embedder.embed(["memory of large language model weights", EVIL])
    hits = vec.search_vectors(queries, k=3)
    reads = [(t, p) for mode, t, p, _ in driver.calls if mode == "read"]
    assert driver.transactions == ["read"] * 3 and all(t == VECTOR_SEARCH for t, _ in reads)
    assert [p["index"] for _, p in reads] == [VECTOR_INDEXES[lb] for lb in ("Problem", "Challenge", "Solution")]
    for text, params in reads:
        assert_parameterised(text, params, [EVIL])
        assert params["limit"] == 3 and params["min_score"] == -1.0 and len(params["vectors"]) == 2
        assert params["k"] == vec.settings.index.hnsw_ef_search == 128  # candidates searched, as FAISS's efSearch
        assert np.allclose(params["vectors"][1], queries[1], atol=1e-6)

    # the answer FAISS gives: exact cosine, best first across types, k overall
    allv = {n.key: embedder.embed([node_text(n.name, n.description)])[0] for n in graph.nodes.values()}
    for q, got in zip(queries, hits, strict=True):
        expected = sorted(((float(np.dot(q, v)), k) for k, v in allv.items()), key=lambda t: (-t[0], t[1]))[:3]
        assert [h.key for h in got] == [k for _, k in expected]
        assert np.allclose([h.score for h in got], [s for s, _ in expected], atol=1e-5)
        assert all(h.type == graph.nodes[h.key].type and h.name == graph.nodes[h.key].name for h in got)
    assert hits[0][0].key == "challenge:memory footprint" or hits[0][0].type in ("problem", "solution")

    driver.calls.clear()
    only = vec.search_vectors(queries[:1], k=10, types=["challenge"], min_score=0.2)
    (params,) = [p for mode, _, p, _ in driver.calls if mode == "read"]
    assert params["index"] == VECTOR_INDEXES["Challenge"] and params["min_score"] == 0.2
    assert only[0] and all(h.type == "challenge" and h.score >= 0.2 for h in only[0])
    level1 = vec.search_vectors(embedder.embed(["sensor routing"]), k=1, types=["problem"])[0][0]
    assert level1.key == "problem:routing in sensor networks" and level1.level == 1

    with pytest.raises(ValueError):
        vec.search_vectors(queries, k=0)
    with pytest.raises(ValueError):
        vec.search_vectors(queries, k=1, types=["paper"])  # type: ignore[list-item]


def test_vectors_for_groups_keys_by_label_and_never_inlines_them(embedder: Any) -> None:
    vec, graph, driver = open_vectors(embedder)
    push_embeddings(vec.store, embedder, list(graph.nodes.values()))
    driver.calls.clear()
    evil_key = f"solution:{EVIL.lower()}"
    got = vec.vectors_for([evil_key, "challenge:memory footprint", "challenge:not there", "paper:x", evil_key])
    assert set(got) == {evil_key, "challenge:memory footprint"}
    assert np.allclose(got[evil_key], graph.embeddings[evil_key])
    (mode, text, params, _), = driver.calls
    assert mode == "read" and text == vectors_statement(("Solution", "Challenge"))
    assert params == {"keys_Solution": [evil_key], "keys_Challenge": ["challenge:memory footprint",
                                                                      "challenge:not there"]}
    assert_parameterised(text, params, [EVIL])
    assert vec.vectors_for(["paper:x"]) == {}
    with pytest.raises(ValueError):
        vectors_statement(("Paper) DETACH DELETE (n",))


def test_rebuild_embeds_every_node_of_the_graph_and_auto_rebuild_uses_it(embedder: Any,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from motivgraph.graph.models import GraphStats

    vec, graph, _ = open_vectors(embedder, auto_rebuild=True)
    # the store's own reads (tested in test_neo4j_backend) answer from the fake graph
    monkeypatch.setattr(vec.store, "iter_nodes", lambda types=None, batch=5000: iter(list(graph.nodes.values())))
    monkeypatch.setattr(vec.store, "stats", lambda: GraphStats(
        nodes={"Problem": 2, "Challenge": 2, "Solution": 2}, relationships={}, triples=0, node_version=7))
    ticks: list[tuple[int, int]] = []
    st = vec.rebuild(progress=lambda done, total: ticks.append((done, total)))
    assert st.state == "ok" and set(graph.embeddings) == set(graph.nodes) and ticks[-1] == (6, 6)
    assert set(graph.indexes) == {*VECTOR_INDEXES.values(), FULLTEXT_INDEX}

    graph.meta["node_version"] = 9
    graph.embeddings.clear()
    vec.ensure_ready()  # auto_rebuild: re-embeds instead of raising
    assert vec.status().state == "ok" and set(graph.embeddings) == set(graph.nodes)


def test_needs_a_neo4j_store(embedder: Any, store: Any) -> None:
    s = settings()
    with pytest.raises(ConfigError, match="MOTIVGRAPH_GRAPH_BACKEND=neo4j"):
        Neo4jNodeVectors(s, store, embedder)  # the embedded FalkorDB store has no vector indexes to query
