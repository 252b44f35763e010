"""MCP end to end with the official MCP client SDK over both transports, on the real test graph:
stdio (a spawned `motivgraph mcp` process) and streamable HTTP (`/mcp` of the serve app under uvicorn)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from motivgraph.api.contract.tools import all_tools
from motivgraph.settings import Settings
from tests.integration.api.conftest import C_WSN, QUANT, S_ACO
from tests.uvicorn_support import served


@pytest.fixture(scope="module")
def http_url(service: Any) -> Iterator[str]:
    """The serve composition root's app (tool API + /mcp) under uvicorn on a loopback port."""
    from motivgraph.service import create_service_app

    with served(create_service_app(service)) as url:
        yield f"{url}/mcp"


def _stdio_params(settings: Settings) -> StdioServerParameters:
    exe = shutil.which("motivgraph", path=str(Path(sys.executable).parent))
    assert exe, "the motivgraph console script is not installed in this venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}
    env.update({
        "MOTIVGRAPH_DATA_DIR": str(settings.data_dir),
        "MOTIVGRAPH_GRAPH_FALKORDB_URL": str(settings.graph.falkordb_url),
        "MOTIVGRAPH_GRAPH_NAME": settings.graph.name,
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
    })
    return StdioServerParameters(command=exe, args=["mcp"], env=env)


@asynccontextmanager
async def _client(transport: str, api_settings: Settings, http_url: str) -> AsyncIterator[Client]:
    target: Any = _stdio_params(api_settings) if transport == "stdio" else http_url
    async with Client(target, read_timeout_seconds=120) as client:
        yield client


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return request.param


async def test_mcp_end_to_end(transport: str, api_settings: Settings, http_url: str) -> None:
    async with _client(transport, api_settings, http_url) as client:
        # every tool of the one table, with its description and argument schema
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert set(listed) == {t.name for t in all_tools()}
        for spec in all_tools():
            assert listed[spec.name].description == spec.description
            assert listed[spec.name].input_schema == spec.parameters()

        # node_search finds the known answer, as text and as structured content
        res = await client.call_tool("node_search", {"query": "LLM compression", "k": 5})
        assert not res.is_error
        hits = res.structured_content["hits"]
        assert hits and QUANT in [h["key"] for h in hits[:3]]
        assert json.loads(res.content[0].text)["hits"][0]["key"] == hits[0]["key"]

        # resources: templates listed, a node and a paper read through them
        templates = {t.name: t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert templates == {"node": "motivgraph://node/{key}", "paper": "motivgraph://paper/{paper_id}"}
        node = await client.read_resource(f"motivgraph://node/{C_WSN}")
        body = json.loads(node.contents[0].text)
        assert body["node"]["key"] == C_WSN and any(p["key"] == "challenge:routing in large networks"
                                                     for p in body["parents"])
        paper = json.loads((await client.read_resource("motivgraph://paper/doi:10.1000/llmq")).contents[0].text)
        assert paper["paper"]["title"] == "Low-bit quantization of large language models"
        assert paper["triples"]

        # an invalid argument is an MCP tool error naming the field (not a crash); the session goes on
        bad = await client.call_tool("node_search", {"query": "routing", "k": 0})
        assert bad.is_error and "k" in bad.content[0].text
        with pytest.raises(MCPError):
            await client.call_tool("no_such_tool", {})
        with pytest.raises(MCPError) as missing:
            await client.read_resource("motivgraph://node/challenge:nothing like this exists anywhere")
        assert "No node matches" in missing.value.error.message
        again = await client.call_tool("node_relation", {"names": ["Routing in large networks"]})
        assert not again.is_error and again.structured_content["nodes"]

        # evidence: node_relation and the node resource carry the quotes with paper, section and page
        quoted = await client.call_tool("node_relation", {"names": [S_ACO]})
        (ev,) = quoted.structured_content["nodes"][0]["evidence"]
        assert (ev["verified"], ev["paper_id"], ev["page"], ev["section"]) == (True, "doi:10.1000/aco", 3, "Method")
        node_aco = json.loads((await client.read_resource(f"motivgraph://node/{S_ACO}")).contents[0].text)
        assert node_aco["evidence"][0]["text"].startswith("Artificial ants deposit pheromone")
