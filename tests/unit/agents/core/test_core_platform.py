"""agents.core pieces without a graph: checkpoint versions, registry request models, topic
backgrounds from files, namespaced roles, the reproducibility record."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from motivgraph.agents.core import (
    PlatformLLMClient,
    RunSpec,
    TopicBackground,
    create_run,
    get_method,
    register,
    run_method,
    unregister,
)
from motivgraph.agents.core.llm import model_role
from motivgraph.agents.core.registry import request_model
from motivgraph.agents.core.repro import mask_secrets
from motivgraph.agents.soiq.method import SoiqMethod, SoiqState
from motivgraph.errors import BackgroundError, CheckpointVersionError, UnknownMethod
from motivgraph.llm import ScriptedChatModel
from tests.integration.agents.core.toy_writer import ToyWriter


@pytest.fixture
def writer():
    register(ToyWriter)
    yield ToyWriter
    unregister("toy_writer")


# Replies that are ideas (title, motivation, method), so the shared validity gate accepts them.
IDEA_ONE = ("Block-sparse attention kernels for long documents\n"
            "Dense attention spends most of its compute on distant token pairs that barely matter.\n"
            "Learn a block mask per layer and run fused kernels over the kept blocks only.")
IDEA_TWO = ("Sparse attention kernels tuned per GPU generation\n"
            "Hand-written sparse kernels lose their speed-up when moved to newer accelerators.\n"
            "Search tile shapes per device with a small cost model and cache the winning configurations.")


def _llm(settings, replies):
    settings.llm.cache = False
    return PlatformLLMClient(settings, model=ScriptedChatModel(replies))


async def _stopped_run(settings, tmp_path):
    spec = RunSpec(method="toy_writer", topic="sparse attention kernels", config={"ideas": 2})
    run = create_run(settings.runs_dir, spec)
    llm = _llm(settings, ["One\nbody", RuntimeError("provider down")])
    with pytest.raises(Exception, match="provider down"):
        await run_method(settings, run, llm=llm, tool_client=None)
    assert run.status()["status"] == "failed" and "provider down" in run.status()["error"]
    return run


async def test_checkpoint_resume_same_version(writer, settings, tmp_path):
    run = await _stopped_run(settings, tmp_path)
    out = await run_method(settings, run, llm=_llm(settings, ["Two\nbody"]), tool_client=None)
    assert [i.title for i in out.ideas] == ["One", "Two"]


async def test_checkpoint_newer_version_refused(writer, settings, tmp_path):
    run = await _stopped_run(settings, tmp_path)
    state = run.load_state()
    state["version"] = ToyWriter.state_version + 1
    run.save_state(state)
    with pytest.raises(CheckpointVersionError, match="written by newer code"):
        await run_method(settings, run, llm=_llm(settings, ["Two\nbody"]), tool_client=None)
    assert run.status()["status"] == "failed"  # never left running


async def test_checkpoint_older_version_without_migration_is_a_clear_error(writer, settings, tmp_path, monkeypatch):
    run = await _stopped_run(settings, tmp_path)
    monkeypatch.setattr(ToyWriter, "state_version", 3)  # the code moved on; the checkpoint is version 1
    with pytest.raises(CheckpointVersionError, match="cannot resume a checkpoint of version 1"):
        await run_method(settings, run, llm=_llm(settings, []), tool_client=None)


async def test_checkpoint_of_another_method_refused(writer, settings, tmp_path):
    run = await _stopped_run(settings, tmp_path)
    state = run.load_state()
    state["method"] = "soiq"
    run.save_state(state)
    with pytest.raises(CheckpointVersionError, match="not 'toy_writer'"):
        await run_method(settings, run, llm=_llm(settings, []), tool_client=None)


def test_soiq_v1_checkpoint_migrates():
    """SoiqSession's untyped dict (version 1) becomes SoiqState v2, results as idea records."""
    from motivgraph.agents.core.checkpoint import read_state

    idea = {"Name": "x", "Title": "Pheromone message passing", "Motivation": "m" * 30, "Related Work": "r" * 30,
            "Abstract": "a" * 30, "Method": "d" * 30, "Experiments plan": "e" * 30,
            "Risk Factors and Limitations": "k" * 20}
    v1 = {"version": 1, "config": {"topic": "graphs"}, "index": 1, "attempts": [
        {"index": 1, "title": idea["Title"], "abstract": "a", "decision": "ACCEPT", "reason": None}],
        "results": [{"index": 1, "idea": idea, "decision": {"decision": "ACCEPT"}, "rounds": 2,
                     "aspects": ["Feasibility"], "history": [], "grounding": {"flagged": False},
                     "grounding_attempts": [], "flagged": False}],
        "seen": {"nodes": {}, "papers": []}, "usage": {}, "toolbox_calls": 4, "current": None}
    method = SoiqMethod(SoiqMethod.config_model())
    state = read_state(method, v1, "test")
    assert isinstance(state, SoiqState) and state.index == 1
    (rec,) = state.ideas
    assert rec.title == "Pheromone message passing" and rec.experiments == "e" * 30
    assert rec.extra["idea_json"] == idea and rec.extra["rounds"] == 2
    with pytest.raises(CheckpointVersionError, match="version 0"):
        read_state(method, {**v1, "version": 0}, "test")


def test_registry_and_request_union(writer):
    assert get_method("toy_writer") is ToyWriter
    with pytest.raises(UnknownMethod, match="toy_writer"):
        get_method("nope")
    with pytest.raises(ValueError, match="already registered"):
        class Other(ToyWriter):
            pass
        register(Other)
    model = request_model(ToyWriter)
    body = model.model_validate({"method": "toy_writer", "topic": "  sparse   kernels ", "ideas": 3})
    assert body.topic == "sparse kernels" and body.method_config() == {"ideas": 3, "style": "short",
                                                                        "cite_background": False}
    with pytest.raises(ValidationError):
        model.model_validate({"method": "toy_writer", "topic": "sparse kernels", "ideas": 0})
    from pydantic import TypeAdapter

    from motivgraph.agents.sessions.requests import session_body_type

    union = TypeAdapter(session_body_type())
    assert type(union.validate_python({"method": "soiq", "topic": "graphs"})).__name__ == "SoiqMethodRequest"
    with pytest.raises(ValidationError):
        union.validate_python({"method": "soiq", "topic": "graphs", "style": "short"})  # toy_writer's field


def test_model_roles_namespaced():
    assert model_role("soiq.researcher") == "researcher"
    assert model_role("ideagent.critic") == "critic"
    assert model_role("toy.writer") is None  # not a settings role: the default model
    assert ToyWriter.llm_roles() == ["toy_writer.writer"]


def test_background_from_files(tmp_path):
    topics = tmp_path / "topics.jsonl"
    topics.write_text(json.dumps({"topic_id": "a-1", "topic_name": "Kernel fusion",
                                  "background_papers": [{"title": "Bg", "abstract": "x"}],
                                  "target_papers": [{"title": "SECRET"}]}) + "\n")
    bg = TopicBackground.from_file(topics)  # one topic: no id needed
    assert bg.topic == "Kernel fusion" and [p.title for p in bg.papers] == ["Bg"] and "SECRET" not in bg.as_text()
    with pytest.raises(BackgroundError, match="no topic 'zz'"):
        TopicBackground.from_file(topics, topic_id="zz")
    papers = tmp_path / "papers.jsonl"
    papers.write_text('{"title": "P1", "abstract": "a", "authors": ["Ann Lee"], "year": 2020}\n\n{"title": ""}\n')
    with pytest.raises(BackgroundError, match=r"papers.jsonl:3: bad paper record"):
        TopicBackground.from_file(papers, topic="t")
    papers.write_text('{"title": "P1", "authors": ["Ann Lee", "B"], "year": 2020}\nnot json\n')
    with pytest.raises(BackgroundError, match=r":2: not JSON"):
        TopicBackground.from_file(papers, topic="t")
    papers.write_text('{"title": "P1", "authors": ["Ann Lee", "B"], "year": 2020}\n')
    with pytest.raises(BackgroundError, match="needs a TOPIC"):
        TopicBackground.from_file(papers)
    bg = TopicBackground.from_file(papers, topic="t")
    assert "(Ann Lee et al., 2020)" in bg.as_text() and bg.citable_papers()[0]["year"] == 2020


def test_secrets_masked_in_repro():
    masked = mask_secrets({"llm": {"api_key": "sk-123", "model": "m", "roles": {"critic": {"api_key": None}}},
                           "api": {"api_key": "", "token_budget": 5}, "s2": {"password": "pw"}})
    assert masked["llm"]["api_key"] == "***" and masked["llm"]["model"] == "m"
    assert masked["s2"]["password"] == "***" and masked["api"]["api_key"] == ""
    assert masked["llm"]["roles"]["critic"]["api_key"] is None


async def test_job_manager_marks_failed_when_setup_fails(settings):
    """An exception before the method starts (here: the tool client cannot be made) still ends the
    run as failed with the reason — the status never stays queued or running."""
    from motivgraph.agents.core import register, unregister
    from motivgraph.agents.sessions.jobs import JobManager
    from tests.integration.agents.core.toy_panel import ToyPanel

    def no_tools():
        raise OSError("graph socket missing")

    register(ToyPanel)
    try:
        jobs = JobManager(settings, tool_client_factory=no_tools, llm_factory=lambda rid: _llm(settings, []))
        run = jobs.start(RunSpec(method="toy_panel", topic="sparse attention kernels"))
        await jobs.wait(run.id)
        st = run.status()
        assert st["status"] == "failed" and st["error"] == "OSError: graph socket missing"
        assert [e["status"] for e in run.events() if e["type"] == "status"] == ["failed"]
        assert jobs.list(method="toy_panel")[0]["error"] == "OSError: graph socket missing"
    finally:
        unregister("toy_panel")


def test_render_falls_back_for_a_new_result_type():
    """A tool added to the table renders before anyone writes a renderer for it."""
    from pydantic import BaseModel as _BM

    from motivgraph.agents.tools.render import render

    class NewResult(_BM):
        query: str
        items: list[dict]

    text = render(NewResult(query="q", items=[{"name": f"n{i}", "text": "x" * 50} for i in range(200)]), cap=200)
    assert text.startswith("NewResult:") and "n0" in text and "more lines cut" in text


def test_json_reply_spans_and_repair():
    from motivgraph.agents.core.jsonreply import candidate_spans, loads_lenient

    text = 'Prose {"not": "this"}\nCARDS:\n```json\n{"a": 1, "b": [1, 2,],}\n```'
    spans = candidate_spans(text, r"CARDS:")
    assert spans[0].strip().startswith('{"a": 1')
    assert loads_lenient(spans[0]) == ({"a": 1, "b": [1, 2]}, True)
    assert loads_lenient('{"x": 2}') == ({"x": 2}, False)
    assert loads_lenient("no json at all") == (None, False)


async def test_a_run_with_another_seed_draws_new_samples_and_the_same_seed_resumes_from_the_cache(writer, settings):
    """An eval retry (seed 14 after 13) with the same prompts must reach the model, not replay run 1's cached
    replies; a run with seed 13 again is served from the cache."""
    model = ScriptedChatModel(["One\nbody", "Two\nbody", "Three\nbody"])

    async def run_with(seed: int) -> str:
        spec = RunSpec(method="toy_writer", topic="sparse attention kernels", config={"ideas": 1}, seed=seed)
        run = create_run(settings.runs_dir, spec)
        await run_method(settings, run, llm=PlatformLLMClient(settings, model=model), tool_client=None)
        return str(run.ideas()[0]["title"])

    assert settings.llm.cache
    assert await run_with(13) == "One" and len(model.calls) == 1
    assert await run_with(14) == "Two" and len(model.calls) == 2
    assert await run_with(13) == "One" and len(model.calls) == 2


async def test_a_run_that_delivers_fewer_accepted_ideas_than_asked_names_the_shortfall(settings):
    """Asked for 2 ideas, 1 accepted: completed, but with the shortfall as its reason (it was reason: null)."""
    from motivgraph.agents.core import IdeaRecord, RunContext

    class HalfWriter(ToyWriter):
        name = "toy_half_writer"

        async def run(self, ctx: RunContext) -> list[IdeaRecord]:
            ideas = await super().run(ctx)
            return [ideas[0], ideas[1].model_copy(update={"status": "rejected"})]

    register(HalfWriter)
    try:
        run = create_run(settings.runs_dir, RunSpec(method="toy_half_writer", topic="sparse attention kernels",
                                                    config={"ideas": 2}))
        await run_method(settings, run, llm=_llm(settings, [IDEA_ONE, IDEA_TWO]), tool_client=None)
        st = run.status()
        assert st["status"] == "completed"
        assert st["reason"] == "shortfall: 1 of 2 requested ideas accepted (1 rejected)"
        assert (run.path / "summary.md").read_text().count("- Reason: shortfall") == 1
        # `runs show --summary` renders from the stored status: the reason is there too (it never was)
        from motivgraph.agents.core.report import load_view, render_summary, run_row

        assert "- Reason: shortfall: 1 of 2" in render_summary(load_view(run))
        assert run_row(run)["reason"] == st["reason"]
    finally:
        unregister("toy_half_writer")


def test_a_run_spec_is_validated_once_per_process(settings, writer, monkeypatch) -> None:
    """create_run keeps the spec it wrote to status.json; spec_of hands that object on (the runner, the job
    queue and the CLI ask for it again) instead of validating the stored copy again. A run opened from disk is
    read and validated once."""
    from motivgraph.agents.core.rundir import RunDir
    from motivgraph.agents.core.runner import spec_of

    spec = RunSpec(method="toy_writer", topic="sparse attention kernels", config={"ideas": 1})
    run = create_run(settings.runs_dir, spec)
    validated: list[object] = []
    real = RunSpec.model_validate.__func__  # type: ignore[attr-defined]

    def counting(cls, obj, *a, **kw):
        validated.append(obj)
        return real(cls, obj, *a, **kw)

    monkeypatch.setattr(RunSpec, "model_validate", classmethod(counting))
    assert spec_of(run) is spec and spec_of(run) is spec and validated == []
    reopened = RunDir.open(settings.runs_dir, run.id)
    assert spec_of(reopened) == spec and spec_of(reopened) is spec_of(reopened) and len(validated) == 1


def test_the_topic_is_normalised_by_the_models_not_by_each_edge() -> None:
    """One rule for a run's topic (registry.Topic): the HTTP body and the RunSpec the CLI and the evaluation build
    collapse its whitespace and refuse one with fewer than 3 other characters, with the same message."""
    body = request_model(get_method("soiq"))
    assert body(method="soiq", topic="  sparse \n attention\tkernels ").topic == "sparse attention kernels"
    assert RunSpec(method="soiq", topic="  sparse \n attention\tkernels ").topic == "sparse attention kernels"
    for model, extra in ((body, {"method": "soiq"}), (RunSpec, {"method": "soiq"})):
        with pytest.raises(ValidationError, match="at least 3 non-space characters"):
            model(topic="  ab   ", **extra)
