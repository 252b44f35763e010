"""The Neo4j backend against a fake driver that records every query and its parameters.

Checks: statements are parameterised (no caller text inside Cypher, every $name supplied), batches
run as one managed write transaction, reads in read transactions, results map to the models,
driver errors become BackendUnavailable naming the setting, and the password never leaks.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import SecretStr

from motivgraph.errors import BackendUnavailable, ConfigError, GraphError
from motivgraph.graph.backends.neo4j import Neo4jStore
from motivgraph.graph.models import NodeIn, ParentIn, TripleFilter, TripleIn
from motivgraph.settings import GraphSettings, Neo4jSettings, Settings

PASSWORD = "pa55-w0rd-never-shown"
EVIL = "Robust x'}) DETACH DELETE n //"
Responder = Callable[[str, dict[str, Any]], list[dict[str, Any]]]


class FakeRecord:
    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def data(self) -> dict[str, Any]:
        return dict(self._data)


class FakeResult(list):  # type: ignore[type-arg]
    def consume(self) -> None:
        return None


class FakeTx:
    def __init__(self, driver: FakeDriver, mode: str, timeout: float | None = None) -> None:
        self.driver, self.mode, self.timeout = driver, mode, timeout

    def run(self, query: str, parameters: dict[str, Any] | None = None) -> FakeResult:
        # like the real driver: a managed transaction takes query text, not a Query object
        assert isinstance(query, str), "Query objects are only supported for session.run"
        params = dict(parameters or {})
        self.driver.calls.append((self.mode, query, params, self.timeout))
        if self.driver.fail is not None:
            raise self.driver.fail
        return FakeResult(FakeRecord(r) for r in self.driver.responder(query, params))


class FakeSession:
    def __init__(self, driver: FakeDriver, database: str | None) -> None:
        self.driver = driver
        driver.databases.append(database)

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute_read(self, fn: Callable[[FakeTx], Any]) -> Any:
        self.driver.transactions.append("read")
        return fn(FakeTx(self.driver, "read", getattr(fn, "timeout", None)))

    def execute_write(self, fn: Callable[[FakeTx], Any]) -> Any:
        self.driver.transactions.append("write")
        return fn(FakeTx(self.driver, "write", getattr(fn, "timeout", None)))

    def run(self, query: str, parameters: dict[str, Any] | None = None) -> FakeResult:
        return FakeTx(self.driver, "auto").run(query, parameters)


class FakeDriver:
    def __init__(self, responder: Responder | None = None) -> None:
        self.calls: list[tuple[str, str, dict[str, Any], float | None]] = []
        self.transactions: list[str] = []
        self.databases: list[str | None] = []
        self.responder: Responder = responder or (lambda q, p: [])
        self.fail: Exception | None = None
        self.connect_error: Exception | None = None
        self.closed = False

    def session(self, database: str | None = None) -> FakeSession:
        return FakeSession(self, database)

    def verify_connectivity(self) -> None:
        if self.connect_error is not None:
            raise self.connect_error

    def close(self) -> None:
        self.closed = True


def settings(**neo: Any) -> Settings:
    cfg = {"uri": "bolt://neo:7687", "user": "graph", "password": SecretStr(PASSWORD), "database": "motiv", **neo}
    return Settings(graph=GraphSettings(backend="neo4j", batch_size=2, query_timeout_ms=5000),  # type: ignore[call-arg]
                    neo4j=Neo4jSettings(**cfg), _env_file=None)


def make(responder: Responder | None = None) -> tuple[Neo4jStore, FakeDriver]:
    driver = FakeDriver(responder)
    return Neo4jStore.from_settings(settings(), driver=driver), driver


def assert_parameterised(text: str, params: dict[str, Any], forbidden: list[str]) -> None:
    for word in forbidden:
        assert word not in text, f"caller text {word!r} inlined into Cypher:\n{text}"
    used = set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", text))
    missing = used - set(params)
    assert not missing, f"parameters {missing} not supplied for:\n{text}"


def triple(i: int, paper: str = "paper'1") -> TripleIn:
    return TripleIn(paper_id=paper, index=i, problem=NodeIn(name=f"{EVIL} {i}", description="d"),
                    challenge=NodeIn(name=f"Challenge {i}"), solution=NodeIn(name=f"Solution {i}"))


def test_schema_ddl_is_idempotent_neo4j_dialect() -> None:
    store, driver = make()
    store.ensure_schema()
    ddl = [text for mode, text, _, _ in driver.calls if mode == "auto"]
    assert any("REQUIRE n.key IS UNIQUE" in d and "(n:Problem)" in d for d in ddl)
    assert any("REQUIRE n.paper_id IS UNIQUE" in d for d in ddl)
    assert any("ON (n.rnd)" in d for d in ddl)
    assert all("IF NOT EXISTS" in d for d in ddl)
    assert driver.calls[-1][0] == "write" and "MERGE (m:Meta" in driver.calls[-1][1]
    assert set(driver.databases) == {"motiv"}


def test_upserts_are_batched_parameterised_write_transactions() -> None:
    def responder(text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        if "aliases_added" in text:
            return [{"created": len(params["rows"]), "changed": 0, "aliases_added": 0, "node_version": 1}]
        if "UNWIND $rows" in text:  # an edge statement
            return [{"created": len(params["rows"]), "matched": len(params["rows"])}]
        return []

    store, driver = make(responder)
    driver.calls.clear()
    driver.transactions.clear()
    res = store.upsert_triples([triple(i) for i in range(5)])
    assert driver.transactions == ["write"] * 3  # batch_size=2 -> 3 transactions
    assert res.nodes_created == 15
    assert res.relationships_created == 5 + 5 + 15  # HAS_CHALLENGE, SOLVED_BY, STATES rows
    for _, text, params, timeout in driver.calls:
        assert_parameterised(text, params, [EVIL, "paper'1", "Challenge 0", "Solution 1"])
        assert timeout == 5.0
    node_rows = [r for _, t, p, _ in driver.calls if "MERGE (n:Problem" in t for r in p["rows"]]
    assert {r["name"] for r in node_rows} == {f"{EVIL} {i}" for i in range(5)}
    assert all(r["key"].startswith("problem:robust x detach delete n") for r in node_rows)
    states = [r for _, t, p, _ in driver.calls if "STATES" in t and "UNWIND" in t for r in p["rows"]]
    assert len(states) == 15 and {r["paper_id"] for r in states} == {"paper'1"}

    driver.calls.clear()
    store.add_parents([ParentIn(type="problem", parent=NodeIn(name=EVIL), level=1,
                                children=["problem:a", "problem:b"])])
    for _, text, params, _ in driver.calls:
        assert_parameterised(text, params, [EVIL])


def test_reads_map_results_to_models() -> None:
    ref = {"key": "challenge:scarce data", "name": "Scarce data", "description": "few labels", "level": 0}
    prob = {"key": "problem:ner", "name": "NER", "description": "tagging", "level": 0}
    sol = {"key": "solution:augment", "name": "Augment", "description": "more data", "level": 0}
    rec = {**ref, "aliases": ["scarce labels"], "sources": ["p1"], "created_at": "2024-01-01T00:00:00+00:00"}

    def responder(text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        if "'node' AS kind" in text:
            assert params["key"] == "challenge:scarce data" and params["cap"] == 100
            triple = {"p": prob, "c": ref, "s": sol, "stated": ["problem:ner\x1fp1", "problem:ner\x1fp2"]}
            paper = {"paper_id": "p1", "title": "T", "year": 2020}
            return [{"kind": "node", "item": rec}, {"kind": "problems", "item": prob},
                    {"kind": "solutions", "item": sol}, {"kind": "solutions", "item": sol},
                    {"kind": "papers", "item": paper}, {"kind": "papers", "item": paper},
                    {"kind": "triples", "item": triple}]
        if "count(n)" in text:
            return [{"label": "Challenge", "n": 10}]
        if "n.rnd >= $lo" in text:
            return [{"key": rec["key"], "rnd": 0.5}]
        if "UNWIND $keys_Challenge" in text:
            assert params["keys_Challenge"] == [rec["key"]]
            return [{"node": rec}]
        return []

    store, driver = make(responder)
    detail = store.get_node("challenge:scarce data")
    assert detail is not None
    assert detail.node.aliases == ["scarce labels"] and detail.node.type == "challenge"
    assert [p.key for p in detail.problems] == ["problem:ner"]
    assert [s.key for s in detail.solutions] == ["solution:augment"]
    assert [p.paper_id for p in detail.papers] == ["p1"]
    assert detail.triples[0].papers == ["p1", "p2"]
    assert all(mode == "read" for mode, *_ in driver.calls)
    picked = store.random_nodes(1, types=["challenge"], seed=3)
    assert [n.key for n in picked] == ["challenge:scarce data"]


def test_page_cursor_is_opaque_and_validated() -> None:
    prob = {"key": "problem:a", "name": "A", "description": "", "level": 0}
    chal = {"key": "challenge:b", "name": "B", "description": "", "level": 0}

    def responder(text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        if "UNWIND e.problems AS pk" in text:
            return [{"p": prob, "c": chal, "s": {"key": f"solution:s{i}", "name": f"S{i}", "description": "",
                                                  "level": 0}, "stated": []} for i in range(params["limit"])]
        return []

    store, driver = make(responder)
    page = store.page_triples(TripleFilter(problem=EVIL, paper_id="p'x"), limit=3)
    assert len(page.items) == 3 and page.next_cursor
    text, params = driver.calls[-1][1], driver.calls[-1][2]
    assert_parameterised(text, params, [EVIL, "p'x"])
    assert params["problem_lc"] == EVIL.lower() and params["limit"] == 4
    store.page_triples(cursor=page.next_cursor)
    assert driver.calls[-1][2]["sk"] == "solution:s2"
    with pytest.raises(ValueError, match="cursor"):
        store.page_triples(cursor="%%%")


def test_unreachable_and_bad_credentials_name_the_setting(caplog: pytest.LogCaptureFixture) -> None:
    from neo4j.exceptions import AuthError, ServiceUnavailable

    caplog.set_level(logging.DEBUG)
    driver = FakeDriver()
    driver.connect_error = ServiceUnavailable("Couldn't connect to neo:7687")
    with pytest.raises(BackendUnavailable, match="MOTIVGRAPH_NEO4J_URI") as err:
        Neo4jStore.from_settings(settings(), driver=driver)
    assert driver.closed
    assert PASSWORD not in str(err.value)

    driver = FakeDriver()
    driver.connect_error = AuthError("The client is unauthorized due to authentication failure.")
    with pytest.raises(BackendUnavailable, match="MOTIVGRAPH_NEO4J_PASSWORD") as err:
        Neo4jStore.from_settings(settings(), driver=driver)
    assert PASSWORD not in str(err.value) and "'graph'" in str(err.value)

    store, driver = make()
    driver.fail = ServiceUnavailable("connection lost")
    with pytest.raises(BackendUnavailable):
        store.stats()
    from neo4j.exceptions import CypherSyntaxError

    driver.fail = CypherSyntaxError("bad")
    with pytest.raises(GraphError):
        store.stats()
    assert PASSWORD not in caplog.text


def test_settings_errors() -> None:
    with pytest.raises(ConfigError, match="MOTIVGRAPH_NEO4J_URI"):
        Neo4jStore.from_settings(settings(uri=None), driver=FakeDriver())
    with pytest.raises(ConfigError, match="not a Bolt URI"):
        Neo4jStore.from_settings(settings(uri="http://neo:7474"), driver=FakeDriver())


def test_real_driver_against_closed_port_is_backend_unavailable(caplog: pytest.LogCaptureFixture) -> None:
    """The real driver over real Bolt to a port nobody listens on: one clear error, no password."""
    import socket

    from motivgraph.graph import open_store

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    caplog.set_level(logging.DEBUG)
    with pytest.raises(BackendUnavailable, match="MOTIVGRAPH_NEO4J_URI") as err:
        open_store(settings(uri=f"bolt://127.0.0.1:{port}"))
    assert PASSWORD not in str(err.value) and PASSWORD not in caplog.text


def test_query_builders_accept_only_schema_labels() -> None:
    from motivgraph.graph import queries as Q

    builders = [Q.upsert_nodes, Q.restore_nodes, Q.upsert_states, Q.node_detail,
                Q.get_node_by_key, Q.iter_nodes, Q.upsert_parent_edges, Q.iter_parents, Q.count_parents]
    for build in builders:
        with pytest.raises(ValueError, match="schema label"):
            build("Problem) DETACH DELETE (x")
    with pytest.raises(ValueError):
        Q.upsert_parent_edges("Solution")  # parents exist for problems and challenges only
    with pytest.raises(ValueError):
        Q.count_rel("KNOWS")
    with pytest.raises(ValueError):
        Q.random_window(("Problem", "Paper"))
