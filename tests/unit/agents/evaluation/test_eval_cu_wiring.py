"""Creative Utility in the evaluation's aggregate, with the paper's terms and the named alternatives:
the judgments of ideas listed in a scrambled order reach the metric under the right indices."""

import math

import numpy as np
import pytest

from motivgraph.agents.core import IdeaRecord
from motivgraph.agents.core.idea import Provenance
from motivgraph.agents.evaluation.aggregate import aggregate
from motivgraph.agents.evaluation.collect import IdeaItem, TopicEvidence
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.generate import Delivery
from motivgraph.agents.evaluation.topics import EvalTopic

# idea i: its strict wins against two gold ideas (equal lengths: the length control changes nothing)
WINS = {"i0": [1, 1], "i1": [1, 0], "i2": [0, 0], "i3": [0, 1]}
# pair -> per-field 1..5 similarities (two judgments for (i0, i3): their distances 0.5 and 1.0 average 0.75)
SIMS = {("i0", "i1"): [[5, 5, 5]], ("i0", "i2"): [[1, 1, 1]], ("i0", "i3"): [[3, 3, 3], [1, 1, 1]],
        ("i1", "i2"): [[2, 2, 2]], ("i1", "i3"): [[4, 4, 4]], ("i2", "i3"): [[1, 3, 5]]}
ORDER = ["i2", "i0", "i3", "i1"]  # the order the items are listed in: not the order of the ids


def _evidence() -> tuple[TopicEvidence, list[Delivery]]:
    topic = EvalTopic(topic_id="T", topic="sparse rewards")
    recs = {i: IdeaRecord(title=f"Idea {i}", provenance=Provenance(method="m", run_id="r", topic="sparse rewards"))
            for i in ORDER}
    ev = TopicEvidence(topic=topic, items=[IdeaItem(i, "m", "T", recs[i]) for i in ORDER])
    ev.cu_impact = {i: [(float(w), 100, 100) for w in ws] for i, ws in WINS.items()}
    ev.cu_fields = {frozenset(p): s for p, s in SIMS.items()}
    return ev, [Delivery("m", "T", [recs[i] for i in ORDER])]


def _cu(**cfg: object) -> dict[str, float]:
    ev, deliveries = _evidence()
    config = EvalConfig(methods=["m"], n_ideas=4, metrics=["cu"], n_boot=10, **cfg)  # type: ignore[arg-type]
    res = aggregate(config, [ev], deliveries, {}, ["j"], {}, [])
    row = next(t for t in res.topics if t["method"] == "m")
    q = {r["idea_id"]: r.get("cu_quality") for r in res.ideas}
    return {"cu": row.get("creative_utility", math.nan), "d": row.get("cu_distance", math.nan), **q}


def test_cu_with_the_papers_terms_through_the_aggregate_by_hand() -> None:
    out = _cu()
    assert (out["i0"], out["i1"], out["i2"], out["i3"]) == (1.0, 0.5, 0.0, 0.5)
    # distances: d01 0, d02 1, d03 0.75, d12 0.75, d13 0.25, d23 0.5; greedy i0, i3 (0.5*0.75), i1 (0), i2 (0)
    assert out["cu"] == pytest.approx((1 + 0.9 * 0.375) / (1 + 0.9 + 0.81 + 0.729))
    assert out["d"] == pytest.approx((0 + 1 + 0.75 + 0.75 + 0.25 + 0.5) / 6)


def test_a_missing_field_judgment_leaves_cu_out_rather_than_reading_it_as_identical() -> None:
    ev, deliveries = _evidence()
    del ev.cu_fields[frozenset(("i1", "i3"))]
    res = aggregate(EvalConfig(methods=["m"], n_ideas=4, metrics=["cu"], n_boot=10), [ev], deliveries, {}, ["j"],
                    {}, [])
    assert "creative_utility" not in next(t for t in res.topics if t["method"] == "m")


def test_embedding_distance_is_clipped_into_the_unit_interval() -> None:
    ev, deliveries = _evidence()
    ev.emb_distance["m"] = np.array([[0.0, 1.6, 1.6, 1.6], [1.6, 0.0, 1.6, 1.6], [1.6, 1.6, 0.0, 1.6],
                                     [1.6, 1.6, 1.6, 0.0]])
    res = aggregate(EvalConfig(methods=["m"], n_ideas=4, metrics=["cu"], n_boot=10, cu_distance="embedding"),
                    [ev], deliveries, {}, ["j"], {}, [])
    row = next(t for t in res.topics if t["method"] == "m")
    assert row["cu_distance"] == 1.0  # 1 - cosine of 1.6 is no distance above 1
    # every distance 1: CU is the discounted mean of the qualities in descending order (i0, i1/i3, i2)
    assert row["creative_utility"] == pytest.approx((1 + 0.9 * 0.5 + 0.81 * 0.5) / (1 + 0.9 + 0.81 + 0.729))
