"""Issue 19: an ingest embeds each distinct text once — the resolver's vector of a new node is the one
the node index stores — and the resolver batches its embeddings across the papers in flight.
A counting fake embedder (deterministic vectors) on the embedded graph; decisions themselves are
covered by test_miner_resolve.py with the real model."""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from collections.abc import Sequence

import numpy as np

from motivgraph.embeddings.base import Embedder
from motivgraph.graph.runtime import Runtime
from motivgraph.graph.vector_index import node_text
from motivgraph.miner.schemas import ExtractedTriple, ExtractionResult, NodeText
from motivgraph.miner.sink import MinerSink
from tests.miner_support import make_paper

DIM = 64


class CountingEmbedder(Embedder):
    """Deterministic unit vectors per text (near-orthogonal at this dimension); records every call."""

    model_name = "counting-test"
    dim = DIM

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        self.batches.append(list(texts))
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
            v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out

    def counts(self) -> Counter[str]:
        return Counter(t for b in self.batches for t in b)


def _triple(p: str, c: str, s: str, desc: str = "") -> ExtractedTriple:
    return ExtractedTriple(
        problem=NodeText(name=p, description=desc or f"What {p.lower()} is about."),
        challenge=NodeText(name=c, description=f"Why {c.lower()} is hard."),
        solution=NodeText(name=s, description=f"How {s.lower()} works."),
        section="introduction",
    )


async def _commit_all(sink: MinerSink, papers: dict[str, list[ExtractedTriple]]) -> None:
    await asyncio.gather(*(
        sink.commit(make_paper(pid), ExtractionResult(paper_id=pid, extractor="llm", triples=triples))
        for pid, triples in papers.items()
    ))


async def test_an_ingest_embeds_each_text_once_and_batches_the_papers_in_flight(settings, store) -> None:  # type: ignore[no-untyped-def]
    emb = CountingEmbedder()
    rt = Runtime(settings)
    rt.__dict__["embedder"] = emb  # the runtime's cached embedder: everything in this ingest uses it
    sink = MinerSink(rt, mode="heuristic")
    sink.index_flush_nodes = 5  # several index writes during the run (the first one builds the index)
    try:
        wave1 = {
            f"p{i}": [_triple(f"Problem {i} of graph learning", f"Challenge {i} of scale", f"Solution {i} by sampling"),
                      _triple("Shared problem of sparse labels", f"Challenge {i}b of noise", f"Solution {i}b")]
            for i in range(4)
        }
        await _commit_all(sink, wave1)
        mentions1 = {NodeText(name=getattr(t, k).name, description=getattr(t, k).description).text()
                     for ts in wave1.values() for t in ts for k in ("problem", "challenge", "solution")}
        # the four papers were in flight together: their mentions went to the model in one call
        assert set(emb.batches[0]) == mentions1 and len(emb.batches[0]) == len(mentions1)
        # a second wave: the same name with the same description (merges), with another (a homonym)
        wave2 = {
            "q0": [_triple("Problem 1 of graph learning", "Challenge 1 of scale", "Solution 9 by pruning")],
            "q1": [_triple("Problem 2 of graph learning", "Challenge 7 of drift", "Solution 8 by caching",
                           desc="Electrical grids whose transformers overheat in summer.")],
        }
        await _commit_all(sink, wave2)
    finally:
        sink.close()
    counts = emb.counts()
    assert counts and max(counts.values()) == 1, [t for t, n in counts.items() if n > 1]
    nodes = list(rt.store.iter_nodes())
    assert any(n.name.startswith("Problem 2 of graph learning (") for n in nodes)  # the homonym case ran
    texts = {node_text(n.name, n.description) for n in nodes}
    assert texts <= set(counts)  # every node's own text was embedded (once, above)
    idx = rt.node_index
    st = idx.status()
    assert st.state == "ok" and sum(st.counts.values()) == len(nodes)
    stored = idx.vectors_for([n.key for n in nodes])
    for n in nodes:  # the index holds the resolver's vector of the node's text
        assert np.allclose(stored[n.key], emb.embed([node_text(n.name, n.description)])[0])
    rt.close()
