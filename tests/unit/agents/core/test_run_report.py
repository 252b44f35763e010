"""The one run report (summary.md, GET /runs/{id}) every method gets from agents/core/report.py."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from motivgraph import plugins
from motivgraph.agents.core.report import load_view, readable_links, render_summary
from motivgraph.agents.core.rundir import RunDir
from tests.fixtures.runs import write_finished_run


def test_summary_has_every_idea_field_dialogue_grounding_cost_and_repro(tmp_path: Path) -> None:
    md = render_summary(load_view(write_finished_run(tmp_path)))
    for heading in ("### Motivation", "### Method", "### Experiments", "### Expected outcome",
                    "### Risks and limitations", "### Abstract", "### Related work", "### Grounding",
                    "## Cost", "## Dialogue", "## Reproducibility"):
        assert heading in md, heading
    assert "Two networks exchange small-loss samples" in md and "CIFAR-10N" in md
    # kg links readable: the node's type and name, never the raw kg: URI
    assert "noisy labels [challenge: Memorisation of noisy labels]" in md
    assert "kg:challenge" not in md
    # citations followed by the matched paper's title
    assert "Han et al., 2018 [“Co-teaching: Robust training" in md
    assert "✗ solution “Imaginary method” — no such node; close nodes: Co-teaching" in md
    # the dialogue: assistant messages, tool calls, decision; no system prompt, no tool result bodies
    assert "My first idea: co-teaching" in md and "Which datasets carry real label noise?" in md
    assert "calls node_search" in md and "decision: ACCEPT" in md
    assert "SYSTEM PROMPT TEXT" not in md and "LONG TOOL RESULT BODY" not in md
    assert "| **total** | 4 | 0 | 1000 | 200 | 0.0123 |" in md
    assert "openai:gpt-4o-mini" in md and "deadbeef" in md


def test_readable_links_all_spellings() -> None:
    assert readable_links("see [x](kg:problem:Label noise)") == "see x [problem: Label noise]"
    assert readable_links('<a href="kg:solution:Co-teaching">Co-teaching</a>') == "Co-teaching [solution]"
    assert readable_links("bare kg:challenge:Class_imbalance here") == "bare Class imbalance [challenge] here"


def _client(runs_dir: Path) -> TestClient:
    app = FastAPI()
    app.state.settings = type("S", (), {"runs_dir": runs_dir})()
    app.include_router(plugins.load("commands", "runs").router())  # mounted the way motivgraph/service.py mounts it
    return TestClient(app)


def test_run_page_listing_404_and_no_traversal(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    run = write_finished_run(runs)
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "status.json").write_text('{"id": "secret"}')
    c = _client(runs)
    page = c.get(f"/runs/{run.id}")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Curriculum co-teaching" in page.text and "Memorisation of noisy labels" in page.text
    assert "<script" not in page.text
    assert "Co-teaching: Robust training" in page.text
    md = c.get(f"/runs/{run.id}", params={"format": "markdown"})
    assert md.status_code == 200 and "## Dialogue" in md.text
    js = c.get(f"/runs/{run.id}", params={"format": "json"}).json()
    assert js["ideas"][0]["title"].startswith("Curriculum") and "pid" not in js["status"]
    listing = c.get("/runs", params={"format": "json"}).json()
    assert [r["id"] for r in listing] == [run.id] and "path" not in listing[0]
    assert run.id in c.get("/runs").text
    assert c.get("/runs/soiq-20990101-000000-ffffff").status_code == 404
    for bad in ("..", "..%2Fsecret", "%2E%2E", ".hidden", "a" * 200):
        r = c.get(f"/runs/{bad}")
        assert r.status_code == 404, bad
        assert "secret" not in r.text.replace(bad, "")


def test_html_escapes_idea_text(tmp_path: Path) -> None:
    run = write_finished_run(tmp_path)
    ideas = run.ideas()
    ideas[0]["title"] = "<script>alert(1)</script>"
    run.write_ideas(ideas)
    page = _client(tmp_path).get(f"/runs/{run.id}").text
    assert "<script>alert(1)" not in page and "&lt;script&gt;" in page


def test_runs_listed_for_every_method(tmp_path: Path) -> None:
    write_finished_run(tmp_path, "soiq-20260101-120000-abc123")
    other = RunDir.create(tmp_path, "ideagent", "another topic", {}, run_id="ideagent-20260102-120000-abc124")
    other.update_status(status="failed", error="LLMError: boom")
    rows = _client(tmp_path).get("/runs", params={"format": "json"}).json()
    assert {(r["method"], r["status"]) for r in rows} == {("soiq", "completed"), ("ideagent", "failed")}


def test_run_pages_are_not_in_the_api_spec(tmp_path: Path) -> None:
    paths = _client(tmp_path).get("/openapi.json").json()["paths"]
    assert not [p for p in paths if p.startswith("/runs")]
