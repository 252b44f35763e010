"""A separate package adds one part of every kind through entry points alone (motivgraph/plugins.py).

`tests/fixtures/plugin_package` is a package of its own (`motivgraph-toy-plugin`). It is built and installed
with pip into a folder of its own, and that folder put on the path: nothing registers it and no file of the
project names it. Its tool is then an HTTP route, in `GET /tools`, an MCP tool and an agent's tool (by its
alias); its method is listed by `motivgraph ideate --list-methods` (in a fresh process) and runs on the
platform, calling the plugin tool through the run's toolbox. Its command, input kind, LLM provider, graph,
index and parser backends and MindFlow operator are each used through the product's own entry to that kind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from motivgraph import hookspecs, plugins
from motivgraph.hookspecs import SPECS
from motivgraph.llm import ScriptedChatModel
from tests.integration.api.conftest import api_settings, service  # noqa: F401 (fixtures)

PACKAGE = Path(__file__).resolve().parents[2] / "fixtures" / "plugin_package"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toy package installed by pip into a folder of its own (its build and metadata are pip's)."""
    target = tmp_path_factory.mktemp("plugin-site")
    source = tmp_path_factory.mktemp("plugin-src") / PACKAGE.name  # pip builds in the source tree: not the repo's
    shutil.copytree(PACKAGE, source)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert list(target.glob("motivgraph_toy_plugin-*.dist-info/entry_points.txt"))
    return target


@pytest.fixture
def installed(site: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This process sees the package as installed: its folder on the path, the entry points read again."""
    monkeypatch.syspath_prepend(str(site))
    plugins.rescan()
    yield site
    monkeypatch.undo()
    for name in [m for m in sys.modules if m.startswith("motivgraph_toy")]:
        del sys.modules[name]
    plugins.rescan()


async def _stats(web: httpx.AsyncClient) -> dict[str, Any]:
    r = await web.get("/stats")
    assert r.status_code == 200, r.text
    stats: dict[str, Any] = r.json()
    return stats


# kind -> the toy package's part of it (tests/fixtures/plugin_package/pyproject.toml)
TOY_PARTS = {"methods": "census_notes", "tools": "graph_census", "commands": "toy-hello", "input_kinds": "toy_text",
             "llm_providers": "toyecho", "graph_backends": "counting", "index_backends": "never_ready",
             "parsers": "toy_names", "operators": "keep"}


def test_the_package_has_a_part_of_every_kind() -> None:
    assert set(TOY_PARTS) == set(SPECS)


def test_without_the_package_there_is_no_toy() -> None:
    assert not [kind for kind, name in TOY_PARTS.items() if name in plugins.names(kind)]  # type: ignore[arg-type]


def test_every_toy_part_is_found_and_checked_against_its_protocol(installed: Path) -> None:
    for kind, name in TOY_PARTS.items():
        assert plugins.names(kind)[-1] == name, kind  # type: ignore[arg-type]
        hookspecs.check(kind, name, plugins.load(kind, name))  # type: ignore[arg-type]


def test_the_toy_command_runs_under_the_root_cli(installed: Path) -> None:
    from typer.testing import CliRunner

    from motivgraph.cli import app

    out = CliRunner().invoke(app, ["toy-hello", "reader"])
    assert out.exit_code == 0, out.output
    assert out.output.strip() == "hello reader from the toy plugin"
    assert "toy-hello" in CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output


def test_the_toy_input_kind_claims_its_files(installed: Path, tmp_path: Path) -> None:
    from motivgraph.ingest.plan import kind_of

    kind = kind_of(tmp_path / "notes.toy.txt")
    assert kind is not None and kind.name == "toy_text"


async def test_the_toy_provider_answers_models_named_after_it(installed: Path, tmp_path: Path) -> None:
    from motivgraph.llm import DEFAULT_ROLE, LLMClient
    from motivgraph.settings import LLMSettings, Settings

    settings = Settings(data_dir=tmp_path, llm=LLMSettings(model="toyecho:tiny-1", cache=False),  # type: ignore[arg-type]
                        _env_file=None)  # type: ignore[call-arg]
    reply = await LLMClient(settings).chat(DEFAULT_ROLE, [{"role": "user", "content": "hi"}])
    assert reply.content.startswith("toyecho tiny-1 within ")


def test_the_toy_graph_and_index_backends_are_chosen_by_their_settings(installed: Path, api_settings: Any) -> None:  # noqa: F811
    from motivgraph.graph import open_store
    from motivgraph.graph.search_backends import node_index_status

    # model_copy skips validation: the settings' backend choices name the built-in backends only
    settings = api_settings.model_copy(update={
        "graph": api_settings.graph.model_copy(update={"backend": "counting"}),
        "index": api_settings.index.model_copy(update={"backend": "never_ready"}),
    })
    parts = plugins.load("graph_backends", "counting")
    before = parts.opened
    store = open_store(settings)
    try:
        assert parts.opened == before + 1
        assert node_index_status(settings, store).message == "the toy index is never built"
    finally:
        store.close()


async def test_the_toy_parser_is_made_by_name(installed: Path, tmp_path: Path) -> None:
    from motivgraph.ingest.parsers import make_parser
    from motivgraph.settings import IngestSettings

    parser = await make_parser(IngestSettings(), "toy_names")  # type: ignore[arg-type]
    paper = await parser.parse(tmp_path / "a-paper.pdf", "0" * 64)
    await parser.aclose()
    assert paper.title == "a-paper"


def test_the_toy_operator_joins_the_supernet(installed: Path) -> None:
    from motivgraph.agents.mindflow.config import FlowConfig
    from motivgraph.agents.mindflow.operators import get_operator, resolve_operators

    assert resolve_operators(FlowConfig())[-1] == "keep"
    assert get_operator("keep").name == "keep"


async def test_the_plugin_tool_reaches_http_mcp_and_the_toolbox(service: Any, installed: Path) -> None:  # noqa: F811
    from motivgraph.agents.core.toolbox import Toolbox
    from motivgraph.agents.tools.inprocess import InProcessToolClient
    from motivgraph.api.app import create_app
    from motivgraph.api.mcp import tool_definitions

    app = create_app(service)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as web:
        stats = await _stats(web)
        r = await web.post("/tools/graph_census", json={"labels": ["Problem", "Solution"]})
        assert r.status_code == 200, r.text
        assert r.json() == {"counts": {"Problem": stats["nodes"]["Problem"], "Solution": stats["nodes"]["Solution"]},
                            "triples": stats["triples"]}
        assert (await web.post("/tools/graph_census", json={"labels": []})).status_code == 422
        listed = {t["function"]["name"] for t in (await web.get("/tools")).json()["tools"]}
        assert {"graph_census", "node_search"} <= listed
    assert "graph_census" in {t.name for t in tool_definitions()}
    local = InProcessToolClient(service)
    try:
        box = Toolbox(local, topic="graph census")
        out = await box.execute("census", {"labels": "Challenge"})  # alias, and one value for a list
        assert out.ok, out.text
        assert out.data["counts"] == {"Challenge": stats["nodes"]["Challenge"]}
    finally:
        await local.aclose()


async def test_the_plugin_method_runs_with_the_plugin_tool(
    service: Any, installed: Path, api_settings: Any, tmp_path: Path  # noqa: F811
) -> None:
    from motivgraph.agents.core import PlatformLLMClient, RunSpec, create_run, method_names, run_method
    from motivgraph.agents.tools.inprocess import InProcessToolClient
    from motivgraph.api.app import create_app

    assert "census_notes" in method_names()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(service)),
                                 base_url="http://localhost") as web:
        nodes = (await _stats(web))["nodes"]
    settings = api_settings.model_copy(update={"data_dir": tmp_path})
    run = create_run(settings.runs_dir, RunSpec(method="census_notes", topic="graph census", config={"ideas": 2}))
    local = InProcessToolClient(service)
    try:
        llm = PlatformLLMClient(settings, model=ScriptedChatModel([]))  # the method calls no model
        out = await run_method(settings, run, llm=llm, tool_client=local)
    finally:
        await local.aclose()
    assert out.status == "completed"
    assert [i.title for i in out.ideas] == [f"Problems to build on: {nodes['Problem']}",
                                            f"Challenges to build on: {nodes['Challenge']}"]


def test_a_fresh_process_lists_the_plugin_method_and_tool(site: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
           "MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "200"}
    exe = Path(sys.executable).with_name("motivgraph")
    listing = subprocess.run([str(exe), "ideate", "--list-methods"], env=env, capture_output=True, text=True,
                             timeout=120)
    assert listing.returncode == 0, listing.stderr
    assert "census_notes" in listing.stdout and "soiq" in listing.stdout
    code = "import json; from motivgraph.api.contract.tools import tool_names; print(json.dumps(tool_names()))"
    tools = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert tools.returncode == 0, tools.stderr
    assert json.loads(tools.stdout)[-1] == "graph_census"  # after the built-in tools
