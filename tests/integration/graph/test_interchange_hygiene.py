"""Issue 12 #4/#7 on the embedded FalkorDB: a hostile import line never leaves a half-written graph,
and a triple naming an unknown paper is a bad line (no phantom empty Paper)."""

from __future__ import annotations

import json

from motivgraph.graph.interchange import export_lines, import_lines
from motivgraph.graph.models import PaperRecord

HEADER = '{"kind":"header","format":"motivgraph-graph","version":1}'


def _nodes(n: int) -> list[str]:
    return [json.dumps({"kind": "node", "type": "problem", "key": f"problem:topic {i:03d}", "name": f"Topic {i:03d}"})
            for i in range(n)]


def _end(nodes: int = 0, papers: int = 0, triples: int = 0) -> str:
    return json.dumps({"kind": "end", "counts": {"node": nodes, "paper": papers, "triple": triples, "parent": 0}})


def test_lone_surrogate_node_line_is_reported_and_every_other_line_imported(store):
    nodes = _nodes(49)
    nodes[9] = json.dumps({"kind": "node", "type": "problem", "key": "problem:mu", "name": "mu \ud835 bad"})
    lines = [HEADER, *nodes, _end(49)]
    for _ in range(2):  # re-running gives the same answer, never a crash
        report = import_lines(store, lines, batch_size=5)
        assert [ln for ln, _ in report.errors] == [11] and "surrogate" in report.errors[0][1]
        assert report.nodes == 48
        assert sum(store.stats().nodes.values()) == 48
        assert store.get_nodes(["problem:mu"]) == [None]


def test_triple_with_unknown_paper_is_a_bad_line_without_phantom_paper(store):
    store.upsert_papers([PaperRecord(paper_id="already:here", title="Stored before the import")])
    paper = json.dumps({"kind": "paper", "paper_id": "in:file", "title": "In the file"})

    def triple(pid: str, i: int) -> str:
        return json.dumps({"kind": "triple", "paper_id": pid, "index": 0, "problem": {"name": f"Problem {i}"},
                           "challenge": {"name": f"Challenge {i}"}, "solution": {"name": f"Solution {i}"}})

    lines = [HEADER, paper, triple("in:file", 1), triple("nowhere:404", 2), triple("already:here", 3), _end(0, 1, 3)]
    report = import_lines(store, lines)
    assert [ln for ln, _ in report.errors] == [4]
    assert "unknown paper" in report.errors[0][1] and "nowhere:404" in report.errors[0][1]
    assert store.get_paper("nowhere:404") is None
    assert store.get_nodes(["problem:problem 2"]) == [None]
    assert report.triples == 2 and store.stats().triples == 2
    kinds = [json.loads(x)["kind"] for x in export_lines(store)]
    assert kinds.count("paper") == 2
