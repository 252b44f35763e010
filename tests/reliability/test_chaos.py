"""Chaos suite (issue 12): 3 seeded trials per fault kind — kills of ingest, DB and both, the DB dying
mid-ingest, the LLM endpoint down then up, kills during a paper-JSON ingest — each resumed to a graph
identical to the uninterrupted run's (canonical export). Bounded: 6 PDFs (or their 6 JSON records), offline
parser, concurrency 1, a per-trial time cap. `python bench/chaos.py --trials 20` prints the full table.
The Neo4j kinds (a private Neo4j server) are in test_neo4j_faults.py; the harness is shared (conftest.py).
"""

from __future__ import annotations

import pytest

from tests.reliability.harness import CORPUS_PDF, FAULTS, NEO4J_FAULTS, Chaos

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CORPUS_PDF.is_dir(), reason=f"chaos suite needs the shared corpus PDFs at {CORPUS_PDF} "
                       "(../shared next to the repo); without them it cannot run"),
]

TRIALS_PER_FAULT = 3


@pytest.mark.parametrize("seed", range(TRIALS_PER_FAULT))
@pytest.mark.parametrize("fault", [f for f in FAULTS if f not in NEO4J_FAULTS])  # those: test_neo4j_faults.py
def test_fault_resumes_to_an_identical_graph(chaos: Chaos, fault: str, seed: int) -> None:
    t = chaos.trial(fault, seed)
    detail = f"{t} (ingest log under {chaos.workdir})"
    assert t.identical, detail
    assert t.ledger_same, detail
    assert t.orphans == 0, detail
    if fault in ("kill_ingest", "kill_db", "kill_both", "json_kill"):
        assert not t.note, detail  # the fault really happened: the ingest was running at the kill point
    if fault in ("kill_ingest", "kill_both", "json_kill"):
        assert t.first_rc != 0 and t.reruns >= 1, detail
    if fault == "db_mid_ingest" and not t.note:
        assert t.first_rc == 0 and t.pauses >= 1, detail  # the same run paused, restarted the DB and finished
    if fault == "llm_down_up":
        assert t.pauses >= 1 and t.first_rc == 0, detail  # the outage was met, and the same run finished
