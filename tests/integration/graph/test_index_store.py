"""NodeIndex / PaperIndex against the real embedded FalkorDB store: build from the graph, stay in
step with writes through node_version, and report staleness after writes they did not see."""

from __future__ import annotations

from motivgraph.errors import IndexStale
from motivgraph.graph.models import NodeIn, PaperRecord, ParentIn, TripleIn
from motivgraph.graph.paper_index import PaperIndex
from motivgraph.graph.runtime import Runtime
from motivgraph.graph.vector_index import NodeIndex


def _triple(paper: str, i: int, p: str, c: str, s: str) -> TripleIn:
    return TripleIn(
        paper_id=paper, index=i,
        problem=NodeIn(name=p, description=f"The problem of {p.lower()}."),
        challenge=NodeIn(name=c, description=f"Difficulty: {c.lower()}."),
        solution=NodeIn(name=s, description=f"Method: {s.lower()}."),
    )


def _fill(store) -> None:
    store.upsert_papers(
        [
            PaperRecord(paper_id="p1", title="Longformer", abstract="Sparse attention for long documents.", year=2020),
            PaperRecord(paper_id="p2", title="Distant supervision for NER", abstract="Labels from a knowledge base."),
        ]
    )
    store.upsert_triples(
        [
            _triple("p1", 0, "Long-document summarisation", "Quadratic attention cost", "Sparse attention"),
            _triple("p2", 0, "Low-resource NER", "Label scarcity", "Distant supervision"),
        ]
    )
    store.add_parents(
        [ParentIn(type="challenge", level=1, parent=NodeIn(name="Resource limits", description="Too little data or "
                  "compute."), children=["challenge:quadratic attention cost", "challenge:label scarcity"])]
    )


def test_rebuild_from_store_and_search(settings, store, embedder):
    _fill(store)
    idx = NodeIndex.open(settings, store, embedder)
    assert idx.status().state == "missing"
    seen: list[tuple[int, int]] = []
    st = idx.rebuild(progress=lambda d, t: seen.append((d, t)))
    assert st.state == "ok" and st.counts == {"problem": 2, "challenge": 3, "solution": 2}
    assert st.index_version == store.node_version()
    assert seen[-1] == (7, 7)
    hits = idx.search("memory of self-attention grows with length", k=3, types=["challenge"])
    assert hits[0].key == "challenge:quadratic attention cost"
    parent = next(h for h in idx.search("not enough data or compute", k=7) if h.key == "challenge:resource limits")
    assert parent.level == 1


def test_writes_make_index_stale_and_add_with_versions_keeps_it_fresh(settings, store, embedder):
    _fill(store)
    idx = NodeIndex.open(settings, store, embedder)
    idx.rebuild()
    before = store.node_version()
    store.upsert_triples([_triple("p3", 0, "Protein structure prediction", "Huge search space", "Evolutionary MSAs")])
    assert idx.status().state == "stale"
    try:
        idx.search("protein folding")
        raise AssertionError("a stale index must not answer")
    except IndexStale as e:
        assert "motivgraph reindex" in str(e)

    new = [n for n in store.iter_nodes() if n.key.endswith(("protein structure prediction", "huge search space",
                                                             "evolutionary msas"))]
    assert len(new) == 3
    idx.add(new, from_version=before)
    assert idx.status().state == "ok"
    assert idx.search("protein folding", k=1, types=["problem"])[0].key == "problem:protein structure prediction"

    # re-upserting the same triple changes nothing, so the index stays current
    store.upsert_triples([_triple("p3", 0, "Protein structure prediction", "Huge search space", "Evolutionary MSAs")])
    assert idx.status().state == "ok"


def test_clear_never_leaves_a_current_looking_index(settings, store, embedder):
    _fill(store)
    idx = NodeIndex.open(settings, store, embedder)
    idx.rebuild()
    store.clear()
    store.ensure_schema()
    _fill(store)
    assert idx.status().state == "stale"


def test_runtime_opens_the_same_index(settings, store, embedder):
    _fill(store)
    NodeIndex.open(settings, store, embedder).rebuild()
    rt = Runtime(settings)
    rt.__dict__["embedder"] = embedder  # the session's model, not a second load
    try:
        hits = rt.node_index.search("NER in low-resource settings", k=1, types=["problem"])
        assert hits[0].key == "problem:low resource ner"
        assert NodeIndex.peek(settings, rt.store).state == "ok"
    finally:
        rt.close()


def test_paper_index_over_store(settings, store, embedder):
    _fill(store)
    pidx = PaperIndex.open(settings, store, embedder)
    assert pidx.rebuild().counts == {"paper": 2}
    assert pidx.search("knowledge base labels", k=1)[0].paper_id == "p2"
    store.upsert_papers([PaperRecord(paper_id="p9", title="AlphaFold", abstract="Protein structure prediction.")])
    assert pidx.status().state == "stale"
    pidx.add([PaperRecord(paper_id="p9", title="AlphaFold", abstract="Protein structure prediction.")])
    assert pidx.status().state == "ok"
    assert pidx.search("protein folding", k=1)[0].paper_id == "p9"
