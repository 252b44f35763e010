"""`motivgraph llm check --extraction` (#39): the configured extractor on the shipped research text —
the offline extractor's quotes are all located and the gate passes; a model that writes its own quotes
is reported as stopping the gate (exit 6); a model that copies the expected sentences is credited."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.llm.tokens import content_text
from motivgraph.miner.check_paper import EXPECTED
from tests.miner_support import GOOD_TRIPLE


def _reply(quotes: dict[str, list[str]]) -> str:
    t = json.loads(json.dumps(GOOD_TRIPLE))
    t["problem"]["name"] = "Soil moisture sensor calibration for irrigation"
    t["challenge"]["name"] = "Costly laboratory labels for sensor calibration in fields"
    t["solution"]["name"] = "Self-training calibration constrained by a physical water balance model"
    for element, qs in quotes.items():
        t[element]["quotes"] = qs
    return json.dumps({"triples": [t], "no_triples_reason": None})


def copying(messages) -> str:  # type: ignore[no-untyped-def]
    if "TITLE: " not in "\n".join(content_text(m.content) for m in messages):
        return json.dumps({"same": False, "reason": "apart"})
    return _reply({e: qs[:1] for e, qs in EXPECTED.items()})


def inventing(messages) -> str:  # type: ignore[no-untyped-def]
    if "TITLE: " not in "\n".join(content_text(m.content) for m in messages):
        return json.dumps({"same": False, "reason": "apart"})
    return _reply({"problem": ["Farmers need to know how wet their soil is before they water it."],
                   "challenge": ["Cheap probes give wrong numbers unless somebody calibrates them by hand."],
                   "solution": ["The authors teach a network to fix the probes using physics as a guide."]})


def _env(tmp_path: Path, fn: str | None) -> dict[str, str]:
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "MOTIVGRAPH_LLM_MODEL": ""}
    if fn:
        script = tmp_path / f"{fn}.json"
        script.write_text(json.dumps({"default": {"call": f"tests.integration.cli.test_llm_check_extraction:{fn}"}}))
        env["MOTIVGRAPH_LLM_MODEL"] = f"scripted:{script}"
    return env


def test_offline_extractor_passes(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["llm", "check", "--extraction", "--json"], env=_env(tmp_path, None))
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["extractor"] == "heuristic" and out["triples_valid"] >= 1
    assert out["quotes"] >= 3 and out["verified_rate"] == 1.0 and out["gate_passes"]
    assert out["seconds"] >= 0


def test_copying_model_is_credited_and_inventing_model_would_be_stopped(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["llm", "check", "--extraction", "--json"], env=_env(tmp_path, "copying"))
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["extractor"] == "llm" and out["model"].startswith("scripted")
    assert out["verified_rate"] == 1.0 and out["expected_quoted"] == {"problem": 1, "challenge": 1, "solution": 1}
    res = CliRunner().invoke(app, ["llm", "check", "--extraction"], env=_env(tmp_path, "inventing"))
    assert res.exit_code == 6, res.output
    assert "0 / 3 (0%)" in res.output and "STOPS" in res.output and "--accept-unverified" in res.output
