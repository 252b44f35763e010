"""`GraphStore.remove_paper` on the Neo4j backend (recording fake driver): every statement is
parameterised (a hostile paper id or mention never reaches the Cypher text), the removal's writes
run in one managed write transaction, and the new aliases / sources computed from what other papers
still state are what gets written."""

from __future__ import annotations

from typing import Any

from motivgraph.graph import queries as Q
from tests.unit.graph.test_neo4j_backend import EVIL, assert_parameterised, make

PAPER = "doi:10.1/x'}) DETACH DELETE n //"


def responder(query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    if query == Q.PAPER_STATES:
        return [
            {"triple_index": 0, "role": "problem", "key": "problem:p", "name": "P", "mention": EVIL},
            {"triple_index": 0, "role": "challenge", "key": "challenge:c", "name": "C", "mention": "C"},
            {"triple_index": 0, "role": "solution", "key": "solution:s", "name": "S", "mention": "S"},
        ]
    if "collect(DISTINCT st.mention)" in query:
        k = params["keys"][0]
        if k == "problem:p":  # another paper states P too, spelt "P"; EVIL was only this paper's alias
            return [{"key": k, "name": "P", "aliases": [EVIL, "kept alias"], "sources": [PAPER, "p2"],
                     "mentions": ["P", "kept alias"]}]
        return [{"key": k, "name": k.split(":")[1].upper(), "aliases": [], "sources": [PAPER], "mentions": []}]
    if "DETACH DELETE n" in query and "UNWIND $keys" in query:
        return [{"key": k} for k in params["keys"]]
    if "UNSTATE" in query or "m.triples - removed" in query:
        return [{"removed": 1}]
    if "DELETE st" in query:
        return [{"deleted": 3}]
    return []


def test_remove_paper_is_parameterised_and_transactional() -> None:
    store, driver = make(responder)
    batches: list[list[str]] = []
    write_tx = store._write_tx

    def recording(stmts):  # type: ignore[no-untyped-def]
        batches.append([q for q, _ in stmts])
        return write_tx(stmts)

    store._write_tx = recording  # type: ignore[method-assign]
    res = store.remove_paper(PAPER)
    assert res.states_removed == 3 and res.triples_removed == 1 and res.aliases_removed == 1
    assert res.nodes_removed == ["challenge:c", "solution:s"] and res.paper_removed is False
    for _mode, text, params, _t in driver.calls:
        assert_parameterised(text, params, [PAPER, EVIL, "10.1/x"])
    writes = [c for c in driver.calls if c[0] == "write"]
    set_p = next(p for _m, q, p, _t in writes if "n.norm_aliases = r.norms" in q and p["rows"][0]["key"] == "problem:p")
    assert set_p["rows"][0]["aliases"] == ["kept alias"] and set_p["rows"][0]["sources"] == ["p2"]
    assert set_p["rows"][0]["norms"] == ["p", "kept alias"]
    # the removal proper (states, provenance, edges, orphans) is one managed write transaction
    main = next(b for b in batches if Q.DELETE_PAPER_STATES in b)
    assert Q.UNSTATE_SOLVED_BY in main and Q.DELETE_UNSTATED_HAS_CHALLENGE in main
    assert sum("DETACH DELETE n" in q and "UNWIND $keys" in q for q in main) == 2  # challenge and solution
    assert "write" in driver.transactions
    assert any("m.node_version = m.node_version + 1" in q for _m, q, _p, _t in writes)  # deleted nodes bump it


def test_remove_unknown_paper_changes_nothing() -> None:
    store, driver = make(lambda q, p: [])
    res = store.remove_paper("nope")
    assert res.nodes_removed == [] and res.states_removed == 0
    assert not any("node_version + 1" in q for _m, q, _p, _t in driver.calls)
