"""JSONL interchange on the embedded FalkorDB: exact round trip, malformed lines, kill-and-resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.synthetic import SyntheticGraph
from motivgraph.graph import open_store
from motivgraph.graph.base import GraphStore
from motivgraph.graph.interchange import copy_graph, export_lines, export_to, import_lines, parse_lines
from motivgraph.graph.models import Evidence, NodeIn, PaperRecord, ParentIn, Quote, TripleIn
from motivgraph.settings import Settings

REPO = Path(__file__).resolve().parents[3]


def _other(settings: Settings, server_url: str) -> tuple[Settings, GraphStore]:
    s = settings.model_copy(deep=True)
    s.graph.falkordb_url = server_url
    s.graph.name = f"t_{uuid.uuid4().hex[:12]}"
    return s, open_store(s)


def _drop(st: GraphStore) -> None:
    try:
        drop = getattr(st, "drop_graph", None)
        drop() if drop else st.clear()
    finally:
        st.close()


@pytest.fixture
def target(settings: Settings, falkordb_server) -> Iterator[GraphStore]:
    _, st = _other(settings, falkordb_server.url)
    yield st
    _drop(st)


def fill_small_graph(store: GraphStore) -> None:
    """A graph with the awkward cases: merged spellings (aliases), a node whose key another spelling
    was resolved to, unicode, empty description, section None, two parent levels."""
    store.upsert_papers(
        [
            PaperRecord(paper_id="arxiv:2401.00001", title="Sparse attention for long documents",
                        abstract="We cut memory.", year=2024, venue="ICLR", authors=["A. Ng", "B. Ōta"]),
            PaperRecord(paper_id="doi:10.1/x", title="Label-efficient NER", year=2023),
        ]
    )
    store.upsert_triples(
        [
            TripleIn(
                paper_id="arxiv:2401.00001", index=0, section="introduction",
                # evidence: located quotes (one with no page), an unlocated one with its reason, unicode
                evidence=Evidence(
                    problem=[Quote(text="Summarising long documents remains hard.", verified=True,
                                   section="Introduction", page=1, start=10, end=50)],
                    challenge=[Quote(text="Attention memory grows with n² in the length.", verified=True,
                                     section="abstract", page=None, start=0, end=46),
                               Quote(text="A sentence the paper does not hold.", verified=False,
                                     reason="not found in the paper")],
                ),
                problem=NodeIn(name="Long-document summarisation", description="Summaries of long texts."),
                challenge=NodeIn(name="Quadratic attention cost", description="Memory grows with n²."),
                solution=NodeIn(name="Sparse attention", description="Attend to few positions."),
            ),
            TripleIn(
                paper_id="arxiv:2401.00001", index=1, section=None, extractor="heuristic",
                problem=NodeIn(name="long document summarisation"),  # same key, new spelling → alias
                challenge=NodeIn(name="Context fragmentation", description="Chunks lose cross-chunk links."),
                solution=NodeIn(name="Memory tokens", description="Carry state between chunks."),
            ),
            TripleIn(
                paper_id="doi:10.1/x", index=0, section="abstract",
                problem=NodeIn(name="Low-resource NER", description="Entity tagging with few labels."),
                challenge=NodeIn(name="Label scarcity", description="Annotations are rare."),
                # identity resolution pinned this spelling to an existing node
                solution=NodeIn(name="Sparse attn.", key="solution:sparse attention"),
            ),
        ]
    )
    store.add_parents(
        [
            ParentIn(type="challenge", level=1, parent=NodeIn(name="Resource limits", description="Compute or data."),
                     children=["challenge:quadratic attention cost", "challenge:label scarcity"]),
            ParentIn(type="challenge", level=2, parent=NodeIn(name="Practical constraints"),
                     children=["challenge:resource limits", "challenge:context fragmentation"]),
            ParentIn(type="problem", level=1, parent=NodeIn(name="Data-efficient NLP", description="NLP, less data."),
                     children=["problem:low resource ner", "problem:long document summarisation"]),
        ]
    )


def test_round_trip_is_byte_identical(store, target):
    fill_small_graph(store)
    first = list(export_lines(store))
    quoted = [json.loads(x) for x in first if '"evidence"' in x]
    assert len(quoted) == 1 and quoted[0]["evidence"]["challenge"][1]["reason"] == "not found in the paper"
    kinds = [json.loads(line)["kind"] for line in first]
    assert kinds[0] == "header" and kinds[-1] == "end"
    assert kinds.count("triple") == 3 and kinds.count("parent") == 3 and kinds.count("paper") == 2
    node = next(json.loads(x) for x in first if '"problem:long document summarisation"' in x and '"node"' in x)
    assert "long document summarisation" in node["aliases"]

    report = import_lines(target, first)
    assert report.ok and (report.nodes, report.papers, report.triples, report.parents) == (10, 2, 3, 3)
    assert list(export_lines(target)) == first
    assert target.paper_triples("arxiv:2401.00001")[0].evidence == store.paper_triples("arxiv:2401.00001")[0].evidence
    assert target.stats().model_dump(exclude={"node_version"}) == store.stats().model_dump(exclude={"node_version"})
    # importing again changes nothing
    import_lines(target, first)
    assert list(export_lines(target)) == first


def test_synthetic_round_trip_and_copy(store, target, tmp_path):
    g = SyntheticGraph(scale=0.004, seed=5)
    store.upsert_papers(g.papers)
    for batch in g.triple_batches(100):
        store.upsert_triples(batch)
    store.add_parents(g.parents)
    path = tmp_path / "g.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        counts = export_to(store, fh)
    assert counts["triple"] == g.summary()["triple"] and counts["paper"] == g.summary()["paper"]
    report = copy_graph(store, target, batch_size=37)
    assert report.ok
    with open(path, encoding="utf-8") as fh:
        assert list(export_lines(target)) == [line.rstrip("\n") for line in fh]


def test_malformed_lines_are_reported_and_the_rest_imported(store, target):
    fill_small_graph(store)
    lines = list(export_lines(store))
    bad = {
        3: "{this is not json",
        5: json.dumps({"kind": "node", "type": "problem", "key": "challenge:x", "name": "X"}),
        7: json.dumps({"kind": "triple", "paper_id": "p", "index": 0, "problem": {"name": "P"}}),
        9: json.dumps({"kind": "gadget", "x": 1}),
        11: json.dumps({"kind": "parent", "type": "problem", "level": 1, "parent": {"name": "Q"},
                        "children": ["problem:does not exist"]}),
        13: json.dumps([1, 2]),
        14: json.dumps({"kind": "paper", "paper_id": ""}),
    }
    mixed = list(lines)
    for lineno in sorted(bad):
        mixed.insert(lineno - 1, bad[lineno])
    report = import_lines(target, mixed)
    assert [ln for ln, _ in report.errors] == sorted(bad)
    reasons = dict(report.errors)
    assert "not valid JSON" in reasons[3]
    assert "does not match type" in reasons[5]
    assert "challenge" in reasons[7] and "invalid triple" in reasons[7]
    assert "unknown kind 'gadget'" in reasons[9]
    assert "unknown child" in reasons[11]
    assert "JSON object" in reasons[13]
    assert "paper_id" in reasons[14]
    # every valid line made it
    assert list(export_lines(target)) == lines


@pytest.mark.parametrize(
    "lines, expected",
    [
        ([], "empty"),
        (['{"kind":"node","type":"problem","key":"problem:a","name":"A"}'], "header"),
        (['{"kind":"header","format":"motivgraph-graph","version":99}', '{"kind":"end","counts":{}}'], "version"),
        (['{"kind":"header","format":"motivgraph-graph","version":1}'], "truncated"),
    ],
)
def test_file_level_problems(lines, expected):
    parsed = parse_lines(lines)
    assert parsed.errors and expected in " ".join(r for _, r in parsed.errors)


def _graph_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}
    env.update(
        MOTIVGRAPH_DATA_DIR=str(settings.data_dir),
        MOTIVGRAPH_GRAPH_FALKORDB_URL=settings.graph.falkordb_url or "",
        MOTIVGRAPH_GRAPH_NAME=settings.graph.name,
        HF_HUB_OFFLINE="1",
    )
    return env


@pytest.mark.slow
def test_import_killed_with_sigkill_then_rerun_gives_the_same_graph(store, settings, falkordb_server, tmp_path):
    g = SyntheticGraph(scale=0.03, seed=11)
    store.upsert_papers(g.papers)
    for batch in g.triple_batches(500):
        store.upsert_triples(batch)
    store.add_parents(g.parents)
    path = tmp_path / "export.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        export_to(store, fh)
    expected = path.read_text(encoding="utf-8").splitlines()
    total_states = store.stats().relationships["STATES"]

    tgt_settings, target = _other(settings, falkordb_server.url)
    try:
        cmd = [sys.executable, "-m", "motivgraph", "graph", "import", str(path), "--batch-size", "10"]
        env = _graph_env(tgt_settings)
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        killed_at = None
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            states = target.stats().relationships.get("STATES", 0)
            if states > total_states // 4:  # well inside the triple phase
                proc.send_signal(signal.SIGKILL)
                killed_at = states
                break
            time.sleep(0.02)
        proc.wait(60)
        out = proc.stdout.read().decode() if proc.stdout else ""
        assert killed_at is not None, f"import finished before it could be killed: {out[-2000:]}"
        assert proc.returncode == -signal.SIGKILL
        partial = target.stats().relationships.get("STATES", 0)
        assert partial < total_states, "the kill came too late to test a resume"

        rerun = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert rerun.returncode == 0, rerun.stdout + rerun.stderr
        assert list(export_lines(target)) == expected
        assert target.stats().model_dump(exclude={"node_version"}) == store.stats().model_dump(
            exclude={"node_version"}
        )
    finally:
        _drop(target)


def test_push_code_path_writes_everything_to_neo4j_as_parameterised_batches(store):
    """`graph push` = copy_graph into a Neo4jStore. Here the Neo4j driver is the recording fake of
    the backend's unit tests (the real-server run is tests/e2e/test_interchange_neo4j.py)."""
    from motivgraph.graph.backends.neo4j import Neo4jStore
    from tests.unit.graph.test_neo4j_backend import FakeDriver
    from tests.unit.graph.test_neo4j_backend import settings as neo_settings

    def responder(text: str, params: dict) -> list[dict]:
        rows = params.get("rows") or []
        if "aliases_added" in text:
            return [{"created": len(rows), "changed": 0, "aliases_added": 0, "node_version": 1}]
        if "RETURN sum(" in text:
            return [{"created": len(rows)}]
        return []

    fill_small_graph(store)
    lines = [json.loads(x) for x in export_lines(store)]
    driver = FakeDriver(responder)
    target = Neo4jStore.from_settings(neo_settings(), driver=driver)
    report = copy_graph(store, target, batch_size=2, replace=True)
    assert report.ok and (report.nodes, report.papers, report.triples, report.parents) == (10, 2, 3, 3)

    sent = json.dumps([p for _, _, p, _ in driver.calls], default=str)
    for rec in lines:
        if rec["kind"] == "node":
            assert json.dumps(rec["key"]) in sent and json.dumps(rec["name"]) in sent
        elif rec["kind"] == "paper":
            assert json.dumps(rec["paper_id"]) in sent
    names = [r["name"] for r in lines if r["kind"] == "node"]
    for mode, text, params, _ in driver.calls:
        assert mode in ("write", "auto", "read")
        assert not any(n in text for n in names), "node text must travel as parameters"
        if "rows" in params:
            assert len(params["rows"]) <= 2  # the batch size was honoured
    assert "write" in driver.transactions
