"""IDEAgent and its four baselines against the real local model (SmolLM2-135M): mechanics only —
a tiny run ends `completed` (with ideas or with every draft rejected with its reason); a failed or crashed
run fails the test (support.assert_run_ended_cleanly); never left running; real calls are accounted per
namespaced role."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.real_llm.support import REPO_ROOT, assert_run_ended_cleanly, real_env, run_cli

pytestmark = pytest.mark.real_llm

TOPICS = REPO_ROOT.parent / "shared" / "eval" / "topics.jsonl"
TINY = {
    "ideagent": ["--ideas", "1", "--seeds", "1", "--panel-size", "2", "--invalid-votes", "2",
                 "--extra-drafts-per-seed", "1", "--ideator-tool-calls", "0", "--background-tokens", "300"],
    "stateless": ["--ideas", "1", "--ideator-tool-calls", "0"],
    "one_shot": ["--ideas", "1", "--ideator-tool-calls", "0"],
    "sequential_memory": ["--ideas", "2", "--ideator-tool-calls", "0"],
    "nova": ["--ideas", "1", "--rounds", "2", "--seeds", "1", "--ideator-tool-calls", "0"],
}


@pytest.mark.parametrize("method", list(TINY))
def test_tiny_run_ends_cleanly(method: str, local_llm: Path, tmp_path: Path) -> None:
    if not TOPICS.is_file():
        pytest.skip(f"shared topics file not found at {TOPICS}")
    env = real_env(tmp_path / "data", local_llm, MOTIVGRAPH_LLM_MAX_TOKENS="350",
                   MOTIVGRAPH_IDEAGENT_BACKGROUND_TOKENS="300")
    out = tmp_path / "runs"
    r = run_cli(["ideate", "reasoning in small language models", "--background", str(TOPICS), "--topic-id",
                 "cs.CL-012", "--out", str(out), "--method", method, *TINY[method]], env)
    dirs = [d for d in out.iterdir() if (d / "status.json").is_file()] if out.is_dir() else []
    assert len(dirs) == 1, r.stdout + r.stderr
    status = assert_run_ended_cleanly(dirs[0])  # completed, ideas agree with status, rejections have reasons
    usage = status.get("usage") or {}
    assert usage.get(f"{method}.ideator", {}).get("calls", 0) >= 1, usage  # real calls, namespaced
    assert usage["total"]["input_tokens"] > 0
    events = [json.loads(x) for x in (dirs[0] / "transcript.jsonl").read_text().splitlines() if x.strip()]
    if method == "ideagent":
        assert any(e["type"] in ("ideagent.decision", "ideagent.done") for e in events)
