"""The Neo4j Browser walk-through's queries (docs/neo4j.md) parse and return rows on a small real graph.

There is no Neo4j here, so each query runs on the embedded FalkorDB (same schema, same Cypher where the
dialects agree) over the API test graph plus one triple that makes a solution shared by two problems.
The two Neo4j-only procedures are mapped to FalkorDB's equivalents, and only them: the rest of each
query (MATCH, WHERE, aggregation, RETURN) runs exactly as printed. Mapping:
  db.index.vector.queryNodes('<index>', k, v)  -> db.idx.vector.queryNodes('<Label>', 'embedding', k, v)
  db.index.fulltext.queryNodes('<index>', q)   -> db.idx.fulltext.queryNodes('<Label>', q)  (per label;
                                                  Lucene ' OR ' -> RediSearch ' | ' in q)
Index names are checked against graph/neo4j_search.py; `:param key => …` becomes the `key` parameter.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from motivgraph.graph.models import NodeIn, TripleIn
from motivgraph.graph.neo4j_search import FULLTEXT_INDEX, VECTOR_INDEXES
from motivgraph.graph.vector_index import node_text
from tests.integration.api.conftest import C_ACO, C_WSN, PAPERS, PARENTS, S_ACO, TRIPLES, WSN

WALKTHROUGH = Path(__file__).resolve().parents[3] / "docs" / "neo4j.md"
_LABEL_OF_INDEX = {name: label for label, name in VECTOR_INDEXES.items()}


def walkthrough_queries() -> list[tuple[str, str]]:
    """(title, query) of every numbered query in the Neo4j Browser walk-through (docs/neo4j.md)."""
    text = WALKTHROUGH.read_text(encoding="utf-8")
    block = re.search(r"```cypher\n(.*?)```", text, re.S)
    assert block, "no ```cypher block in the Neo4j Browser walk-through"
    parts = re.split(r"^// (\d+\. .*)$", block.group(1), flags=re.M)
    return [(parts[i].strip(), parts[i + 1].strip().rstrip(";")) for i in range(1, len(parts), 2)]


def to_falkordb(query: str) -> list[str]:
    vec = re.search(r"db\.index\.vector\.queryNodes\('(\w+)', ", query)
    if vec:
        assert vec.group(1) in _LABEL_OF_INDEX, f"unknown vector index {vec.group(1)}"
        query = query.replace(vec.group(0), f"db.idx.vector.queryNodes('{_LABEL_OF_INDEX[vec.group(1)]}', "
                                            "'embedding', ")
    ft = re.search(r"db\.index\.fulltext\.queryNodes\('(\w+)', ", query)
    if ft:
        assert ft.group(1) == FULLTEXT_INDEX, f"unknown full-text index {ft.group(1)}"
        # the search string is Lucene syntax in Neo4j, RediSearch in FalkorDB: OR is '|' there
        query = re.sub(r"(queryNodes\('\w+', '[^']*)", lambda m: m.group(1).replace(" OR ", " | "), query)
        return [query.replace(ft.group(0), f"db.idx.fulltext.queryNodes('{label}', ") for label in VECTOR_INDEXES]
    return [query]


def fill_walk_through_graph(store: Any) -> None:
    """The API test graph plus one triple that makes the ant colony solution also stated for the
    sensor-network problem: a solution shared by two problems, which one walk-through query looks for."""
    store.upsert_papers(PAPERS)
    shared = TripleIn(paper_id="doi:10.1000/wsn", index=2, problem=NodeIn(name=WSN[0]),
                      challenge=NodeIn(name="x", key=C_ACO), solution=NodeIn(name="x", key=S_ACO))
    store.upsert_triples([*TRIPLES, shared])
    store.add_parents(PARENTS)


@pytest.fixture(scope="module")
def browser_graph(falkordb_server: Any, embedder: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from motivgraph.graph import open_store
    from tests.integration.api.conftest import make_settings

    store = open_store(make_settings(tmp_path_factory.mktemp("browser"), falkordb_server.url))
    try:
        fill_walk_through_graph(store)
        nodes = list(store.iter_nodes())
        vectors = embedder.embed([node_text(n.name, n.description) for n in nodes])
        for label in VECTOR_INDEXES:  # what `graph push` writes, in FalkorDB's syntax
            rows = [{"key": n.key, "v": [float(x) for x in v]} for n, v in zip(nodes, vectors, strict=True)
                    if n.type == label.lower()]
            store._write(f"UNWIND $rows AS r MATCH (n:{label} {{key: r.key}}) SET n.embedding = vecf32(r.v)",
                         {"rows": rows})
            store._write(f"CREATE VECTOR INDEX FOR (n:{label}) ON (n.embedding) "
                         f"OPTIONS {{dimension: {embedder.dim}, similarityFunction: 'cosine'}}")
            store._write(f"CALL db.idx.fulltext.createNodeIndex('{label}', 'name', 'description')")
        yield store
    finally:
        store.drop_graph()  # type: ignore[attr-defined]
        store.close()


def test_the_walk_through_has_eight_to_eleven_numbered_queries() -> None:
    queries = walkthrough_queries()
    assert 8 <= len(queries) <= 11, [t for t, _ in queries]
    assert [int(t.split(".")[0]) for t, _ in queries] == list(range(1, len(queries) + 1))


@pytest.mark.parametrize("title, query", walkthrough_queries(),
                         ids=[t.split(".")[0] for t, _ in walkthrough_queries()])
def test_walk_through_query_runs_and_returns_rows(browser_graph: Any, title: str, query: str) -> None:
    params = {"key": C_ACO} if "$key" in query else {}
    rows: list[dict[str, Any]] = []
    for q in to_falkordb(query):
        rows += browser_graph._read(q, params)
    assert rows, f"query {title!r} returned no rows on the test graph"
    text = " ".join(str(v) for r in rows for v in r.values())
    if "siblings" in title:
        assert C_WSN.split(":", 1)[1].split()[0] in text.lower()  # the other child of the routing parent
    if "shared across problems" in title:
        assert any(r.get("n") == 2 for r in rows)
    if "evidence" in title:  # the ant colony paper's located quote for the challenge, with its page
        assert any(r["verified"] is True and r["page"] == 2 and "link costs change" in r["quote"] for r in rows)
