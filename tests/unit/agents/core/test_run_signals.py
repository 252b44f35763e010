"""A run's status survives any signal (#42 item 2): SIGTERM ends a run like Ctrl-C (interrupted, resumable); a run
whose process is gone (SIGKILL, pid reused) reads `interrupted` wherever it is listed, with the resume command; a
completed run resumed says it is complete (exit 0); a resumed run says `resumed: true` even when its first segment
ended before any checkpoint."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from motivgraph.agents.core import (
    IdeaRecord,
    PlatformLLMClient,
    RunContext,
    RunSpec,
    create_run,
    register,
    run_method,
    unregister,
)
from motivgraph.agents.core.report import list_rows, load_view, render_summary, run_row
from motivgraph.agents.core.rundir import RunDir, live_status, process_start
from motivgraph.cli import app
from motivgraph.llm import ScriptedChatModel
from tests.integration.agents.core.toy_writer import ToyWriter, idea_text


class BlockingWriter(ToyWriter):
    """Waits forever after its first checkpoint: a run only a signal can end."""

    name = "toy_blocking"

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        self.config.ideas = 1
        done = await super().run(ctx)
        await asyncio.Event().wait()
        return done


@pytest.fixture
def toys():
    register(ToyWriter)
    register(BlockingWriter)
    yield
    unregister("toy_writer")
    unregister("toy_blocking")


def _llm(settings, replies):
    settings.llm.cache = False
    return PlatformLLMClient(settings, model=ScriptedChatModel(replies))


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


async def test_sigterm_ends_a_run_like_ctrl_c(toys, settings):
    run = create_run(settings.runs_dir, RunSpec(method="toy_blocking", topic="sparse attention kernels",
                                                config={"ideas": 1}))
    asyncio.get_running_loop().call_later(1.0, os.kill, os.getpid(), signal.SIGTERM)
    with pytest.raises(asyncio.CancelledError):
        await run_method(settings, run, llm=_llm(settings, [idea_text("One")]), tool_client=None)
    st = run.status()
    assert st["status"] == "interrupted" and "SIGTERM" in st["error"]
    assert st["reason"].startswith("interrupted: ")
    assert run.load_state() is not None  # the checkpoint is there to resume from
    # the handler was removed with the run: SIGTERM is the default action again
    assert signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None)


def test_a_run_whose_process_is_gone_reads_interrupted_everywhere(settings):
    run = RunDir.create(settings.runs_dir, "toy_writer", "sparse attention kernels", {})
    run.update_status(status="running", pid=_dead_pid())
    # recorded 'running', but nobody runs it: listed, shown and summarised as interrupted with the command
    row = run_row(run)
    assert row["status"] == "interrupted" and row["orphaned"] is True
    assert row["resume"] == f"motivgraph ideate --resume {run.id}"
    assert "is gone" in row["error"]
    assert [r["id"] for r in list_rows(settings.runs_dir, status="interrupted")] == [run.id]
    assert list_rows(settings.runs_dir, status="running") == []
    md = render_summary(load_view(run))
    assert "- Status: interrupted" in md and f"Resume with: `motivgraph ideate --resume {run.id}`" in md
    assert run.status()["status"] == "running"  # reading never writes


def test_a_reused_pid_is_not_the_owner(settings):
    st = {"status": "running", "pid": os.getpid(), "pid_start": "another-boot:1"}
    assert live_status(st, "r1")["status"] == "interrupted"
    st["pid_start"] = process_start(os.getpid())
    assert live_status(st, "r1")["status"] == "running" and "resume" not in live_status(st, "r1")


def test_runs_cli_lists_and_shows_a_gone_run_with_its_resume_command(settings, monkeypatch):
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    run = RunDir.create(settings.runs_dir, "toy_writer", "sparse attention kernels", {})
    run.update_status(status="running", pid=_dead_pid())
    res = CliRunner().invoke(app, ["runs", "list", "--out", str(settings.runs_dir)])
    assert res.exit_code == 0, res.output
    assert "interrupted" in res.output and "process gone" in res.output
    res = CliRunner().invoke(app, ["runs", "show", run.id, "--out", str(settings.runs_dir)])
    assert res.exit_code == 0, res.output
    assert f"resume with: motivgraph ideate --resume {run.id}" in " ".join(res.output.split())


def test_resuming_a_completed_run_says_so_and_exits_0(settings, monkeypatch):
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    run = RunDir.create(settings.runs_dir, "toy_writer", "sparse attention kernels", {})
    run.update_status(status="completed", ideas_accepted=2)
    res = CliRunner().invoke(app, ["ideate", "--resume", run.id, "--out", str(settings.runs_dir)])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "already complete (2 accepted" in out and "Fix the cause" not in out


async def test_a_resumed_run_says_resumed_even_without_a_checkpoint(toys, settings):
    run = create_run(settings.runs_dir, RunSpec(method="toy_writer", topic="sparse attention kernels",
                                                config={"ideas": 1}))
    with pytest.raises(Exception, match="provider down"):
        await run_method(settings, run, llm=_llm(settings, [RuntimeError("provider down")]), tool_client=None)
    assert run.load_state() is None  # it failed before its first checkpoint
    await run_method(settings, run, llm=_llm(settings, [idea_text("One")]), tool_client=None)
    starts = [e for e in run.events() if e.get("type") == "status" and e.get("status") == "running"]
    assert [e["resumed"] for e in starts] == [False, True]


def test_ideate_under_sigterm_records_interrupted_and_exits_5(settings, tmp_path):
    """The CLI end to end: `timeout`/systemd/Slurm send SIGTERM; the run is interrupted (resumable), not left
    running, and ideate exits 5 with the resume command."""
    import json
    import time

    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"replies": [{"delay": 60.0, "content": idea_text("One")}]}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}
    env.update(MOTIVGRAPH_DATA_DIR=str(settings.data_dir), MOTIVGRAPH_LLM_MODEL=f"scripted:{script}",
               MOTIVGRAPH_LLM_CACHE="false")
    out = tmp_path / "runs"
    p = subprocess.Popen([sys.executable, "-m", "motivgraph", "ideate", "--method", "stateless",
                          "sparse attention kernels", "--ideas", "1", "--ideator-tool-calls", "0", "--out", str(out)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until the run is running (its first call is the slow one)
        # a run directory is made a moment before its status.json is written: wait for both
        runs = [RunDir(d) for d in out.iterdir() if (d / "status.json").is_file()] if out.is_dir() else []
        if runs and runs[0].status().get("status") == "running":
            break
        time.sleep(0.2)
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 5, stdout + stderr
    (run,) = [RunDir(d) for d in out.iterdir()]
    st = run.status()
    assert st["status"] == "interrupted" and "SIGTERM" in st["error"], st
    assert f"ideate --resume {run.id}" in " ".join((stdout + stderr).split())


async def test_get_runs_shows_a_gone_run_as_interrupted_with_its_resume_command(settings):
    import httpx

    from motivgraph.service import create_service_app

    run = RunDir.create(settings.runs_dir, "toy_writer", "sparse attention kernels", {})
    run.update_status(status="running", pid=_dead_pid())
    app_ = create_service_app(settings)
    async with app_.router.lifespan_context(app_), \
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app_), base_url="http://localhost") as c:
        rows = (await c.get("/runs", params={"format": "json"})).json()
        (row,) = [r for r in rows if r["id"] == run.id]
        assert row["status"] == "interrupted" and row["resume"] == f"motivgraph ideate --resume {run.id}"
        one = (await c.get(f"/runs/{run.id}", params={"format": "json"})).json()
        # (the server marks such runs interrupted as it starts; either way the page says how to resume)
        assert one["status"]["status"] == "interrupted" and one["status"]["resume"] == row["resume"]
