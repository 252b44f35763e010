"""A method's config is checked once, where it enters — the CLI's flags or the HTTP body — and handed to the
runner as the typed config; a stored run being resumed is checked once, as it is read back. The counting
validator below runs once per check, whichever way a run was started."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from pydantic import model_validator
from typer.testing import CliRunner

from motivgraph.agents.core import register, unregister
from motivgraph.agents.core.rundir import RunDir
from motivgraph.cli import app
from motivgraph.llm import reset_scripted_models
from motivgraph.service import create_service_app
from tests.integration.agents.core.toy_writer import ToyWriter, WriterConfig, idea_text
from tests.sse_support import parse_sse

CHECKS: list[int] = []


class CountingConfig(WriterConfig):
    @model_validator(mode="after")
    def _count(self) -> CountingConfig:
        CHECKS.append(self.ideas)
        return self


class CountingWriter(ToyWriter):
    name = "toy_counting"
    config_model = CountingConfig


@pytest.fixture
def counting():
    register(CountingWriter)
    CHECKS.clear()
    yield
    unregister("toy_counting")


def _script(tmp_path: Path, *titles: str) -> Path:
    p = tmp_path / "replies.json"
    p.write_text(json.dumps({"replies": [idea_text(t) for t in titles]}))
    reset_scripted_models()
    return p


def test_cli_checks_the_flags_once_and_the_runner_takes_them_typed(counting, settings, monkeypatch, tmp_path):
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_LLM_CACHE", "false")
    monkeypatch.setenv("MOTIVGRAPH_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", f"scripted:{_script(tmp_path, 'One', 'Two')}")
    out = tmp_path / "runs"
    res = CliRunner().invoke(app, ["ideate", "--method", "toy_counting", "sparse attention kernels", "--ideas", "2",
                                   "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert CHECKS == [2]
    (run,) = RunDir.list(out)
    assert run.status()["config"] == {"ideas": 2} and [i["title"] for i in run.ideas()] == ["One", "Two"]

    # a bad value is refused at that check, naming the flag, before any run directory exists
    res = CliRunner().invoke(app, ["ideate", "--method", "toy_counting", "sparse attention kernels", "--ideas", "11",
                                   "--out", str(tmp_path / "bad")])
    assert res.exit_code == 2 and "--ideas" in res.output, res.output
    assert not (tmp_path / "bad").exists()


async def test_http_body_is_the_one_check(counting, settings, tmp_path):
    settings.llm.model = f"scripted:{_script(tmp_path, 'Alpha', 'Beta')}"
    settings.llm.cache = False
    app_ = create_service_app(settings)
    async with app_.router.lifespan_context(app_), \
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app_), base_url="http://localhost") as c:
        r = await c.post("/ideation/sessions", json={"method": "toy_counting", "topic": "sparse attention kernels",
                                                     "ideas": 2, "style": "long"})
        assert r.status_code == 202, r.text
        sid = r.json()["id"]
        events = parse_sse((await c.get(f"/ideation/sessions/{sid}/events")).text)
        assert json.loads(events[-1]["data"])["status"] == "completed"
        st = (await c.get(f"/ideation/sessions/{sid}")).json()
        assert [i["title"] for i in st["ideas"]] == ["Alpha", "Beta"]
        assert {i["extra"]["style"] for i in st["ideas"]} == {"long"}  # the typed config reached the method
        assert CHECKS == [2]
        r = await c.post("/ideation/sessions", json={"method": "toy_counting", "topic": "sparse attention kernels",
                                                     "ideas": 11})
        assert r.status_code == 422 and "ideas" in r.text
