"""node_search turns the brief cache's NodeBrief into the published ScoredNode by its fields: no dict of the brief
and no second validation of what the cache holds (#44: a hit took five shapes, IndexHit → NodeBrief → dict →
ScoredNode → NodeSearchResult)."""

from __future__ import annotations

from typing import Any

import pytest

from motivgraph.api.contract.models import NodeBrief, NodeSearchRequest, ScoredNode
from motivgraph.api.services.node_search import node_search
from motivgraph.graph.vector_index import IndexHit


class _Ctx:
    def search(self, query: str, k: int, types: Any, min_score: Any) -> tuple[list[IndexHit], bool]:
        return [IndexHit(key="problem:label noise", type="problem", name="Label noise", score=0.912345),
                IndexHit(key="problem:gone", type="problem", name="Gone", score=0.5)], False

    def briefs(self, keys: Any) -> dict[str, NodeBrief]:
        list(keys)
        return {"problem:label noise": NodeBrief.model_construct(key="problem:label noise", type="problem",
                                                                 name="Label noise", description="Noisy labels.",
                                                                 level=0)}


def test_a_hit_is_built_from_the_brief_without_a_dict_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_dump(self: Any, **kw: Any) -> Any:
        raise AssertionError("the brief was dumped to a dict")

    def no_validation(self: Any, **kw: Any) -> None:
        raise AssertionError("the hit was validated again")

    monkeypatch.setattr(NodeBrief, "model_dump", no_dump)
    monkeypatch.setattr(ScoredNode, "__init__", no_validation)
    out = node_search(_Ctx(), NodeSearchRequest(query="noisy labels"))  # type: ignore[arg-type]
    monkeypatch.undo()
    assert out.index_stale  # the indexed node gone from the graph
    assert [h.model_dump() for h in out.hits] == [{"key": "problem:label noise", "type": "problem",
                                                   "name": "Label noise", "description": "Noisy labels.",
                                                   "level": 0, "score": 0.9123}]
