"""Parent node addition (B.4) on a small hand-built set whose right grouping is known."""

from __future__ import annotations

import json

import pytest

from motivgraph.miner.decisions import DecisionLog
from motivgraph.miner.parents import LLMJudge, OfflineJudge, focal_order, knn, run_pass
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


async def test_llm_judge_recovers_the_known_grouping(settings, vectors) -> None:  # type: ignore[no-untyped-def]
    client, model = scripted_client(settings, default=judge_reply)
    cfg = MinerSettings(parent_k=5, parent_min_similarity=0.1)
    res = await run_pass("problem", 1, items(), vectors, LLMJudge(client), cfg, None)
    got = sorted(_names(res.parents), key=len)
    assert got == [{n for n, _ in NODES["image"]}, {n for n, _ in NODES["translation"]}]
    assert {p.parent.name for p in res.parents} == {"Machine translation", "Image classification"}
    assert all(p.level == 1 and p.type == "problem" for p in res.parents)
    assert res.judge_calls == len(model.calls) <= len(items())
    client.close()


async def test_concurrent_pass_equals_sequential(settings, vectors) -> None:  # type: ignore[no-untyped-def]
    cfg = MinerSettings(parent_k=5, parent_min_similarity=0.1)
    client, _ = scripted_client(settings, default=judge_reply)
    seq = await run_pass("problem", 1, items(), vectors, LLMJudge(client), cfg, None, concurrency=1)
    par = await run_pass("problem", 1, items(), vectors, LLMJudge(client), cfg, None, concurrency=8)
    assert [p.model_dump() for p in seq.parents] == [p.model_dump() for p in par.parents]
    client.close()


async def test_verdicts_are_cached_so_a_rerun_asks_nothing(settings, vectors, tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = MinerSettings(parent_k=5, parent_min_similarity=0.1)
    log = DecisionLog(tmp_path / "d.sqlite")
    client, _ = scripted_client(settings, default=judge_reply)
    first = await run_pass("problem", 1, items(), vectors, LLMJudge(client), cfg, log)
    silent, silent_model = scripted_client(settings)  # would raise ScriptExhausted if asked
    again = await run_pass("problem", 1, items(), vectors, LLMJudge(silent), cfg, log)
    assert [p.model_dump() for p in again.parents] == [p.model_dump() for p in first.parents]
    assert again.judge_calls == 0 and again.cache_hits == first.judge_calls and silent_model.calls == []
    log.close()
    client.close()
    silent.close()


async def test_judge_output_outside_the_candidates_is_ignored(settings, vectors) -> None:  # type: ignore[no-untyped-def]
    bogus = json.dumps({"create": True, "members": [0, 99], "name": "X", "description": "d", "reason": "r"})
    client, _ = scripted_client(settings, default=bogus)
    res = await run_pass("problem", 1, items(), vectors, LLMJudge(client), MinerSettings(parent_min_similarity=0.1),
                         None)
    assert res.parents == []
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
