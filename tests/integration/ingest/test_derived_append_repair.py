"""Issue 19: a run killed in the middle of a node-index append (vectors written, the log line torn) leaves
an index that still loads; the re-run's derived-index repair finds it stale and rebuilds it, embedding
only the texts the index never stored."""

from __future__ import annotations

from motivgraph.graph.index_store import DELTA_LOG, DELTA_VECTORS
from motivgraph.graph.models import NodeIn, NodeRef, TripleIn
from motivgraph.graph.runtime import Runtime
from motivgraph.graph.vector_index import node_text
from motivgraph.ingest.derived import repair_derived
from tests.integration.miner.test_miner_embed_once import CountingEmbedder


def _triple(pid: str, i: int) -> TripleIn:
    return TripleIn(paper_id=pid, index=i, problem=NodeIn(name=f"Problem {pid} {i}", description="p"),
                    challenge=NodeIn(name=f"Challenge {pid} {i}", description="c"),
                    solution=NodeIn(name=f"Solution {pid} {i}", description="s"), section="introduction")


def test_a_torn_append_is_repaired_by_the_rerun(settings, store) -> None:  # type: ignore[no-untyped-def]
    emb = CountingEmbedder()
    rt = Runtime(settings)
    rt.__dict__["embedder"] = emb
    try:
        store.upsert_triples([_triple("a", i) for i in range(3)])
        idx = rt.node_index
        idx.rebuild()
        v = store.node_version()
        store.upsert_triples([_triple("b", 0)])
        kept = [NodeRef(key=n.key, type=n.type, name=n.name, description=n.description, level=n.level)
                for n in store.iter_nodes() if " b " in n.name]
        idx.add(kept, from_version=v)
        assert idx.status().state == "ok"
        # the killed flush: its nodes are in the graph, the index append stopped halfway
        store.upsert_triples([_triple("c", 0)])
        lost = [n for n in store.iter_nodes() if " c " in n.name]
        gdir = settings.index_dir / "nodes" / idx.status().generation
        with open(gdir / DELTA_VECTORS, "ab") as fh:
            fh.write(emb.embed([node_text(n.name, n.description) for n in lost]).tobytes()[:700])
        with open(gdir / DELTA_LOG, "ab") as fh:
            fh.write(b'{"gv": 1, "add": {"problem": [["problem:problem c 0", "Problem c 0"')
        emb.batches.clear()

        rerun = Runtime(settings)
        rerun.__dict__["embedder"] = emb
        try:
            assert rerun.node_index.status().state == "stale"  # loads; says what is missing
            rep = repair_derived(rerun)
            assert any("node index rebuilt (was stale)" in d for d in rep.done), rep
            st = rerun.node_index.status()
            assert st.state == "ok" and sum(st.counts.values()) == sum(1 for _ in store.iter_nodes())
            node_texts = {t for b in emb.batches for t in b if ": " in t}
            assert node_texts == {node_text(n.name, n.description) for n in lost}
        finally:
            rerun.close()
    finally:
        rt.close()
