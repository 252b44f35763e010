"""transfer_candidates never offers a node's own hierarchy (PARENT_OF, any depth) as the "distant" source.

A graph of its own: two fraud-detection challenges under different problems, grouped under a parent
challenge which is itself under a grandparent, plus a third challenge outside that hierarchy. A topic
phrased like the parents makes them targets; their children and grandchildren are similar to them and
stated under problems the parents do not have, so before the fix they came back as transfer "sources".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from motivgraph.api.contract.models import TransferRequest
from motivgraph.api.services.transfer import transfer_candidates
from motivgraph.graph.models import NodeIn, PaperRecord, ParentIn, TripleIn
from tests.integration.api.conftest import graph_service, make_settings

SIG = ("Detecting forged handwritten signatures on documents",
       "Telling a forged handwritten signature from a genuine one on a signed document.")
CARD = ("Detecting fraudulent card payments as they happen",
        "Telling a fraudulent card payment from a genuine one while the payment is being authorised.")
CLAIM = ("Detecting fraudulent insurance claims",
         "Telling a fraudulent insurance claim from a genuine one before it is paid out.")
PARENT = ("Detecting forgery and fraud", "Telling forged or fraudulent items and actions from genuine ones.")
GRAND = ("Detecting deception", "Telling deceptive items, actions and claims from honest ones.")


def _key(name: str) -> str:
    from motivgraph.graph.identity import node_key

    return node_key("challenge", name)


def _triple(paper: str, p: tuple[str, str], c: tuple[str, str], s: tuple[str, str]) -> TripleIn:
    return TripleIn(paper_id=paper, index=0, problem=NodeIn(name=p[0], description=p[1]),
                    challenge=NodeIn(name=c[0], description=c[1]), solution=NodeIn(name=s[0], description=s[1]))


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory, falkordb_server: Any, embedder: Any) -> Iterator[Any]:
    settings = make_settings(Path(tmp_path_factory.mktemp("transfer_hier")), falkordb_server.url)
    papers = [PaperRecord(paper_id=f"doi:10.7/{i}", title=f"paper {i}") for i in "abc"]
    triples = [
        _triple("doi:10.7/a", ("Authentication of archival documents", "Establishing who signed old records."),
                SIG, ("Stroke dynamics compared with reference samples",
                      "Compare pen pressure and stroke order with known genuine signatures.")),
        _triple("doi:10.7/b", ("Security of retail payment systems", "Keeping shop payments safe."),
                CARD, ("Gradient boosted anomaly scoring of transactions",
                       "Score each payment with boosted trees trained on past fraud labels.")),
        _triple("doi:10.7/c", ("Cost control for insurers", "Keeping an insurer's payouts in check."),
                CLAIM, ("Graph analysis of claimant networks",
                        "Link claimants, garages and doctors to expose rings that file claims together.")),
    ]
    parents = [ParentIn(type="challenge", level=1, parent=NodeIn(name=PARENT[0], description=PARENT[1]),
                        children=[_key(SIG[0]), _key(CARD[0])]),
               ParentIn(type="challenge", level=2, parent=NodeIn(name=GRAND[0], description=GRAND[1]),
                        children=[_key(PARENT[0])])]
    with graph_service(settings, embedder, papers, triples, parents) as svc:
        yield svc.ctx


def test_graph_has_the_hierarchy(ctx: Any) -> None:
    grand = ctx.store.get_node(_key(GRAND[0]))
    parent = ctx.store.get_node(_key(PARENT[0]))
    assert [c.key for c in grand.children] == [_key(PARENT[0])]
    assert {c.key for c in parent.children} == {_key(SIG[0]), _key(CARD[0])}


def test_no_source_from_the_targets_own_hierarchy(ctx: Any) -> None:
    lineage = {
        _key(GRAND[0]): {_key(PARENT[0]), _key(SIG[0]), _key(CARD[0])},
        _key(PARENT[0]): {_key(GRAND[0]), _key(SIG[0]), _key(CARD[0])},
        _key(SIG[0]): {_key(PARENT[0]), _key(GRAND[0])},
        _key(CARD[0]): {_key(PARENT[0]), _key(GRAND[0])},
        _key(CLAIM[0]): set(),
    }
    res = transfer_candidates(ctx, TransferRequest(topic="detecting forgery, fraud and deception", k=50, targets=5,
                                                   min_challenge_similarity=0.1))
    targets = {c.target_challenge.key for c in res.candidates}
    assert targets, "the topic reaches challenges with transfers"
    for c in res.candidates:
        assert c.source_challenge.key not in lineage[c.target_challenge.key], (
            f"{c.source_challenge.key} is in the PARENT_OF hierarchy of {c.target_challenge.key}")
    # what stays: transfers between challenges outside each other's hierarchy (siblings, unrelated ones)
    pairs = {(c.target_challenge.key, c.source_challenge.key) for c in res.candidates}
    assert (_key(SIG[0]), _key(CARD[0])) in pairs or (_key(CARD[0]), _key(SIG[0])) in pairs
    # the parents may still be targets, with a source from outside their hierarchy
    assert any(c.source_challenge.key == _key(CLAIM[0]) for c in res.candidates)
