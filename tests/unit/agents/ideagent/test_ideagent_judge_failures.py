"""An out-of-range judge reply (#42 item 6) is a named, retried judge failure, never the loss of a draft."""

from __future__ import annotations

import json

import pytest

from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.judges import JUDGE_ATTEMPTS, Judges
from motivgraph.errors import JudgeFailure, StructuredOutputError


class PanelLLM:
    """The soundness role answers from `scores` per seed (a list of replies per seed, consumed in order)."""

    def __init__(self, bad_seeds: set[int], always_bad: bool = False) -> None:
        self.bad_seeds, self.always_bad = bad_seeds, always_bad
        self.seeds: list[int] = []

    async def structured(self, role, messages, schema, **kw):  # type: ignore[no-untyped-def]
        seed = kw.get("seed")
        self.seeds.append(seed)
        if self.always_bad or seed in self.bad_seeds:
            raise StructuredOutputError("score: Input should be less than or equal to 9 (got 10)")
        return schema.model_validate_json(json.dumps({"score": 7, "rationale": f"seed {seed}"}))


async def test_an_out_of_range_sample_is_asked_again_with_a_new_seed():
    cfg = IdeagentConfig(panel_size=3)
    llm = PanelLLM(bad_seeds={3 * 4 + 1})  # run seed 4: first-attempt seeds 12, 13, 14; 13 answers 10
    judges = Judges(llm, cfg, "background", sample_seed=4)
    out = await judges.panel({"title": "t"})
    assert [j.score for j in out] == [7, 7, 7]
    retried = [s for s in llm.seeds if s not in (12, 13, 14)]
    assert len(retried) == 1 and retried[0] not in range(0, 1000)  # a fresh sample, outside every first block


async def test_a_judge_that_never_answers_in_range_is_a_named_failure():
    judges = Judges(PanelLLM(set(), always_bad=True), IdeagentConfig(panel_size=3), "bg", sample_seed=0)
    with pytest.raises(JudgeFailure, match=rf"soundness judge \(sample 1 of 3\) gave no usable 0-9 score in "
                                           rf"{JUDGE_ATTEMPTS} attempts"):
        await judges.panel({"title": "t"})
    assert issubclass(JudgeFailure, StructuredOutputError)


async def test_a_draft_whose_judge_fails_is_kept_and_named_not_lost(tmp_path, monkeypatch):
    """The issue's case: a soundness judge answered above 9 and the run said 'no idea was written'."""
    from motivgraph.agents.ideagent.scripted_world import World
    from motivgraph.agents.ideagent.search import no_idea_detail
    from tests.unit.agents.ideagent import test_ideagent_search as search_tests

    class AboveNine(World):  # a soundness judge that answers 10, also when re-asked
        def answer(self, role, system, user):  # type: ignore[no-untyped-def]
            if role.startswith("soundness panelist"):
                return {"score": 10, "rationale": "excellent"}
            return super().answer(role, system, user)

    monkeypatch.setattr(search_tests, "World", AboveNine)
    run = search_tests.Run(tmp_path, {"drafts": {"s00.d0": "a"}, "scores": {"a": search_tests.GOOD}}, seeds=1)
    st = await run()
    assert st.drafts[0].id == "s00.d0"  # the written draft is recorded
    assert st.drafts[0].scores is None and st.drafts[0].outcome.startswith("judge_failed: soundness judge")
    assert st.decisions[0]["route"] == "failed" and "soundness judge" in st.decisions[0]["reason"]
    detail = no_idea_detail(st, run.cfg)
    assert "no idea was written" not in detail
    assert "draft(s) written but not scored: their judge failed (soundness judge" in detail
    # the failing sample was asked JUDGE_ATTEMPTS times (each a new seed; the client re-asks each reply once)
    assert run.world.roles_seen.count("soundness panelist") >= JUDGE_ATTEMPTS * 2
