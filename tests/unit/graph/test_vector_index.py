"""NodeIndex / PaperIndex: exact and HNSW search, type filter, min_score, persistence, staleness,
corrupt and missing files. Real MiniLM embeddings and real FAISS; the graph side is a small
in-memory stand-in (the store's behaviour is covered by integration/test_index_store.py)."""

from __future__ import annotations

import json
import multiprocessing as mp
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from motivgraph.embeddings.base import Embedder
from motivgraph.errors import IndexCorrupt, IndexMissing, IndexStale
from motivgraph.graph.identity import LABELS, node_key
from motivgraph.graph.models import GraphStats, NodeRecord, PaperRecord
from motivgraph.graph.paper_index import PaperIndex
from motivgraph.graph.vector_index import NodeIndex, node_text
from motivgraph.settings import Settings

NODES = [
    ("problem", "Low-resource named entity recognition", "Recognising entity mentions with few labels."),
    ("problem", "Long-document summarisation", "Summarising documents far longer than the model context."),
    ("problem", "Protein structure prediction", "Predicting 3D protein folds from amino-acid sequences."),
    ("challenge", "Label scarcity", "Annotated training examples are expensive and rare."),
    ("challenge", "Quadratic attention cost", "Self-attention memory grows with the square of the length."),
    ("challenge", "Distribution shift", "Test data differ from the training distribution."),
    ("solution", "Sparse attention", "Attend to a sparse subset of positions to cut memory."),
    ("solution", "Distant supervision", "Create noisy labels automatically from a knowledge base."),
    ("solution", "Domain-adversarial training", "Learn features a domain classifier cannot tell apart."),
]


class MemStore:
    """Just what the index reads from a GraphStore: nodes, papers, stats, node_version."""

    backend = "memory"

    def __init__(self) -> None:
        self.nodes: dict[str, NodeRecord] = {}
        self.papers: dict[str, PaperRecord] = {}
        self.version = 0

    def put(self, t: str, name: str, desc: str, level: int = 0) -> NodeRecord:
        rec = NodeRecord(key=node_key(t, name), type=t, name=name, description=desc, level=level)  # type: ignore[arg-type]
        self.nodes[rec.key] = rec
        self.version += 1
        return rec

    def node_version(self) -> int:
        return self.version

    def iter_nodes(self, types: Sequence[str] | None = None, batch: int = 5000) -> Iterator[NodeRecord]:
        for rec in sorted(self.nodes.values(), key=lambda r: r.key):
            if types is None or rec.type in types:
                yield rec

    def iter_papers(self, batch: int = 5000) -> Iterator[PaperRecord]:
        yield from sorted(self.papers.values(), key=lambda p: p.paper_id)

    def stats(self) -> GraphStats:
        counts = {lbl: sum(1 for n in self.nodes.values() if n.type == t) for t, lbl in LABELS.items()}
        counts["Paper"] = len(self.papers)
        return GraphStats(nodes=counts, relationships={}, triples=0, node_version=self.version)


@pytest.fixture
def mem() -> MemStore:
    s = MemStore()
    for t, n, d in NODES:
        s.put(t, n, d)
    return s


def _settings(settings: Settings, kind: str) -> Settings:
    settings.index.kind = kind  # type: ignore[assignment]
    return settings


@pytest.mark.parametrize("kind", ["exact", "hnsw"])
def test_search_finds_the_right_node_with_type_filter_and_scores(settings, embedder, mem, kind):
    idx = NodeIndex.open(_settings(settings, kind), mem, embedder)
    st = idx.rebuild()
    assert st.state == "ok" and st.counts == {"problem": 3, "challenge": 3, "solution": 3}
    assert set(st.kinds.values()) == {kind}

    hits = idx.search("attention memory grows quadratically with sequence length", k=3)
    assert hits[0].key == "challenge:quadratic attention cost"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert len(hits) == 3

    only_solutions = idx.search("attention memory grows quadratically with sequence length", k=5, types=["solution"])
    assert {h.type for h in only_solutions} == {"solution"}
    assert len(only_solutions) == 3  # k larger than the sub-index: all of that type, no padding
    assert only_solutions[0].key == "solution:sparse attention"

    strict = idx.search("few labelled examples for entity tagging", k=9, min_score=0.35)
    assert strict and all(h.score >= 0.35 for h in strict)
    assert len(strict) < 9
    assert idx.search("few labelled examples", k=9, min_score=0.999) == []


def test_scores_are_cosine_similarities(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    idx.rebuild()
    rec = mem.nodes["solution:sparse attention"]
    hit = idx.search(node_text(rec.name, rec.description), k=1)[0]
    assert hit.key == rec.key and hit.score == pytest.approx(1.0, abs=1e-4)
    vec = idx.vectors_for([rec.key, "solution:not there"])
    assert list(vec) == [rec.key]
    assert np.linalg.norm(vec[rec.key]) == pytest.approx(1.0, abs=1e-4)
    q = embedder.embed(["sparse attention patterns"])[0]
    again = idx.search_vectors(q[None, :], k=1, types=["solution"])[0][0]
    assert again.score == pytest.approx(float(q @ vec[rec.key]), abs=1e-4)


def test_search_many_matches_single_searches(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    idx.rebuild()
    queries = ["protein folding", "noisy labels from a knowledge base"]
    batch = idx.search_many(queries, k=2)
    assert [[h.key for h in hs] for hs in batch] == [[h.key for h in idx.search(q, k=2)] for q in queries]


@pytest.mark.parametrize("kind", ["exact", "hnsw"])
def test_persistence_round_trip(settings, embedder, mem, kind):
    idx = NodeIndex.open(_settings(settings, kind), mem, embedder)
    idx.rebuild()
    before = [(h.key, round(h.score, 5)) for h in idx.search("domain shift between train and test", k=4)]
    reopened = NodeIndex.open(settings, mem, embedder)
    assert reopened.status().state == "ok"
    after = [(h.key, round(h.score, 5)) for h in reopened.search("domain shift between train and test", k=4)]
    assert after == before
    stamp = json.loads((settings.index_dir / "nodes" / reopened.status().generation / "stamp.json").read_text())
    assert stamp["model"] == embedder.model_name and stamp["dim"] == embedder.dim == 384
    assert stamp["graph_version"] == mem.version and stamp["kinds"]["problem"] == kind


def test_missing_index_is_reported_naming_reindex(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    assert idx.status().state == "missing"
    with pytest.raises(IndexMissing, match="motivgraph reindex"):
        idx.search("anything")


def test_stale_index_is_reported_then_auto_rebuilt(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    idx.rebuild()
    mem.put("solution", "Curriculum learning", "Train on easy examples before hard ones.")
    st = idx.status()
    assert st.state == "stale" and st.index_version == 9 and st.graph_version == 10
    with pytest.raises(IndexStale, match="motivgraph reindex"):
        idx.search("easy to hard training order")
    settings.index.auto_rebuild = True
    hits = idx.search("easy to hard training order", k=1)
    assert hits[0].key == "solution:curriculum learning"
    assert idx.status().state == "ok"


def test_other_model_makes_index_stale(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    idx.rebuild()
    gen = idx.status().generation
    path = settings.index_dir / "nodes" / gen / "stamp.json"
    stamp = json.loads(path.read_text())
    stamp["model"] = "some-other-model"
    path.write_text(json.dumps(stamp))
    st = NodeIndex.open(settings, mem, embedder).status()
    assert st.state == "stale" and "some-other-model" in st.message


class OtherBackend(Embedder):
    """The same vectors under another backend name: what an index must still refuse to mix."""

    def __init__(self, inner: Embedder, backend: str) -> None:
        self.inner, self.backend = inner, backend
        self.model_name, self.dim = inner.model_name, inner.dim
        self.calls = 0

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        self.calls += 1
        return self.inner.embed(texts)


def test_other_embedding_backend_makes_index_stale_and_is_never_mixed(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    idx.rebuild()
    assert idx.status().backend == embedder.backend
    other_name = "torch" if embedder.backend != "torch" else "onnx"
    other = OtherBackend(embedder, other_name)
    st = NodeIndex.open(settings, mem, other).status()
    assert st.state == "stale" and st.backend == embedder.backend
    assert repr(embedder.backend) in st.message and repr(other_name) in st.message
    assert "motivgraph reindex" in st.message
    with pytest.raises(IndexStale, match="motivgraph reindex"):
        NodeIndex.open(settings, mem, other).search("label scarcity")
    # an add with the other backend rebuilds everything with it instead of appending to the old vectors
    v0 = mem.node_version()
    new = mem.put("challenge", "Catastrophic forgetting", "Learning new tasks erases old ones.")
    idx2 = NodeIndex.open(settings, mem, other)
    idx2.add([new], from_version=v0)
    st2 = idx2.status()
    assert st2.state == "ok" and st2.backend == other_name and sum(st2.counts.values()) == len(NODES) + 1
    assert idx2.last_embedded == len(NODES) + 1  # no stored vector of the old backend reused
    assert NodeIndex.open(settings, mem, embedder).status().state == "stale"


def test_an_index_stamped_before_backends_were_recorded_counts_as_torch(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    idx.rebuild()
    path = settings.index_dir / "nodes" / idx.status().generation / "stamp.json"
    stamp = json.loads(path.read_text())
    del stamp["backend"]
    path.write_text(json.dumps(stamp))
    assert NodeIndex.open(settings, mem, OtherBackend(embedder, "torch")).status().state == "ok"
    st = NodeIndex.open(settings, mem, OtherBackend(embedder, "onnx")).status()
    assert st.state == "stale" and st.backend == "torch"


def test_incremental_add_keeps_index_fresh_and_replaces_changed_text(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    idx.rebuild()
    v0 = mem.node_version()
    new = mem.put("challenge", "Catastrophic forgetting", "Learning new tasks erases old ones.")
    assert idx.add([new], from_version=v0) == 1
    assert idx.status().state == "ok"
    assert idx.search("networks forget earlier tasks", k=1)[0].key == new.key
    # changed description of an existing key: replaced, not duplicated
    v1 = mem.node_version()
    changed = mem.put("challenge", "Catastrophic forgetting", "Model weights drift when fine-tuned sequentially.")
    idx.add([changed], from_version=v1)
    assert idx.status().counts["challenge"] == 4
    assert [h.key for h in idx.search("weights drift", k=4, types=["challenge"])].count(changed.key) == 1
    # the other process sees the new generation
    other = NodeIndex.open(settings, mem, embedder)
    assert other.search("weights drift during sequential fine-tuning", k=1)[0].key == new.key
    expected = embedder.embed([node_text(changed.name, changed.description)])[0]
    assert np.allclose(other.vectors_for([new.key])[new.key], expected, atol=1e-5)


def test_add_many_and_the_same_key_twice_in_one_call(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    idx.rebuild()
    v = mem.node_version()
    first = mem.put("problem", "Code generation", "Generating programs from natural language.")
    again = mem.put("problem", "Code generation", "Writing SQL queries from questions.")
    many = [mem.put("solution", f"Variant {i}", f"Tweak number {i}.") for i in range(50)]
    assert idx.add([first, *many, again], from_version=v) == 52
    st = idx.status()
    assert st.state == "ok" and st.counts == {"problem": 4, "challenge": 3, "solution": 53}
    vec = idx.vectors_for([again.key])[again.key]
    assert np.allclose(vec, embedder.embed([node_text(again.name, again.description)])[0], atol=1e-5)


def test_add_without_base_version_never_claims_freshness(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    idx.rebuild()
    mem.put("problem", "Unseen one", "Written by someone else and never indexed.")
    new = mem.put("problem", "Code generation", "Generating programs from natural language.")
    idx.add([new])
    assert idx.status().state == "stale"
    idx.add([new], from_version=mem.node_version() - 2)  # base version of the index: fresh again
    assert idx.status().state == "ok"


@pytest.mark.parametrize("kind", ["exact", "hnsw"])
def test_add_on_missing_index_builds_everything(settings, embedder, mem, kind):
    idx = NodeIndex.open(_settings(settings, kind), mem, embedder)
    new = mem.put("solution", "Mixture of experts", "Route tokens to a few expert sub-networks.")
    idx.add([new], from_version=mem.node_version() - 1)
    st = idx.status()
    assert st.state == "ok" and sum(st.counts.values()) == 10


def test_hnsw_incremental_add_grows_in_place(settings, embedder, mem):
    idx = NodeIndex.open(_settings(settings, "hnsw"), mem, embedder)
    idx.rebuild()
    v = mem.node_version()
    nodes = [mem.put("solution", f"Method {i}", f"A technique number {i} for graph coloring.") for i in range(5)]
    idx.add(nodes, from_version=v)
    hits = idx.search("technique number 3 for graph coloring", k=1, types=["solution"])
    assert hits[0].key == "solution:method 3"
    assert NodeIndex.open(settings, mem, embedder).status().counts["solution"] == 8


def test_auto_kind_switches_to_hnsw_past_threshold(settings, embedder, mem):
    settings.index.kind = "auto"
    settings.index.hnsw_threshold = 2
    st = NodeIndex.open(settings, mem, embedder).rebuild()
    assert st.kinds == {"problem": "hnsw", "challenge": "hnsw", "solution": "hnsw"}
    settings.index.hnsw_threshold = 100
    assert NodeIndex.open(settings, mem, embedder).rebuild().kinds["problem"] == "exact"


@pytest.mark.parametrize(
    "damage",
    ["truncate_npy", "delete_meta", "garbage_stamp", "wrong_count", "delete_faiss"],
)
def test_corrupt_files_give_a_clear_error(settings, embedder, mem, damage):
    idx = NodeIndex.open(_settings(settings, "hnsw"), mem, embedder)
    idx.rebuild()
    gdir = settings.index_dir / "nodes" / idx.status().generation
    if damage == "truncate_npy":
        data = (gdir / "challenge.npy").read_bytes()
        (gdir / "challenge.npy").write_bytes(data[: len(data) // 2])
    elif damage == "delete_meta":
        (gdir / "problem.json").unlink()
    elif damage == "garbage_stamp":
        (gdir / "stamp.json").write_text("{not json")
    elif damage == "wrong_count":
        (gdir / "solution.json").write_text(json.dumps([["solution:x", "x", 0]]))
    elif damage == "delete_faiss":
        (gdir / "solution.faiss").unlink()
    fresh = NodeIndex.open(settings, mem, embedder)
    st = fresh.status()
    assert st.state == "corrupt" and "motivgraph reindex" in st.message
    with pytest.raises(IndexCorrupt, match="motivgraph reindex"):
        fresh.search("label scarcity")
    # reindex repairs it
    assert fresh.rebuild().state == "ok"
    assert fresh.search("label scarcity", k=1)[0].key == "challenge:label scarcity"


def test_old_generations_are_pruned(settings, embedder, mem):
    idx = NodeIndex.open(settings, mem, embedder)
    for _ in range(4):
        idx.rebuild()
    gens = sorted(p.name for p in (settings.index_dir / "nodes").glob("gen-*"))
    assert gens == ["gen-000003", "gen-000004"]
    assert (settings.index_dir / "nodes" / "CURRENT").read_text().strip() == "gen-000004"


def _add_in_child(data_dir: str, names: list[str], q: mp.Queue) -> None:
    from motivgraph.embeddings import get_embedder
    from motivgraph.settings import EmbeddingSettings

    s = Settings(data_dir=Path(data_dir), _env_file=None)  # type: ignore[call-arg]
    store = MemStore()
    idx = NodeIndex.open(s, store, get_embedder(EmbeddingSettings()))
    recs = [store.put("solution", n, "added concurrently") for n in names]
    idx.add(recs)
    q.put("done")


def test_concurrent_writers_do_not_lose_each_others_nodes(settings, embedder, mem):
    NodeIndex.open(settings, mem, embedder).rebuild()
    ctx = mp.get_context("spawn")  # fork after torch has started threads can hang
    q: mp.Queue = ctx.Queue()
    procs = [
        ctx.Process(target=_add_in_child, args=(str(settings.data_dir), [f"Writer {w} item {i}" for i in range(20)], q))
        for w in range(2)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    st = NodeIndex.open(settings, mem, embedder).status()
    assert st.counts["solution"] == 3 + 40


def test_paper_index_search_and_staleness(settings, embedder, mem):
    mem.papers = {
        "p1": PaperRecord(
            paper_id="p1", title="Longformer", abstract="Sparse attention for long documents.", year=2020
        ),
        "p2": PaperRecord(paper_id="p2", title="AlphaFold", abstract="Protein structure prediction with deep nets."),
    }
    pidx = PaperIndex.open(settings, mem, embedder)
    with pytest.raises(IndexMissing):
        pidx.search("protein folding")
    pidx.rebuild()
    hits = pidx.search("protein folding", k=2)
    assert hits[0].paper_id == "p2" and hits[0].title == "AlphaFold" and hits[0].score > hits[1].score
    assert pidx.search("long documents", k=1)[0].year == 2020
    p3 = PaperRecord(paper_id="p3", title="BERT", abstract="Bidirectional transformers for language understanding.")
    mem.papers["p3"] = p3
    assert pidx.status().state == "stale"
    pidx.add([p3, p3])
    assert pidx.status().state == "ok"
    assert pidx.search("masked language model pretraining", k=1)[0].paper_id == "p3"
    # node and paper indexes live side by side without touching each other
    assert NodeIndex.open(settings, mem, embedder).status().state == "missing"


def test_paper_index_catch_up_builds_then_embeds_only_new_papers(settings, embedder, mem):
    mem.papers = {
        "p1": PaperRecord(paper_id="p1", title="Longformer", abstract="Sparse attention for long documents."),
        "p2": PaperRecord(paper_id="p2", title="AlphaFold", abstract="Protein structure prediction."),
    }
    pidx = PaperIndex.open(settings, mem, embedder)
    assert pidx.catch_up() == 2 and pidx.status().state == "ok"
    assert pidx.catch_up() == 0
    mem.papers["p3"] = PaperRecord(paper_id="p3", title="BERT", abstract="Masked language model pretraining.")
    assert pidx.status().state == "stale"
    assert pidx.catch_up() == 1
    assert pidx.status().state == "ok"
    assert pidx.search("masked language model", k=1)[0].paper_id == "p3"


class BulkBf16(OtherBackend):
    """The embedder with a bulk path that says bf16 (vectors: the inner embedder's, nudged off them)."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner, inner.backend)
        self.bulk_calls = 0

    def embed_bulk(self, texts: Sequence[str], *, show_progress: bool = False):  # type: ignore[override]
        self.bulk_calls += 1
        v = self.inner.embed(texts) + np.float32(1e-3)
        return v / np.linalg.norm(v, axis=1, keepdims=True), "bf16"


def test_a_rebuild_embeds_through_the_bulk_path_and_stamps_its_precision(settings, embedder, mem):
    emb = BulkBf16(embedder)
    idx = NodeIndex.open(settings, mem, emb)
    idx.rebuild()
    st = idx.status()
    assert emb.bulk_calls >= 1 and emb.calls == 0
    assert st.state == "ok" and st.precision == "bf16" and st.backend == embedder.backend
    # fp32 queries (embed) search the bf16-built index: same top hit
    assert idx.search("Attend to few positions to save memory", k=1)[0].name == "Sparse attention"
    # an incremental add appends fp32 vectors and keeps the stamp; a rebuild reusing the vectors keeps bf16
    v0 = mem.node_version()
    new = mem.put("challenge", "Catastrophic forgetting", "Learning new tasks erases old ones.")
    idx.add([new], from_version=v0)
    assert idx.status().precision == "bf16"
    idx.rebuild()
    assert idx.status().precision == "bf16" and idx.last_embedded == 0
    # without reuse, a plain embedder's rebuild is fp32 again
    plain = NodeIndex.open(settings, mem, embedder)
    plain.rebuild(reuse=False)
    assert plain.status().precision == "fp32"
    assert NodeIndex.open(settings, mem, emb).status().state == "ok"  # the same backend: not stale
