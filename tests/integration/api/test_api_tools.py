"""POST /tools/*: happy paths, limits (422), unknown names (404 + suggestions), on a real graph."""

from __future__ import annotations

import pytest

from tests.integration.api.conftest import (
    C_ACO,
    C_MOBILE,
    C_WSN,
    P_VRP,
    P_WSN,
    PARENT_ROUTING,
    QUANT,
    S_ACO,
    S_SINK,
    S_STATIC,
)

pytestmark = pytest.mark.asyncio


# ------------------------------------------------------------------------------------ node_search


async def test_llm_compression_finds_quantization(client):
    r = await client.post("/tools/node_search", json={"query": "LLM compression", "k": 5})
    assert r.status_code == 200, r.text
    body = r.json()
    keys = [h["key"] for h in body["hits"]]
    assert QUANT in keys
    assert body["index_stale"] is False
    sol = await client.post("/tools/node_search", json={"query": "LLM compression", "k": 3, "types": ["solution"]})
    hits = sol.json()["hits"]
    assert hits[0]["key"] == QUANT
    assert {h["type"] for h in hits} == {"solution"}
    assert hits[0]["name"] == "Model quantization for large language models"
    assert "4-bit" in hits[0]["description"]
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)


async def test_node_search_min_score_and_k(client):
    r = await client.post("/tools/node_search", json={"query": "ant colony pheromone routing", "k": 100})
    assert r.status_code == 200
    all_hits = r.json()["hits"]
    assert len(all_hits) > 20  # k larger than the graph: everything, best first
    r = await client.post("/tools/node_search", json={"query": "ant colony pheromone routing", "min_score": 0.5})
    hits = r.json()["hits"]
    assert hits and all(h["score"] >= 0.5 for h in hits)
    assert hits[0]["key"] == S_ACO


@pytest.mark.parametrize("body, field", [
    ({"query": "x", "k": 0}, "k"),
    ({"query": "x", "k": 101}, "k"),
    ({"query": ""}, "query"),
    ({"query": "   "}, "query"),
    ({"query": "a" * 1001}, "query"),
    ({"query": "x", "types": ["method"]}, "types"),
    ({"query": "x", "types": []}, "types"),
    ({"query": "x", "min_score": 2}, "min_score"),
    ({"query": "x\u0000y"}, "query"),
    ({"k": 5}, "query"),
    ({"query": "x", "unknown": 1}, "unknown"),
])
async def test_node_search_limits(client, body, field):
    r = await client.post("/tools/node_search", json=body)
    assert r.status_code == 422, r.text
    err = r.json()
    assert err["error"] == "invalid_request"
    assert any(field in d["loc"] for d in err["details"]), err
    assert field in err["message"]


async def test_invalid_json_is_400_invalid_json(client):
    # issue 41: a body that is no JSON document is one fault on every path (400 invalid_json, field body), as bad
    # UTF-8 and too deep nesting are; it was a 422 with loc "1"
    r = await client.post("/tools/node_search", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert r.json()["code"] == "invalid_json" and r.json()["field"] == "body" and "JSON" in r.json()["message"]


# ------------------------------------------------------------------------------------ node_relation


async def test_node_relation_by_name_case_and_alias(client):
    names = ["llm WEIGHT quantization", "slow autoregressive decoding"]
    r = await client.post("/tools/node_relation", json={"names": names})
    assert r.status_code == 200, r.text
    nodes = r.json()["nodes"]
    assert [n["node"]["key"] for n in nodes] == [QUANT, "challenge:slow autoregressive decoding"]
    q = nodes[0]
    assert q["query"] == "llm WEIGHT quantization"
    assert "LLM weight quantization" in q["aliases"]
    assert q["node"]["description"].startswith("Compress LLM weights")
    assert [c["key"] for c in q["challenges"]] == ["challenge:memory footprint of billion parameter weights"]
    assert [p["key"] for p in q["problems"]] == ["problem:efficient inference of large language models"]
    assert {p["paper_id"] for p in q["papers"]} == {"doi:10.1000/llmq", "arxiv:2401.00001"}
    assert all(p["title"] for p in q["papers"])
    assert q["triples"] and all(t["solution"]["key"] == QUANT for t in q["triples"])
    assert r.json()["unresolved"] == []


async def test_node_relation_parents_children(client):
    r = await client.post("/tools/node_relation", json={"names": [C_WSN, "Routing in large networks"]})
    nodes = {n["node"]["key"]: n for n in r.json()["nodes"]}
    assert [p["key"] for p in nodes[C_WSN]["parents"]] == [PARENT_ROUTING]
    assert {c["key"] for c in nodes[PARENT_ROUTING]["children"]} == {C_WSN, C_ACO}
    assert nodes[PARENT_ROUTING]["node"]["level"] == 1
    assert {s["key"] for s in nodes[C_WSN]["solutions"]} == {S_STATIC}
    assert [p["key"] for p in nodes[C_WSN]["problems"]] == [P_WSN]


async def test_node_relation_partial_unknown(client):
    names = ["Sink mobility prediction", "ant colony optimisaton"]
    r = await client.post("/tools/node_relation", json={"names": names})
    assert r.status_code == 200
    body = r.json()
    assert [n["node"]["key"] for n in body["nodes"]] == [S_SINK]
    assert body["unresolved"][0]["query"] == "ant colony optimisaton"
    assert "Ant colony optimization with pheromone trails" in body["unresolved"][0]["suggestions"]


async def test_node_relation_unknown_is_404_with_suggestions(client):
    r = await client.post("/tools/node_relation", json={"names": ["quantisation of LLMs"]})
    assert r.status_code == 404
    err = r.json()
    assert err["error"] == "node_not_found"
    assert "Model quantization for large language models" in err["suggestions"]
    assert "Did you mean" in err["message"]
    assert err["unresolved"][0]["query"] == "quantisation of LLMs"


async def test_node_relation_truncation(client):
    r = await client.post("/tools/node_relation", json={"names": [P_WSN.split(":", 1)[1]], "max_neighbours": 1})
    n = r.json()["nodes"][0]
    assert len(n["challenges"]) == 1 and n["truncated"] is True


@pytest.mark.parametrize("body", [
    {"names": []},
    {"names": ["a"] * 21},
    {"names": [""]},
    {"names": ["x" * 301]},
    {"names": "not a list"},
    {"names": ["ok"], "max_triples": 0},
])
async def test_node_relation_limits(client, body):
    r = await client.post("/tools/node_relation", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["details"]


# ------------------------------------------------------------------------------------ random_nodes


async def test_random_nodes_seeded_and_typed(client):
    body = {"n": 5, "seed": 7, "types": ["challenge", "solution"]}
    a = (await client.post("/tools/random_nodes", json=body)).json()
    b = (await client.post("/tools/random_nodes", json=body)).json()
    assert a == b
    assert a["seed"] == 7 and len(a["nodes"]) == 5
    assert {n["type"] for n in a["nodes"]} <= {"challenge", "solution"}
    assert len({n["key"] for n in a["nodes"]}) == 5
    c = (await client.post("/tools/random_nodes", json={"n": 3})).json()
    assert isinstance(c["seed"], int) and len(c["nodes"]) == 3
    again = (await client.post("/tools/random_nodes", json={"n": 3, "seed": c["seed"]})).json()
    assert again["nodes"] == c["nodes"]  # the reported seed repeats the draw


async def test_random_nodes_more_than_graph(client):
    r = (await client.post("/tools/random_nodes", json={"n": 50, "types": ["problem"], "seed": 1})).json()
    assert len(r["nodes"]) == 6  # 6 problems in the graph
    assert "only" in r["note"]


async def test_random_nodes_far_from(client, service):
    topic = "large language model inference efficiency"
    r = (await client.post("/tools/random_nodes", json={"n": 6, "seed": 3, "far_from": topic,
                                                         "max_similarity": 0.15})).json()
    assert r["nodes"]
    assert all(n["similarity"] <= 0.15 for n in r["nodes"])
    keys = {n["key"] for n in r["nodes"]}
    assert QUANT not in keys and "problem:efficient inference of large language models" not in keys
    # the similarities are real cosines against the topic
    import numpy as np

    vec = service.ctx.embedder.embed([topic])[0]
    stored = service.ctx.node_search.vectors_for(list(keys))
    for n in r["nodes"]:
        assert abs(float(np.dot(stored[n["key"]], vec)) - n["similarity"]) < 1e-3


async def test_random_triples(client):
    r = (await client.post("/tools/random_nodes", json={"n": 3, "mode": "triples", "seed": 11})).json()
    assert r["mode"] == "triples" and len(r["triples"]) == 3 and r["nodes"] == []
    for t in r["triples"]:
        assert t["problem"]["type"] == "problem" and t["solution"]["type"] == "solution" and t["papers"]
    far = (await client.post("/tools/random_nodes", json={"n": 3, "mode": "triples", "seed": 11,
                                                           "far_from": "wireless sensor network routing",
                                                           "max_similarity": 0.3})).json()
    for t in far["triples"]:
        assert "sensor" not in t["challenge"]["name"].lower()


@pytest.mark.parametrize("body", [{"n": 0}, {"n": 51}, {"mode": "edges"}, {"seed": -1}, {"far_from": ""},
                                  {"max_similarity": 1.5}])
async def test_random_nodes_limits(client, body):
    r = await client.post("/tools/random_nodes", json=body)
    assert r.status_code == 422


# ------------------------------------------------------------------------------------ transfer


async def test_transfer_candidates_known_answer(client):
    r = await client.post("/tools/transfer_candidates",
                          json={"topic": "energy-efficient routing in wireless sensor networks", "k": 10})
    assert r.status_code == 200, r.text
    cands = r.json()["candidates"]
    assert cands
    best = cands[0]
    assert best["solution"]["key"] == S_ACO
    assert best["source_challenge"]["key"] == C_ACO
    assert best["target_challenge"]["key"] in {C_WSN, C_MOBILE}
    assert [p["key"] for p in best["source_problems"]] == [P_VRP]
    assert best["papers"] == ["doi:10.1000/aco"]
    for c in cands:
        # never a same-problem "transfer", never a solution the target already has
        assert {p["key"] for p in c["source_problems"]}.isdisjoint({p["key"] for p in c["target_problems"]})
        assert not (c["target_challenge"]["key"] == C_WSN and c["solution"]["key"] == S_STATIC)
        assert c["score"] == pytest.approx(c["topic_similarity"] * c["challenge_similarity"], abs=1e-3)
        assert c["challenge_similarity"] >= 0.4
    # the decoy: same problem as the target, so its solution is not offered for the WSN challenges
    for c in cands:
        if c["target_challenge"]["key"] in {C_WSN, C_MOBILE}:
            assert c["solution"]["key"] not in {S_SINK, S_STATIC}
    scores = [c["score"] for c in cands]
    assert scores == sorted(scores, reverse=True)


async def test_transfer_limits(client):
    assert (await client.post("/tools/transfer_candidates", json={"topic": "x", "k": 0})).status_code == 422
    assert (await client.post("/tools/transfer_candidates", json={"topic": "x", "targets": 21})).status_code == 422
    # issue 41: at most 10 targets (each ~11 graph reads), so the largest request costs ~2x the usual one, not 6x
    r = await client.post("/tools/transfer_candidates", json={"topic": "x", "targets": 11})
    assert r.status_code == 422 and r.json()["field"] == "targets"
    assert (await client.post("/tools/transfer_candidates", json={})).status_code == 422


async def test_transfer_no_analogy(client):
    r = await client.post("/tools/transfer_candidates",
                          json={"topic": "protein folding", "min_challenge_similarity": 0.95})
    assert r.status_code == 200 and r.json()["candidates"] == []
