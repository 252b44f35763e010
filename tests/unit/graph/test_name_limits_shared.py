"""Issue 12 #7: one name limit for nodes from `graph import`, from ingest (mined triples are written as NodeIn)
and from triple references — the same length is accepted or refused on every path, a 1 MB name nowhere."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from motivgraph.graph.interchange import parse_lines
from motivgraph.graph.models import NodeIn, TripleIn
from motivgraph.limits import MAX_NAME_CHARS

HEADER = '{"kind":"header","format":"motivgraph-graph","version":1}'


def _import_accepts(name: str) -> bool:
    node = json.dumps({"kind": "node", "type": "problem", "key": "problem:x", "name": name})
    end = json.dumps({"kind": "end", "counts": {"node": 1, "paper": 0, "triple": 0, "parent": 0}})
    errors = parse_lines([HEADER, node, end]).errors
    assert all(line == 2 for line, _ in errors), errors  # only the node line may be refused
    return not errors


def _ingest_accepts(name: str) -> bool:
    try:
        TripleIn(paper_id="p", index=0, problem=NodeIn(name=name), challenge=NodeIn(name="c"),
                 solution=NodeIn(name="s"))
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize("length", [1, MAX_NAME_CHARS - 1, MAX_NAME_CHARS, MAX_NAME_CHARS + 1, 1_000_000])
def test_import_and_ingest_share_the_name_limit(length: int) -> None:
    name = "n" * length
    assert _import_accepts(name) == _ingest_accepts(name) == (length <= MAX_NAME_CHARS)
