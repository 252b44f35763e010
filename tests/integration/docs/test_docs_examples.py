"""The worked examples of docs/extending.md run as the page says: each file of docs/examples/ is imported
and used through the product's own surfaces (tool table, method registry, LLM client, store conformance
suite). When an extension point changes, these fail until the page and its example are updated."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from motivgraph.graph.base import GraphStore
from tests.integration.api.conftest import PAPERS, QUANT, api_settings, service  # noqa: F401 (fixtures)
from tests.integration.graph.test_store_conformance import TestConformance as _Conformance
from tests.uvicorn_support import served

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"
PAGE = EXAMPLES.parent / "extending.md"


@pytest.fixture
def examples(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Imports an example by file name, as a top-level module (its "module:function" paths use that name)."""
    monkeypatch.syspath_prepend(str(EXAMPLES))
    loaded: list[str] = []

    def load(name: str) -> ModuleType:
        loaded.append(name)
        return importlib.import_module(name)

    yield load
    for name in loaded:
        sys.modules.pop(name, None)


def test_the_page_shows_every_example_and_names_its_file() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for path in sorted(EXAMPLES.glob("*.py")):
        assert f"examples/{path.name}" in page, f"docs/extending.md does not show {path.name}"


# ---- add a tool


async def test_add_tool_reaches_http_and_the_clients(
    service: Any,  # noqa: F811 (the fixture imported above)
    examples: Any,
    register_part: Any,
) -> None:
    from motivgraph.agents.tools.inprocess import InProcessToolClient
    from motivgraph.api.app import create_app

    ex = examples("add_tool")
    register_part("tools", ex.PAPERS_OF_NODE.name, ex.PAPERS_OF_NODE)
    app = create_app(service)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as web:
        r = await web.post("/tools/papers_of_node", json={"name": QUANT})
        assert r.status_code == 200, r.text
        titles = {p["title"] for p in r.json()["papers"]}
        assert titles and titles <= {p.title for p in PAPERS}
        assert "Low-bit quantization of large language models" in titles
        missing = await web.post("/tools/papers_of_node", json={"name": "no such node anywhere"})
        assert missing.status_code == 404
        bad = await web.post("/tools/papers_of_node", json={"name": QUANT, "limit": 0})
        assert bad.status_code == 422
        listed = {t["function"]["name"] for t in (await web.get("/tools")).json()["tools"]}
        assert "papers_of_node" in listed
    local = InProcessToolClient(service)
    try:
        res = await local.call("node_papers", {"name": QUANT.split(":", 1)[1]})  # by alias and plain name
        assert isinstance(res, ex.PapersOfNodeResult) and res.key == QUANT
        assert {p.title for p in res.papers} == titles
    finally:
        await local.aclose()


# ---- add a method


def _background(tmp_path: Path) -> Path:
    path = tmp_path / "background.jsonl"
    rows = [
        {
            "paper_id": "doi:10.1/x",
            "title": "Sparse attention for long documents",
            "abstract": "Attention restricted to local windows and a few global tokens.",
        }
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


async def test_add_method_runs_on_the_platform(settings: Any, examples: Any, tmp_path: Path) -> None:
    from motivgraph.agents.core import PlatformLLMClient, RunSpec, create_run, register, run_method, unregister
    from motivgraph.llm import ScriptedChatModel

    ex = examples("add_method")
    register(ex.TitleStorm)
    try:
        settings.llm.cache = False
        llm = PlatformLLMClient(settings, model=ScriptedChatModel(["1. Sliding windows\n2. Learned sparsity\n3. X"]))
        spec = RunSpec(
            method="title_storm",
            topic="long-context language models",
            config={"ideas": 2},
            background_file=str(_background(tmp_path)),
        )
        run = create_run(settings.runs_dir, spec)
        out = await run_method(settings, run, llm=llm, tool_client=None)
        assert [i.title for i in out.ideas] == ["Sliding windows", "Learned sparsity"]
        assert out.status == run.status()["status"] == "completed"
        assert [i["title"] for i in run.ideas()] == ["Sliding windows", "Learned sparsity"]
        assert "title_storm.writer" in json.dumps(out.usage)  # usage is accounted under the method's role

        from motivgraph.cli import app

        listing = CliRunner().invoke(app, ["ideate", "--list-methods"], env={"COLUMNS": "200"})
        assert listing.exit_code == 0 and "title_storm" in listing.output and "--ideas" in listing.output
    finally:
        unregister("title_storm")


# ---- add an LLM provider


async def test_add_provider_answers_through_the_llm_client(examples: Any, tmp_path: Path) -> None:
    from motivgraph.llm import LLMClient

    ex = examples("add_provider")
    seen: list[Any] = []

    def reply(messages: list[dict[str, Any]]) -> str:
        seen.append(messages)
        return "house reply: " + str(messages[-1]["content"]).upper()

    with served(ex.endpoint(reply), lifespan="off") as url:
        settings = ex.settings_for(f"{url}/v1", tmp_path / "data")
        client = LLMClient(settings)
        msg = await client.chat("mentor", "hello")
        assert str(msg.content) == "house reply: HELLO"
        again = await client.chat("mentor", "hello")  # from the disk cache
        assert str(again.content) == "house reply: HELLO" and len(seen) == 1
        usage = client.usage.to_dict()
        assert usage["total"]["calls"] >= 1


# ---- add a graph backend: the whole conformance suite on the example


class TestExampleBackendConformance(_Conformance):
    @pytest.fixture
    def gstore(self, store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> GraphStore:
        monkeypatch.syspath_prepend(str(EXAMPLES))
        ex = importlib.import_module("add_backend")
        return ex.RecordingStore(store)  # type: ignore[no-any-return]

    def test_statements_are_recorded(self, gstore: GraphStore) -> None:
        gstore.stats()
        assert gstore.statements and gstore.statements[-1][0] == "read"  # type: ignore[attr-defined]


def test_add_backend_is_opened_by_its_setting(examples: Any, api_settings: Any) -> None:  # noqa: F811
    from motivgraph import plugins
    from motivgraph.graph import open_store

    ex = examples("add_backend")
    # model_copy skips validation: the setting's choices name the built-in backends
    settings = api_settings.model_copy(
        update={"graph": api_settings.graph.model_copy(update={"backend": "recording"})})
    with plugins.registered("graph_backends", "recording", ex.RecordingStore):
        store = open_store(settings)
    try:
        assert isinstance(store, ex.RecordingStore)
        store.stats()
        assert store.statements
    finally:
        store.close()
