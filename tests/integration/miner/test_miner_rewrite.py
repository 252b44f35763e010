"""A paper written again by a second document that states less (two versions of one DOI's record: 2 triples,
then 1) holds the second version only: the first version's extra statement leaves the graph with its quotes,
and the nodes and edges only it gave go with it, as `papers delete` takes them out (#40)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from motivgraph.graph.base import GraphStore
from motivgraph.graph.identity import node_key
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.pipeline import ingest_async
from motivgraph.llm.tokens import content_text
from motivgraph.miner.sink import MinerSink
from motivgraph.settings import Settings
from tests.miner_support import GOOD_TRIPLE, INTRO, reply, scripted_client

DOI = "10.5555/rewrite.2024.1"
PID = f"doi:{DOI}"
EXTRA = "Unstable training on tiny parallel corpora in translation"
OTHER = "Vocabulary mismatch between related languages in translation"
CHALLENGE: str = json.loads(json.dumps(GOOD_TRIPLE))["challenge"]["name"]  # the one both versions state


def _with_challenge(t: dict[str, Any], name: str) -> dict[str, Any]:
    out = json.loads(json.dumps(t))
    out["challenge"]["name"] = name
    return out


def _reply(messages: Any) -> str:
    text = "\n".join(content_text(m.content) for m in messages)
    if "first version" in text:
        return reply(GOOD_TRIPLE, _with_challenge(GOOD_TRIPLE, EXTRA))
    if "other challenge" in text:
        return reply(_with_challenge(GOOD_TRIPLE, OTHER))
    return reply(GOOD_TRIPLE)


async def _ingest(tmp_path: Path, settings: Settings, records: list[dict[str, Any]]) -> MinerSink:
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    client, _ = scripted_client(settings, default=_reply)
    sink = MinerSink(Runtime(settings), client=client, mode="llm")
    try:
        s = await ingest_async([path], settings, sink=sink, concurrency=1)
    finally:
        sink.close()
    assert s.ok == len(records), [o.error for o in s.outcomes]
    return sink


REC = {"doi": DOI, "title": "Transfer Learning for Low-Resource Translation", "introduction": INTRO}
# the sections are each document's own (a merge decides the bibliographic fields only): the first version's
# introduction says more, and the scripted model states one more triple for it
FIRST = INTRO + "\n\nThis first version also reports unstable training on tiny parallel corpora."


async def test_second_version_with_fewer_triples_replaces_the_first(tmp_path: Path, settings: Settings,
                                                                    store: GraphStore) -> None:
    sink = await _ingest(tmp_path, settings, [{**REC, "introduction": FIRST}, REC])
    held = store.paper_triples(PID)
    assert [t.index for t in held] == [0]  # was [0, 1]: the first version's index-1 triple stayed
    assert held[0].challenge.name == CHALLENGE
    extra = node_key("challenge", EXTRA)
    assert store.get_node(extra) is None  # stated by no paper any more
    assert store.node_evidence([extra])[extra] == []
    stats = store.stats()
    assert stats.triples == 1 and stats.relationships["STATES"] == 3
    assert stats.relationships["HAS_CHALLENGE"] == 1 and stats.relationships["SOLVED_BY"] == 1
    assert sink.stats.triples == 1 and dict(sink.report_rows())["triples stored"] == "1"
    # the node index does not offer the removed challenge to a later resolution
    assert extra not in {h.key for h in Runtime(settings).node_index.search(EXTRA, k=10)}


async def test_second_version_naming_another_node_replaces_it(tmp_path: Path, settings: Settings,
                                                             store: GraphStore) -> None:
    await _ingest(tmp_path, settings, [REC, {**REC, "introduction": INTRO + "\n\nWe also study the other challenge."}])
    (t,) = store.paper_triples(PID)
    assert t.challenge.name == OTHER
    assert store.get_node(node_key("challenge", CHALLENGE)) is None
    assert store.stats().relationships["STATES"] == 3 and store.stats().triples == 1


async def test_a_record_without_text_keeps_the_triples(tmp_path: Path, settings: Settings,
                                                       store: GraphStore) -> None:
    # a metadata-only record of the same DOI says nothing about the triples: they stay
    await _ingest(tmp_path, settings, [{**REC, "introduction": FIRST},
                                       {"doi": DOI, "title": REC["title"], "year": 2024}])
    assert [t.index for t in store.paper_triples(PID)] == [0, 1]
