"""The evaluation counts only valid ideas and reports the rejections per method (#42 item 1): ideas of existing runs
are passed through the shared gate again (runs made before it, or elsewhere), rejected ones are listed with why."""

from __future__ import annotations

from motivgraph.agents.core.idea import IdeaRecord, Provenance
from motivgraph.agents.core.rundir import RunDir
from motivgraph.agents.evaluation.aggregate import rejection_rows
from motivgraph.agents.evaluation.generate import Delivery, settings_gate, take

TOPIC = "sparse attention kernels"


def _idea(title: str, motivation: str, method: str, status: str = "accepted", **kw: str) -> dict:
    return IdeaRecord(title=title, motivation=motivation, method=method, status=status,  # type: ignore[arg-type]
                      provenance=Provenance(method="one_shot", run_id="r", topic=TOPIC), **kw).model_dump(mode="json")


def test_an_accepted_echo_of_an_old_run_is_not_counted_and_is_reported(settings):
    settings.agents.offtopic_threshold = 0
    run = RunDir.create(settings.runs_dir, "one_shot", TOPIC, {})
    run.write_ideas([
        _idea("Block-sparse attention kernels", "Dense attention wastes compute on distant token pairs in long "
              "documents.", "Learn a block mask and run fused kernels over the kept blocks."),
        _idea("IdeaText", "Title of the idea.", "A new research idea"),  # accepted by an old one_shot run
        _idea("Kernel fusion", "Fusing kernels saves memory traffic on every layer of the model.", "Fuse them.",
              status="rejected", rejection="mentor: not novel"),
    ])
    d = Delivery("one_shot", "T0")
    got = take(d, run, TOPIC, settings_gate(settings))
    assert [i.title for i in got] == ["Block-sparse attention kernels"] == [i.title for i in d.ideas]
    assert [r["title"] for r in d.rejected] == ["IdeaText", "Kernel fusion"]
    assert d.rejected[0]["reason"].startswith("invalid_idea: title only echoes field labels ('IdeaText')")
    assert d.rejected[1]["reason"] == "mentor: not novel"
    rows = rejection_rows(["one_shot", "stateless"], [d, Delivery("stateless", "T0")])
    assert rows[0]["method"] == "one_shot" and rows[0]["accepted"] == 1 and rows[0]["rejected"] == 2
    assert "title only echoes field labels ('IdeaText')" in rows[0]["reasons"]
    assert rows[1] == {"method": "stateless", "rejected": 0, "accepted": 0, "reasons": "none rejected"}
