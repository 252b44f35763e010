"""Worked example for docs/extending.md, "Add a tool": `papers_of_node`, the papers that state a node.

A tool is a request model, a result model, a service function `fn(ctx, request) -> result` and one
`ToolSpec` row. With the row registered as a "tools" part (`motivgraph/plugins.py`) the tool is an HTTP
route (`POST /tools/papers_of_node`), an entry of `GET /tools` and of the MCP tool list, a LangChain tool,
and callable by every agent and both ToolClients. tests/integration/docs/test_docs_examples.py registers the
row for one test and calls the tool through the HTTP app and the in-process client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from motivgraph.api.contract.tools import ToolSpec
from motivgraph.errors import NodeNotFound

if TYPE_CHECKING:
    from motivgraph.api.services.context import ToolContext


class PapersOfNodeRequest(BaseModel):
    name: str = Field(min_length=1, max_length=300, description="A node's name, alias or key, any case.")
    limit: int = Field(10, ge=1, le=50, description="Most papers returned (1..50).")


class PaperTitle(BaseModel):
    paper_id: str
    title: str
    year: int | None = None


class PapersOfNodeResult(BaseModel):
    key: str = Field(description="The node the name resolved to.")
    papers: list[PaperTitle] = Field(description="The papers stating it, newest first.")


def papers_of_node(ctx: ToolContext, req: PapersOfNodeRequest) -> PapersOfNodeResult:
    """Plain (not async): the platform runs it in a worker thread, as store calls block."""
    nodes = ctx.store.find_nodes(req.name)
    if not nodes:  # a 404 over HTTP, a tool error an agent can read, with did-you-mean suggestions
        raise NodeNotFound(req.name, ctx.suggestions(req.name, 3))
    key = nodes[0].key
    found = [ctx.store.get_paper(pid) for pid in ctx.store.papers_stating([key])]
    papers = sorted((p for p in found if p is not None), key=lambda p: (-(p.year or 0), p.paper_id))
    return PapersOfNodeResult(
        key=key, papers=[PaperTitle(paper_id=p.paper_id, title=p.title, year=p.year) for p in papers[: req.limit]]
    )


PAPERS_OF_NODE: ToolSpec[PapersOfNodeRequest, PapersOfNodeResult] = ToolSpec(
    "papers_of_node",
    "List the papers that state a graph node (a problem, challenge or solution), newest first, by title "
    "and year. Give the node's name as node_search or node_relation showed it.",
    PapersOfNodeRequest,
    PapersOfNodeResult,
    f"{__name__}:papers_of_node",  # "module:function", imported when the tool is first called
    aliases=("node_papers",),  # other names a model may write
    positional=("name", "limit"),  # the text protocol's `papers_of_node("...")`
    responses=((404, "The name matches no node; suggestions given."),),
)
