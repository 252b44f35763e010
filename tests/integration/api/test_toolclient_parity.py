"""ToolClient parity: the HTTP client (through the real app, in process via ASGITransport) and the
in-process client return equal typed results — and raise the same errors — for the same calls."""

from __future__ import annotations

import httpx
import pytest

from motivgraph.agents.tools.http import HttpToolClient
from motivgraph.agents.tools.inprocess import InProcessToolClient
from motivgraph.api.contract.models import NodeSearchRequest, NodeSearchResult, RandomNodesResult
from motivgraph.api.contract.tools import NODE_RELATION, NODE_SEARCH, RANDOM_NODES
from motivgraph.errors import NodeNotFound, ToolArgumentError
from tests.integration.api.conftest import QUANT, S_ACO

pytestmark = pytest.mark.asyncio

CALLS = [
    ("node_search", {"query": "LLM compression", "k": 5}),
    ("node_search", {"query": "routing", "k": 4, "types": ["challenge"], "min_score": 0.1}),
    ("node_relation", {"names": ["LLM weight quantization", "routing in large networks", "no such node xyz"]}),
    ("random_nodes", {"n": 4, "seed": 5}),
    ("random_nodes", {"n": 3, "seed": 9, "mode": "triples"}),
    ("random_nodes", {"n": 3, "seed": 2, "far_from": "protein folding", "max_similarity": 0.2}),
    ("literature_search", {"query": "sensor network energy", "limit": 3}),
    ("transfer_candidates", {"topic": "energy-efficient routing in wireless sensor networks", "k": 3}),
]


@pytest.fixture
async def clients(service):
    from motivgraph.api.app import create_app

    app = create_app(service)
    http = HttpToolClient("http://localhost", transport=httpx.ASGITransport(app=app), retries=0)
    local = InProcessToolClient(service)
    yield http, local
    await http.aclose()
    await local.aclose()


@pytest.mark.parametrize("name, args", CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)])
async def test_same_results(clients, name, args):
    http, local = clients
    a = await http.call(name, args)
    b = await local.call(name, args)
    assert type(a) is type(b)
    assert a == b
    assert a.model_dump() == b.model_dump()


async def test_request_object_and_call_by_name(clients):
    http, local = clients
    req = NodeSearchRequest(query="ant colony", k=2)
    a = await http.call(NODE_SEARCH, req)
    b = await local.call("node_search", {"query": "ant colony", "k": 2})
    assert isinstance(a, NodeSearchResult) and a == b
    assert a.hits[0].key == S_ACO
    r = await http.call("random_nodes", {"n": 2, "seed": 1})
    assert isinstance(r, RandomNodesResult) and len(r.nodes) == 2
    one = await local.call(NODE_RELATION, names="LLM weight quantization")  # a single name is accepted
    assert one.nodes[0].node.key == QUANT


async def test_same_errors(clients):
    http, local = clients
    errs = []
    for c in (http, local):
        with pytest.raises(NodeNotFound) as ei:
            await c.call(NODE_RELATION, names=["quantisation of LLMs"])
        errs.append(ei.value)
    assert errs[0].suggestions == errs[1].suggestions and errs[0].suggestions
    assert str(errs[0]) == str(errs[1])
    for c in (http, local):
        with pytest.raises(ToolArgumentError) as ei:
            await c.call(NODE_SEARCH, query="x", k=500)
        assert "k:" in str(ei.value) and "100" in str(ei.value)
        with pytest.raises(ToolArgumentError, match="unknown tool"):
            await c.call("delete_graph", {})


async def test_http_maps_server_side_errors(service):
    """422/401/503 answered by a server become the same exceptions the in-process client raises."""
    from pydantic import SecretStr

    from motivgraph.api.app import create_app
    from motivgraph.api.services import ToolService
    from motivgraph.errors import BackendUnavailable, ConfigError

    s = service.settings.model_copy(deep=True)
    s.api.api_key = SecretStr("right-key-123")
    app = create_app(ToolService(s))
    bad_key = HttpToolClient("http://localhost", api_key="wrong", transport=httpx.ASGITransport(app=app))
    with pytest.raises(ConfigError, match="MOTIVGRAPH_API_API_KEY"):
        await bad_key.call(NODE_SEARCH, query="x")
    await bad_key.aclose()

    calls = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(503, json={"error": "backend_unavailable", "message": "graph down"})

    down = HttpToolClient("http://x", transport=httpx.MockTransport(flaky), retries=2, backoff_s=0.001)
    with pytest.raises(BackendUnavailable, match="graph down"):
        await down.call(NODE_SEARCH, query="x")
    assert len(calls) == 3  # retried twice
    await down.aclose()

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused")

    gone = HttpToolClient("http://x", transport=httpx.MockTransport(refuse), retries=1, backoff_s=0.001)
    with pytest.raises(BackendUnavailable, match="MOTIVGRAPH_API_URL"):
        await gone.call(RANDOM_NODES, n=1)
    await gone.aclose()
