"""`eval --ideas-from FILE` (#43): other systems' ideas, several systems per topic, scored under the same protocol
as generated ideas; bad lines reported by number and the rest evaluated; target-leak and cutoff checks on the
ideas' text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_support import world_model
from typer.testing import CliRunner

from motivgraph.agents.core import PlatformLLMClient
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.harness import Evaluation, create_eval
from motivgraph.agents.evaluation.imported import leak_reasons, read_ideas_file
from motivgraph.agents.evaluation.judges import Judge
from motivgraph.agents.evaluation.topics import load_topics_file
from motivgraph.errors import IdeasFileError


def _topics(tmp_path: Path) -> Path:
    rows = []
    for t, subject in enumerate(("sparse reward exploration", "graph neural oversmoothing")):
        rows.append({"topic_id": f"T{t}", "topic_name": subject,
                     "background_papers": [{"paper_id": f"2301.{t}0001", "title": f"{subject.title()} background",
                                            "abstract": f"Prior work on {subject}."}],
                     "target_papers": [{"paper_id": f"2405.{t}0001",
                                        "title": f"Curiosity bonuses for {subject} at scale",
                                        "abstract": "Held out."}]})
    f = tmp_path / "topics.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return f


def _idea(system: str, topic: str, k: int, quality: int) -> dict[str, object]:
    return {"method": system, "topic_id": topic, "idea": {
        "title": f"{system} idea {k} on {topic}",
        "motivation": f"QUALITY {quality}. Exploration under sparse rewards stalls; {system} attacks it, variant {k}.",
        "method": f"A count-based bonus variant {k} with a learned density model, evaluated on hard-exploration games.",
        "experiments": "Montezuma's Revenge and Pitfall against RND and ICM, five seeds each."}}


def _ideas_file(tmp_path: Path) -> tuple[Path, int]:
    """Three systems on both topics (one as free text), plus bad lines at known numbers."""
    lines: list[str] = []
    for topic in ("T0", "T1"):
        for k in (1, 2):
            lines.append(json.dumps(_idea("alpha", topic, k, 3)))
            lines.append(json.dumps(_idea("beta", topic, k, 1)))
            lines.append(json.dumps({"method": "gamma", "topic_id": topic, "title": f"Gamma plain idea {k}",
                                     "idea": f"QUALITY 2. Gamma proposes variant {k}: a simple episodic novelty "
                                             "bonus for sparse reward exploration, tested on grid worlds."}))
    good = len(lines)
    lines.insert(2, "{not json")  # line 3
    lines.insert(5, json.dumps({"method": "alpha", "topic_id": "T9", "idea": "x y z"}))  # line 6
    lines.insert(7, json.dumps({"method": "alpha", "topic_id": "T0", "idea": {"title": "Only a title"}}))  # line 8
    lines.insert(9, json.dumps({"method": "alpha", "topic_id": "T0", "idea": {"title": "t", "summary": "s"}}))  # 10
    lines.insert(11, json.dumps({"method": "alpha", "topic_id": "T0"}))  # line 12
    f = tmp_path / "ideas.jsonl"
    f.write_text("\n".join(lines) + "\n")
    return f, good


def test_bad_lines_are_reported_by_number_and_the_rest_are_read(tmp_path: Path) -> None:
    f, good = _ideas_file(tmp_path)
    got = read_ideas_file(f, {"T0", "T1"})
    assert got.count == good and sorted(got.ideas) == ["alpha", "beta", "gamma"]
    assert all(len(got.ideas[s][t]) == 2 for s in got.ideas for t in ("T0", "T1"))
    errs = {e.split(":", 1)[0]: e for e in got.errors}
    assert sorted(errs) == ["line 10", "line 12", "line 3", "line 6", "line 8"]
    assert "not JSON" in errs["line 3"] and "unknown topic_id 'T9'" in errs["line 6"]
    assert "title only" in errs["line 8"] and "unknown idea field(s) summary" in errs["line 10"]
    assert "missing idea" in errs["line 12"]
    assert got.ideas["gamma"]["T0"][0]["title"] == "Gamma plain idea 1"  # free text: titled by the line's title
    with pytest.raises(IdeasFileError, match="also generated"):
        read_ideas_file(f, {"T0", "T1"}, {"alpha", "beta", "gamma"})  # every line clashes: nothing usable
    with pytest.raises(IdeasFileError, match="no such file"):
        read_ideas_file(tmp_path / "missing.jsonl", {"T0"})


def test_leak_and_cutoff_checks_read_the_ideas_text(tmp_path: Path) -> None:
    from datetime import date

    topic = load_topics_file(_topics(tmp_path))[0]
    targets, later = leak_reasons("We extend Curiosity Bonuses for Sparse Reward Exploration at Scale (2024).",
                                  topic, date(2023, 1, 31))
    assert targets and "its title" in targets[0] and not later
    targets, later = leak_reasons("Building on arXiv 2405.00001v2 and 2302.12345.", topic, date(2023, 1, 31))
    assert targets and "id 2405.00001" in targets[0]
    assert later == ["cites arXiv 2302.12345 (2023-02), after the topic's cutoff 2023-01-31",
                     "cites arXiv 2405.00001 (2024-05), after the topic's cutoff 2023-01-31"]
    assert leak_reasons("A clean idea citing 2212.00001.", topic, date(2023, 1, 31)) == ([], [])


async def test_several_systems_ideas_are_scored_like_generated_ones(settings, embedder, tmp_path: Path) -> None:
    topics_path = _topics(tmp_path)
    f, _ = _ideas_file(tmp_path)
    tlist = load_topics_file(topics_path)
    got = read_ideas_file(f, {t.topic_id for t in tlist})
    # one more alpha idea on T0 names the topic's target paper: rejected by the leak check
    got.ideas["alpha"]["T0"].insert(0, {"title": "Leaky", "motivation": "QUALITY 3. We extend Curiosity bonuses "
                                        "for sparse reward exploration at scale with a twist.", "method": "m m m"})
    config = EvalConfig(methods=sorted(got.ideas), imported=got.ideas, ideas_from=str(f), n_ideas=2, n_boot=10,
                        metrics=["scores", "elo"], graph="file", elo_rounds=2)
    run = create_eval(settings, config, tlist, source=str(topics_path))
    ev = Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings, model=world_model("gen")),
                    judges=[Judge("j", PlatformLLMClient(settings, model=world_model("scripted-judge")))],
                    embed=embedder.embed)
    res = await ev.execute()
    assert run.status()["status"] == "completed" and res.methods == ["alpha", "beta", "gamma"]
    for m in res.methods:  # two ideas per topic each, scored by the panel like generated ones
        assert res.estimates[m]["n_ideas"].value == 4 and res.estimates[m]["shortfall"].value == 0
    elo = {m: res.estimates[m]["elo_overall"].value for m in res.methods}
    assert elo["alpha"] > elo["gamma"] > elo["beta"]  # the judge prefers higher QUALITY, whoever wrote it
    assert any("Leaky" in n and "target_leak: names target paper" in n for n in res.notes)
    deliveries = json.loads((run.path / "deliveries.json").read_text())
    assert all(not d["runs"] for d in deliveries)  # nothing was generated
    assert not (settings.runs_dir.exists() and [p for p in settings.runs_dir.iterdir() if p.name != run.id])
    protocol = {r["item"]: r for r in res.protocol}
    assert protocol["imported ideas"]["value"].startswith("alpha, beta, gamma from")
    assert protocol["imported ideas"]["source"].startswith("ours")


def test_cli_reads_the_file_reports_bad_lines_and_needs_no_methods(settings, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from motivgraph.cli import app

    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", "openai:gpt-4o-mini")
    f, good = _ideas_file(tmp_path)
    r = CliRunner().invoke(app, ["eval", "--topics", str(_topics(tmp_path)), "--ideas-from", str(f), "--ideas", "2",
                                 "--graph", "file", "--panel-size", "1", "--dry-run"])
    assert r.exit_code == 0, r.output
    for n in (3, 6, 8, 10, 12):
        assert f"line {n}:" in r.output
    assert f"{good} idea(s) of 3 system(s) read, 5 line(s) skipped" in r.output
    assert "generation:" not in r.output  # imported ideas cost no generation
