"""The chaos harness of the reliability suite, one per session: test_chaos.py and test_neo4j_faults.py share
its corpus and its uninterrupted runs (the embedded offline baseline is the reference of both), and the private
Neo4j it starts for the neo4j kinds is stopped when the session ends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability.harness import Chaos


@pytest.fixture(scope="session")
def chaos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chaos]:
    c = Chaos(tmp_path_factory.mktemp("chaos"), n_docs=6, trial_cap_s=900)
    try:
        yield c
    finally:
        c.close()
