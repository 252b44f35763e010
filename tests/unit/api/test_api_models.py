"""Tool request models: every limit an LLM-written argument can break, with a message."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from motivgraph.api.contract.models import (
    LiteratureSearchRequest,
    NodeRelationRequest,
    NodeSearchRequest,
    RandomNodesRequest,
    TransferRequest,
)
from motivgraph.api.contract.tools import NODE_SEARCH
from motivgraph.errors import ToolArgumentError


def test_text_is_cleaned():
    r = NodeSearchRequest(query="  LLM \n  compression ")
    assert r.query == "LLM compression"
    assert NodeSearchRequest(query="x", types=["solution", "solution"]).types == ["solution"]


@pytest.mark.parametrize("bad", ["", "   ", "a\x00b", "\ud800", "x" * 1001])
def test_bad_text_rejected(bad):
    with pytest.raises(ValidationError):
        NodeSearchRequest(query=bad)


@pytest.mark.parametrize("model, kwargs", [
    (NodeSearchRequest, {"query": "x", "k": 0}),
    (NodeSearchRequest, {"query": "x", "k": 101}),
    (NodeSearchRequest, {"query": "x", "types": ["paper"]}),
    (NodeSearchRequest, {"query": "x", "extra": True}),
    (NodeRelationRequest, {"names": []}),
    (NodeRelationRequest, {"names": ["n"] * 21}),
    (RandomNodesRequest, {"n": 0}),
    (RandomNodesRequest, {"n": 51}),
    (RandomNodesRequest, {"seed": 2**31}),
    (RandomNodesRequest, {"mode": "papers"}),
    (LiteratureSearchRequest, {"query": "x", "limit": 0}),
    (LiteratureSearchRequest, {"query": "x", "limit": 101}),
    (LiteratureSearchRequest, {"query": "x", "year_from": 2024, "year_to": 2020}),
    (TransferRequest, {"topic": "x", "k": 51}),
])
def test_limits(model, kwargs):
    with pytest.raises(ValidationError):
        model(**kwargs)


def test_defaults_within_limits():
    assert NodeSearchRequest(query="q").k == 10
    r = RandomNodesRequest()
    assert r.n == 10 and r.mode == "nodes" and r.seed is None and r.far_from is None
    assert LiteratureSearchRequest(query="q").source == "auto"
    assert NodeRelationRequest(names=["a"] * 20).max_triples == 20


def test_build_request_message_names_each_problem():
    with pytest.raises(ToolArgumentError) as ei:
        NODE_SEARCH.build_request({"query": "", "k": 500})
    msg = str(ei.value)
    assert msg.startswith("Invalid arguments for node_search")
    assert "query:" in msg and "k:" in msg
    assert len(ei.value.problems) == 2
