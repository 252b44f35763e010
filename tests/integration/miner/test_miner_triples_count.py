"""The miner report's "triples stored" is what the graph holds: two documents of one paper (two versions of a
record with the same DOI) each write the paper's triples by index, the second over the first, so the count is
the paper's triples in the graph (2), not the sum of the two writes (3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from motivgraph.graph.base import GraphStore
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.llm.tokens import content_text
from motivgraph.miner.sink import MinerSink
from motivgraph.settings import Settings
from tests.miner_support import GOOD_TRIPLE, INTRO, reply, scripted_client

DOI = "10.5555/count.2024.1"


def _second(t: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(t))
    out["challenge"]["name"] = "Unstable training on tiny parallel corpora in translation"
    return out


def _reply(messages: Any) -> str:
    text = "\n".join(content_text(m.content) for m in messages)
    # the first version of the record states two triples, the revised one only one
    return reply(GOOD_TRIPLE, _second(GOOD_TRIPLE)) if "first version" in text else reply(GOOD_TRIPLE)


async def test_triples_stored_counts_what_the_graph_holds(tmp_path: Path, settings: Settings,
                                                          store: GraphStore) -> None:
    rec = {"doi": DOI, "title": "Transfer Learning for Low-Resource Translation", "introduction": INTRO}
    path = tmp_path / "papers.jsonl"
    path.write_text(json.dumps({**rec, "abstract": "The first version of this abstract."}) + "\n"
                    + json.dumps({**rec, "abstract": "A revised abstract."}) + "\n")
    client, _ = scripted_client(settings, default=_reply)
    sink = MinerSink(Runtime(settings), client=client, mode="llm")
    try:
        s = await ingest_async([path], settings, sink=sink, concurrency=1)
    finally:
        sink.close()
    assert s.ok == 2, [o.error for o in s.outcomes]
    held = store.paper_triples(f"doi:{DOI}")
    assert len(held) == 2
    assert sink.stats.triples == len(held)  # was 3: each write added its own count
    assert dict(sink.report_rows())["triples stored"] == "2"
