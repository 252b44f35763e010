"""`graph push` extras for Neo4j users: node embeddings, vector indexes and a full-text index — against the
recording fake driver (not a live Neo4j), with the real embedder."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from motivgraph.graph.models import NodeRecord
from motivgraph.graph.neo4j_search import (
    FULLTEXT_INDEX,
    VECTOR_INDEXES,
    Neo4jNodeVectors,
    config_drift,
    embedding_statement,
    index_ddl,
    push_embeddings,
)
from motivgraph.graph.vector_index import node_text
from tests.unit.graph.neo4j_vector_fake import VectorGraph
from tests.unit.graph.test_neo4j_backend import EVIL, assert_parameterised, make, settings

NODES = [
    NodeRecord(key="problem:efficient llm inference", type="problem", name="Efficient LLM inference",
               description="Serving large language models cheaply."),
    NodeRecord(key="challenge:memory footprint", type="challenge", name="Memory footprint", description=""),
    NodeRecord(key=f"solution:{EVIL.lower()}", type="solution", name=EVIL, description="quantize' weights"),
    NodeRecord(key="solution:quantization", type="solution", name="Quantization", description="4-bit weights."),
]


def test_push_writes_unit_embeddings_parameterised_then_creates_indexes(embedder: Any) -> None:
    store, driver = make()
    ticks: list[int] = []
    report = push_embeddings(store, embedder, NODES, batch_size=3, progress=ticks.append)
    assert report.nodes == 4 and ticks == [3, 4]
    assert set(report.indexes) == {*VECTOR_INDEXES.values(), FULLTEXT_INDEX}

    writes = [(q, p) for mode, q, p, _ in driver.calls if mode == "write" and "setNodeVectorProperty" in q]
    # the graph version read first, one write transaction per batch, the existing indexes' options read, then
    # the stamp on the Meta node
    assert driver.transactions == ["read", "write", "write", "read", "write"]
    stamp = driver.calls[-1]
    assert stamp[0] == "write" and "SET m.embedding_version = $version" in stamp[1]
    assert stamp[2]["model"] == embedder.model_name and stamp[2]["dim"] == embedder.dim
    assert (stamp[2]["problem"], stamp[2]["challenge"], stamp[2]["solution"]) == (1, 1, 2)
    written: dict[str, list[float]] = {}
    for q, p in writes:
        assert_parameterised(q, p, [EVIL, "quantize'"])
        assert "setNodeVectorProperty" in q
        for row in p["rows"]:
            written[row["key"]] = row["embedding"]
    assert set(written) == {n.key for n in NODES}
    for n in NODES:  # the same text and vectors as the FAISS index
        expected = embedder.embed([node_text(n.name, n.description)])[0]
        got = np.asarray(written[n.key], dtype=np.float32)
        assert got.shape == (embedder.dim,) and np.allclose(got, expected, atol=1e-5)
        assert f":{n.type.capitalize()} " in next(q for q, p in writes if any(r["key"] == n.key for r in p["rows"]))

    ddl = [q for mode, q, _, _ in driver.calls if mode == "auto"]
    assert ddl == index_ddl(embedder.dim)
    assert all("IF NOT EXISTS" in q for q in ddl)
    assert any(f"`vector.dimensions`: {embedder.dim}" in q and "'cosine'" in q for q in ddl)
    assert any(FULLTEXT_INDEX in q and "Problem|Challenge|Solution" in q for q in ddl)


def test_ddl_and_statements_take_only_fixed_names() -> None:
    with pytest.raises(ValueError):
        embedding_statement("Paper) DETACH DELETE (n")
    with pytest.raises(ValueError):
        index_ddl(0)
    with pytest.raises(ValueError):
        index_ddl("384}) // x")  # type: ignore[arg-type]
    assert len(index_ddl(384)) == 4


def test_config_drift_names_what_differs() -> None:
    ok = {"indexConfig": {"vector.dimensions": 384, "vector.similarity_function": "COSINE",
                          "vector.quantization.enabled": False, "vector.hnsw.m": 16}}
    assert config_drift(ok, 384) == []
    assert config_drift({"indexConfig": {"vector.dimensions": 384, "vector.similarity_function": "COSINE"}}, 384) == []
    quantized = {"indexConfig": {**ok["indexConfig"], "vector.quantization.enabled": True}}
    assert config_drift(quantized, 384) == ["vector.quantization.enabled True (wanted False)"]
    other = {"indexConfig": {**ok["indexConfig"], "vector.dimensions": 768, "vector.similarity_function": "EUCLIDEAN"}}
    assert len(config_drift(other, 384)) == 2
    assert config_drift(None, 384) == [] and config_drift({}, 384) == []


def test_an_index_made_with_other_options_reads_stale_and_is_made_again(embedder: Any) -> None:
    graph = VectorGraph(NODES, node_version=3)
    store, driver = make(graph)
    stale_name = VECTOR_INDEXES["Challenge"]
    graph.indexes[stale_name] = "ONLINE"  # made earlier by hand (or an older release): quantized, euclidean
    graph.options[stale_name] = {"indexConfig": {"vector.dimensions": embedder.dim, "vector.quantization.enabled": True,
                                                 "vector.similarity_function": "EUCLIDEAN"}}
    push_embeddings(store, embedder, NODES)
    ddl = [q for mode, q, _, _ in driver.calls if mode == "auto"]
    assert ddl[0] == f"DROP INDEX {stale_name} IF EXISTS" and ddl[1:] == index_ddl(embedder.dim)
    assert config_drift(graph.options[stale_name], embedder.dim) == []

    graph.options[stale_name]["indexConfig"]["vector.quantization.enabled"] = True
    st = Neo4jNodeVectors(settings(), store, embedder).status()
    assert st.state == "stale" and stale_name in st.message and "motivgraph reindex" in st.message
