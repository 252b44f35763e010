"""Faults on the Ray engine (issue #31): `motivgraph ingest --engine ray` on the chaos harness's corpus, on a
local 2-CPU Ray the command starts, each trial to the graph of the local engine's uninterrupted run:

- the uninterrupted Ray ingest gives the local engine's canonical export and ledger;
- ray_kill_worker: a Ray worker killed while it runs a parse or extraction task — Ray re-runs the task, the
  same run exits 0, nothing is lost, and the worker's own children do not outlive it;
- ray_kill_driver: the command (the Ray driver) killed — its whole local Ray goes with it, and a plain re-run
  resumes from the ledger;
- ray_store_down: the embedded FalkorDB killed mid-ingest — the driver's writer pauses, restarts it and
  finishes in the same run.

Marked `ray`: without Ray they skip with the reason; with MOTIVGRAPH_REQUIRE_RAY=1 (CI) a skip fails.
`python bench/chaos.py --faults ray_kill_worker,ray_kill_driver,ray_store_down --trials 20` runs more trials.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.reliability.harness import CORPUS_PDF, Chaos
from tests.reliability.ray_harness import RAY_FAULTS, RayChaos, busy_workers, ray_reason

pytestmark = [
    pytest.mark.slow,
    pytest.mark.ray,
    pytest.mark.skipif(not CORPUS_PDF.is_dir(), reason=f"the Ray fault tests need the shared corpus PDFs at "
                       f"{CORPUS_PDF} (../shared next to the repo)"),
]

TRIALS_PER_FAULT = 2  # each starts a local Ray (5-15 s here) and an ingest; the bench runs more


@pytest.fixture(scope="module")
def ray_chaos(chaos: Chaos) -> RayChaos:
    """The session's harness with the Ray kinds: the same workdir, corpus and uninterrupted runs."""
    reason = ray_reason()
    if reason:
        pytest.skip(reason)
    rc = RayChaos(chaos.workdir, n_docs=len(list(chaos.corpus.glob("*.pdf"))), trial_cap_s=chaos.trial_cap_s)
    rc.baselines = chaos.baselines  # shared both ways: the local baseline is computed once per session
    return rc


def test_uninterrupted_ray_ingest_equals_local(ray_chaos: RayChaos) -> None:
    on_ray, local = ray_chaos.baseline("ray"), ray_chaos.baseline("offline")
    assert any('"kind": "triple"' in line for line in local.export), "the corpus gave no triple: nothing compared"
    assert on_ray.export == local.export
    assert on_ray.ledger == local.ledger


@pytest.mark.parametrize("seed", range(TRIALS_PER_FAULT))
@pytest.mark.parametrize("fault", RAY_FAULTS)
def test_ray_fault_resumes_to_the_local_graph(ray_chaos: RayChaos, fault: str, seed: int) -> None:
    t = ray_chaos.trial(fault, seed)
    detail = f"{t} (ingest log under {ray_chaos.workdir})"
    assert not t.note, detail  # the fault really happened while the ingest ran, and it finished
    assert t.identical, detail
    assert t.ledger_same, detail
    assert t.orphans == 0, detail  # no process of the killed worker / the killed driver's Ray left running
    if fault == "ray_kill_worker":
        assert t.first_rc == 0 and t.reruns == 0, detail  # the task was re-run inside the same ingest
    if fault == "ray_kill_driver":
        assert t.first_rc != 0 and t.reruns >= 1, detail  # killed, then a plain re-run resumed
    if fault == "ray_store_down":
        assert t.first_rc == 0 and t.pauses >= 1, detail  # paused, restarted the store, finished
    assert t.tracebacks == 0, detail  # an outage ends in a pause or a clear error, never a crash


def test_json_stdout_stays_one_document_when_a_ray_worker_dies(ray_chaos: RayChaos, tmp_path: Path) -> None:
    """#40: a killed Ray worker makes Ray print "(raylet) A worker died ..." on the driver; under --json those
    lines go to stderr, stdout parses as the one JSON document of the run, and the exit code is the run's."""
    data = tmp_path / "data"
    env = ray_chaos.env(data)
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as fo, err.open("wb") as fe:
        proc = subprocess.Popen([sys.executable, "-m", "motivgraph", "ingest", str(ray_chaos.corpus), "--engine",
                                 "ray", "--json"], cwd=ray_chaos.workdir, env=env, stdout=fo, stderr=fe)
        killed = False
        deadline = time.monotonic() + ray_chaos.trial_cap_s
        try:
            while proc.poll() is None and time.monotonic() < deadline:
                busy = busy_workers(proc.pid)
                if busy and not killed:
                    os.kill(busy[0][0], signal.SIGKILL)
                    killed = True
                time.sleep(0.05)
            rc = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    if not killed:
        pytest.skip("the ingest finished before a worker could be seen running a task")
    stdout, stderr = out.read_text(errors="replace"), err.read_text(errors="replace")
    assert rc == 0, stderr[-3000:]
    run = json.loads(stdout)  # the whole of stdout: one document, nothing before or after it
    assert run["summary"]["failed"] == 0 and "(raylet)" not in stdout
    with contextlib.suppress(Exception):
        from motivgraph.graph.embedded import EmbeddedFalkorDB

        EmbeddedFalkorDB(data).stop(timeout_s=30)
