"""`motivgraph ideate TOPIC --method M` end to end for IDEAgent and every baseline, over the CLI and
over HTTP, on a graph ingested (offline extractor) from ../shared/corpus and on the cs.CL-012
topic background without a graph; `--dry-run` prices every role without calling a model.
The LLM is the scripted world (MOTIVGRAPH_LLM_MODEL=scripted:FILE)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from motivgraph.agents.core.rundir import RunDir
from motivgraph.cli import app
from motivgraph.llm import reset_scripted_models
from tests.conftest import CORPUS_DIR, SHARED_DIR

METHODS = {"ideagent": ["--ideas", "2", "--seeds", "3"], "stateless": ["--ideas", "2"], "one_shot": ["--ideas", "2"],
           "sequential_memory": ["--ideas", "2"], "nova": ["--ideas", "2", "--rounds", "2", "--seeds", "1"]}
BODIES: dict[str, dict[str, Any]] = {"ideagent": {"ideas": 2, "seeds": 3}, "stateless": {"ideas": 2},
                                     "one_shot": {"ideas": 2}, "sequential_memory": {"ideas": 2},
                                     "nova": {"ideas": 2, "rounds": 2, "seeds": 1}}
PDFS = ["sp_fader11.pdf", "sp_seung08.pdf"]
TOPICS = SHARED_DIR / "eval" / "topics.jsonl"
TOPIC = "open information extraction from text"
BG_TOPIC = "reasoning and retrieval in language models"  # the topic line; the background is cs.CL-012's papers


def _script(tmp_path: Path) -> str:
    p = tmp_path / "world.json"
    p.write_text(json.dumps({"default": {"call": "motivgraph.agents.ideagent.scripted_world:reply"},
                             "model_name": "scripted-world"}))
    reset_scripted_models()
    return f"scripted:{p}"


@pytest.fixture
def corpus_graph(settings, store, embedder, tmp_path):
    """A graph ingested from real corpus PDFs with the offline extractor, indexes built."""
    if not all((CORPUS_DIR / "pdf" / n).is_file() for n in PDFS):
        pytest.skip(f"SKIPPED LOUDLY: corpus PDFs {PDFS} not found under {CORPUS_DIR / 'pdf'}")
    import asyncio

    from motivgraph.graph.paper_index import PaperIndex
    from motivgraph.graph.runtime import Runtime
    from motivgraph.graph.vector_index import NodeIndex
    from motivgraph.ingest.pipeline import ingest_async
    from motivgraph.miner.sink import MinerSink

    d = tmp_path / "pdfs"
    d.mkdir()
    for n in PDFS:
        shutil.copy(CORPUS_DIR / "pdf" / n, d / n)
    rt = Runtime(settings)
    rt.__dict__["store"] = store
    rt.__dict__["embedder"] = embedder
    sink = MinerSink(rt, client=None)
    try:
        summary = asyncio.run(ingest_async([d], settings, sink=sink, concurrency=1))
    finally:
        sink.close()
    assert summary.ok == len(PDFS) and store.stats().triples > 0
    NodeIndex.open(settings, store, embedder).rebuild()
    PaperIndex.open(settings, store, embedder).rebuild()
    return rt


def _cli_env(monkeypatch, settings, tmp_path) -> None:
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", settings.graph.falkordb_url)
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_NAME", settings.graph.name)
    monkeypatch.setenv("MOTIVGRAPH_LLM_CACHE", "false")
    monkeypatch.setenv("MOTIVGRAPH_LLM_MAX_RETRIES", "0")
    monkeypatch.delenv("MOTIVGRAPH_API_URL", raising=False)
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", _script(tmp_path))


def _check_run(run: RunDir, method: str, *, tools: bool) -> None:
    st = run.status()
    assert st["status"] == "completed", st
    ideas = run.ideas()
    assert 1 <= len(ideas) <= 2 and all(i["provenance"]["method"] == method for i in ideas)
    events = [json.loads(line) for line in (run.path / "transcript.jsonl").read_text().splitlines()]
    used = [e for e in events if e["type"] == "tool_call"]
    assert bool(used) == tools, (method, len(used))
    if tools:
        assert all(i["grounding"]["checked"] for i in ideas)
    if method == "ideagent":
        assert any(e["type"] == "ideagent.decision" for e in events)
        assert "Archive:" in (run.path / "summary.md").read_text()


def test_cli_every_method_on_corpus_graph(corpus_graph, settings, monkeypatch, tmp_path):
    _cli_env(monkeypatch, settings, tmp_path)
    for method, flags in METHODS.items():
        out = tmp_path / f"runs-{method}"
        res = CliRunner().invoke(app, ["ideate", TOPIC, "--out", str(out), "--method", method, *flags])
        assert res.exit_code == 0, (method, res.output)
        (run,) = RunDir.list(out)
        _check_run(run, method, tools=True)


def test_cli_every_method_on_topic_background(settings, monkeypatch, tmp_path):
    if not TOPICS.is_file():
        pytest.skip(f"SKIPPED LOUDLY: {TOPICS} not found")
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", "redis://127.0.0.1:9")  # no graph reachable
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_LLM_CACHE", "false")
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", _script(tmp_path))
    for method, flags in METHODS.items():
        out = tmp_path / f"runs-{method}"
        res = CliRunner().invoke(app, ["ideate", BG_TOPIC, "--background", str(TOPICS), "--topic-id", "cs.CL-012",
                                       "--out", str(out), "--method", method, *flags])
        assert res.exit_code == 0, (method, res.output)
        (run,) = RunDir.list(out)
        _check_run(run, method, tools=False)
        bg = json.loads((run.path / "background.json").read_text())
        assert bg["source"] == "file" and bg["papers"]


@pytest.mark.parametrize("method", list(METHODS))
def test_cli_dry_run_prices_roles_without_calling(method, settings, monkeypatch, tmp_path):
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", "openai:gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    res = CliRunner().invoke(app, ["ideate", TOPIC, "--method", method, "--dry-run"], terminal_width=200)
    assert res.exit_code == 0, res.output
    assert f"dry run: {method}" in res.output and "gpt-4o-mini" in res.output and "ideator" in res.output
    assert "upper bound" in res.output and "typical case" in res.output
    assert not (settings.data_dir / "runs").exists() or not list((settings.data_dir / "runs").iterdir())


async def test_http_every_method_on_corpus_graph(corpus_graph, settings, tmp_path):
    from motivgraph.api.services import ToolService
    from motivgraph.service import create_service_app

    settings.llm.model = _script(tmp_path)
    settings.llm.cache = False
    app = create_service_app(ToolService(corpus_graph))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1", timeout=120) as c:
        listed = {m["name"] for m in (await c.get("/ideation/methods")).json()}
        assert set(METHODS) <= listed
        bad = await c.post("/ideation/sessions", json={"method": "ideagent", "topic": TOPIC, "panel_size": 0})
        assert bad.status_code == 422
        for method, body in BODIES.items():
            r = await c.post("/ideation/sessions", json={"method": method, "topic": TOPIC, **body})
            assert r.status_code == 202, r.text
            sid = r.json()["id"]
            ev = await c.get(f"/ideation/sessions/{sid}/events")
            assert ev.status_code == 200
            st = (await c.get(f"/ideation/sessions/{sid}")).json()
            assert st["status"] == "completed", (method, st.get("error"))
            run = RunDir.open(settings.runs_dir, sid)
            _check_run(run, method, tools=True)
