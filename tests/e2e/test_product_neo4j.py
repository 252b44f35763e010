"""The whole product on Neo4j (graph AND index backend), end to end, beside the embedded store.

One pipeline, run twice on the same corpus PDFs — once on the embedded FalkorDB + FAISS, once on a
real Neo4j (tests/neo4j_support.py) with MOTIVGRAPH_INDEX_BACKEND=neo4j: `ingest` (offline parser and
offline extractor: no LLM set), `parents build --offline`, `reindex`, the API in process (every tool
of the tool table, so a new tool is covered without editing this file, plus /triples, /nodes,
/papers, /stats, /health), one SoIQ run with the scripted model, and `graph export`. The canonical
exports must be equal, except `created_at`, which is the wall clock of each run, not of the inputs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from motivgraph.cli import app
from motivgraph.llm import reset_scripted_models
from motivgraph.settings import Settings
from tests.conftest import CORPUS_DIR

pytestmark = [pytest.mark.e2e, pytest.mark.neo4j]

PDF_DIR = CORPUS_DIR / "pdf"


def _cli(args: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> str:
    res = CliRunner().invoke(app, args, env=env)
    assert res.exit_code in ok, f"motivgraph {' '.join(args)} exited {res.exit_code}:\n{res.output}"
    return res.output


def _tool_body(name: str, key: str, topic: str) -> dict[str, Any]:
    """A valid request for any tool of the table, from its request model's fields."""
    from motivgraph.api.contract.tools import get_tool

    spec = get_tool(name)
    assert spec is not None
    body: dict[str, Any] = {}
    for field, info in spec.request.model_fields.items():
        if not info.is_required():
            continue
        if field in ("names",):
            body[field] = [key]
        elif field in ("query", "topic"):
            body[field] = topic
        else:
            pytest.fail(f"tool {name}: no value for its required field {field!r}; extend _tool_body")
    return body


async def _call_api(settings: Settings) -> dict[str, Any]:
    from motivgraph.api.app import create_app
    from motivgraph.api.contract.tools import all_tools

    seen: dict[str, Any] = {}
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            health = await client.get("/health")
            assert health.status_code == 200, health.text
            assert health.json()["status"] == "ok", health.text
            stats = (await client.get("/stats")).json()
            page = await client.get("/triples")
            assert page.status_code == 200, page.text
            triples = page.json()
            first = triples["items"][0] if "items" in triples else triples["triples"][0]
            key = first["challenge"]["key"]
            node = await client.get(f"/nodes/{key}")
            assert node.status_code == 200, node.text
            paper = await client.get(f"/papers/{first['papers'][0]}")
            assert paper.status_code == 200, paper.text
            for spec in all_tools():
                r = await client.post(f"/tools/{spec.name}", json=_tool_body(spec.name, key, first["problem"]["name"]))
                assert r.status_code == 200, f"{spec.name}: {r.status_code} {r.text}"
                seen[spec.name] = r.json()
            seen.update(stats=stats, node=node.json(), paper=paper.json())
    return seen


def _pipeline(env: dict[str, str], papers: Path, tmp: Path) -> tuple[list[str], dict[str, Any]]:
    import asyncio

    # A corpus may hold a document no parser can read (a scanned PDF): ingest then exits 1 and names it in its
    # report; the two stores must fail the same files for the same reasons.
    _cli(["ingest", str(papers)], env, ok=(0, 1))
    failed = {reason: sorted(Path(d["path"]).name for d in docs)
              for reason, docs in json.loads(_cli(["ingest", "report", "--json"], env, ok=(0, 1)))["failures"].items()}
    _cli(["parents", "build", "--offline"], env)
    _cli(["reindex"], env)
    os.environ.update(env)  # the app reads its settings as `motivgraph serve` does
    try:
        seen = asyncio.run(_call_api(Settings(_env_file=None)))  # type: ignore[call-arg]
    finally:
        for k in env:
            os.environ.pop(k, None)
    script = tmp / "llm.json"
    script.write_text(json.dumps({"default": {"call": "tests.fixtures.quickstart_llm:reply"}}))
    reset_scripted_models()
    _cli(["ideate", "graph learning under label noise", "--method", "soiq", "--ideas", "1"],
         {**env, "MOTIVGRAPH_LLM_MODEL": f"scripted:{script}"})
    out = tmp / "export.jsonl"
    _cli(["graph", "export", str(out)], env)
    lines = []
    for ln in out.read_text(encoding="utf-8").splitlines():
        row = json.loads(ln)
        row.pop("created_at", None)  # each run's clock, not the inputs
        lines.append(json.dumps(row, sort_keys=True))
    seen["ingest failures"] = failed
    return lines, seen


def test_product_on_neo4j_equals_embedded(tmp_path: Path, neo4j_settings: Settings,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    if not PDF_DIR.is_dir():
        pytest.skip(f"SKIPPED LOUDLY: the shared corpus is absent ({PDF_DIR}); this e2e test needs it")
    papers = tmp_path / "papers"
    papers.mkdir()
    for pdf in sorted(PDF_DIR.glob("*.pdf")):  # the whole shared corpus, as a user ingests it
        (papers / pdf.name).symlink_to(pdf)
    for var in list(os.environ):
        if var.startswith("MOTIVGRAPH_"):
            monkeypatch.delenv(var)
    monkeypatch.chdir(tmp_path)
    neo = neo4j_settings.neo4j
    base = {"MOTIVGRAPH_GRAPH_NAME": "e2e_product"}
    embedded = {**base, "MOTIVGRAPH_DATA_DIR": str(tmp_path / "embedded")}
    on_neo4j = {**base, "MOTIVGRAPH_DATA_DIR": str(tmp_path / "neo4j"), "MOTIVGRAPH_GRAPH_BACKEND": "neo4j",
                "MOTIVGRAPH_INDEX_BACKEND": "neo4j", "MOTIVGRAPH_NEO4J_URI": str(neo.uri),
                "MOTIVGRAPH_NEO4J_USER": neo.user, "MOTIVGRAPH_NEO4J_PASSWORD": neo.password.get_secret_value(),
                "MOTIVGRAPH_NEO4J_DATABASE": neo.database}
    from motivgraph.graph import open_store

    target = open_store(neo4j_settings)
    target.clear()  # the database is shared: start from no MotivGraph labels
    try:
        want, seen_embedded = _pipeline(embedded, papers, _mk(tmp_path / "e"))
        got, seen_neo4j = _pipeline(on_neo4j, papers, _mk(tmp_path / "n"))
    finally:
        target.clear()
        target.close()
    assert json.loads(want[-1])["counts"]["triple"] > 0
    assert got == want
    assert seen_neo4j["ingest failures"] == seen_embedded["ingest failures"]
    n_failed = sum(map(len, seen_embedded["ingest failures"].values()))
    assert n_failed < len(list(papers.iterdir())) // 4, seen_embedded["ingest failures"]
    # the graphs are equal (above); /stats also reports backend-specific index state, so its shape is compared
    assert seen_neo4j["stats"].keys() == seen_embedded["stats"].keys()
    assert set(seen_neo4j) == set(seen_embedded)


def _mk(d: Path) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    return d
