"""The real-model tier's end-of-run check (tests/real_llm/support.py) fails a crashed run: a regression that makes
every real run crash must not pass the tier (it used to, as "completed or failed")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.real_llm.support import assert_run_ended_cleanly


def _run(tmp_path: Path, status: dict, ideas: list[dict] | None = None) -> Path:
    d = tmp_path / "run"
    d.mkdir(exist_ok=True)
    (d / "status.json").write_text(json.dumps(status))
    if ideas is not None:
        (d / "ideas.json").write_text(json.dumps(ideas))
    return d


def test_a_completed_run_with_named_outcomes_passes(tmp_path: Path) -> None:
    ok = _run(tmp_path, {"status": "completed", "ideas_accepted": 1},
              [{"status": "accepted"}, {"status": "rejected", "rejection": "the mentor rejected it in round 2"}])
    assert assert_run_ended_cleanly(ok)["status"] == "completed"
    none = _run(tmp_path, {"status": "completed", "ideas_accepted": 0, "reason": "no_valid_idea: idea 1: NO_IDEA"},
                [{"status": "rejected", "extra": {"rejection": "schema_invalid: 2 card(s) written"}}])
    assert_run_ended_cleanly(none)


@pytest.mark.parametrize(("status", "ideas"), [
    ({"status": "failed", "error": "RuntimeError: boom", "reason": "internal_error: boom"}, []),  # a crash
    ({"status": "running"}, []),  # never reached an end
    ({"status": "completed", "reason": "internal_error: KeyError 'x'"}, []),  # an error dressed as an end
    ({"status": "completed", "ideas_accepted": 2}, [{"status": "accepted"}]),  # status and ideas disagree
    ({"status": "completed", "ideas_accepted": 0}, [{"status": "rejected"}]),  # no reason anywhere
    ({"status": "completed", "ideas_accepted": 1},
     [{"status": "accepted"}, {"status": "rejected", "rejection": "ValueError: could not parse"}]),  # an exception
])
def test_a_crashed_or_unexplained_run_fails(tmp_path: Path, status: dict, ideas: list[dict]) -> None:
    with pytest.raises(AssertionError):
        assert_run_ended_cleanly(_run(tmp_path, status, ideas))
