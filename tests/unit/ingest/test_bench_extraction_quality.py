"""The extraction-quality bench on slow models: a timed-out or failed call is a figure (papers answered,
timed out), never the end of the run; the bench's knobs land in the settings the LLM client reads."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from motivgraph.errors import LLMError, LLMTimeout
from motivgraph.miner.schemas import ExtractedTriple, ExtractionResult
from motivgraph.settings import GraphSettings, Settings
from tests.miner_support import GOOD_TRIPLE

BENCH = Path(__file__).resolve().parents[3] / "bench" / "bench_extraction_quality.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_extraction_quality", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


class _Paper:
    def __init__(self, pid: str) -> None:
        self.paper_id = pid


class _Flaky:
    """Answers p1, times out on p2, fails otherwise on p3."""

    async def extract(self, paper: _Paper) -> ExtractionResult:
        if paper.paper_id == "p2":
            raise LLMTimeout("did not answer within 1s")
        if paper.paper_id == "p3":
            raise LLMError("could not parse the reply")
        return ExtractionResult(paper_id=paper.paper_id, extractor="llm",
                                triples=[ExtractedTriple.model_validate(GOOD_TRIPLE)])


def test_timeouts_and_failures_are_counted_and_the_run_goes_on(capsys) -> None:  # type: ignore[no-untyped-def]
    bench = _bench()
    papers = {k: _Paper(k) for k in ("p1", "p2", "p3", "p4")}
    got = asyncio.run(bench.extract_all("llm", _Flaky(), papers))
    assert got["timeouts"] == ["p2"]
    assert set(got["failures"]) == {"p2", "p3"}
    assert set(got["extracted"]) == {"p1", "p4"} and len(got["extracted"]["p4"]) == 1
    out = capsys.readouterr().out
    assert "[llm 2/4] p2: timeout" in out and "[llm 4/4] p4: 1 triples" in out


def test_slow_model_options_set_the_llm_and_miner_settings() -> None:
    bench = _bench()
    s = Settings(graph=GraphSettings(), _env_file=None)  # type: ignore[call-arg]
    args = argparse.Namespace(timeout=90.0, timeout_retries=0, retries=1, max_tokens=300, no_cache=False,
                              input_tokens=700, max_triples=2, no_reask=True)
    t = bench.apply_overrides(s, args)
    assert (t.llm.timeout_s, t.llm.timeout_retries, t.llm.max_retries, t.llm.max_tokens) == (90.0, 0, 1, 300)
    assert (t.miner.input_token_budget, t.miner.max_triples, t.miner.reask) == (700, 2, False)
    assert t.llm.cache is True
    # options left unset keep the user's settings
    none = argparse.Namespace(timeout=None, timeout_retries=None, retries=None, max_tokens=None, no_cache=False,
                              input_tokens=None, max_triples=None, no_reask=False)
    u = bench.apply_overrides(s, none)
    assert u.llm.timeout_s == s.llm.timeout_s and u.miner.reask == s.miner.reask
