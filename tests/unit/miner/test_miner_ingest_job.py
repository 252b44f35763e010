"""The ingest command's dry run consumes plan(): the LLM estimate covers exactly the plan's documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from motivgraph.ingest.plan import plan_async
from motivgraph.miner.estimate import estimate_plan
from motivgraph.miner.extractor_choice import decide_extractor
from motivgraph.settings import IngestSettings, Settings
from tests.fixtures.ingest.pdfgen import write_paper
from tests.miner_support import scripted_client


async def test_dry_run_estimate_follows_the_plan(tmp_path: Path) -> None:
    inp = tmp_path / "in"
    inp.mkdir()
    for i in range(3):
        write_paper(inp / f"p{i}.pdf", title=f"Generated estimate paper number {i}")
    (inp / "p0-copy.pdf").write_bytes((inp / "p0.pdf").read_bytes())
    (inp / "broken.pdf").write_bytes(b"%PDF-1.4 truncated")
    s = Settings(data_dir=tmp_path / "data", ingest=IngestSettings(parser="pdf"), _env_file=None)  # type: ignore[call-arg]
    p = await plan_async([inp], s, limit=3)
    client, model = scripted_client(s, model_name="gpt-4o-mini")
    try:
        est = await estimate_plan(p, client)
    finally:
        client.close()
    # the plan holds 4 unique documents, limited to 3 (broken.pdf sorts first); the copy is not counted
    assert p.to_process == 3 and est.papers + est.unparsed == 3 and est.unparsed == 1
    assert est.papers_needing_llm == 2 and est.input_tokens > 0 and model.calls == []
    assert not (s.data_dir / "ingest").exists()  # nothing written, not even the parsed cache


def test_one_extractor_decision(tmp_path: Path) -> None:
    s = Settings(data_dir=tmp_path / "data", _env_file=None)  # type: ignore[call-arg]
    s.llm.model = None
    assert decide_extractor(s) == ("heuristic", None)
    s.llm.model = "openai:gpt-4o-mini"
    mode, client = decide_extractor(s, offline=True)
    assert (mode, client) == ("heuristic", None)


def test_the_offline_decision_loads_no_llm_stack(tmp_path: Path) -> None:
    # the offline ingest path decides from the settings alone: building an LLM client to ask whether one is
    # configured imported LangChain (~1 s of every offline `ingest` start)
    import os
    import subprocess
    import sys

    code = ("import sys; from motivgraph.settings import Settings; "
            "from motivgraph.miner.extractor_choice import decide_extractor; "
            f"s = Settings(data_dir={str(tmp_path)!r}, _env_file=None); s.llm.model = None; s.llm.roles = {{}}; "
            "assert decide_extractor(s) == ('heuristic', None); "
            "heavy = ('langchain_core', 'langchain_openai', 'openai'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_forced_llm_extractor_without_a_model_names_the_setting(tmp_path: Path) -> None:
    from motivgraph.errors import ConfigError

    s = Settings(data_dir=tmp_path / "data", _env_file=None)  # type: ignore[call-arg]
    s.llm.model = None
    s.miner.extractor = "llm"
    with pytest.raises(ConfigError, match="MOTIVGRAPH_LLM_MODEL"):
        decide_extractor(s)


def test_the_sink_module_holds_the_sink_only() -> None:
    """#44: the extractor choice and the dry-run estimate are modules of their own; the dead build_sink is gone."""
    from motivgraph.miner import estimate, extractor_choice, sink

    assert not any(hasattr(sink, name) for name in ("decide_extractor", "estimate_plan", "IngestEstimate",
                                                    "build_sink"))
    assert extractor_choice.decide_extractor.__module__ == extractor_choice.__name__
    assert estimate.estimate_plan.__module__ == estimate.__name__
