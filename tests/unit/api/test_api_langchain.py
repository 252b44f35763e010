"""LangChain wrappers: descriptions are the tool docs, args are validated, results are rendered
text, and tool errors come back as text for the model."""

from __future__ import annotations

import pytest

from motivgraph.agents.tools.base import ToolClient
from motivgraph.agents.tools.langchain import langchain_tools
from motivgraph.api.contract.models import NodeSearchResult, ScoredNode
from motivgraph.api.contract.tools import get_tool, tool_names
from motivgraph.errors import NodeNotFound


class FakeClient(ToolClient):
    def __init__(self) -> None:
        self.seen = []

    async def _invoke(self, spec, req):
        self.seen.append(req)
        if spec.name == "node_relation":
            raise NodeNotFound(req.names[0], ["Q"])
        assert spec.name == "node_search"
        return NodeSearchResult(query=req.query, hits=[ScoredNode(key="solution:q", type="solution", name="Q",
                                                                   description="quantize", score=0.8)])


@pytest.mark.asyncio
async def test_langchain_tools():
    client = FakeClient()
    tools = {t.name: t for t in langchain_tools(client)}
    assert set(tools) == set(tool_names())
    assert tools["node_search"].description == get_tool("node_search").description
    out = await tools["node_search"].ainvoke({"query": "LLM compression", "k": 3})
    assert "[solution] Q (0.80): quantize" in out
    assert client.seen[0].k == 3
    err = await tools["node_relation"].ainvoke({"names": ["foo"]})
    assert err.startswith("ERROR from node_relation") and "Did you mean: Q" in err
    only = langchain_tools(client, names=["node_search"])
    assert [t.name for t in only] == ["node_search"]
