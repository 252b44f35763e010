"""The graph store unreachable under a built graph's indexes: every tool route, /stats, /triples, /nodes and
/papers answer 503 backend_unavailable naming the setting to fix — literature_search included, which must not
answer "no papers" (200, source none) when the local corpus could not be searched because the store is down.
The same check on a real Neo4j killed under a serving API: tests/reliability/test_neo4j_faults.py."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.api.conftest import PAPERS, QUANT, asgi_client

pytestmark = pytest.mark.asyncio


async def test_every_route_is_503_while_the_store_is_down(api_settings: Any, tmp_path: Any) -> None:
    from motivgraph.api.app import create_app
    from motivgraph.api.contract.tools import all_tools
    from motivgraph.api.services import ToolService

    s = api_settings.model_copy(deep=True)  # the data dir with its node and paper index, but no store
    s.graph.falkordb_url = f"unix://{tmp_path}/nobody-listens.sock"
    bodies = {"node_search": {"query": "routing"}, "node_relation": {"names": [QUANT]}, "random_nodes": {},
              "literature_search": {"query": "routing"}, "transfer_candidates": {"topic": "routing"}}
    assert {t.name for t in all_tools()} <= set(bodies), "a new tool: give it a request body here"
    async with asgi_client(create_app(ToolService(s))) as c:
        answers = {f"/tools/{name}": await c.post(f"/tools/{name}", json=body) for name, body in bodies.items()}
        for path in ("/stats", "/triples", f"/nodes/{QUANT}", f"/papers/{PAPERS[0].paper_id}"):
            answers[path] = await c.get(path)
    wrong = {p: (r.status_code, r.text[:300]) for p, r in answers.items()
             if r.status_code != 503 or r.json().get("error") != "backend_unavailable"
             or "MOTIVGRAPH_GRAPH_FALKORDB_URL" not in r.json().get("message", "")}
    assert wrong == {}
