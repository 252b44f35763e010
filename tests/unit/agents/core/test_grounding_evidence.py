"""Grounding counts a kg: link only when its node has a verified quote (#39), keeps the reason visible,
and the idea report cites each link's quotes with paper and page."""

from __future__ import annotations

from typing import Any

from motivgraph.agents.core.grounding import NO_EVIDENCE, check_idea, ground
from motivgraph.agents.core.idea import Grounding, IdeaRecord
from motivgraph.agents.core.report import _grounding_lines, quote_line
from motivgraph.api.contract.models import (
    NodeBrief,
    NodeRelation,
    NodeRelationRequest,
    NodeRelationResult,
    QuoteOut,
    Unresolved,
)
from motivgraph.errors import NodeNotFound

VERIFIED = QuoteOut(text="Ants deposit pheromone on short paths.", verified=True, element="solution",
                    paper_id="doi:10.1/aco", title="Ant colony routing", year=2015, section="Method", page=3)
UNVERIFIED = QuoteOut(text="Memory is scarce.", verified=False, element="challenge", paper_id="doi:10.1/q",
                      title="Quantization", year=2024, reason="not found in the paper")


class FakeClient:
    """node_relation over a fixed table of nodes: name -> (type, quotes)."""

    def __init__(self, nodes: dict[str, tuple[str, list[QuoteOut]]]) -> None:
        self.nodes = nodes
        self.requests: list[NodeRelationRequest] = []

    async def call(self, spec: Any, req: NodeRelationRequest) -> NodeRelationResult:
        self.requests.append(req)
        found, missing = [], []
        for name in req.names:
            if name.lower() in self.nodes:
                typ, quotes = self.nodes[name.lower()]
                node = NodeBrief(key=f"{typ}:{name.lower()}", type=typ, name=name)  # type: ignore[arg-type]
                found.append(NodeRelation(query=name, node=node, evidence=quotes[: req.max_quotes or 0]))
            else:
                missing.append(Unresolved(query=name))
        if not found:
            raise NodeNotFound(req.names[0], [], missing)
        return NodeRelationResult(nodes=found, unresolved=missing)


TEXT = ("We adapt [ant colony search](kg:solution:ant colony optimization) to "
        "[scarce memory](kg:challenge:memory footprint) and [x](kg:problem:nothing like it).")
GRAPH = {"ant colony optimization": ("solution", [VERIFIED]),
         "memory footprint": ("challenge", [UNVERIFIED])}


async def test_only_a_node_with_a_verified_quote_grounds_a_link() -> None:
    client = FakeClient(GRAPH)
    report = await check_idea(TEXT, client, [])
    assert (report.links_total, report.links_resolved) == (3, 1)
    reasons = {u["name"]: u["reason"] for u in report.unresolved_links}
    assert reasons == {"memory footprint": NO_EVIDENCE, "nothing like it": "no such node in the graph"}
    assert "node has no verified evidence" in report.problems_text()
    assert all(r.max_quotes and r.max_quotes >= 1 for r in client.requests)  # asks for the quotes it needs


async def test_grounding_record_carries_the_quotes() -> None:
    g = await ground(TEXT, FakeClient(GRAPH), [])
    by = {ln.name: ln for ln in g.links}
    assert by["ant colony optimization"].resolved and by["ant colony optimization"].quotes == [VERIFIED]
    mem = by["memory footprint"]
    assert not mem.resolved and mem.reason == NO_EVIDENCE and mem.quotes == [UNVERIFIED]
    # the record survives its JSON round trip (ideas.json)
    assert Grounding.model_validate_json(g.model_dump_json()) == g


async def test_report_lists_each_links_quotes_with_paper_and_page() -> None:
    g = await ground(TEXT, FakeClient(GRAPH), [])
    idea = IdeaRecord.model_construct(title="t", grounding=g)  # the report's grounding part reads only this
    lines = _grounding_lines(idea)
    text = "\n".join(lines)
    assert "“Ants deposit pheromone on short paths.” — Ant colony routing (doi:10.1/aco, 2015), p. 3, Method" in text
    assert "[unverified: not found in the paper]" in text
    # quotes sit under their link
    i = next(i for i, ln in enumerate(lines) if "ant colony optimization" in ln)
    assert lines[i + 1].startswith("    - “Ants deposit")


def test_quote_line_without_page_or_year() -> None:
    q = QuoteOut(text="A quote.", verified=True, element="problem", paper_id="p1")
    assert quote_line(q) == "“A quote.” — p1 (p1)"
