"""GET /triples, /nodes/{key}, /papers/{id}, /stats, /health, /tools, /explorer, /openapi.json."""

from __future__ import annotations

import pytest

from tests.integration.api.conftest import C_ACO, C_WSN, PARENT_ROUTING, QUANT, S_ACO

pytestmark = pytest.mark.asyncio


async def test_triples_pagination_covers_all(client):
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        r = await client.get("/triples", params=params)
        assert r.status_code == 200, r.text
        page = r.json()
        assert len(page["items"]) <= 3
        seen += [f"{t['problem']['key']}|{t['challenge']['key']}|{t['solution']['key']}" for t in page["items"]]
        pages += 1
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert len(seen) == len(set(seen)) == 9  # every stated triple once (the alias triple merges into one)
    assert pages == 3


async def test_triples_filters(client):
    r = (await client.get("/triples", params={"solution": "ant colony"})).json()
    assert [t["solution"]["key"] for t in r["items"]] == [S_ACO]
    r = (await client.get("/triples", params={"challenge": C_WSN})).json()
    assert {t["challenge"]["key"] for t in r["items"]} == {C_WSN}
    r = (await client.get("/triples", params={"paper": "doi:10.1000/wsn"})).json()
    assert len(r["items"]) == 2 and all("doi:10.1000/wsn" in t["papers"] for t in r["items"])
    r = (await client.get("/triples", params={"parent": PARENT_ROUTING})).json()
    assert {t["challenge"]["key"] for t in r["items"]} == {C_WSN, C_ACO}
    r = (await client.get("/triples", params={"problem": "no such problem anywhere"})).json()
    assert r == {"items": [], "next_cursor": None}


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 101}, {"cursor": "garbage!!"}, {"parent": "not a key"},
                                    {"problem": "x" * 301}])
async def test_triples_bad_params_are_422(client, params):
    r = await client.get("/triples", params=params)
    assert r.status_code == 422, r.text
    assert r.json()["message"]


async def _all_pages(client, path: str, params: dict, limit: int) -> tuple[list[dict], int]:
    items: list[dict] = []
    cursor, pages = None, 0
    while True:
        r = await client.get(path, params={**params, "limit": limit, **({"cursor": cursor} if cursor else {})})
        assert r.status_code == 200, r.text
        page = r.json()
        assert len(page["items"]) <= limit
        items += page["items"]
        pages += 1
        cursor = page["next_cursor"]
        if not cursor:
            return items, pages


async def test_papers_and_nodes_listings_page_through_everything_once(client):
    stats = (await client.get("/stats")).json()
    papers, pages = await _all_pages(client, "/papers", {}, 3)
    ids = [p["paper_id"] for p in papers]
    assert ids == sorted(set(ids)) and len(ids) == stats["papers"] and pages == -(-len(ids) // 3)
    assert all("source_path" not in p for p in papers)
    nodes, _ = await _all_pages(client, "/nodes", {}, 4)  # pages cross from one type to the next
    keys = [n["key"] for n in nodes]
    assert len(keys) == len(set(keys)) == sum(stats["nodes"][t] for t in ("Problem", "Challenge", "Solution"))
    assert [n["type"] for n in nodes] == sorted((n["type"] for n in nodes), key=["problem", "challenge",
                                                                                "solution"].index)
    only, _ = await _all_pages(client, "/nodes", {"type": ["challenge", "solution"]}, 5)
    assert {n["type"] for n in only} == {"challenge", "solution"}
    assert len(only) == stats["nodes"]["Challenge"] + stats["nodes"]["Solution"]


@pytest.mark.parametrize(("path", "params"), [("/papers", {"limit": 0}), ("/papers", {"cursor": "garbage!!"}),
                                              ("/papers", {"cursor": "WyJhIiwiYiJd"}),  # a 2-key cursor
                                              ("/nodes", {"type": "paper"}), ("/nodes", {"limit": 101}),
                                              ("/nodes", {"cursor": "WyJhIl0"})])  # a 1-key cursor
async def test_listing_bad_params_are_422(client, path, params):
    r = await client.get(path, params=params)
    assert r.status_code == 422, r.text
    assert r.json()["message"]


async def test_get_node_by_key_and_name(client):
    r = await client.get(f"/nodes/{QUANT}")
    assert r.status_code == 200
    d = r.json()
    assert d["node"]["key"] == QUANT and d["triples"] and d["papers"]
    r2 = await client.get("/nodes/Model Quantization for Large Language Models")
    assert r2.json()["node"]["key"] == QUANT


async def test_get_node_unknown_404_suggestions(client):
    r = await client.get("/nodes/solution:ant colony optimisation")
    assert r.status_code == 404
    body = r.json()
    assert body["error"] == "node_not_found"
    assert "Ant colony optimization with pheromone trails" in body["suggestions"]


async def test_get_paper(client):
    r = await client.get("/papers/doi:10.1000/llmq")
    assert r.status_code == 200
    body = r.json()
    assert body["paper"]["title"] == "Low-bit quantization of large language models"
    assert body["paper"]["authors"] == ["Ada Lovelace", "Alan Turing"]
    assert [t["solution"] for t in body["triples"]] == ["Model quantization for large language models"]
    r = await client.get("/papers/doi:10.9999/none")
    assert r.status_code == 404 and r.json()["error"] == "paper_not_found"
    # the forms `motivgraph papers …` accepts: a bare DOI (any case), the id with its prefix
    for typed, pid in (("10.1000/llmq", "doi:10.1000/llmq"), ("10.1000/LLMQ", "doi:10.1000/llmq"),
                       ("2401.00001", "arxiv:2401.00001")):
        r = await client.get(f"/papers/{typed}")
        assert r.status_code == 200 and r.json()["paper"]["paper_id"] == pid, typed
    r = await client.get("/papers/2401.99999")
    assert r.status_code == 404 and "papers list" in r.json()["message"]


async def test_stats(client):
    s = (await client.get("/stats")).json()
    assert s["nodes"]["Problem"] == 6 and s["nodes"]["Challenge"] == 9 and s["nodes"]["Solution"] == 9
    assert s["papers"] == 7 and s["triples"] == 9
    assert s["relationships"]["PARENT_OF"] == 2
    assert s["node_index"]["state"] == "ok" and s["node_index"]["index_version"] == s["graph_version"]
    assert s["paper_index"]["state"] == "ok"


async def test_health_ok(client):
    r = await client.get("/health")
    assert r.status_code == 200
    h = r.json()
    assert h["status"] == "ok" and h["graph"]["ok"] and h["index"]["ok"] and h["index_stale"] is False
    assert (await client.get("/health/live")).json() == {"status": "ok"}


async def test_tools_list_is_openai_format(client):
    tools = (await client.get("/tools")).json()["tools"]
    names = [t["function"]["name"] for t in tools]
    assert names == ["node_search", "node_relation", "random_nodes", "literature_search", "transfer_candidates"]
    for t in tools:
        assert t["type"] == "function"
        params = t["function"]["parameters"]
        assert params["type"] == "object" and "$defs" not in str(params) and "$ref" not in str(params)
        assert len(t["function"]["description"]) > 80
    ns = tools[0]["function"]["parameters"]
    assert ns["required"] == ["query"] and ns["properties"]["k"]["maximum"] == 100


async def test_openapi_documents_models(client):
    spec = (await client.get("/openapi.json")).json()
    post = spec["paths"]["/tools/node_search"]["post"]
    assert "requestBody" in post and "422" in post["responses"] and "200" in post["responses"]
    assert "NodeSearchResult" in spec["components"]["schemas"]


async def test_explorer_page(client):
    r = await client.get("/explorer")
    assert r.status_code == 200 and "MotivGraph explorer" in r.text
    assert "/explorer-assets/explorer.js" in r.text  # the page's script is a local asset, not inline
    js = await client.get("/explorer-assets/explorer.js")
    assert js.status_code == 200 and "/tools/node_search" in js.text
    r = await client.get("/", follow_redirects=False)
    assert r.status_code in (302, 307) and r.headers["location"] == "/explorer"


async def test_unknown_route_and_method(client):
    r = await client.get("/nope")
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    r = await client.get("/tools/node_search")
    assert r.status_code == 405


async def test_access_headers(client):
    r = await client.get("/health")
    assert len(r.headers["x-request-id"]) == 16
    assert r.headers["server-timing"].startswith("app;dur=")
