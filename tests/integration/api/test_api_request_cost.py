"""Issue 41 item 5: the work one request may cause is bounded. node_relation with 20 unknown 300-character names
(the most the schema allows) asks for did-you-mean suggestions -- a query embedding and a vector search each --
for the first MAX_SUGGESTED_NAMES names only; it was one per name (20 embeddings: 1.6-3.6 s on a 121-node graph,
against 6 ms for known names). The request still answers every name in `unresolved`."""

from __future__ import annotations

import random

import pytest

from motivgraph.api.contract.models import NodeRelationRequest
from motivgraph.api.services.node_relation import MAX_SUGGESTED_NAMES, node_relation
from motivgraph.errors import NodeNotFound
from tests.integration.api.conftest import QUANT


def _unknown(rng: random.Random) -> str:
    return " ".join(f"zq{rng.randrange(10**8)}x" for _ in range(30))[:300]


def test_unknown_names_cost_a_bounded_number_of_suggestion_lookups(service, monkeypatch) -> None:
    rng = random.Random(41)
    names = [_unknown(rng) for _ in range(20)]
    calls: list[str] = []
    real = service.ctx.suggestions

    def counting(text: str, *a, **kw):
        calls.append(text)
        return real(text, *a, **kw)

    monkeypatch.setattr(service.ctx, "suggestions", counting)
    with pytest.raises(NodeNotFound) as err:
        node_relation(service.ctx, NodeRelationRequest(names=names))
    assert len(calls) == MAX_SUGGESTED_NAMES <= 5  # was 20: one embedding + vector search per unknown name
    unresolved = err.value.unresolved
    assert [u.query for u in unresolved] == names  # every name is still answered
    assert all(u.suggestions == [] for u in unresolved[MAX_SUGGESTED_NAMES:])


def test_a_known_name_among_unknown_ones_is_still_answered(service, monkeypatch) -> None:
    rng = random.Random(7)
    names = [_unknown(rng) for _ in range(19)] + [QUANT]
    res = node_relation(service.ctx, NodeRelationRequest(names=names))
    assert [n.node.key for n in res.nodes] == [QUANT]
    assert len(res.unresolved) == 19
