"""The README's quick start with the real local model (SmolLM2-135M) in place of the hosted one, on two
corpus PDFs (the done-when of the CLI issue, with the local model): run line by line in a fresh data
dir by the same runner as the main suite's scripted variant (tests/integration/cli/test_readme_quickstart.py),
each command in its own process as a user runs it.

Its last steps are the real-model tier's SoIQ and parent checks: `parents build` finishes with the
real judge, and the quick start's `ideate --method soiq --ideas 1` (2 rounds, set by the environment)
makes at least one real tool call against the graph and ends with a validated idea or a named failure
reason in status.json. Budgets come from the tier's environment (support.real_env), so it stays cheap.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from tests.integration.cli.test_readme_quickstart import run_quickstart
from tests.real_llm.support import assert_run_ended_cleanly, real_env, two_pdfs

pytestmark = pytest.mark.real_llm


def test_quickstart_with_the_local_model(local_llm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / "papers").mkdir(parents=True)
    for p in two_pdfs():
        shutil.copy(p, home / "papers" / p.name)
    budgets = {k: v for k, v in real_env(tmp_path / "unused", local_llm).items()
               if k.startswith("MOTIVGRAPH_") and k not in ("MOTIVGRAPH_DATA_DIR", "MOTIVGRAPH_LLM_MODEL")}
    budgets["MOTIVGRAPH_AGENTS_ROUNDS"] = "2"
    # ideate exits 1 when no idea was accepted (a 135M model's usual outcome): checked below.
    run = run_quickstart(home, monkeypatch, "local:smollm2", extra_env=budgets, ok_codes={"ideate": {1}},
                         in_process=False)
    env = run.env

    # The LLM re-extraction ran against the local model (real calls, the server's usage figures).
    res = CliRunner().invoke(app, ["llm", "usage", "--json"], env=env)
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout[res.stdout.index("["):])
    extractor = [r for r in rows if r["role"] == "extractor"]
    assert extractor and sum(r["calls"] for r in extractor) >= 2, rows

    # parents build: the LLM judge ran, not the offline fallback.
    (parents,) = run.outputs["parents"]
    assert "offline parent addition" not in parents and "parent nodes" in parents, parents

    # The SoIQ session: never left running; an idea or a named reason; real tool calls on the graph.
    runs = [d for d in (Path(env["MOTIVGRAPH_DATA_DIR"]) / "runs").iterdir() if (d / "status.json").is_file()]
    assert len(runs) == 1, run.outputs["ideate"]
    status = assert_run_ended_cleanly(runs[0])  # a crashed session fails (it used to pass as "failed")
    events = [json.loads(x) for x in (runs[0] / "transcript.jsonl").read_text().splitlines() if x.strip()]
    # The model has no native tool calls but its server constrains output: JSON actions.
    assert any(e.get("type") == "soiq" and e.get("tool_mode") == "constrained" for e in events), events[:5]
    if not status.get("ideas_accepted"):
        assert status["reason"].startswith("no_valid_idea: idea 1: "), status  # what happened to the attempt
        done = [e for e in events if e.get("type") == "idea_done"]
        assert done and all(e.get("reason") for e in done), done
    else:
        assert status.get("reason") is None and run.codes["ideate"] == [0], status
    assert any(e.get("type") == "usage" for e in events)  # real model calls were made and accounted
    # At least one tool call chosen by the model ran against the graph: a canonical tool with valid
    # arguments (a refused call answers "ERROR: unknown tool" / "bad arguments" before running).
    results = [e for e in events if e.get("type") == "tool_result" and e.get("tool")]
    ran = [e for e in results if not e["text"].startswith(("ERROR: unknown tool", "ERROR: bad arguments"))]
    assert ran, results
    calls = [e for e in events if e.get("type") == "tool_call"]
    assert calls and all(e.get("name") for e in calls), calls
    stats = CliRunner().invoke(app, ["graph", "stats", "--json"], env=env)
    if json.loads(stats.stdout[stats.stdout.index("{"):]).get("triples", 0) > 0:
        # A graph with triples answers (a 135M model's re-extraction may leave it empty: then the graph's
        # own error, e.g. no node index yet, is the answer the model gets).
        assert any(e["ok"] and not e["text"].startswith("ERROR") for e in ran), ran
