"""Fixtures of the end-to-end suites: `neo4j_settings`, the settings of one real Neo4j per session
(tests/neo4j_support.py says which), with graph.backend = neo4j."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from motivgraph.settings import Settings
from tests.neo4j_support import neo4j_session


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    with neo4j_session(tmp_path_factory.mktemp("neo4j-e2e")) as settings:
        yield settings
