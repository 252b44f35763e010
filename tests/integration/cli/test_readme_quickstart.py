"""The README's quick start, run line by line in a fresh data dir (done-when of the CLI issue).

The block is read from README.md (the first ```bash block under "## Quick start"), so the README cannot
drift from what works. Substitutions, nothing else: `source .venv/bin/activate` is this interpreter;
`~` is a fresh home holding `papers/` (three generated PDFs); the hosted model is replaced by a
scripted one (tests/fixtures/quickstart_llm.py answers every role) here, in the main suite, and by
the local model (local:smollm2) in the real-model tier (tests/real_llm/test_real_quickstart.py, on
two corpus PDFs: minutes on CI's two cores, too slow for the main suite); `serve` gets a free port, is
probed (/health, /runs) and stopped. Commands run in process (CliRunner), `serve` as a real process.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.llm import reset_scripted_models
from tests.fixtures.ingest.pdfgen import write_paper

REPO = Path(__file__).resolve().parents[3]
TITLES = ("Learning with Few Labels by Consistency Training",
          "Robust Graph Learning under Label Noise",
          "Semi-Supervised Text Classification with Scarce Annotations")


def quickstart_lines() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "no ```bash block under ## Quick start"
    return [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(args: list[str], env: dict[str, str]) -> None:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "motivgraph", *args, "--port", str(port)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while True:
            assert proc.poll() is None, proc.communicate()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
                    assert json.loads(r.read())["status"] in ("ok", "degraded")
                    break
            except OSError:
                assert time.monotonic() < deadline, "serve did not answer /health"
                time.sleep(1)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/runs?format=json", timeout=30) as r:
            runs = json.loads(r.read())
        assert runs and runs[0]["method"] == "soiq"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/runs/{runs[0]['id']}", timeout=30) as r:
            assert "<h1>" in r.read().decode()
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C, as the README says
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class QuickstartRun:
    env: dict[str, str]  # the exports of the block (substituted), as the last command saw them
    ran: list[str] = field(default_factory=list)  # the command words run, in order
    outputs: dict[str, list[str]] = field(default_factory=dict)  # command word -> each run's output
    codes: dict[str, list[int]] = field(default_factory=dict)  # command word -> each run's exit code


def run_quickstart(home: Path, monkeypatch: pytest.MonkeyPatch, llm_model: str, *,
                   extra_env: dict[str, str] | None = None,
                   ok_codes: dict[str, set[int]] | None = None, in_process: bool = True) -> QuickstartRun:
    """Run the README's quick-start block line by line with `home` as `~` (holding `papers/`) and
    `llm_model` in place of the hosted model. `extra_env` is set from the first line on (budgets,
    never a model: the first ingest must stay offline); `ok_codes` allows other exit codes than 0 for
    a command word (e.g. ideate's 1 for "no valid idea"). `in_process=False` runs each command in its own
    process, as a user does: needed with an HTTP model (one process, one event loop — langchain-openai
    keeps one cached async HTTP client per endpoint, which a second asyncio.run in the same process
    finds bound to a closed loop)."""
    monkeypatch.chdir(home.parent)  # no stray .env
    for var in list(os.environ):
        if var.startswith("MOTIVGRAPH_"):
            monkeypatch.delenv(var)
    monkeypatch.setenv("HOME", str(home))
    reset_scripted_models()
    run = QuickstartRun(env=dict(extra_env or {}))
    env = run.env
    for line in quickstart_lines():
        words = [os.path.expanduser(w) if w.startswith("~") else w for w in shlex.split(line, comments=True)]
        if words[:2] == ["source", ".venv/bin/activate"]:
            continue  # this interpreter is the venv's
        if words[0] == "export":
            for assignment in words[1:]:
                key, _, value = assignment.partition("=")
                value = os.path.expanduser(value) if value.startswith("~") else value
                if key == "MOTIVGRAPH_LLM_MODEL":
                    value = llm_model  # the hosted model, substituted
                env[key] = value
            continue
        assert words[0] == "motivgraph", f"unexpected quick-start line: {line}"
        run.ran.append(words[1])
        if words[1] == "serve":
            penv = {**{k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}, **env,
                    "PYTHONPATH": str(REPO)}
            _serve(words[1:], penv)
            continue
        if in_process:
            res = CliRunner().invoke(app, words[1:], env=env)
            code, output = res.exit_code, res.output
        else:
            penv = {**{k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}, **env,
                    "PYTHONPATH": str(REPO)}
            proc = subprocess.run([sys.executable, "-m", "motivgraph", *words[1:]], env=penv, capture_output=True,
                                  text=True, timeout=1800, cwd=home.parent, check=False)
            code, output = proc.returncode, proc.stdout + proc.stderr
        run.outputs.setdefault(words[1], []).append(output)
        run.codes.setdefault(words[1], []).append(code)
        allowed = (ok_codes or {}).get(words[1], set()) | {0}
        assert code in allowed, f"`{line}` exited {code}:\n{output}"
        if words[1:3] == ["graph", "stats"]:
            assert "triples" in output
    assert Path(env["MOTIVGRAPH_DATA_DIR"]).is_dir()
    assert {"ingest", "search", "llm", "parents", "ideate", "runs", "serve"} <= set(run.ran)
    return run


def test_quickstart_block_runs_line_by_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scripted model in place of the hosted one (the real-model tier runs the same block with the
    local model: tests/real_llm/test_real_quickstart.py)."""
    home = tmp_path / "home"
    (home / "papers").mkdir(parents=True)
    for i, title in enumerate(TITLES):
        write_paper(home / "papers" / f"paper{i}.pdf", title=title)
    script = tmp_path / "quickstart-llm.json"
    script.write_text(json.dumps({"default": {"call": "tests.fixtures.quickstart_llm:reply"}}))
    run = run_quickstart(home, monkeypatch, f"scripted:{script}")
    env = run.env
    assert all("challenge" in out for out in run.outputs["search"])
    # `search --evidence` (#39): the matches come with the offline extractor's quotes, located in the PDF, with a page
    (found,) = run.outputs["search"]
    assert "“" in found and "✓" in found and "p. " in found, found
    runs = list((Path(env["MOTIVGRAPH_DATA_DIR"]) / "runs").iterdir())
    assert len(runs) == 1 and "## Dialogue" in (runs[0] / "summary.md").read_text()
    # the re-extraction replaced the offline triples with the (scripted) model's
    res = CliRunner().invoke(app, ["search", "overfitting to scarce labels", "--type", "challenge", "--json"], env=env)
    assert res.exit_code == 0, res.output
    assert "Overfitting to scarce labels in supervised training" in [h["name"] for h in json.loads(res.stdout)]
