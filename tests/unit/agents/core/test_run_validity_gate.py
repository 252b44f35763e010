"""Every method's accepted ideas pass the shared validity gate in the runner (#42 item 1): a template echo a
method accepted is recorded `rejected` with its reason, the run's reason says no valid idea, and the summary
shows why."""

from __future__ import annotations

import pytest

from motivgraph.agents.core import PlatformLLMClient, RunSpec, create_run, register, run_method, unregister
from motivgraph.llm import ScriptedChatModel
from tests.integration.agents.core.toy_writer import ToyWriter
from tests.unit.agents.core.test_core_platform import IDEA_ONE


@pytest.fixture
def writer():
    register(ToyWriter)
    yield ToyWriter
    unregister("toy_writer")


def _llm(settings, replies):
    settings.llm.cache = False
    return PlatformLLMClient(settings, model=ScriptedChatModel(replies))


async def test_the_runner_rejects_template_echoes_with_their_reasons(writer, settings):
    settings.agents.offtopic_threshold = 0  # the echo checks alone (the measure has its own test)
    run = create_run(settings.runs_dir, RunSpec(method="toy_writer", topic="sparse attention kernels",
                                                config={"ideas": 2}))
    out = await run_method(settings, run, llm=_llm(settings, [IDEA_ONE, "IdeaText\nTitle of the idea.\nProblem"]),
                           tool_client=None)
    assert [i.status for i in out.ideas] == ["accepted", "rejected"]
    bad = out.ideas[1]
    assert bad.rejection is not None and bad.rejection.startswith("invalid_idea: ")
    assert "title only echoes field labels ('IdeaText')" in bad.rejection
    assert "motivation only echoes field labels" in bad.rejection
    st = run.status()
    assert st["ideas_accepted"] == 1 and st["ideas_rejected"] == 1
    assert st["reason"] == "shortfall: 1 of 2 requested ideas accepted (1 rejected)"
    stored = run.ideas()
    assert stored[1]["status"] == "rejected" and stored[1]["rejection"] == bad.rejection
    events = [e for e in run.events() if e.get("type") == "idea_rejected"]
    assert len(events) == 1 and events[0]["title"] == "IdeaText"
    assert "Rejected: invalid_idea: title only echoes" in (run.path / "summary.md").read_text()


async def test_an_off_topic_idea_is_rejected_by_the_embedding_measure(writer, settings):
    settings.agents.offtopic_threshold = 0.08
    off = ("Deposit schemes against plastic waste\n"
           "Households throw away most plastic bottles because returning them earns nothing.\n"
           "Smart bins in supermarkets pay a deposit back per bottle and report return rates to the city.")
    run = create_run(settings.runs_dir, RunSpec(method="toy_writer", topic="sparse attention kernels",
                                                config={"ideas": 2}))
    out = await run_method(settings, run, llm=_llm(settings, [IDEA_ONE, off]), tool_client=None)
    assert out.ideas[0].status == "accepted"
    assert out.ideas[1].status == "rejected"
    assert out.ideas[1].rejection.startswith("invalid_idea: off-topic: similarity to the topic ")
