"""FAISS vector index over graph nodes (`NodeIndex`), and the versioned on-disk machinery it shares
with the paper index (`graph.paper_index.PaperIndex`).

Node text is `name + ": " + description`, embedded with the project's Embedder (unit vectors, so
inner product = cosine). One FAISS index per node type, so a type filter is exact rather than a
post-filter over a shared top-k. The graph is the source of truth: the index records the graph's
`node_version()` it was built from, and a stale, missing or unreadable index is reported
(IndexStale / IndexMissing / IndexCorrupt, each naming `motivgraph reindex`) or rebuilt when
`settings.index.auto_rebuild` is on — never searched silently.

On disk, under one directory per index (e.g. `<data_dir>/index/nodes/`):

    CURRENT            name of the live generation, replaced atomically (tmp + rename)
    gen-000007/        one complete, immutable generation
        stamp.json     format version, model, dim, graph version, counts, kinds, built time
        <group>.npy    float32 vectors (row i = item i), so vectors are always reconstructable
        <group>.json   item metadata, row-aligned with the vectors ([id, label, level] lists)
        <group>.faiss  the HNSW graph (only for groups built as HNSW; exact indexes are rebuilt
                       from the .npy on load, which costs no more than reading them)
    .lock              flock held by writers (rebuild / add), so two processes never interleave

Readers never lock: a generation is written completely, then CURRENT is swapped, so a reader sees
either the old or the new generation, never half of one. A process notices a newer generation
written by another process on its next search and reloads it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self

import numpy as np
from pydantic import BaseModel, Field

from motivgraph.errors import IndexCorrupt, IndexError_, IndexMissing, IndexStale
from motivgraph.fsutil import atomic_write
from motivgraph.graph.identity import LABELS, NODE_TYPES, check_type
from motivgraph.graph.models import NodeRef, NodeType
from motivgraph.settings import IndexSettings, Settings

if TYPE_CHECKING:
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.base import GraphStore

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
KEEP_GENERATIONS = 2  # the live one and its predecessor (a reader may still be loading it)

IndexKind = Literal["exact", "hnsw"]


@dataclass
class Group:
    """One FAISS index and its row-aligned items (id, label, level)."""

    ids: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    levels: list[int] = field(default_factory=list)
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    kind: IndexKind = "exact"
    index: Any = None  # faiss.Index
    pos: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)


def choose_kind(cfg: IndexSettings, count: int) -> IndexKind:
    if cfg.kind == "auto":
        return "hnsw" if count > cfg.hnsw_threshold else "exact"
    return cfg.kind


def build_faiss(vectors: np.ndarray, kind: IndexKind, cfg: IndexSettings, dim: int) -> Any:
    import faiss

    if kind == "hnsw":
        hnsw = faiss.IndexHNSWFlat(dim, cfg.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efConstruction = cfg.hnsw_ef_construction
        hnsw.hnsw.efSearch = cfg.hnsw_ef_search
        index: faiss.Index = hnsw
    else:
        index = faiss.IndexFlatIP(dim)
    if len(vectors):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index


@contextlib.contextmanager
def write_lock(root: Path, timeout_s: float = 600.0) -> Iterator[None]:
    """Exclusive writer lock across processes (flock: released by the kernel if the holder dies)."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "a+") as fh:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise IndexError_(
                        f"Timed out waiting for the index lock {root / '.lock'}; another process is "
                        "writing the index (wait for it, or stop it)"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


class GenerationStore:
    """Reads and writes generations of a grouped index under `root`."""

    def __init__(self, root: Path, what: str) -> None:
        self.root = root
        self.what = what  # "node index" / "paper index": used in messages

    # -- reading -------------------------------------------------------------------------------
    def current_name(self) -> str | None:
        try:
            name = (self.root / "CURRENT").read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return name or None

    def read_stamp(self, gen: str | None = None) -> dict[str, Any] | None:
        gen = gen or self.current_name()
        if gen is None:
            return None
        path = self.root / gen / "stamp.json"
        try:
            stamp = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise IndexCorrupt(f"The {self.what} stamp {path} is unreadable ({e}); run `motivgraph reindex`") from e
        if not isinstance(stamp, dict) or stamp.get("format_version") != FORMAT_VERSION:
            found = stamp.get("format_version") if isinstance(stamp, dict) else "?"
            raise IndexCorrupt(
                f"The {self.what} at {self.root} has format {found}, this version reads {FORMAT_VERSION}; "
                "run `motivgraph reindex`"
            )
        return stamp

    def load(self, groups: Sequence[str], cfg: IndexSettings) -> tuple[str, dict[str, Any], dict[str, Group]]:
        """Load the live generation. IndexMissing when there is none; IndexCorrupt when a file is bad."""
        gen = self.current_name()
        stamp = self.read_stamp(gen) if gen else None
        if gen is None or stamp is None:
            raise IndexMissing(f"No {self.what} at {self.root}; run `motivgraph reindex` to build it")
        dim = int(stamp["dim"])
        out: dict[str, Group] = {}
        for g in groups:
            out[g] = self._load_group(self.root / gen, g, stamp, dim, cfg)
        return gen, stamp, out

    def _load_group(self, gdir: Path, g: str, stamp: dict[str, Any], dim: int, cfg: IndexSettings) -> Group:
        import faiss

        expected = int(stamp.get("counts", {}).get(g, 0))
        kind: IndexKind = stamp.get("kinds", {}).get(g, "exact")
        try:
            meta = json.loads((gdir / f"{g}.json").read_text(encoding="utf-8"))
            vectors = np.load(gdir / f"{g}.npy", allow_pickle=False)
        except FileNotFoundError as e:
            raise IndexCorrupt(
                f"The {self.what} at {gdir} is incomplete (missing {Path(e.filename).name}); run `motivgraph reindex`"
            ) from e
        except (OSError, ValueError) as e:
            raise IndexCorrupt(
                f"The {self.what} at {gdir} has an unreadable {g!r} file ({e}); run `motivgraph reindex`"
            ) from e
        if (
            not isinstance(meta, list)
            or len(meta) != expected
            or vectors.dtype != np.float32
            or vectors.ndim != 2
            or vectors.shape != (expected, dim)
        ):
            raise IndexCorrupt(
                f"The {self.what} at {gdir} is inconsistent for {g!r} (stamp says {expected} x {dim}, files "
                f"hold {len(meta) if isinstance(meta, list) else '?'} items and vectors {vectors.shape}); "
                "run `motivgraph reindex`"
            )
        grp = Group(
            ids=[m[0] for m in meta], labels=[m[1] for m in meta], levels=[int(m[2]) for m in meta],
            vectors=vectors, kind=kind,
        )
        grp.pos = {k: i for i, k in enumerate(grp.ids)}
        if kind == "hnsw":
            try:
                grp.index = faiss.read_index(str(gdir / f"{g}.faiss"))
            except Exception as e:  # faiss raises RuntimeError with a C++ message
                raise IndexCorrupt(
                    f"The {self.what} HNSW file for {g!r} in {gdir} is unreadable ({e}); run `motivgraph reindex`"
                ) from e
            if grp.index.ntotal != expected or grp.index.d != dim:
                raise IndexCorrupt(
                    f"The {self.what} HNSW file for {g!r} does not match its stamp; run `motivgraph reindex`"
                )
            grp.index.hnsw.efSearch = cfg.hnsw_ef_search
        else:
            grp.index = build_faiss(vectors, "exact", cfg, dim)
        return grp

    # -- writing (call under write_lock) -------------------------------------------------------
    def write(self, stamp: dict[str, Any], groups: dict[str, Group]) -> str:
        """Write a complete new generation and make it live. Returns its name."""
        import faiss

        self.root.mkdir(parents=True, exist_ok=True)
        prev = self.current_name()
        number = int(prev.split("-")[1]) + 1 if prev and prev.startswith("gen-") else 1
        while (self.root / f"gen-{number:06d}").exists():
            number += 1
        name = f"gen-{number:06d}"
        tmp = Path(tempfile.mkdtemp(dir=self.root, prefix=f".{name}."))
        try:
            for g, grp in groups.items():
                meta = [[i, lbl, lvl] for i, lbl, lvl in zip(grp.ids, grp.labels, grp.levels, strict=True)]
                (tmp / f"{g}.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
                with open(tmp / f"{g}.npy", "wb") as fh:
                    np.save(fh, np.ascontiguousarray(grp.vectors, dtype=np.float32), allow_pickle=False)
                if grp.kind == "hnsw":
                    faiss.write_index(grp.index, str(tmp / f"{g}.faiss"))
            stamp = {**stamp, "format_version": FORMAT_VERSION, "generation": name}
            (tmp / "stamp.json").write_text(json.dumps(stamp, indent=2, sort_keys=True), encoding="utf-8")
            for f in tmp.iterdir():
                with open(f, "rb") as fh:
                    os.fsync(fh.fileno())
            os.rename(tmp, self.root / name)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        atomic_write(self.root / "CURRENT", name + "\n")
        self._prune(name)
        return name

    def _prune(self, live: str) -> None:
        gens = sorted(p for p in self.root.glob("gen-*") if p.is_dir())
        for p in gens[:-KEEP_GENERATIONS]:
            if p.name != live:
                shutil.rmtree(p, ignore_errors=True)
        for p in self.root.glob(".gen-*"):  # leftovers of a writer that was killed mid-write
            if p.is_dir() and time.time() - p.stat().st_mtime > 3600:
                shutil.rmtree(p, ignore_errors=True)

    def disk_bytes(self) -> int:
        if not self.root.exists():
            return 0
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file())


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def search_groups(
    groups: dict[str, Group], names: Sequence[str], queries: np.ndarray, k: int, min_score: float | None
) -> list[list[tuple[float, str, int]]]:
    """Top-k (score, group, row) per query over the named groups, merged best first."""
    per_query: list[list[tuple[float, str, int]]] = [[] for _ in range(len(queries))]
    for g in names:
        grp = groups.get(g)
        if grp is None or not len(grp):
            continue
        kk = min(k, len(grp))
        scores, rows = grp.index.search(queries, kk)
        for qi in range(len(queries)):
            for s, r in zip(scores[qi], rows[qi], strict=True):
                if r < 0:  # HNSW may return fewer than k
                    continue
                if min_score is not None and s < min_score:
                    continue
                per_query[qi].append((float(s), g, int(r)))
    for lst in per_query:
        # ties broken by id so results are deterministic
        lst.sort(key=lambda t: (-t[0], groups[t[1]].ids[t[2]]))
        del lst[k:]
    return per_query


# ---------------------------------------------------------------------------------------------
# The grouped index both NodeIndex and PaperIndex are made of
# ---------------------------------------------------------------------------------------------

IndexState = Literal["ok", "stale", "missing", "corrupt"]
Progress = Callable[[int, int], None]  # (items embedded so far, total)

EMBED_CHUNK = 2048  # texts per embed() call during rebuild: bounds memory, drives the progress bar


class IndexStatus(BaseModel):
    """What `motivgraph reindex` / the API report about an index."""

    state: IndexState
    message: str
    path: str
    index_version: int | None = Field(None, description="graph version the index was built from")
    graph_version: int | None = Field(None, description="graph version now")
    counts: dict[str, int] = Field(default_factory=dict)
    kinds: dict[str, str] = Field(default_factory=dict)
    model: str | None = None
    dim: int | None = None
    built_at: str | None = None
    generation: str | None = None


class GroupedIndex:
    """Grouped, versioned FAISS indexes with staleness detection. Subclasses say what the groups
    are, how an item becomes text, and what the graph's version is."""

    GROUPS: tuple[str, ...] = ()
    SUBDIR = ""
    WHAT = "index"

    def __init__(self, settings: Settings, store: GraphStore, embedder: Embedder | None) -> None:
        self.settings = settings
        self.cfg = settings.index
        self.store = store
        self._embedder = embedder
        self.root = settings.index_dir / self.SUBDIR
        self._gens = GenerationStore(self.root, self.WHAT)
        self._lock = threading.RLock()
        self._gen: str | None = None
        self._stamp: dict[str, Any] | None = None
        self._groups: dict[str, Group] = {}
        self._load_error: IndexCorrupt | None = None

    @classmethod
    def open(cls, settings: Settings, store: GraphStore, embedder: Embedder) -> Self:
        """Open the index under settings.index_dir. Never raises for a missing, stale or corrupt
        index: `status()` reports it and `search()` raises (or rebuilds with auto_rebuild)."""
        inst = cls(settings, store, embedder)
        inst._sync()
        return inst

    @classmethod
    def peek(cls, settings: Settings, store: GraphStore) -> IndexStatus:
        """Status from the stamp alone, without loading the embedding model (the model check is
        skipped): cheap enough for `graph stats` and health endpoints."""
        inst = cls(settings, store, None)
        gen = inst._gens.current_name()
        try:
            inst._stamp = inst._gens.read_stamp(gen) if gen else None
            inst._gen = gen
        except IndexCorrupt as e:
            inst._gen, inst._load_error = gen, e
        inst._sync = lambda: None  # type: ignore[method-assign]
        return inst.status()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            raise RuntimeError("this index was opened for status only (peek); open() it to search or build")
        return self._embedder

    # -- subclass hooks --------------------------------------------------------------------------
    def graph_version(self) -> int:
        raise NotImplementedError

    def _iter_items(self, group: str) -> Iterator[tuple[str, str, int, str]]:
        """(id, label, level, text) of every item of a group, from the graph."""
        raise NotImplementedError

    def _group_totals(self) -> dict[str, int]:
        """Expected item counts per group (for the progress bar); approximate is fine."""
        raise NotImplementedError

    # -- loading ---------------------------------------------------------------------------------
    def _sync(self) -> None:
        """Load the live generation if it is not the one in memory (another process rebuilt)."""
        gen = self._gens.current_name()
        if gen is not None and gen == self._gen and self._load_error is None:
            return
        with self._lock:
            for attempt in range(3):
                try:
                    if gen is None:
                        self._gen, self._stamp, self._groups, self._load_error = None, None, {}, None
                        return
                    loaded, stamp, groups = self._gens.load(self.GROUPS, self.cfg)
                    self._gen, self._stamp, self._groups, self._load_error = loaded, stamp, groups, None
                    return
                except IndexMissing:
                    self._gen, self._stamp, self._groups, self._load_error = None, None, {}, None
                    return
                except IndexCorrupt as e:
                    # a writer may have swapped and pruned the generation while we read it: retry
                    # with the new one; the same generation failing again really is damaged
                    now = self._gens.current_name()
                    if now != gen and attempt < 2:
                        gen = now
                        continue
                    log.warning("%s", e)
                    self._gen, self._stamp, self._groups, self._load_error = gen, None, {}, e
                    return

    # -- status ----------------------------------------------------------------------------------
    def status(self) -> IndexStatus:
        self._sync()
        path = str(self.root)
        if self._load_error is not None:
            return IndexStatus(state="corrupt", message=str(self._load_error), path=path, generation=self._gen)
        graph_version = self.graph_version()
        stamp = self._stamp
        if stamp is None:
            return IndexStatus(
                state="missing", path=path, graph_version=graph_version,
                message=f"No {self.WHAT} at {path}; run `motivgraph reindex` to build it",
            )
        base = dict(
            path=path, index_version=stamp.get("graph_version"), graph_version=graph_version,
            counts=stamp.get("counts", {}), kinds=stamp.get("kinds", {}), model=stamp.get("model"),
            dim=stamp.get("dim"), built_at=stamp.get("built_at"), generation=stamp.get("generation"),
        )
        emb = self._embedder
        if emb is not None and (stamp.get("model") != emb.model_name or stamp.get("dim") != emb.dim):
            return IndexStatus(
                state="stale", **base,
                message=f"The {self.WHAT} was built with model {stamp.get('model')!r} (dim {stamp.get('dim')}), "
                f"the configured model is {emb.model_name!r} (dim {emb.dim}); "
                "run `motivgraph reindex`",
            )
        if stamp.get("graph_version") != graph_version:
            return IndexStatus(
                state="stale", **base,
                message=f"The {self.WHAT} is stale: built from graph version {stamp.get('graph_version')}, "
                f"the graph is at version {graph_version}; run `motivgraph reindex`",
            )
        total = sum(base["counts"].values())
        return IndexStatus(state="ok", **base, message=f"{self.WHAT} up to date ({total} items)")

    def ensure_ready(self) -> None:
        """Raise IndexMissing / IndexStale / IndexCorrupt, or rebuild when auto_rebuild is on."""
        st = self.status()
        if st.state == "ok":
            return
        if self.cfg.auto_rebuild:
            log.info("%s; rebuilding (index.auto_rebuild)", st.message)
            self.rebuild()
            return
        err = {"missing": IndexMissing, "stale": IndexStale, "corrupt": IndexCorrupt}[st.state]
        raise err(st.message)

    # -- building --------------------------------------------------------------------------------
    def rebuild(self, progress: Progress | None = None) -> IndexStatus:
        """Re-embed every item from the graph and write a new generation."""
        with write_lock(self.root):
            # read the version first: anything written during the rebuild makes the result stale,
            # never silently complete
            version = self.graph_version()
            totals = self._group_totals()
            total = sum(totals.values())
            done = 0
            if progress:
                progress(0, total)
            groups: dict[str, Group] = {}
            for g in self.GROUPS:
                grp = Group()
                chunks: list[np.ndarray] = []
                texts: list[str] = []

                def flush(texts: list[str] = texts, chunks: list[np.ndarray] = chunks) -> None:
                    nonlocal done
                    if texts:
                        chunks.append(self.embedder.embed(texts))
                        done += len(texts)
                        texts.clear()
                        if progress:
                            progress(done, max(total, done))

                for item_id, label, level, text in self._iter_items(g):
                    if item_id in grp.pos:  # a backend must not yield duplicates; be safe anyway
                        continue
                    grp.pos[item_id] = len(grp.ids)
                    grp.ids.append(item_id)
                    grp.labels.append(label)
                    grp.levels.append(level)
                    texts.append(text)
                    if len(texts) >= EMBED_CHUNK:
                        flush()
                flush()
                grp.vectors = (
                    np.concatenate(chunks) if chunks else np.zeros((0, self.embedder.dim), dtype=np.float32)
                )
                grp.kind = choose_kind(self.cfg, len(grp))
                grp.index = build_faiss(grp.vectors, grp.kind, self.cfg, self.embedder.dim)
                groups[g] = grp
            self._commit(groups, version)
        return self.status()

    def _commit(self, groups: dict[str, Group], version: int) -> None:
        stamp = {
            "model": self.embedder.model_name,
            "dim": self.embedder.dim,
            "graph_version": version,
            "counts": {g: len(groups[g]) for g in self.GROUPS},
            "kinds": {g: groups[g].kind for g in self.GROUPS},
            "built_at": now_iso(),
        }
        name = self._gens.write(stamp, groups)
        with self._lock:
            self._gen, self._groups, self._load_error = name, groups, None
            self._stamp = {**stamp, "format_version": FORMAT_VERSION, "generation": name}
        log.info("%s written: %s %s", self.WHAT, name, stamp["counts"])

    def _add_items(
        self, items: Sequence[tuple[str, str, str, int, str]], new_version: Callable[[dict[str, Any]], int]
    ) -> int:
        """Add or replace (group, id, label, level, text) items; `new_version(old_stamp)` gives the
        graph version to record. A missing or unreadable index is rebuilt from the graph instead."""
        if not items:
            return 0
        with write_lock(self.root):
            self._sync()  # another process may have written since we loaded
            if self._stamp is None or self._load_error is not None:
                log.info("%s missing or unreadable; building it from the graph", self.WHAT)
                rebuild_needed = True
            else:
                rebuild_needed = False
                vecs = self.embedder.embed([it[4] for it in items])
                groups = {g: self._copy_group(self._groups[g]) for g in self.GROUPS}
                changed: set[str] = set()
                replaced: set[str] = set()
                new_rows: dict[str, list[np.ndarray]] = {g: [] for g in self.GROUPS}
                for (g, item_id, label, level, _), v in zip(items, vecs, strict=True):
                    grp = groups[g]
                    row = grp.pos.get(item_id)
                    old_rows = len(grp.vectors)
                    if row is None:
                        grp.pos[item_id] = len(grp.ids)
                        grp.ids.append(item_id)
                        grp.labels.append(label)
                        grp.levels.append(level)
                        new_rows[g].append(v)
                    else:
                        grp.labels[row], grp.levels[row] = label, level
                        if row < old_rows:
                            grp.vectors[row] = v
                            replaced.add(g)
                        else:  # the same id twice in one call: the later text wins
                            new_rows[g][row - old_rows] = v
                    changed.add(g)
                for g in changed:
                    grp = groups[g]
                    if new_rows[g]:
                        # one concatenation per group, not one per item
                        old = grp.vectors.reshape(-1, self.embedder.dim)
                        grp.vectors = np.concatenate([old, np.stack(new_rows[g])])
                    kind = choose_kind(self.cfg, len(grp))
                    if kind == "hnsw" and grp.kind == "hnsw" and g not in replaced:
                        # HNSW grows in place; only rows past the old end are new
                        grp.index.add(np.ascontiguousarray(grp.vectors[grp.index.ntotal :]))
                    else:
                        grp.kind = kind
                        grp.index = build_faiss(grp.vectors, kind, self.cfg, self.embedder.dim)
                self._commit(groups, new_version(self._stamp))
        if rebuild_needed:
            self.rebuild()
        return len(items)

    def _remove_items(self, ids: Sequence[str], new_version: Callable[[dict[str, Any]], int]) -> int:
        """Delete items by id from every group and write a new generation (the live one is never
        touched, so readers see the old or the new set, never half); `new_version(old_stamp)` gives
        the graph version to record. Ids not in the index are ignored. A missing or unreadable
        index holds nothing to delete and is left for the next rebuild. Returns how many were removed."""
        wanted = set(ids)
        if not wanted:
            return 0
        with write_lock(self.root):
            self._sync()  # another process may have written since we loaded
            if self._stamp is None or self._load_error is not None:
                return 0
            groups: dict[str, Group] = {}
            removed = 0
            for g in self.GROUPS:
                grp = self._groups[g]
                drop = [grp.pos[i] for i in wanted if i in grp.pos]
                if not drop:
                    groups[g] = grp
                    continue
                removed += len(drop)
                keep = np.ones(len(grp), dtype=bool)
                keep[drop] = False
                rows = np.flatnonzero(keep)
                dim = grp.vectors.shape[1] if grp.vectors.ndim == 2 and grp.vectors.shape[1] else self.embedder.dim
                vectors = np.ascontiguousarray(grp.vectors.reshape(-1, dim)[rows], dtype=np.float32)
                new = Group(ids=[grp.ids[r] for r in rows], labels=[grp.labels[r] for r in rows],
                            levels=[grp.levels[r] for r in rows], vectors=vectors)
                new.pos = {k: i for i, k in enumerate(new.ids)}
                # FAISS HNSW cannot delete: the group is rebuilt from its stored vectors (no re-embedding)
                new.kind = choose_kind(self.cfg, len(new))
                new.index = build_faiss(new.vectors, new.kind, self.cfg, dim)
                groups[g] = new
            version = new_version(self._stamp)
            if removed or version != self._stamp.get("graph_version"):  # nothing held, yet now current
                self._commit(groups, version)
        return removed

    @staticmethod
    def _copy_group(grp: Group) -> Group:
        """A writable copy, so searches on the live in-memory generation are never disturbed."""
        import faiss

        index = grp.index
        if grp.kind == "hnsw" and index is not None:
            index = faiss.deserialize_index(faiss.serialize_index(index))
        return Group(
            ids=list(grp.ids), labels=list(grp.labels), levels=list(grp.levels),
            vectors=grp.vectors.copy(), kind=grp.kind, index=index, pos=dict(grp.pos),
        )

    # -- searching -------------------------------------------------------------------------------
    def _query(
        self, queries: np.ndarray, k: int, groups: Sequence[str], min_score: float | None, check: bool
    ) -> tuple[dict[str, Group], list[list[tuple[float, str, int]]]]:
        if k < 1:
            raise ValueError("k must be at least 1")
        if check:
            self.ensure_ready()
        else:
            self._sync()
            if self._load_error is not None:
                raise self._load_error
            if self._stamp is None:
                raise IndexMissing(f"No {self.WHAT} at {self.root}; run `motivgraph reindex` to build it")
        with self._lock:
            live = self._groups  # a consistent snapshot even if another thread swaps generations
        return live, search_groups(live, groups, np.ascontiguousarray(queries, dtype=np.float32), k, min_score)

    def vectors_of(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored unit vectors of the given item ids (ids not in the index are left out)."""
        self._sync()
        with self._lock:
            live = self._groups
        out: dict[str, np.ndarray] = {}
        for item_id in ids:
            for grp in live.values():
                row = grp.pos.get(item_id)
                if row is not None:
                    out[item_id] = grp.vectors[row].copy()
                    break
        return out

    def disk_bytes(self) -> int:
        return self._gens.disk_bytes()

    def __len__(self) -> int:
        self._sync()
        return sum(len(g) for g in self._groups.values())


# ---------------------------------------------------------------------------------------------
# Nodes
# ---------------------------------------------------------------------------------------------


class IndexHit(BaseModel):
    key: str
    type: NodeType
    name: str
    level: int = 0
    score: float


def node_text(name: str, description: str) -> str:
    """The text a node is embedded as (and what a query about it is best phrased like)."""
    return f"{name}: {description}" if description else name


class NodeIndex(GroupedIndex):
    """One FAISS index per node type over `name: description`. See the module doc."""

    GROUPS = NODE_TYPES
    SUBDIR = "nodes"
    WHAT = "node index"

    def graph_version(self) -> int:
        return int(self.store.node_version())

    def _group_totals(self) -> dict[str, int]:
        counts = self.store.stats().nodes
        return {t: int(counts.get(LABELS[t], 0)) for t in self.GROUPS}

    def _iter_items(self, group: str) -> Iterator[tuple[str, str, int, str]]:
        for n in self.store.iter_nodes(types=[group]):  # type: ignore[list-item]
            yield n.key, n.name, n.level, node_text(n.name, n.description)

    def add(
        self,
        nodes: Sequence[NodeRef],
        *,
        from_version: int | None = None,
        to_version: int | None = None,
    ) -> int:
        """Embed and add (or replace, by key) the given nodes; returns how many were embedded.

        Versioning, so the index is never silently wrong: pass `from_version` = the store's
        `node_version()` read *before* the writes that produced these nodes. If the index was
        built at exactly that version, it is stamped `to_version` (default: the store's version
        now) and stays "ok"; otherwise (or without `from_version`) its stamp is kept and it is
        reported stale until `motivgraph reindex`. A missing index is built from the graph."""

        def new_version(stamp: dict[str, Any]) -> int:
            old = stamp.get("graph_version")
            if from_version is not None and old == from_version:
                return int(to_version if to_version is not None else self.graph_version())
            return int(old) if old is not None else -1

        items = []
        for n in nodes:
            t = check_type(n.type)
            items.append((t, n.key, n.name, int(n.level), node_text(n.name, n.description)))
        return self._add_items(items, new_version)

    def remove(self, keys: Sequence[str], *, from_version: int | None = None, to_version: int | None = None) -> int:
        """Delete the vectors of these node keys (nodes removed from the graph); returns how many were
        in the index. Versioning as in `add`: stamped current only when the index was built at
        `from_version` (the store's version read before the removal), else it stays reported stale."""

        def new_version(stamp: dict[str, Any]) -> int:
            old = stamp.get("graph_version")
            if from_version is not None and old == from_version:
                return int(to_version if to_version is not None else self.graph_version())
            return int(old) if old is not None else -1

        return self._remove_items(keys, new_version)

    def search(
        self,
        text: str,
        k: int = 10,
        types: Sequence[NodeType] | None = None,
        min_score: float | None = None,
        *,
        check: bool = True,
    ) -> list[IndexHit]:
        """Top-k nodes by cosine similarity to `text`, best first, merged across the given types.
        `check=False` skips the staleness check (one graph query) for callers that did it."""
        return self.search_many([text], k, types, min_score, check=check)[0]

    def search_many(
        self,
        texts: Sequence[str],
        k: int = 10,
        types: Sequence[NodeType] | None = None,
        min_score: float | None = None,
        *,
        check: bool = True,
    ) -> list[list[IndexHit]]:
        """`search` for several texts at once (one embedding batch, one FAISS call per type)."""
        if not texts:
            return []
        return self.search_vectors(self.embedder.embed(list(texts)), k, types, min_score, check=check)

    def search_vectors(
        self,
        vectors: np.ndarray,
        k: int = 10,
        types: Sequence[NodeType] | None = None,
        min_score: float | None = None,
        *,
        check: bool = True,
    ) -> list[list[IndexHit]]:
        """`search` by unit query vectors (e.g. from `vectors_for`), one hit list per row."""
        names = [check_type(t) for t in types] if types else list(self.GROUPS)
        live, results = self._query(np.atleast_2d(vectors), k, names, min_score, check)
        return [
            [
                IndexHit(
                    key=live[g].ids[r], type=g, name=live[g].labels[r], level=live[g].levels[r],
                    score=s,
                )
                for s, g, r in hits
            ]
            for hits in results
        ]

    def vectors_for(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored embedding of each indexed node key (keys not indexed are left out)."""
        return self.vectors_of(keys)
