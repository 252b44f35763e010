"""Evidence (#39) over HTTP and through ToolClient: node_relation, /nodes/{key}, /triples and /papers/{id}
return the quotes of the papers that state a node or a triple, with paper, section and page, verified
quotes first and bounded by api.evidence_quotes / api.evidence_quote_chars."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from motivgraph.agents.tools.inprocess import InProcessToolClient
from motivgraph.api.contract.models import NodeRelationResult
from tests.integration.api.conftest import (
    C_ACO,
    C_MEM,
    PAPERS,
    PARENTS,
    QUANT,
    S_ACO,
    TRIPLES,
    asgi_client,
    graph_service,
    make_settings,
)

pytestmark = pytest.mark.asyncio

C_MEM_KEY = "challenge:memory footprint of billion parameter weights"


async def test_node_relation_returns_the_node_quotes(client):
    r = await client.post("/tools/node_relation", json={"names": [S_ACO, QUANT]})
    assert r.status_code == 200, r.text
    by_key = {n["node"]["key"]: n for n in r.json()["nodes"]}
    (aco,) = by_key[S_ACO]["evidence"]
    assert aco == {
        "text": "Artificial ants deposit pheromone on short paths, and evaporation forgets stale ones.",
        "verified": True, "element": "solution", "paper_id": "doi:10.1000/aco",
        "title": "Ant colony optimization for vehicle routing", "year": 2015, "section": "Method", "page": 3,
        "reason": None,
    }
    (q,) = by_key[QUANT]["evidence"]  # one paper quotes it; the alias triple has no quote
    assert q["verified"] and q["page"] == 4


async def test_unverified_quote_is_shown_with_its_reason(client):
    r = (await client.post("/tools/node_relation", json={"names": [C_MEM[0]]})).json()
    (node,) = r["nodes"]
    assert node["node"]["key"] == C_MEM_KEY
    (q,) = node["evidence"]
    assert q["verified"] is False and q["reason"] == "not found in the paper" and q["page"] is None


async def test_max_quotes_zero_returns_none(client):
    r = (await client.post("/tools/node_relation", json={"names": [S_ACO], "max_quotes": 0})).json()
    assert r["nodes"][0]["evidence"] == []
    bad = await client.post("/tools/node_relation", json={"names": [S_ACO], "max_quotes": 21})
    assert bad.status_code == 422


async def test_node_route_shows_node_and_triple_quotes(client):
    r = await client.get(f"/nodes/{C_ACO}")
    assert r.status_code == 200, r.text
    body = r.json()
    assert [q["page"] for q in body["evidence"]] == [2]
    (t,) = body["triples"]
    assert {q["element"]: q["page"] for q in t["evidence"]} == {"problem": 1, "challenge": 2, "solution": 3}


async def test_triples_route_carries_evidence_per_element(client):
    r = (await client.get("/triples", params={"solution": S_ACO})).json()
    (t,) = r["items"]
    assert [q["element"] for q in t["evidence"]] == ["problem", "challenge", "solution"]
    assert all(q["paper_id"] == "doi:10.1000/aco" and q["verified"] for q in t["evidence"])
    others = (await client.get("/triples", params={"paper": "doi:10.1000/prot"})).json()["items"]
    assert others and all(t["evidence"] == [] for t in others)  # no quotes stored: an empty list, not an error


async def test_paper_route_lists_each_triple_with_its_quotes(client):
    r = (await client.get("/papers/doi:10.1000/llmq")).json()
    (t,) = r["triples"]
    assert [(q["element"], q["verified"]) for q in t["evidence"]] == [("challenge", False), ("solution", True)]


async def test_in_process_tool_client_returns_the_same_evidence(service, client):
    local = InProcessToolClient(service)
    try:
        res = await local.call("node_relation", {"names": [S_ACO]})
    finally:
        await local.aclose()
    assert isinstance(res, NodeRelationResult)
    http = (await client.post("/tools/node_relation", json={"names": [S_ACO]})).json()
    assert res.model_dump(mode="json") == http


@pytest.fixture(scope="module")
def bounded_service(tmp_path_factory: pytest.TempPathFactory, falkordb_server: Any, embedder: Any) -> Iterator[Any]:
    settings = make_settings(Path(tmp_path_factory.mktemp("bounded")), falkordb_server.url,
                             evidence_quotes=1, evidence_quote_chars=40)
    with graph_service(settings, embedder, PAPERS, TRIPLES, PARENTS) as svc:
        yield svc


async def test_quotes_are_bounded_by_the_settings(bounded_service):
    from motivgraph.api.app import create_app

    async with asgi_client(create_app(bounded_service)) as c:
        r = (await c.get("/triples", params={"solution": S_ACO})).json()
        (t,) = r["items"]
        assert len(t["evidence"]) == 3  # one per element
        for q in t["evidence"]:
            assert len(q["text"]) <= 40 and q["text"].endswith("…")
        node = (await c.post("/tools/node_relation", json={"names": [QUANT]})).json()["nodes"][0]
        assert len(node["evidence"]) == 1
