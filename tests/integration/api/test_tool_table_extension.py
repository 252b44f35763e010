"""Adding a tool = request/result models + a service function + one row in the tool table.

A row for a tool that is not in the product is registered for one test (`plugins.registered`), with no
other edit, and the tool is then reached through every surface: the HTTP route and its OpenAPI entry,
GET /tools (OpenAI schema), the MCP tool list and call, the LangChain wrapper, the agents' Toolbox
(under an alias) and both ToolClients (HTTP and in-process), which return the same result."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from motivgraph import plugins
from motivgraph.api.contract.tools import ToolSpec
from tests.integration.api.extra_tool import NearestNamesRequest, NearestNamesResult

EXTRA: ToolSpec[NearestNamesRequest, NearestNamesResult] = ToolSpec(
    "nearest_names",
    "Names of the graph nodes closest in meaning to a phrase.",
    NearestNamesRequest,
    NearestNamesResult,
    "tests.integration.api.extra_tool:nearest_names",
    aliases=("closest_names",),
    arg_aliases=(("query", "text"),),
    positional=("text", "k"),
)


@pytest.fixture
def extra_tool() -> Iterator[ToolSpec[NearestNamesRequest, NearestNamesResult]]:
    with plugins.registered("tools", EXTRA.name, EXTRA):
        yield EXTRA


async def test_a_new_row_reaches_every_surface(service, extra_tool) -> None:
    from motivgraph.agents.core.toolbox import Toolbox
    from motivgraph.agents.tools.http import HttpToolClient
    from motivgraph.agents.tools.inprocess import InProcessToolClient
    from motivgraph.agents.tools.langchain import langchain_tools
    from motivgraph.api.app import create_app
    from motivgraph.api.mcp import call_tool, tool_definitions

    app = create_app(service)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as web:
        # HTTP route, validated by the row's request model
        r = await web.post("/tools/nearest_names", json={"text": "LLM weight quantization", "k": 2})
        assert r.status_code == 200, r.text
        names = r.json()["names"]
        assert r.json()["text"] == "LLM weight quantization" and 1 <= len(names) <= 2
        bad = await web.post("/tools/nearest_names", json={"text": "x", "k": 50})
        assert bad.status_code == 422 and bad.json()["error"] == "invalid_request"
        # OpenAPI entry with the row's description and result model
        op = (await web.get("/openapi.json")).json()["paths"]["/tools/nearest_names"]["post"]
        assert op["description"] == EXTRA.description
        assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("NearestNamesResult")
        # GET /tools: the OpenAI function-calling schema
        listed = {t["function"]["name"]: t for t in (await web.get("/tools")).json()["tools"]}
        assert listed["nearest_names"]["function"]["parameters"]["required"] == ["text"]

    # MCP: listed and callable
    assert "nearest_names" in {t.name for t in tool_definitions()}
    mcp_out = await call_tool(service, "nearest_names", {"text": "LLM weight quantization", "k": 2})
    assert not mcp_out.is_error and mcp_out.structured_content["names"] == names

    # both ToolClients, typed through the row, same answer as the route
    http = HttpToolClient("http://localhost", transport=httpx.ASGITransport(app=app), retries=0)
    local = InProcessToolClient(service)
    try:
        a = await http.call(EXTRA, text="LLM weight quantization", k=2)
        b = await local.call("closest_names", {"text": "LLM weight quantization", "k": 2})
        assert isinstance(a, NearestNamesResult) and a == b and a.names == names

        # LangChain wrapper (rendered with the generic renderer)
        lc = {t.name: t for t in langchain_tools(local)}
        text = await lc["nearest_names"].ainvoke({"text": "LLM weight quantization", "k": 2})
        assert names[0] in text

        # the agents' Toolbox: shown by its canonical name, reached by alias, argument alias and position
        box = Toolbox(local, topic="t")
        assert "nearest_names" in [t["function"]["name"] for t in box.openai_tools()]
        out = await box.execute("closest_names", {"query": "LLM weight quantization"}, [])
        assert out.ok and names[0] in out.text
        out = await box.execute("nearest_names", {}, ["LLM weight quantization", 2])
        assert out.ok and out.args == {"text": "LLM weight quantization", "k": 2}
    finally:
        await http.aclose()
        await local.aclose()


def test_the_table_is_back_to_the_product_tools() -> None:
    from motivgraph.api.contract.tools import tool_names

    assert "nearest_names" not in tool_names()
