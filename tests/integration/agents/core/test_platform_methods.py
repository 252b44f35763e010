"""The platform's done-when: two toy methods, each one file registered here (toy_writer.py,
toy_panel.py), run over the CLI and HTTP with SSE, stop on their budget and resume, appear in
--list-methods with flags generated from their configs; toy_panel adds a sub-command and a route.
Nothing outside the test files knows them."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from motivgraph.agents.core import register, unregister
from motivgraph.agents.core.rundir import RunDir
from motivgraph.cli import app
from motivgraph.llm import reset_scripted_models
from motivgraph.service import create_service_app
from tests.integration.agents.core.toy_panel import ToyPanel
from tests.integration.agents.core.toy_writer import ToyWriter, idea_text
from tests.sse_support import parse_sse

TARGET_TITLE = "Held-out target paper that no method may see"


@pytest.fixture
def toys():
    register(ToyWriter)
    register(ToyPanel)
    yield
    unregister("toy_writer")
    unregister("toy_panel")


def topics_file(tmp_path: Path) -> Path:
    """A topics file in the shape of eval/topics.jsonl (two topics, background + target papers)."""
    rows = []
    for tid, name in (("t-1", "robust retrieval for question answering"), ("t-2", "sparse attention kernels")):
        rows.append({"domain_id": "cs.X", "topic_id": tid, "topic_name": name,
                     "background_papers": [
                         {"paper_id": f"{tid}-b1", "title": f"Background one of {name}", "abstract": "A" * 50,
                          "introduction": "intro", "conclusion": "concl"},
                         {"paper_id": f"{tid}-b2", "title": f"Background two of {name}", "abstract": "B" * 50}],
                     "target_papers": [{"paper_id": f"{tid}-t", "title": TARGET_TITLE, "abstract": "secret"}]})
    p = tmp_path / "topics.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return p


@pytest.fixture
def cli_env(settings, monkeypatch, tmp_path):
    """CLI settings from env: data dir without any graph, scripted model from a file."""
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_LLM_CACHE", "false")
    monkeypatch.setenv("MOTIVGRAPH_LLM_MAX_RETRIES", "0")
    monkeypatch.delenv("MOTIVGRAPH_API_URL", raising=False)
    monkeypatch.delenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", raising=False)

    def use_script(replies, name, price: float | None = None) -> Path:
        p = tmp_path / name
        p.write_text(json.dumps({"replies": replies}))
        reset_scripted_models()
        monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", f"scripted:{p}")
        if price is not None:  # dollars per million tokens, in and out, for this script's "model"
            monkeypatch.setenv("MOTIVGRAPH_LLM_PRICES", json.dumps({str(p): [price, price]}))
        return p

    return use_script


def scripted_models():
    from motivgraph.llm import factory

    return list(factory._scripted.values())


# ----------------------------------------------------------------------------- CLI
def test_list_methods_shows_generated_flags(toys):
    res = CliRunner().invoke(app, ["ideate", "--list-methods"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    for text in ("toy_writer", "--ideas INTEGER", "--style CHOICE", "--cite-background/--no-cite-background",
                 "toy_panel", "--draws INTEGER", "--min-score FLOAT", "toy_panel.proposer", "toy_panel.judge",
                 "motivgraph method toy_panel [hello, judges]", "soiq", "--tool-mode"):
        assert text in out, text


def test_method_subcommand(toys):
    res = CliRunner().invoke(app, ["method", "toy_panel", "hello", "--name", "Ada"])
    assert res.exit_code == 0, res.output
    assert "toy_panel says hello to Ada" in res.output
    res = CliRunner().invoke(app, ["method", "toy_writer", "hello"])
    assert res.exit_code != 0  # toy_writer contributes no commands


def test_cli_run_from_topics_file_without_graph(toys, cli_env, settings, tmp_path):
    rag = "robust retrieval for question answering"
    cli_env([idea_text("Retrieval by consensus", rag), idea_text("Retrieval by doubt", rag)], "w.json")
    bg = topics_file(tmp_path)
    out = tmp_path / "runs"
    res = CliRunner().invoke(app, ["ideate", "--method", "toy_writer", "--background", str(bg), "--topic-id", "t-1",
                                   "--ideas", "2", "--style", "long", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "2 accepted" in res.output
    (run,) = RunDir.list(out)
    st = run.status()
    assert st["status"] == "completed" and st["method"] == "toy_writer"
    assert st["topic"] == "robust retrieval for question answering"  # from the topics file
    ideas = run.ideas()
    assert [i["title"] for i in ideas] == ["Retrieval by consensus", "Retrieval by doubt"]
    assert ideas[0]["extra"] == {"index": 1, "style": "long"} and ideas[0]["provenance"]["topic_id"] == "t-1"
    # only the background papers reached the method; the target paper never did
    bg_saved = json.loads((run.path / "background.json").read_text())
    assert [p["paper_id"] for p in bg_saved["papers"]] == ["t-1-b1", "t-1-b2"]
    (model,) = scripted_models()
    prompts = " ".join(str(m.content) for call in model.calls for m in call)
    assert "Background one of robust retrieval" in prompts and TARGET_TITLE not in prompts
    assert TARGET_TITLE not in "".join(p.read_text() for p in run.path.iterdir() if p.is_file())
    assert not settings.db_dir.exists()  # no graph store was started
    repro = json.loads((run.path / "repro.json").read_text())
    assert repro["models"]["toy_writer.writer"]["provider"] == "scripted"
    assert set(repro["prompt_templates"]) == {"write"} and repro["code"]["package"]


def test_cli_budget_stop_then_resume(toys, cli_env, tmp_path):
    # every call costs far more than the budget: the first call goes through, the second is refused
    cli_env([idea_text("Idea one"), idea_text("Idea two"), idea_text("Idea three")], "b.json", price=1_000_000.0)
    bg = topics_file(tmp_path)
    out = tmp_path / "runs"
    res = CliRunner().invoke(app, ["ideate", "--method", "toy_writer", "--background", str(bg), "--topic-id", "t-2",
                                   "--ideas", "3", "--budget-usd", "1", "--out", str(out)])
    assert res.exit_code == 5, res.output  # EXIT_STOPPED
    (run,) = RunDir.list(out)
    st = run.status()
    assert st["status"] == "stopped" and "budget" in st["error"].lower()
    assert [i["title"] for i in run.ideas()] == ["Idea one"]
    assert "--resume" in " ".join(res.output.split())
    res = CliRunner().invoke(app, ["ideate", "--resume", run.id, "--budget-usd", "1000000000", "--out", str(out)])
    assert res.exit_code == 0, res.output
    st = run.status()
    assert st["status"] == "completed"
    assert [i["title"] for i in run.ideas()] == ["Idea one", "Idea two", "Idea three"]
    assert st["usage"]["toy_writer.writer"]["calls"] == 3  # across both segments, each call once
    (model,) = scripted_models()
    assert model.remaining == 0


def test_cli_bad_method_flags(toys, cli_env, tmp_path):
    cli_env(["unused"], "x.json")
    res = CliRunner().invoke(app, ["ideate", "a topic", "--method", "toy_writer", "--style", "medium",
                                   "--out", str(tmp_path)])
    assert res.exit_code == 2 and "short" in res.output
    res = CliRunner().invoke(app, ["ideate", "a topic", "--method", "toy_writer", "--ideas", "0",
                                   "--out", str(tmp_path)])
    assert res.exit_code == 2
    res = CliRunner().invoke(app, ["ideate", "a topic", "--method", "toy_writer", "--background",
                                   str(topics_file(tmp_path)), "--out", str(tmp_path)])
    assert res.exit_code == 3 and "--topic-id" in res.output  # two topics: which one?
    assert not (tmp_path / "runs").exists()


def test_dry_run_calls_no_model(toys, cli_env, monkeypatch, tmp_path):
    from motivgraph.llm import LLMClient

    calls = []

    async def no_chat(self, role, *a, **kw):
        calls.append(role)
        raise AssertionError("a dry run must not call a model")

    monkeypatch.setattr(LLMClient, "chat", no_chat)
    monkeypatch.setattr(LLMClient, "structured", no_chat)
    monkeypatch.setenv("MOTIVGRAPH_LLM_MODEL", "openai:gpt-4o-mini")
    monkeypatch.setenv("MOTIVGRAPH_LLM_API_KEY", "sk-test-not-used")
    res = CliRunner().invoke(app, ["ideate", "oversmoothing in deep GNNs", "--method", "soiq", "--ideas", "2",
                                   "--rounds", "3", "--dry-run", "--out", str(tmp_path / "runs")])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "soiq.researcher" in out and "soiq.mentor" in out and "gpt-4o-mini" in out
    assert calls == [] and not (tmp_path / "runs").exists()
    # the estimate grows with the config: more ideas, more calls
    res4 = CliRunner().invoke(app, ["ideate", "oversmoothing in deep GNNs", "--method", "soiq", "--ideas", "4",
                                    "--rounds", "3", "--dry-run"])

    def total_calls(text: str) -> int:
        row = next(line for line in text.splitlines() if "total" in line)
        return int(next(c for c in row.replace("│", " ").split() if c.isdigit()))

    assert total_calls(res4.output) == 2 * total_calls(res.output) > 0
    # with a topics file and no graph, priced per role too
    res = CliRunner().invoke(app, ["ideate", "--method", "toy_writer", "--background", str(topics_file(tmp_path)),
                                   "--topic-id", "t-1", "--dry-run"])
    assert res.exit_code == 0 and "toy_writer.writer" in res.output and calls == []


def test_dry_run_soiq_on_shared_topics_without_graph(cli_env, monkeypatch, settings):
    shared = Path(__file__).resolve().parents[4].parent / "shared" / "eval" / "topics.jsonl"
    if not shared.is_file():
        pytest.skip(f"SKIPPED LOUDLY: {shared} is absent (the shared eval data lives beside the repo)")
    cli_env(["unused"], "d.json")
    res = CliRunner().invoke(app, ["ideate", "--method", "soiq", "--background", str(shared), "--topic-id",
                                   "cs.CL-012", "--dry-run"])
    assert res.exit_code == 0, res.output
    assert "soiq.researcher" in res.output
    (model,) = scripted_models() or [None]
    assert model is None or model.calls == []
    assert not settings.db_dir.exists()


# ----------------------------------------------------------------------------- HTTP + SSE
async def test_http_toy_writer_budget_stop_sse_and_resume(toys, settings, tmp_path):
    script = tmp_path / "h.json"
    script.write_text(json.dumps({"replies": [idea_text("Alpha"), idea_text("Beta")]}))
    reset_scripted_models()
    settings.llm.model = f"scripted:{script}"
    settings.llm.cache = False
    settings.llm.prices = {str(script): (100_000.0, 100_000.0)}  # dollars per call, not cents
    app_ = create_service_app(settings)
    async with app_.router.lifespan_context(app_), \
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app_), base_url="http://localhost") as c:
        methods = {m["name"]: m for m in (await c.get("/ideation/methods")).json()}
        assert {"toy_writer", "toy_panel", "soiq"} <= set(methods)
        assert set(methods["toy_writer"]["request_schema"]["properties"]) >= {"method", "topic", "ideas", "style"}
        r = await c.post("/ideation/sessions", json={"method": "toy_writer", "topic": "sparse attention kernels",
                                                     "ideas": 2, "budget_usd": 1})
        assert r.status_code == 202, r.text
        sid = r.json()["id"]
        events = parse_sse((await c.get(f"/ideation/sessions/{sid}/events")).text)
        assert json.loads(events[-1]["data"])["status"] == "stopped"
        assert "usage" in [e.get("event") for e in events]
        st = (await c.get(f"/ideation/sessions/{sid}")).json()
        assert st["status"] == "stopped" and [i["title"] for i in st["ideas"]] == ["Alpha"]
        r = await c.post(f"/ideation/sessions/{sid}/resume", json={"budget_usd": 1000})
        assert r.status_code == 202, r.text
        events = parse_sse((await c.get(f"/ideation/sessions/{sid}/events")).text)
        assert json.loads(events[-1]["data"])["status"] == "completed"
        st = (await c.get(f"/ideation/sessions/{sid}")).json()
        assert [i["title"] for i in st["ideas"]] == ["Alpha", "Beta"]
        listed = (await c.get("/ideation/sessions", params={"method": "toy_writer"})).json()
        assert [x["id"] for x in listed] == [sid]
        # bad bodies are 422: the union is discriminated by method, each member has its config's limits
        bad = [{"method": "toy_writer", "topic": "sparse attention", "style": "medium"},
               {"method": "toy_writer", "topic": "sparse attention", "draws": 2},
               {"method": "toy_panel", "topic": "sparse attention", "min_score": 2}]
        for body in bad:
            assert (await c.post("/ideation/sessions", json=body)).status_code == 422, body


async def test_http_failure_reason_recorded(toys, settings, tmp_path):
    """Any exception ends the run as failed with the reason in status.json (never left running)."""
    script = tmp_path / "f.json"
    script.write_text(json.dumps({"replies": [{"error": "timeout"}]}))
    reset_scripted_models()
    settings.llm.model = f"scripted:{script}"
    settings.llm.cache = False
    settings.llm.max_retries = 0
    settings.llm.timeout_retries = 0
    app_ = create_service_app(settings)
    async with app_.router.lifespan_context(app_), \
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app_), base_url="http://localhost") as c:
        sid = (await c.post("/ideation/sessions", json={"method": "toy_writer", "topic": "sparse attention kernels",
                                                        "ideas": 1})).json()["id"]
        await app_.state.ideation_jobs.wait(sid)
        st = (await c.get(f"/ideation/sessions/{sid}")).json()
        assert st["status"] == "failed" and st["error"] and "Timeout" in st["error"], st


async def test_http_toy_panel_with_tools_route_and_sse(toys, settings, store, embedder, tmp_path):
    from motivgraph.api.services import ToolService
    from tests.integration.agents.soiq.soiq_support import build_graph

    rt = build_graph(settings, store, embedder)
    script = tmp_path / "p.json"
    script.write_text(json.dumps({"replies": ["Ants for GNN depth\nCarry pheromones over.", "0.8"]}))
    reset_scripted_models()
    settings.llm.model = f"scripted:{script}"
    settings.llm.cache = False
    app_ = create_service_app(ToolService(rt))
    async with app_.router.lifespan_context(app_), \
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app_), base_url="http://localhost") as c:
        info = await c.get("/ideation/methods/toy_panel/info")
        assert info.status_code == 200 and info.json() == {"method": "toy_panel",
                                                           "roles": ["toy_panel.proposer", "toy_panel.judge"]}
        r = await c.post("/ideation/sessions", json={"method": "toy_panel", "topic": "oversmoothing in deep GNNs",
                                                     "draws": 2})
        assert r.status_code == 202, r.text
        sid = r.json()["id"]
        events = parse_sse((await c.get(f"/ideation/sessions/{sid}/events")).text)
        data = [json.loads(e["data"]) for e in events if e.get("event") == "tool_result"]
        # the alias get_random_nodes and the arg spelling "number" were accepted; canonical name recorded
        assert [d["name"] for d in data] == ["random_nodes", "node_search"] and all(d["ok"] for d in data)
        assert "Oversmoothing in deep message passing" in data[1]["text"]
        st = (await c.get(f"/ideation/sessions/{sid}")).json()
        assert st["status"] == "completed"
        (idea,) = st["ideas"]
        assert idea["title"] == "Ants for GNN depth" and idea["extra"]["score"] == 0.8
        assert len(idea["extra"]["drawn"]) == 2
        assert set(st["usage"]) == {"toy_panel.proposer", "toy_panel.judge", "total"}
