"""Judge agreement rows from a two-judge panel's evidence (Cohen's kappa per dimension)."""

import pytest

from motivgraph.agents.evaluation.aggregate import kappa_rows
from motivgraph.agents.evaluation.collect import TopicEvidence
from motivgraph.agents.evaluation.judges import DirectScores, GateScores
from motivgraph.agents.evaluation.metrics.agreement import cohen_kappa
from motivgraph.agents.evaluation.metrics.reference import Vote
from motivgraph.agents.evaluation.topics import EvalTopic


def test_kappa_rows_per_dimension_skip_missing_answers() -> None:
    ev = TopicEvidence(topic=EvalTopic(topic_id="t", topic="T"), items=[])
    ev.scores = {"i1": [DirectScores(novelty=5, experiment=5, motivation=5),
                        DirectScores(novelty=5, experiment=6, motivation=5)],
                 "i2": [DirectScores(novelty=8, experiment=2, motivation=3),
                        DirectScores(novelty=7, experiment=2, motivation=3)],
                 "i3": [DirectScores(novelty=1, experiment=1, motivation=1), None]}  # judge b failed: left out
    ev.gates = {"i1": [GateScores(non_obviousness=3, soundness=4, clarity=5),
                       GateScores(non_obviousness=3, soundness=4, clarity=5)]}
    ev.votes = {"i1": [Vote("feasibility", "idea", "a", "r", True), Vote("feasibility", "idea", "b", "r", True),
                       Vote("feasibility", "tie", "a", "r", False), Vote("feasibility", "reference", "b", "r", False)]}
    rows = {r["dimension"]: r for r in kappa_rows([ev], ["a", "b"])}
    assert rows["score_novelty"]["n"] == 2
    assert rows["score_novelty"]["kappa"] == pytest.approx(cohen_kappa([5, 8], [5, 7], weights="quadratic"))
    assert rows["gate_clarity"]["n"] == 1
    assert rows["wr_feasibility"]["n"] == 2
    assert rows["wr_feasibility"]["kappa"] == pytest.approx(cohen_kappa(["idea", "tie"], ["idea", "reference"]))
    assert kappa_rows([ev], ["a"]) == []  # one judge: no agreement to report
