"""Once a Neo4j call found the server unreachable, the store probes with one connection attempt before the next
query, so during an outage each further query fails at once instead of waiting out the driver's retry window
again (15-30 s each: an API route of two queries took 31 s to answer 503 on a killed real server,
tests/reliability/test_neo4j_faults.py); once the probe succeeds, queries run as before."""

from __future__ import annotations

import pytest

from motivgraph.errors import BackendUnavailable
from tests.unit.graph.test_neo4j_backend import make


def test_a_known_outage_is_answered_by_a_probe_until_the_server_is_back() -> None:
    from neo4j.exceptions import ServiceUnavailable

    store, driver = make(lambda q, p: [{"n": 1}])
    driver.fail = ServiceUnavailable("Couldn't connect to neo:7687")  # the query waited out the retry window
    with pytest.raises(BackendUnavailable, match="MOTIVGRAPH_NEO4J_URI"):
        store._read("MATCH (n) RETURN count(n) AS n")
    queries = len(driver.calls)

    driver.connect_error = ServiceUnavailable("Couldn't connect to neo:7687")
    for _ in range(3):  # still down: the probe answers, no query is sent
        with pytest.raises(BackendUnavailable, match="motivgraph neo4j start"):
            store._read("MATCH (n) RETURN count(n) AS n")
    assert len(driver.calls) == queries

    driver.connect_error = driver.fail = None  # back up: the probe passes and the query runs
    assert store._read("MATCH (n) RETURN count(n) AS n") == [{"n": 1}]
    assert len(driver.calls) == queries + 1
    assert not store._unreachable


def test_a_query_error_is_not_an_outage() -> None:
    from neo4j.exceptions import CypherSyntaxError

    store, driver = make()
    driver.fail = CypherSyntaxError("bad")
    with pytest.raises(Exception, match="Neo4j query failed"):
        store._read("MATCH (n RETURN n")
    assert not store._unreachable
