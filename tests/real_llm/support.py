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
        "MOTIVGRAPH_LLM_ROLES": '{"extractor": {"max_tokens": 600}, "researcher": {"max_tokens": 400}, '
                                '"mentor": {"max_tokens": 200}}',
        "MOTIVGRAPH_INGEST_PARSER": "pdf",
        "MOTIVGRAPH_MINER_INPUT_TOKEN_BUDGET": "500",
        "MOTIVGRAPH_MINER_MAX_TRIPLES": "2",
        "MOTIVGRAPH_MINER_PARENT_LEVELS": "1",
        "MOTIVGRAPH_AGENTS_TOOL_CALLS_PER_PHASE": "3",
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


def two_pdfs() -> list[Path]:
    """Two real papers from the shared corpus: the two smallest files (short to parse)."""
    if not CORPUS_PDF.is_dir():
        pytest.skip(f"shared corpus PDFs not found at {CORPUS_PDF}")
    pdfs = sorted(CORPUS_PDF.glob("*.pdf"), key=lambda p: (p.stat().st_size, p.name))
    if len(pdfs) < 2:
        pytest.skip(f"fewer than 2 PDFs in {CORPUS_PDF}")
    return pdfs[:2]


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
