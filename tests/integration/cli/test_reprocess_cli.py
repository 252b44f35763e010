"""CLI: `motivgraph ingest --re-extract`, `papers list|delete`, `merges list|undo` — exit codes,
JSON output and one-line errors, over the real store with a scripted model configured through
MOTIVGRAPH_LLM_MODEL=scripted:PATH (the quick start's "set an LLM, then upgrade the triples")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from motivgraph.cli import app
from tests.reprocess_support import ingest, script_file, write_jsonl


def _json(out: str) -> object:
    return json.loads(out[out.index("{") if out.lstrip().startswith("{") else out.index("["):])


def test_reprocess_commands(tmp_path: Path, settings, store) -> None:  # type: ignore[no-untyped-def]
    src = write_jsonl(tmp_path / "papers.jsonl")
    asyncio.run(ingest(settings, src, llm=False))  # the quick start's first ingest: no LLM set
    env = {
        "MOTIVGRAPH_DATA_DIR": str(settings.data_dir),
        "MOTIVGRAPH_GRAPH_FALKORDB_URL": settings.graph.falkordb_url or "",
        "MOTIVGRAPH_GRAPH_NAME": settings.graph.name,
        "MOTIVGRAPH_LLM_MODEL": f"scripted:{script_file(tmp_path / 'model.json')}",
    }
    runner = CliRunner()
    r = runner.invoke(app, ["ingest", "--re-extract", "--only-extractor", "bogus"], env=env)
    assert r.exit_code == 3 and "--only-extractor must be one of" in r.output

    r = runner.invoke(app, ["ingest", "--re-extract", "--only-extractor", "heuristic", "--json"], env=env)
    assert r.exit_code == 0, r.output
    rep = _json(r.stdout)
    assert isinstance(rep, dict) and len(rep["reextracted"]) == 4 and rep["extractor"] == "llm"

    r = runner.invoke(app, ["papers", "list", "--json"], env=env)
    assert r.exit_code == 0, r.output
    papers = _json(r.stdout)
    assert isinstance(papers, list) and {p["extractor"] for p in papers} == {"llm"} and len(papers) == 4

    r = runner.invoke(app, ["merges", "list", "--paper", "id:p2", "--json"], env=env)
    assert r.exit_code == 0, r.output
    merges = _json(r.stdout)
    assert isinstance(merges, list)
    auto = next(m for m in merges if m["decision"] == "auto_merge")
    r = runner.invoke(app, ["merges", "undo", str(auto["id"])], env=env)
    assert r.exit_code == 0, r.output
    assert "papers replayed" in r.output
    r = runner.invoke(app, ["merges", "list"], env=env)
    assert r.exit_code == 0 and "(undone)" in r.output
    assert store.get_node(auto["mention_key"]) is not None
    r = runner.invoke(app, ["merges", "undo", "999999"], env=env)
    assert r.exit_code == 1 and "no decision #999999" in r.output

    r = runner.invoke(app, ["papers", "delete", "id:p0"], env=env)
    assert r.exit_code == 1 and "--yes" in r.output and store.get_paper("id:p0") is not None
    r = runner.invoke(app, ["papers", "delete", "nope", "--yes"], env=env)
    assert r.exit_code == 1 and "no paper 'nope'" in r.output
    r = runner.invoke(app, ["papers", "delete", "10.1234/QUX.5", "--yes", "--json"], env=env)
    assert r.exit_code == 0, r.output
    assert _json(r.stdout)["deleted"] == ["doi:10.1234/qux.5"]  # type: ignore[index]
    assert store.get_paper("doi:10.1234/qux.5") is None
