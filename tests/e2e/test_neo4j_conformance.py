"""The GraphStore conformance suite against a real Neo4j 5.

The server is the one tests/neo4j_support.py gives (MOTIVGRAPH_NEO4J_URI, or a local Neo4j 5.26 started
for the session); the database is wiped of MotivGraph labels before every test.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from motivgraph.graph.base import GraphStore
from motivgraph.settings import Settings
from tests.integration.graph.test_store_conformance import TestConformance as _Conformance
from tests.integration.graph.test_store_conformance import TestEvidenceConformance as _EvidenceConformance

pytestmark = [pytest.mark.e2e, pytest.mark.neo4j]

@pytest.fixture
def gstore(neo4j_settings: Settings) -> Iterator[GraphStore]:
    from motivgraph.graph import open_store

    store = open_store(neo4j_settings)
    store.clear()
    try:
        yield store
    finally:
        store.close()


class TestNeo4jConformance(_Conformance):
    """Every conformance test, on Neo4j."""


class TestNeo4jEvidenceConformance(_EvidenceConformance):
    """The evidence conformance tests (quotes on STATES edges: parallel lists, no nulls), on Neo4j."""


def test_push_settings_shape(neo4j_settings: Settings) -> None:
    # The settings the suite runs with are what `motivgraph graph push` would use.
    s: Any = neo4j_settings
    assert s.graph.backend == "neo4j" and s.neo4j.uri
