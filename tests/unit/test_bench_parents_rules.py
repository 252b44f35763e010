"""bench_parents_rules: both rules run in memory over levels and report parents, children per parent, depth and
judge calls; with the same coherent judge the paper rule's groups are at least as large as the picked ones."""

from __future__ import annotations

from bench.bench_parents_rules import one_rule
from tests.miner_support import items


async def test_both_rules_report_the_figures(settings, embedder) -> None:  # type: ignore[no-untyped-def]
    its = items()
    vecs = embedder.embed([it.node.text() for it in its])
    settings.miner.parent_k = 3
    rows = {r: await one_rule(r, "problem", its, vecs, settings, None, 2, embedder.embed, "similarity", 0.3)
            for r in ("paper", "members")}
    for r, row in rows.items():
        assert row["rule"] == r and row["judge"].startswith("similarity")
        assert row["judge_calls"] == sum(x["judge_calls"] for x in row["levels"]) > 0
        assert row["levels"][0]["nodes"] == len(its)
        if row["parents"]:
            assert row["depth"] >= 1 and row["children_max"] >= row["children_mean"] >= 2
    # on this hand-built set (k = 3, tau 0.3): the paper rule's one yes adopts the focal node and all 3 neighbours;
    # the member-picking rule forms more, smaller groups, and a second level over them
    assert (rows["paper"]["parents"], rows["paper"]["children_mean"], rows["paper"]["depth"]) == (1, 4.0, 1)
    assert (rows["members"]["parents"], rows["members"]["depth"]) == (3, 2)
    assert rows["members"]["children_mean"] < rows["paper"]["children_mean"]
