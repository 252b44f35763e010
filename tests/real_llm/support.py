"""Helpers of the real-model tier (see conftest.py): CLI runs and settings against the local model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
CORPUS_PDF = REPO_ROOT.parent / "shared" / "corpus" / "pdf"


def real_env(data_dir: Path, local_dir: Path, **extra: str) -> dict[str, str]:
    """Environment of a CLI run against the local model, with small budgets."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}
    env.update({
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
        "MOTIVGRAPH_DATA_DIR": str(data_dir),
        "MOTIVGRAPH_LLM_MODEL": "local:smollm2",
        "MOTIVGRAPH_LLM_LOCAL_DIR": str(local_dir),
        "MOTIVGRAPH_LLM_TIMEOUT_S": "900",  # the tier checks mechanics; a loaded CI core is slow
        # The researcher's idea is one structured reply of 8 bounded fields: room for it.
        "MOTIVGRAPH_LLM_ROLES": '{"extractor": {"max_tokens": 600}, "researcher": {"max_tokens": 600}, '
                                '"mentor": {"max_tokens": 200}}',
        "MOTIVGRAPH_INGEST_PARSER": "pdf",
        "MOTIVGRAPH_MINER_INPUT_TOKEN_BUDGET": "500",
        "MOTIVGRAPH_MINER_MAX_TRIPLES": "2",
        "MOTIVGRAPH_MINER_PARENT_LEVELS": "1",
        "MOTIVGRAPH_AGENTS_TOOL_CALLS_PER_PHASE": "2",
        "MOTIVGRAPH_AGENTS_TOOL_CALLS_PER_ROUND": "1",
        "MOTIVGRAPH_AGENTS_CONTEXT_TOKEN_BUDGET": "3000",
        "MOTIVGRAPH_AGENTS_IDEA_REASKS": "1",
        "MOTIVGRAPH_LOG_LEVEL": "WARNING",
    })
    env.update(extra)
    return env


def run_cli(args: list[str], env: dict[str, str], timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    """`motivgraph ARGS` in its own process (as a user runs it)."""
    return subprocess.run([sys.executable, "-m", "motivgraph", *args], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=REPO_ROOT, check=False)


def has_text_layer(pdf: Path, min_chars: int = 500) -> bool:
    """True when the PDF's first pages carry text (a scanned PDF has none; it needs OCR, not a model)."""
    import pypdfium2

    try:
        doc = pypdfium2.PdfDocument(str(pdf))
    except Exception:
        return False
    try:
        chars = 0
        for i in range(min(2, len(doc))):
            chars += len(doc[i].get_textpage().get_text_range().strip())
        return chars >= min_chars
    finally:
        doc.close()


def text_pdfs(n: int, corpus: Path = CORPUS_PDF) -> list[Path]:
    """The n smallest PDFs of the shared corpus that have a text layer (short to parse)."""
    if not corpus.is_dir():
        pytest.skip(f"shared corpus PDFs not found at {corpus}")
    picked = []
    for pdf in sorted(corpus.glob("*.pdf"), key=lambda p: (p.stat().st_size, p.name)):
        if has_text_layer(pdf):
            picked.append(pdf)
            if len(picked) == n:
                return picked
    pytest.skip(f"fewer than {n} PDFs with a text layer in {corpus}")
    return picked


def two_pdfs() -> list[Path]:
    """Two real papers from the shared corpus (the two smallest with a text layer)."""
    return text_pdfs(2)


def settings_for(data_dir: Path, local_dir: Path) -> Any:
    """In-process Settings equal to what `real_env` gives a CLI run."""
    from motivgraph.settings import Settings

    env = real_env(data_dir, local_dir)
    keep = {k: v for k, v in env.items() if k.startswith("MOTIVGRAPH_")}
    old = {k: os.environ.get(k) for k in keep}
    os.environ.update(keep)
    try:
        return Settings(_env_file=None)  # type: ignore[call-arg]
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# A reason that is an exception in disguise: a class name ending in Error/Exception, or a traceback.
EXCEPTION_LIKE = r"Traceback|\b[A-Z]\w*(Error|Exception)\b"
# The run outcomes that are a recorded end (agents/core/outcome.py); the failure codes are not among them.
END_REASONS = ("no_valid_idea", "shortfall")


def assert_run_ended_cleanly(run_dir: Path) -> dict[str, Any]:
    """What mechanics guarantee with any model, however weak: the run reached a recorded end that is not an
    error (status completed, no error), its ideas file agrees with its status, and every rejection carries a
    reason in the method's own terms, never an exception. A run that crashes fails here. Returns status.json."""
    import json
    import re

    status = json.loads((run_dir / "status.json").read_text())
    assert status["status"] == "completed" and not status.get("error"), status
    ideas = json.loads((run_dir / "ideas.json").read_text()) if (run_dir / "ideas.json").is_file() else []
    accepted = [i for i in ideas if i.get("status") == "accepted"]
    if "ideas_accepted" in status:
        assert status["ideas_accepted"] == len(accepted), (status, len(accepted))
    reason = status.get("reason")
    if reason is not None:  # a named outcome from the taxonomy, e.g. `no_valid_idea: idea 1: ...`
        code = reason.split(":", 1)[0]
        assert code in END_REASONS and not re.search(EXCEPTION_LIKE, reason), status
    if not accepted:
        assert reason and reason.startswith("no_valid_idea: "), status
    for idea in ideas:
        if idea.get("status") == "rejected":
            why = idea.get("rejection") or (idea.get("extra") or {}).get("rejection") or ""
            assert why and not re.search(EXCEPTION_LIKE, why), idea
    return status
