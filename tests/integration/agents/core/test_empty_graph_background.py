"""A graph background that finds nothing says nothing -- no more: the run emits a warning naming why (no node
or paper found, or the graph's own error) and what to do, and the ideate CLI's printer shows it. A background
that found something, or a run on a background file, stays quiet."""

from __future__ import annotations

from typing import Any

import pytest

from motivgraph.agents.core import PlatformLLMClient, RunSpec, create_run, register, run_method, unregister
from motivgraph.agents.tools.base import ToolClient
from motivgraph.api.contract.models import LiteraturePaper, LiteratureSearchResult, NodeSearchResult
from motivgraph.errors import IndexError_
from motivgraph.llm import ScriptedChatModel
from tests.integration.agents.core.toy_writer import ToyWriter


class ToolWriter(ToyWriter):
    name = "toy_tool_writer"
    uses_tools = True  # its background comes from the graph


@pytest.fixture
def writer():
    register(ToolWriter)
    yield
    unregister("toy_tool_writer")


class Graph(ToolClient):
    """node_search and literature_search answering nothing, a paper, or failing like an unindexed graph."""

    def __init__(self, answer: str) -> None:
        self.answer = answer

    async def _invoke(self, spec: Any, req: Any) -> Any:
        if self.answer == "broken":
            raise IndexError_("the vector index is missing: run `motivgraph reindex`")
        if spec.name == "node_search":
            return NodeSearchResult(query=req.query, hits=[])
        papers = [LiteraturePaper(title="A paper on it", year=2020)] if self.answer == "paper" else []
        return LiteratureSearchResult(query=req.query, source="local", papers=papers)


async def _warnings(settings: Any, answer: str) -> list[dict[str, Any]]:
    run = create_run(settings.runs_dir, RunSpec(method="toy_tool_writer", topic="tidal energy storage",
                                                config={"ideas": 1}))
    events: list[dict[str, Any]] = []
    settings.llm.cache = False
    llm = PlatformLLMClient(settings, model=ScriptedChatModel(default="A title\nA body."))
    try:
        await run_method(settings, run, llm=llm, tool_client=Graph(answer), listener=events.append)
    finally:
        llm.close()
    assert run.status()["status"] == "completed"  # the method still runs, from the topic alone
    return [e for e in events if e["type"] == "warning"]


async def test_an_empty_graph_background_warns_naming_why_and_what_to_do(settings, writer) -> None:
    from motivgraph.cli.ideate_cmd import DialoguePrinter, console

    (w,) = await _warnings(settings, "nothing")
    assert "graph background for 'tidal energy storage' is empty" in w["text"]
    assert "returned no node and no paper" in w["text"] and "motivgraph ingest" in w["text"]
    assert "--background" in w["text"]
    with console.capture() as cap:
        DialoguePrinter()(w)
    assert "warning:" in cap.get() and "is empty" in cap.get()

    (broken,) = await _warnings(settings, "broken")
    assert "the vector index is missing" in broken["text"] and "motivgraph reindex" in broken["text"]

    assert await _warnings(settings, "paper") == []  # it found a paper: nothing to warn about
