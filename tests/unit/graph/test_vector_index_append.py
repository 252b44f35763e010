"""Issue 19: the node index grows in place (an append log on the live generation, compaction into a
new generation past a threshold), survives a writer killed mid-append, and a rebuild reuses stored
vectors (so `reindex --kind` embeds nothing). A deterministic fake embedder keeps these fast and lets
them count embedding calls; the real model is covered by test_vector_index.py."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from motivgraph.embeddings.base import Embedder
from motivgraph.graph import index_store
from motivgraph.graph.index_store import DELTA_LOG, DELTA_VECTORS
from motivgraph.graph.vector_index import NodeIndex, node_text
from motivgraph.settings import Settings
from tests.unit.graph.test_vector_index import MemStore

DIM = 16


class HashEmbedder(Embedder):
    """Unit vectors from a hash of the text (same text, same vector); counts what it embeds."""

    model_name = "hash-test"
    dim = DIM

    def __init__(self) -> None:
        self.calls = 0
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        self.calls += 1
        self.texts.extend(texts)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
            v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out


def _populate(mem: MemStore, n: int, prefix: str = "Node") -> list:
    kinds = ("problem", "challenge", "solution")
    return [mem.put(kinds[i % 3], f"{prefix} {i}", f"description of {prefix.lower()} {i}") for i in range(n)]


def _results(idx: NodeIndex, emb: HashEmbedder, queries: list[str], k: int = 7) -> list[list[tuple[str, float]]]:
    out = []
    for types in (None, ["solution"]):
        for hits in idx.search_vectors(emb.embed(queries), k=k, types=types):  # type: ignore[arg-type]
            out.append([(h.key, round(h.score, 4)) for h in hits])
    return out


def _fresh(tmp_path: Path, mem: MemStore, kind: str) -> NodeIndex:
    s = Settings(data_dir=tmp_path / "fresh", _env_file=None)  # type: ignore[call-arg]
    s.index.kind = kind  # type: ignore[assignment]
    idx = NodeIndex.open(s, mem, HashEmbedder())
    idx.rebuild()
    return idx


@pytest.mark.parametrize("kind", ["exact", "hnsw"])
def test_appends_and_deletes_give_the_results_of_a_fresh_rebuild(settings: Settings, tmp_path: Path, kind: str) -> None:
    settings.index.kind = kind  # type: ignore[assignment]
    settings.index.hnsw_ef_search = 256  # tiny groups: HNSW is exhaustive, so results are comparable exactly
    mem, emb = MemStore(), HashEmbedder()
    _populate(mem, 60)
    idx = NodeIndex.open(settings, mem, emb)
    idx.rebuild()
    gen = idx.status().generation
    for batch in range(4):  # several flushes of new nodes, then a replaced text, then deletions
        v = mem.node_version()
        idx.add(_populate(mem, 15, prefix=f"Batch{batch}"), from_version=v)
    v = mem.node_version()
    changed = mem.put("solution", "Node 2", "a wholly different description now")
    idx.add([changed], from_version=v)
    gone = ["problem:node 0", "challenge:batch1 4", "solution:batch3 2", "solution:node 2"]
    v = mem.node_version()
    for key in gone:
        del mem.nodes[key]
    mem.version += 1
    assert idx.remove([*gone, "problem:never there"], from_version=v) == len(gone)
    st = idx.status()
    assert st.state == "ok" and st.generation == gen  # all of it appended to the live generation
    assert (settings.index_dir / "nodes" / gen / DELTA_LOG).exists()
    queries = [node_text(n.name, n.description) for n in list(mem.nodes.values())[::9]] + ["unrelated words"]
    fresh = _fresh(tmp_path, mem, kind)
    expected = _results(fresh, emb, queries)
    assert _results(idx, emb, queries) == expected
    reopened = NodeIndex.open(settings, mem, HashEmbedder())  # another process: base + replayed log
    assert reopened.status().state == "ok" and reopened.status().counts == fresh.status().counts
    assert _results(reopened, emb, queries) == expected
    assert NodeIndex.peek(settings, mem).counts == fresh.status().counts
    assert set(reopened.vectors_for(["solution:node 2", "problem:node 3"])) == {"problem:node 3"}


def test_compaction_writes_a_new_generation_with_the_same_results(settings: Settings, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_store, "COMPACT_MIN_ROWS", 8)
    monkeypatch.setattr(index_store, "DEAD_MIN_ROWS", 3)
    mem, emb = MemStore(), HashEmbedder()
    _populate(mem, 30)
    idx = NodeIndex.open(settings, mem, emb)
    idx.rebuild()
    first = idx.status().generation
    seen = {first}
    for batch in range(6):
        v = mem.node_version()
        idx.add(_populate(mem, 5, prefix=f"B{batch}"), from_version=v)
        seen.add(idx.status().generation)
    assert len(seen) >= 2  # appended rows passed the threshold: compacted into a new generation
    v = mem.node_version()
    drop = [k for k in mem.nodes if k.startswith("problem:")][:5]
    for k in drop:
        del mem.nodes[k]
    mem.version += 1
    idx.remove(drop, from_version=v)  # more deletions than DEAD_MIN_ROWS: compacted away
    live = idx.status().generation
    assert not (settings.index_dir / "nodes" / live / DELTA_LOG).exists()
    assert all(not g.dead and len(g.parts) == 1 for g in idx._groups.values())
    queries = [node_text(n.name, n.description) for n in list(mem.nodes.values())[::4]]
    assert _results(idx, emb, queries) == _results(_fresh(tmp_path, mem, "exact"), emb, queries)
    assert _results(NodeIndex.open(settings, mem, HashEmbedder()), emb, queries) == _results(idx, emb, queries)


@pytest.mark.parametrize("tear", ["vectors_only", "half_a_line"])
def test_a_writer_killed_mid_append_leaves_a_loadable_index_repaired_by_a_rebuild(
    settings: Settings, tear: str
) -> None:
    mem, emb = MemStore(), HashEmbedder()
    _populate(mem, 12)
    idx = NodeIndex.open(settings, mem, emb)
    idx.rebuild()
    v = mem.node_version()
    idx.add(_populate(mem, 3, prefix="Kept"), from_version=v)
    gdir = settings.index_dir / "nodes" / idx.status().generation
    good_log = (gdir / DELTA_LOG).read_bytes()
    # what a kill between the two writes of an append leaves behind
    lost = _populate(mem, 2, prefix="Lost")
    with open(gdir / DELTA_VECTORS, "ab") as fh:
        fh.write(emb.embed([node_text(n.name, n.description) for n in lost]).tobytes()[:100])
    if tear == "half_a_line":
        with open(gdir / DELTA_LOG, "ab") as fh:
            fh.write(b'{"gv": 99, "add": {"problem": [["problem:lost 0"')
    other = NodeIndex.open(settings, mem, HashEmbedder())
    st = other.status()
    assert st.state == "stale" and st.counts["problem"] == 4 + 1  # the last whole record; the graph moved on
    hit = other.search_vectors(emb.embed(["Kept 1: description of kept 1"]), k=1, check=False)[0][0]
    assert hit.key == "challenge:kept 1"
    # the next append cuts the torn tail off before writing
    v2 = mem.node_version()
    extra = mem.put("problem", "After the crash", "written by the next run")
    other.add([extra], from_version=v2)
    assert (gdir / DELTA_LOG).read_bytes().startswith(good_log)
    assert b"lost 0" not in (gdir / DELTA_LOG).read_bytes()
    third = NodeIndex.open(settings, mem, HashEmbedder())
    assert "problem:after the crash" in third._groups["problem"].pos
    # the derived-index repair sees it stale and rebuilds, embedding only the texts it never stored
    rebuilder = HashEmbedder()
    repaired = NodeIndex.open(settings, mem, rebuilder)
    assert repaired.rebuild().state == "ok"
    assert sorted(rebuilder.texts) == sorted(node_text(n.name, n.description) for n in lost)


def test_reindex_to_another_kind_reuses_every_stored_vector(settings: Settings) -> None:
    mem = MemStore()
    _populate(mem, 40)
    settings.index.kind = "exact"
    NodeIndex.open(settings, mem, HashEmbedder()).rebuild()
    counting = HashEmbedder()
    settings.index.kind = "hnsw"
    st = NodeIndex.open(settings, mem, counting).rebuild()
    assert set(st.kinds.values()) == {"hnsw"} and sum(st.counts.values()) == 40
    assert counting.calls == 0 and counting.texts == []
    settings.index.kind = "exact"
    assert set(NodeIndex.open(settings, mem, counting).rebuild().kinds.values()) == {"exact"}
    assert counting.calls == 0
    # a changed text is re-embedded, the rest reused; without reuse everything is
    mem.put("problem", "Node 0", "a new description")
    NodeIndex.open(settings, mem, counting).rebuild()
    assert counting.texts == ["Node 0: a new description"]
    NodeIndex.open(settings, mem, counting).rebuild(reuse=False)
    assert len(counting.texts) == 1 + 40


def test_reindex_cli_kind_switch_embeds_nothing(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """`motivgraph reindex --kind hnsw` over a current exact index: the command path, no embedding call."""
    from typer.testing import CliRunner

    from motivgraph.cli import app
    from motivgraph.graph import runtime as runtime_mod

    mem = MemStore()
    _populate(mem, 20)
    NodeIndex.open(settings, mem, HashEmbedder()).rebuild()
    counting = HashEmbedder()

    class FakeRuntime:
        def __init__(self, s: Settings) -> None:
            self.settings, self.store, self.embedder = s, mem, counting
            self.node_index = NodeIndex.open(s, mem, counting)

        def close(self) -> None:
            pass

    monkeypatch.setattr(runtime_mod, "Runtime", FakeRuntime)
    import motivgraph.cli.search_cmd as search_cmd

    monkeypatch.setattr(search_cmd, "Runtime", FakeRuntime, raising=False)
    import motivgraph.cli.common as cli_common

    for mod in (search_cmd, cli_common):
        monkeypatch.setattr(mod, "load_settings", lambda: settings, raising=False)
    for k in [k for k in os.environ if k.startswith("MOTIVGRAPH_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("MOTIVGRAPH_DATA_DIR", str(settings.data_dir))
    monkeypatch.setattr(search_cmd, "graph_is_empty", lambda _s: False, raising=False)
    res = CliRunner().invoke(app, ["reindex", "--no-papers", "--kind", "hnsw", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout[res.stdout.index("{"):])["nodes"]["kinds"] == {
        "problem": "hnsw", "challenge": "hnsw", "solution": "hnsw"}
    assert counting.calls == 0


def test_a_format_1_index_is_migrated_by_the_data_dir_upgrade(settings: Settings) -> None:
    from motivgraph.data_format import STAMP_NAME, check_data_dir

    mem, emb = MemStore(), HashEmbedder()
    _populate(mem, 9)
    idx = NodeIndex.open(settings, mem, emb)
    idx.rebuild()
    before = _results(idx, emb, ["description of node 4"])
    gdir = settings.index_dir / "nodes" / idx.status().generation
    for g in ("problem", "challenge", "solution"):  # what format 1 wrote: [id, label, level] rows
        rows = json.loads((gdir / f"{g}.json").read_text())
        (gdir / f"{g}.json").write_text(json.dumps([r[:3] for r in rows]))
    stamp = json.loads((gdir / "stamp.json").read_text())
    (gdir / "stamp.json").write_text(json.dumps({**stamp, "format_version": 1}))
    (settings.data_dir / STAMP_NAME).write_text(json.dumps({"format": "motivgraph-data", "version": 1}))
    old = NodeIndex.open(settings, mem, emb).status()
    assert old.state == "corrupt" and "motivgraph reindex" in old.message
    assert check_data_dir(settings.data_dir) == 2
    migrated = NodeIndex.open(settings, mem, emb)
    assert migrated.status().state == "ok"
    assert _results(migrated, emb, ["description of node 4"]) == before
    counting = HashEmbedder()
    NodeIndex.open(settings, mem, counting).rebuild()
    assert len(counting.texts) == 9  # no text hash was known: every vector computed again


def test_searches_in_other_threads_during_appends_see_whole_records(settings: Settings) -> None:
    """The miner searches from worker threads while the sink appends: a search never sees half a record
    and never replays one twice (the in-memory log position stays that of the file)."""
    import threading

    mem, emb = MemStore(), HashEmbedder()
    _populate(mem, 9)
    idx = NodeIndex.open(settings, mem, emb)
    idx.rebuild()
    q = emb.embed(["anything"])
    errors: list[BaseException] = []
    stop = threading.Event()

    def search() -> None:
        while not stop.is_set():
            try:
                for hits in idx.search_vectors(q, k=100, check=False):
                    assert len({h.key for h in hits}) == len(hits)
                    assert len(hits) % 3 == 0  # records add 3 nodes, one per type
            except BaseException as e:
                errors.append(e)
                return

    threads = [threading.Thread(target=search) for _ in range(2)]
    for t in threads:
        t.start()
    for batch in range(15):
        idx.add(_populate(mem, 3, prefix=f"T{batch}"))
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors
    assert idx._log.log_bytes == (settings.index_dir / "nodes" / idx.status().generation / DELTA_LOG).stat().st_size
    assert sum(NodeIndex.open(settings, mem, emb).status().counts.values()) == 9 + 45
