"""`motivgraph graph stats|export|import|push`, `search` and `reindex` through typer's CliRunner,
against the embedded FalkorDB (settings come from MOTIVGRAPH_* env, as for a user)."""

from __future__ import annotations

import json
import os
import uuid

import pytest
from typer.testing import CliRunner

from bench.synthetic import SyntheticGraph
from motivgraph.cli import app
from motivgraph.graph import open_store
from motivgraph.graph.models import NodeIn, TripleIn
from motivgraph.graph.vector_index import node_text

runner = CliRunner()


@pytest.fixture(autouse=True)
def _embedder_cached(embedder):
    """The CLI gets its model from get_embedder(); the session fixture already loaded that one."""
    return embedder


@pytest.fixture
def env(settings, store, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no stray .env
    for k in [k for k in os.environ if k.startswith("MOTIVGRAPH_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_FALKORDB_URL", settings.graph.falkordb_url)
    monkeypatch.setenv("MOTIVGRAPH_GRAPH_NAME", settings.graph.name)
    return monkeypatch


@pytest.fixture
def graph(store):
    g = SyntheticGraph(scale=0.002, seed=3)
    store.upsert_papers(g.papers)
    for batch in g.triple_batches(100):
        store.upsert_triples(batch)
    store.add_parents(g.parents)
    return g


def test_stats_json_and_table(env, store, graph):
    res = runner.invoke(app, ["graph", "stats", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    st = store.stats()
    assert data["nodes"] == st.nodes and data["triples"] == st.triples and data["index"]["nodes"] == "missing"
    res = runner.invoke(app, ["graph", "stats"])
    assert res.exit_code == 0 and "HAS_CHALLENGE" in res.stdout and "node index" in res.stdout


def test_search_before_reindex_says_how_to_fix(env, graph):
    res = runner.invoke(app, ["search", "attention memory"])
    assert res.exit_code == 1
    assert "motivgraph reindex" in res.output


def test_reindex_then_search(env, store, graph):
    res = runner.invoke(app, ["reindex"])
    assert res.exit_code == 0, res.output
    assert "ok" in res.stdout
    res = runner.invoke(app, ["reindex", "--check"])
    assert res.exit_code == 0, res.output

    target = graph.nodes["challenge"][0]
    res = runner.invoke(app, ["search", node_text(target.name, target.description), "-k", "3", "--json"])
    assert res.exit_code == 0, res.output
    hits = json.loads(res.stdout)
    assert hits[0]["name"] == target.name and hits[0]["type"] == "challenge" and len(hits) == 3

    res = runner.invoke(app, ["search", target.name, "--type", "solution", "-k", "4", "--json"])
    assert {h["type"] for h in json.loads(res.stdout)} == {"solution"}

    res = runner.invoke(app, ["search", target.name, "-k", "2"])
    assert res.exit_code == 0 and "score" in res.stdout and target.name[:20] in res.stdout

    res = runner.invoke(app, ["search", "x", "--type", "gadget"])
    assert res.exit_code == 3 and "gadget" in res.output and "not a node type" in res.output

    # a write the index has not seen: reported, not answered
    t0 = graph.triples[0]
    store.upsert_triples([TripleIn(paper_id="new", index=0, problem=NodeIn(name="Brand new problem"),
                                   challenge=t0.challenge, solution=t0.solution)])
    res = runner.invoke(app, ["reindex", "--check"])
    assert res.exit_code == 1 and "stale" in res.output
    res = runner.invoke(app, ["search", "brand new problem"])
    assert res.exit_code == 1 and "stale" in res.output and "motivgraph reindex" in res.output


def test_export_import_round_trip_via_cli(env, settings, store, graph, tmp_path, falkordb_server):
    out = tmp_path / "g.jsonl"
    res = runner.invoke(app, ["graph", "export", str(out)])
    assert res.exit_code == 0, res.output
    first = out.read_text(encoding="utf-8")

    other = settings.model_copy(deep=True)
    other.graph.name = f"t_{uuid.uuid4().hex[:12]}"
    env.setenv("MOTIVGRAPH_GRAPH_NAME", other.graph.name)
    try:
        res = runner.invoke(app, ["graph", "import", str(out)])
        assert res.exit_code == 0, res.output
        assert "reindex" in res.output
        again = tmp_path / "again.jsonl"
        assert runner.invoke(app, ["graph", "export", str(again)]).exit_code == 0
        assert again.read_text(encoding="utf-8") == first
        res = runner.invoke(app, ["graph", "export", "-"])
        assert res.exit_code == 0 and res.stdout.startswith('{"kind":"header"')
    finally:
        st = open_store(other)
        st.drop_graph() if hasattr(st, "drop_graph") else st.clear()
        st.close()


def test_import_with_bad_lines_exits_non_zero_with_summary(env, store, graph, tmp_path):
    before = store.stats()
    out = tmp_path / "g.jsonl"
    assert runner.invoke(app, ["graph", "export", str(out)]).exit_code == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    lines.insert(2, "not json at all")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["graph", "import", str(bad), "--replace"])
    assert res.exit_code == 1
    assert "line 3:" in res.output and "not valid JSON" in res.output and "1 bad line" in res.output
    after = store.stats()  # --replace then every valid line: the same graph as before
    assert (after.nodes, after.relationships, after.triples) == (before.nodes, before.relationships, before.triples)


def test_import_missing_file(env):
    res = runner.invoke(app, ["graph", "import", "/nonexistent/file.jsonl"])
    assert res.exit_code == 3 and "No such file" in res.output


def test_push_to_unreachable_neo4j_names_the_problem(env, graph):
    pytest.importorskip("motivgraph.graph.backends.neo4j", reason="the Neo4j backend module is not there yet")
    res = runner.invoke(
        app, ["graph", "push", "--neo4j-uri", "bolt://127.0.0.1:9", "--neo4j-password", "x"], catch_exceptions=False
    )
    assert res.exit_code == 4, res.output
    assert "127.0.0.1:9" in res.output or "neo4j" in res.output.lower()


def test_every_command_has_help():
    for args in (["graph", "export"], ["graph", "import"], ["graph", "push"], ["graph", "stats"], ["search"],
                 ["reindex"]):
        res = runner.invoke(app, [*args, "--help"])
        assert res.exit_code == 0 and "Usage" in res.stdout, args


def test_search_evidence_shows_the_quotes_of_each_match(env, store, graph):
    """`search --evidence` (the README's quick-start line): each match with the quotes that state it --
    paper, page, section, located or not -- in the table and in --json."""
    from motivgraph.graph.models import Evidence, PaperRecord, Quote

    store.upsert_papers([PaperRecord(paper_id="doi:10.5/ev", title="A quoted paper", year=2022)])
    quoted = TripleIn(
        paper_id="doi:10.5/ev", index=0, section="introduction",
        problem=NodeIn(name="Counting migratory birds from radar echoes"),
        challenge=NodeIn(name="Radar echoes of insects mimic bird flocks"),
        solution=NodeIn(name="Wingbeat frequency filtering"),
        evidence=Evidence(
            challenge=[Quote(text="Insect swarms return radar echoes that look like small flocks.", verified=True,
                             section="Introduction", page=2, start=400, end=462),
                       Quote(text="Insects are birds.", verified=False, reason="not found in the paper")]),
    )
    store.upsert_triples([quoted])
    assert runner.invoke(app, ["reindex"]).exit_code == 0

    res = runner.invoke(app, ["search", "Radar echoes of insects mimic bird flocks", "-k", "2", "--evidence"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    assert "Insect swarms return radar echoes" in out and "A quoted paper (2022), p. 2, Introduction" in out
    assert "✓" in out and "not found in the paper" in out

    res = runner.invoke(app, ["search", "Radar echoes of insects mimic bird flocks", "-k", "1", "--evidence", "--json"])
    (hit,) = json.loads(res.stdout)
    (st,) = hit["evidence"]
    assert (st["paper_id"], st["element"], st["quotes"][0]["page"]) == ("doi:10.5/ev", "challenge", 2)
    # without the flag the JSON is what it was
    res = runner.invoke(app, ["search", "Radar echoes of insects mimic bird flocks", "-k", "1", "--json"])
    assert "evidence" not in json.loads(res.stdout)[0]
