"""ParentBuilder against the embedded graph: parents written with PARENT_OF and indexed, offline
clustering, incremental join of new nodes, resume after a budget stop without asking again."""

from __future__ import annotations

import pytest

from motivgraph.errors import BudgetExceeded
from motivgraph.graph.models import NodeIn, TripleIn
from motivgraph.graph.runtime import Runtime
from motivgraph.miner.decisions import DecisionLog
from motivgraph.miner.parents import ParentBuilder
from tests.miner_support import GROUP_OF, NEW_TRANSLATION, NODES, judge_reply, scripted_client


def add_problems(store, rows, start: int = 0) -> None:  # type: ignore[no-untyped-def]
    triples = []
    for i, (name, desc) in enumerate(rows, start):
        triples.append(TripleIn(
            paper_id=f"paper{i}", index=0, problem=NodeIn(name=name, description=desc),
            challenge=NodeIn(name=f"Challenge {i} in {name}", description=f"Difficulty {i}."),
            solution=NodeIn(name=f"Solution {i} for {name}", description=f"Method {i}."), extractor="llm",
        ))
    store.upsert_triples(triples)


ALL = [row for rows in NODES.values() for row in rows]


@pytest.fixture
def builder(settings, store, embedder):  # type: ignore[no-untyped-def]
    made = []

    def make(client=None, **cfg):  # type: ignore[no-untyped-def]
        for k, v in {"parent_k": 5, "parent_min_similarity": 0.1, "parent_rule": "members", **cfg}.items():
            setattr(settings.miner, k, v)
        rt = Runtime(settings)
        log = DecisionLog.for_data_dir(settings.data_dir)
        b = ParentBuilder(store, embedder, settings.miner, log, client=client, index=rt.node_index, concurrency=4)
        made.append((rt, log))
        return b

    yield make
    for rt, log in made:
        log.close()
        rt.close()


def children_by_parent(store) -> dict[str, set[str]]:  # type: ignore[no-untyped-def]
    names = {n.key: n.name for n in store.iter_nodes(types=["problem"])}
    return {p.parent.name: {names[c] for c in p.children} for p in store.iter_parents() if p.type == "problem"}


async def test_llm_parents_written_indexed_and_incremental(settings, store, builder) -> None:  # type: ignore[no-untyped-def]
    add_problems(store, ALL)
    Runtime(settings).node_index.rebuild()
    client, _ = scripted_client(settings, default=judge_reply)
    b = builder(client, parent_join=True)  # the named incremental-join option
    results = await b.build(["problem"], levels=2)
    got = children_by_parent(store)
    assert got == {
        "Machine translation": {n for n, _ in NODES["translation"]},
        "Image classification": {n for n, _ in NODES["image"]},
    }
    parents = [n for n in store.iter_nodes(types=["problem"]) if n.level == 1]
    assert len(parents) == 2
    idx = Runtime(settings).node_index
    assert set(idx.vectors_for([p.key for p in parents])) == {p.key for p in parents}
    assert idx.status().state == "ok"
    assert results[0].parents and results[0].judge_calls > 0

    # incremental: a new translation problem joins the existing parent; others are not asked again
    add_problems(store, [NEW_TRANSLATION], start=100)
    calls_before = client.usage.total().calls
    again = await b.build(["problem"], levels=1)
    assert again[0].joined == 1
    assert NEW_TRANSLATION[0] in children_by_parent(store)["Machine translation"]
    assert client.usage.total().calls - calls_before == 1  # just the join question
    client.close()


async def test_offline_parents_cluster_similar_problems(store, builder) -> None:  # type: ignore[no-untyped-def]
    add_problems(store, ALL)
    b = builder(None, offline_cluster_similarity=0.45, parent_min_similarity=0.3)
    assert b.offline
    await b.build(["problem"], levels=1)
    got = children_by_parent(store)
    assert got, "the translation problems cluster"
    for name, kids in got.items():
        assert name.endswith(" and related problems")
        assert len({GROUP_OF[k] for k in kids}) == 1


async def test_budget_stop_resumes_without_asking_again(settings, store, builder) -> None:  # type: ignore[no-untyped-def]
    add_problems(store, ALL)
    stingy, model1 = scripted_client(settings, default=judge_reply, budget_usd=1e-7, model_name="gpt-4o-mini")
    settings.llm.cache = False  # only the miner's decision log may answer the repeated question
    with pytest.raises(BudgetExceeded):
        await builder(stingy).build(["problem"], levels=1)
    asked_first = len(model1.calls)
    assert asked_first >= 1
    log = DecisionLog.for_data_dir(settings.data_dir)
    stored = log._db.execute("SELECT COUNT(*) FROM verdicts WHERE kind = 'parent_judge'").fetchone()[0]
    assert stored == asked_first  # every verdict asked before the stop is in the log
    log.close()
    fresh, _ = scripted_client(settings, default=judge_reply)
    res = await builder(fresh).build(["problem"], levels=1)
    assert res[0].cache_hits == asked_first  # replayed from the decision log
    assert len(children_by_parent(store)) == 2
    stingy.close()
    fresh.close()


async def test_without_join_a_new_node_is_a_focal_node_of_the_next_pass(settings, store, builder) -> None:  # type: ignore[no-untyped-def]
    """Join is off by default (B.4 has no join): a new node is asked about as a focal node among the
    parentless nodes, never offered to an existing parent."""
    add_problems(store, ALL)
    Runtime(settings).node_index.rebuild()
    client, model = scripted_client(settings, default=judge_reply)
    b = builder(client, parent_join=False)
    await b.build(["problem"], levels=1)
    add_problems(store, [NEW_TRANSLATION], start=100)
    asked = len(model.calls)
    again = await b.build(["problem"], levels=1)
    assert again[0].joined == 0
    new_questions = [m[-1].content for m in model.calls[asked:]]
    assert new_questions and all("Does the parent cover it?" not in q for q in new_questions)
    assert all(f"Focal problem:\n{NEW_TRANSLATION[0]}" in q for q in new_questions)
    client.close()
