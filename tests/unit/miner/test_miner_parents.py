"""Parent node addition (B.4) on a small hand-built set whose right grouping is known."""

from __future__ import annotations

import json

import pytest

from motivgraph.miner.decisions import DecisionLog
from motivgraph.miner.parents import LLMParentJudge, OfflineJudge, focal_order, knn, run_pass
from motivgraph.settings import MinerSettings
from tests.miner_support import GROUP_OF, NODES, items, judge_reply, scripted_client


def _names(parents) -> list[set[str]]:  # type: ignore[no-untyped-def]
    by_key = {it.key: it.node.name for it in items()}
    return [{by_key[c] for c in p.children} for p in parents]


@pytest.fixture(scope="module")
def vectors(embedder):  # type: ignore[no-untyped-def]
    return embedder.embed([it.node.text() for it in items()])


def test_knn_and_focal_order_are_deterministic(vectors) -> None:  # type: ignore[no-untyped-def]
    a = knn(vectors, 3, 0.0)
    assert a == knn(vectors, 3, 0.0)
    assert all(i not in [j for j, _ in row] for i, row in enumerate(a))
    keys = [it.key for it in items()]
    assert focal_order(keys, 13, "problem", 1) == focal_order(keys, 13, "problem", 1)
    assert focal_order(keys, 13, "problem", 1) != focal_order(keys, 14, "problem", 1)


async def test_member_picking_judge_recovers_the_known_grouping(settings, vectors) -> None:  # type: ignore[no-untyped-def]
    client, model = scripted_client(settings, default=judge_reply)
    cfg = MinerSettings(parent_k=5, parent_min_similarity=0.1, parent_rule="members")
    res = await run_pass("problem", 1, items(), vectors, LLMParentJudge(client, "members"), cfg, None)
    got = sorted(_names(res.parents), key=len)
    assert got == [{n for n, _ in NODES["image"]}, {n for n, _ in NODES["translation"]}]
    assert {p.parent.name for p in res.parents} == {"Machine translation", "Image classification"}
    assert all(p.level == 1 and p.type == "problem" for p in res.parents)
    assert res.judge_calls == len(model.calls) <= len(items())
    client.close()


@pytest.mark.parametrize("rule", ["paper", "members"])
async def test_concurrent_pass_equals_sequential(settings, vectors, rule) -> None:  # type: ignore[no-untyped-def]
    cfg = MinerSettings(parent_k=5, parent_min_similarity=0.1, parent_rule=rule)
    client, _ = scripted_client(settings, default=judge_reply)
    seq = await run_pass("problem", 1, items(), vectors, LLMParentJudge(client, rule), cfg, None, concurrency=1)
    par = await run_pass("problem", 1, items(), vectors, LLMParentJudge(client, rule), cfg, None, concurrency=8)
    assert [p.model_dump() for p in seq.parents] == [p.model_dump() for p in par.parents]
    client.close()


async def test_verdicts_are_cached_so_a_rerun_asks_nothing(settings, vectors, tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = MinerSettings(parent_k=5, parent_min_similarity=0.1)
    log = DecisionLog(tmp_path / "d.sqlite")
    client, _ = scripted_client(settings, default=judge_reply)
    first = await run_pass("problem", 1, items(), vectors, LLMParentJudge(client), cfg, log)
    silent, silent_model = scripted_client(settings)  # would raise ScriptExhausted if asked
    again = await run_pass("problem", 1, items(), vectors, LLMParentJudge(silent), cfg, log)
    assert [p.model_dump() for p in again.parents] == [p.model_dump() for p in first.parents]
    assert again.judge_calls == 0 and again.cache_hits == first.judge_calls and silent_model.calls == []
    log.close()
    client.close()
    silent.close()


async def test_judge_output_outside_the_candidates_is_ignored(settings, vectors) -> None:  # type: ignore[no-untyped-def]
    bogus = json.dumps({"create": True, "members": [0, 99], "name": "X", "description": "d", "reason": "r"})
    client, _ = scripted_client(settings, default=bogus)
    res = await run_pass("problem", 1, items(), vectors, LLMParentJudge(client, "members"),
                         MinerSettings(parent_min_similarity=0.1, parent_rule="members"), None)
    assert res.parents == []  # the member-picking variant: no valid member, no parent
    client.close()


async def test_offline_clustering_groups_by_similarity_and_names_after_central_member(vectors) -> None:  # type: ignore[no-untyped-def]
    cfg = MinerSettings(parent_k=5, parent_min_similarity=0.3)
    res = await run_pass("problem", 1, items(), vectors, OfflineJudge(0.45), cfg, None)
    assert res.parents, "translation problems are similar enough to cluster"
    groups = _names(res.parents)
    for g in groups:  # no group mixes task families
        assert len({GROUP_OF[n] for n in g}) == 1
    assert any(g <= {n for n, _ in NODES["translation"]} and len(g) >= 3 for g in groups)
    for p, g in zip(res.parents, groups, strict=True):
        assert p.parent.name.endswith("and related problems")
        assert p.parent.name.removesuffix(" and related problems") in g


async def test_paper_rule_by_default_a_yes_adopts_every_filtered_neighbour(settings, vectors) -> None:  # type: ignore[no-untyped-def]
    """B.4: parent-of edges go "to N and to every node v in V_filtered"; a member list is not asked for,
    and one a model adds anyway is ignored. The default has no similarity floor (k nearest only)."""
    cfg = MinerSettings(parent_k=3)
    assert (cfg.parent_rule, cfg.parent_min_similarity, cfg.parent_join) == ("paper", 0.0, False)
    picky = json.dumps({"create": True, "members": [1], "name": "General", "description": "d", "reason": "r"})
    client, model = scripted_client(settings, default=picky)
    res = await run_pass("problem", 1, items(), vectors, LLMParentJudge(client), cfg, None)
    # the first focal node sees all 3 neighbours still in S: focal + 3 children; later ones what is left
    assert res.parents and len(res.parents[0].children) == 4 and all(len(p.children) >= 2 for p in res.parents)
    assert "Do all of them together" in model.calls[0][-1].content  # the group question, not member picking
    client.close()
    # the named variant: the same reply adopts just the picked candidate
    client, _ = scripted_client(settings, default=picky)
    res = await run_pass("problem", 1, items(), vectors, LLMParentJudge(client, "members"),
                         MinerSettings(parent_k=3, parent_rule="members"), None)
    assert res.parents and all(len(p.children) == 2 for p in res.parents)
    client.close()


async def test_paper_rule_with_a_knowing_judge_never_mixes_families(settings, vectors) -> None:  # type: ignore[no-untyped-def]
    client, _ = scripted_client(settings, default=judge_reply)
    res = await run_pass("problem", 1, items(), vectors, LLMParentJudge(client), MinerSettings(parent_k=3), None)
    for g in _names(res.parents):
        assert len({GROUP_OF[n] for n in g}) == 1
    client.close()


def test_unknown_rule_is_a_clear_error(settings) -> None:  # type: ignore[no-untyped-def]
    client, _ = scripted_client(settings)
    with pytest.raises(ValueError, match="paper"):
        LLMParentJudge(client, "everything")
    client.close()
