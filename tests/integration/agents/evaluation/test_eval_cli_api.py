"""`motivgraph eval` (contributed through the registry) and GET /eval/runs[/{id}]."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_support import make_writer, world_model
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from motivgraph.agents.core import PlatformLLMClient, unregister
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.harness import Evaluation, create_eval
from motivgraph.agents.evaluation.judges import Judge
from motivgraph.agents.evaluation.topics import load_topics_file
from motivgraph.cli import app

runner = CliRunner()


def _topics(tmp_path: Path) -> Path:
    row = {"topic_id": "T0", "topic_name": "Sparse rewards in RL",
           "background_papers": [{"paper_id": "b1", "title": "Background paper one", "abstract": "Shaping."}],
           "target_papers": [{"paper_id": "g1", "title": "Target paper one", "abstract": "Later."},
                             {"paper_id": "g2", "title": "Target paper two", "abstract": "Later too."}]}
    f = tmp_path / "topics.jsonl"
    f.write_text(json.dumps(row) + "\n")
    return f


def _env(settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", "deepseek:deepseek-chat")
    monkeypatch.setenv("MOTIVGRAPH_LLM_ROLES", json.dumps({"judge": {"model": "openai:gpt-4o-mini"}}))
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_dry_run_prices_generation_and_judging_without_a_key(settings, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _env(settings, monkeypatch)
    r = runner.invoke(app, ["eval", "--topics", str(_topics(tmp_path)), "--methods", "setlevel", "--ideas", "3",
                            "--panel-size", "1", "--dry-run"])
    assert r.exit_code == 0, r.output
    assert "generation: setlevel" in r.output and "deepseek-chat" in r.output and "gpt-4o-mini" in r.output
    assert "eval.pairwise" in r.output and "eval.reference" in r.output
    assert "graphs: extraction (corpus)" in r.output  # the default shared corpus graph, by the LLM miner
    cells = [[x.strip() for x in ln.split("│")[1:-1]] for ln in r.output.splitlines() if ln.startswith("│")]
    rows = {c[0]: c[1:] for c in cells if len(c) == 6}  # the cost table (the protocol table has 3 columns)
    calls = {k.split(" ")[0]: int(v[1]) for k, v in rows.items()}
    # 1 topic, 1 method, 3 ideas, 2 target papers, 1 judge: every call counted by hand
    assert calls["eval.extract"] == 2 and calls["eval.score"] == 3 and calls["eval.gates"] == 3
    assert calls["eval.signature"] == 3
    assert calls["eval.diversity"] == 3 * 2  # C(3,2) pairs, both orders
    assert calls["eval.reference"] == 3 * 2 * 2  # ideas x targets x both orders
    # dimensions x 3 rounds (5 requested, at most a full round robin of 3 players) x 1 pair x both orders
    assert calls["eval.pairwise"] == 3 * 3 * 1 * 2
    assert calls["generation:"] == 1  # setlevel: one call for the set
    assert float(rows["total"][-1]) > 0
    assert not (settings.runs_dir.exists() and any(settings.runs_dir.iterdir()))  # nothing written
    protocol = {c[0]: c[1:] for c in cells if len(c) == 3 and c[0]}
    assert "NB >= 7, S >= 7, C >= 6, D >= 7" in protocol["Yield gates"][0] and protocol["orders"][0].startswith("2:")
    # every choice says whose it is: the paper's, ours, or a substitute (the source column)
    assert protocol["Yield gates"][1].startswith("paper") and protocol["intervals"][1].startswith("ours")
    assert protocol["quality judge"][1].startswith("substitute")
    assert protocol["literature search"][0].startswith("20 results")  # SoIQ's tool returns the top 20
    assert protocol["set-level sets"][0].startswith("sets of K = 3")
    assert protocol["parents"][0].startswith("every evaluation graph gets parent")
    # the topic's cutoff and where it came from (its one background paper carries no date: said why not)
    assert protocol["cutoff T0"][0].startswith("no cutoff applies, because")
    assert "time: about" in r.output and "hosted models: not measured" in r.output  # no key, no call: a basis
    # the protocol's default panel: three seats (seeded samples of the one judge model), each priced
    r3 = runner.invoke(app, ["eval", "--topics", str(_topics(tmp_path)), "--methods", "setlevel", "--ideas", "3",
                             "--dry-run"])
    assert r3.exit_code == 0, r3.output
    assert sum(1 for ln in r3.output.splitlines() if ln.startswith("│ eval.score")) == 3
    assert "gpt-4o-mini#s2" in r3.output


def test_cli_refuses_unknown_method_and_missing_topics(settings, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _env(settings, monkeypatch)
    r = runner.invoke(app, ["eval", "--topics", str(_topics(tmp_path)), "--methods", "nosuch", "--dry-run"])
    assert r.exit_code == 3 and "nosuch" in r.output
    r = runner.invoke(app, ["eval", "--methods", "setlevel", "--dry-run"])
    assert r.exit_code == 3 and "--topics" in r.output


async def test_api_lists_and_serves_finished_evaluations(settings, embedder, tmp_path: Path) -> None:
    make_writer("q_api", 2)
    try:
        topics = load_topics_file(_topics(tmp_path))
        run = create_eval(settings, EvalConfig(methods=["q_api"], n_ideas=1, graph="file", n_boot=20), topics,
                          source="test")
        gen = world_model("scripted-api-gen")
        judge = PlatformLLMClient(settings, model=world_model("scripted-api-judge"))
        await Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings, model=gen),
                         judges=[Judge("scripted", judge)], embed=embedder.embed).execute()
    finally:
        unregister("q_api")
    from motivgraph.service import create_service_app

    client = TestClient(create_service_app(settings), base_url="http://localhost")
    listed = client.get("/eval/runs").json()
    assert [e["id"] for e in listed] == [run.id] and listed[0]["status"] == "completed"
    one = client.get(f"/eval/runs/{run.id}").json()
    assert one["methods"][0]["method"] == "q_api" and one["methods"][0]["n_ideas"] == "1"
    html = client.get(f"/eval/runs/{run.id}", params={"format": "html"})
    assert html.status_code == 200 and "<section id='elo'>" in html.text
    # an evaluation is a run: listed with the other runs (its child runs too), its progress streamed
    runs = {r["id"]: r for r in client.get("/ideation/sessions").json()}
    assert runs[run.id]["method"] == "eval" and runs[run.id]["status"] == "completed"
    children = [rid for rid in runs if rid.startswith(f"{run.id}-q_api-")]
    assert children and all(runs[c]["method"] == "q_api" for c in children)
    assert {e["id"] for e in client.get("/eval/runs").json()} == {run.id}  # only evaluations here
    from tests.sse_support import parse_sse

    events = [json.loads(e["data"]) for e in parse_sse(client.get(f"/ideation/sessions/{run.id}/events").text)
              if e.get("data")]
    phases = [e.get("phase") for e in events if e.get("type") == "phase"]
    assert phases[:1] == ["generate"] and "judge" in phases and "report" in phases
    assert [e.get("status") for e in events if e.get("type") == "status"][-1] == "completed"
    assert client.get("/eval/runs/no-such-eval").status_code == 404
    assert client.get(f"/eval/runs/{children[0]}").status_code == 404  # a method's run is no evaluation
    assert client.get("/eval/runs/..%2F..%2Fetc").status_code == 404
    assert client.get(f"/eval/runs/{run.id}", params={"format": "pdf"}).status_code == 422
    r = runner.invoke(app, ["eval", "--check", run.id], env={"MOTIVGRAPH_DATA_DIR": str(settings.data_dir)})
    assert r.exit_code == 0 and "report OK" in r.output
