"""Every Cypher query of the Neo4j Browser walk-through (docs/neo4j.md) runs, exactly as printed, on a real Neo4j.

The graph is the API test graph plus one triple that makes a solution shared by two problems (as the
FalkorDB variant, tests/integration/graph/test_neo4j_browser_queries.py), with node embeddings and the
vector + full-text indexes written by `Neo4jNodeVectors.rebuild` — what `graph push` and `reindex` with
MOTIVGRAPH_INDEX_BACKEND=neo4j write. `:param key => …` becomes the `key` parameter. So a README query that
a real Neo4j rejects, or that finds nothing on a graph that has what it asks for, fails here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from motivgraph.settings import Settings
from tests.integration.api.conftest import C_ACO, C_WSN
from tests.integration.graph.test_neo4j_browser_queries import walkthrough_queries
from tests.neo4j_support import indexed_walkthrough_graph

pytestmark = [pytest.mark.e2e, pytest.mark.neo4j]


@pytest.fixture(scope="module")
def docs_graph(neo4j_settings: Settings, embedder: Any) -> Iterator[Any]:
    with indexed_walkthrough_graph(neo4j_settings, embedder) as store:
        yield store


@pytest.mark.parametrize("title, query", walkthrough_queries(),
                         ids=[t.split(".")[0] for t, _ in walkthrough_queries()])
def test_walkthrough_query_runs_on_neo4j(docs_graph: Any, title: str, query: str) -> None:
    params = {"key": C_ACO} if "$key" in query else {}
    rows = docs_graph._read(query, params)
    assert rows, f"query {title!r} returned no rows on a real Neo4j"
    text = " ".join(str(v) for r in rows for v in r.values())
    if "siblings" in title:
        assert C_WSN.split(":", 1)[1].split()[0] in text.lower()
    if "shared across problems" in title:
        assert any(r.get("n") == 2 for r in rows)
    if "evidence" in title:  # the ant colony paper's located quote for the challenge, with its page
        assert any(r["verified"] is True and r["page"] == 2 and "link costs change" in r["quote"] for r in rows)
