"""Grouped, versioned FAISS indexes with staleness detection (`GroupedIndex`, and the `IndexStatus` it
reports): what `graph.vector_index.NodeIndex` and `graph.paper_index.PaperIndex` share. A subclass says
what its groups are, how an item becomes text and what the graph's version is.

The graph is the source of truth: an index records the graph version it was built from (with the model,
dimension and embedding backend), and a stale, missing or unreadable index is reported (IndexStale /
IndexMissing / IndexCorrupt, each naming `motivgraph reindex`) or rebuilt when
`settings.index.auto_rebuild` is on — never searched silently. The generations on disk are
`graph.index_store`'s, the FAISS build and search `graph.faiss_groups`'.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, Self

import numpy as np
from pydantic import BaseModel, Field

from motivgraph.errors import IndexCorrupt, IndexMissing, IndexStale
from motivgraph.graph.faiss_groups import Group, build_faiss, choose_kind, search_groups
from motivgraph.graph.index_store import (
    FORMAT_VERSION,
    GenerationStore,
    LogState,
    apply_record,
    compact,
    needs_compaction,
    text_hash,
    write_lock,
)
from motivgraph.settings import Settings

if TYPE_CHECKING:
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.base import GraphStore

log = logging.getLogger(__name__)

IndexState = Literal["ok", "stale", "missing", "corrupt"]
Progress = Callable[[int, int], None]  # (items embedded so far, total)

EMBED_CHUNK = 2048  # texts per embed() call during rebuild: bounds memory, drives the progress bar


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def stamp_backend(stamp: Mapping[str, Any]) -> str:
    """The embedding backend that computed an index's vectors; stamps older than the setting were torch."""
    return str(stamp.get("backend") or "torch")


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
    backend: str | None = Field(None, description="what computed the vectors: torch, onnx or onnx-int8")
    precision: str | None = Field(None, description="what the build embedded in: fp32, or bf16 (bulk_precision)")
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
        self._log = LogState()
        self._load_error: IndexCorrupt | None = None
        self.last_embedded = 0  # texts the last rebuild/add embedded (the rest reused stored vectors)

    @classmethod
    def open(cls, settings: Settings, store: GraphStore, embedder: Embedder) -> Self:
        """Open the index under settings.index_dir. Never raises for a missing, stale or corrupt
        index: `status()` reports it and `search()` raises (or rebuilds with auto_rebuild)."""
        inst = cls(settings, store, embedder)
        inst._sync()
        return inst

    @classmethod
    def peek(cls, settings: Settings, store: GraphStore) -> IndexStatus:
        """Status from the stamp (and the append log's last record) alone, without loading the
        embedding model or any vector (the model check is skipped): cheap enough for `graph stats`
        and health endpoints."""
        inst = cls(settings, store, None)
        gen = inst._gens.current_name()
        try:
            inst._stamp = inst._gens.read_effective_stamp(gen) if gen else None
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
        """Load the live generation if it is not the one in memory (another process rebuilt or
        compacted), or apply the records another process appended to its log since."""
        gen = self._gens.current_name()
        if gen is not None and gen == self._gen and self._load_error is None:
            if self._stamp is None or self._gens.log_seen(gen) == self._log.seen:
                return
            with self._lock:
                if self._gen != gen or self._stamp is None:
                    return self._sync()
                try:
                    groups, stamp = self._gens.catch_up(gen, self._stamp, self._groups, self._log, self.cfg)
                except IndexCorrupt as e:
                    log.warning("%s", e)
                    self._stamp, self._groups, self._load_error = None, {}, e
                    return None
                self._groups, self._stamp = groups, stamp
            return None
        with self._lock:
            for attempt in range(3):
                try:
                    if gen is None:
                        self._gen, self._stamp, self._groups, self._load_error = None, None, {}, None
                        self._log = LogState()
                        return None
                    loaded, stamp, groups, state = self._gens.load(self.GROUPS, self.cfg)
                    self._gen, self._stamp, self._groups, self._load_error = loaded, stamp, groups, None
                    self._log = state
                    return None
                except IndexMissing:
                    self._gen, self._stamp, self._groups, self._load_error = None, None, {}, None
                    self._log = LogState()
                    return None
                except IndexCorrupt as e:
                    # a writer may have swapped and pruned the generation while we read it: retry
                    # with the new one; the same generation failing again really is damaged
                    now = self._gens.current_name()
                    if now != gen and attempt < 2:
                        gen = now
                        continue
                    log.warning("%s", e)
                    self._gen, self._stamp, self._groups, self._load_error = gen, None, {}, e
                    self._log = LogState()
                    return None
        return None

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
            backend=stamp_backend(stamp), precision=stamp.get("precision") or "fp32",
        )
        emb = self._embedder
        if emb is not None and (stamp.get("model") != emb.model_name or stamp.get("dim") != emb.dim):
            return IndexStatus(
                state="stale", **base,
                message=f"The {self.WHAT} was built with model {stamp.get('model')!r} (dim {stamp.get('dim')}), "
                f"the configured model is {emb.model_name!r} (dim {emb.dim}); "
                "run `motivgraph reindex`",
            )
        if emb is not None and stamp_backend(stamp) != emb.backend:
            # vectors of two backends are never mixed in one index (int8 ones differ measurably)
            return IndexStatus(
                state="stale", **base,
                message=f"The {self.WHAT} was built with the {stamp_backend(stamp)!r} embedding backend, the "
                f"embedder now is {emb.backend!r} (MOTIVGRAPH_EMBEDDING_BACKEND, or a fall-back to torch logged "
                "when the embedder loaded); run `motivgraph reindex`",
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
    def _reusable(self) -> dict[str, Group]:
        """The loaded groups whose stored vectors a rebuild may reuse: same model and dimension (an
        unreadable index offers none)."""
        self._sync()
        stamp, emb = self._stamp, self.embedder
        if stamp is None or self._load_error is not None:
            return {}
        if stamp.get("model") != emb.model_name or stamp.get("dim") != emb.dim:
            return {}
        if stamp_backend(stamp) != emb.backend:
            return {}
        return self._groups

    def rebuild(
        self,
        progress: Progress | None = None,
        *,
        reuse: bool = True,
        known: Mapping[str, np.ndarray] | None = None,
    ) -> IndexStatus:
        """Build a new generation of every item in the graph. With `reuse`, an item whose text is
        unchanged keeps its stored vector (so `reindex --kind` and the repair of a stale index embed
        only what changed); `known` maps texts to vectors already computed (e.g. by the resolver).
        Everything else is embedded. `last_embedded` says how many texts were."""
        with write_lock(self.root):
            # read the version first: anything written during the rebuild makes the result stale,
            # never silently complete
            version = self.graph_version()
            old = self._reusable() if reuse else {}
            known = known or {}
            totals = self._group_totals()
            total = sum(totals.values())
            done = 0
            embedded = 0
            precisions: set[str] = set()
            if progress:
                progress(0, total)
            dim = self.embedder.dim
            groups: dict[str, Group] = {}
            for g in self.GROUPS:
                prev = old.get(g)
                ids: list[str] = []
                labels: list[str] = []
                levels: list[int] = []
                hashes: list[str] = []
                seen: set[str] = set()
                rows: list[np.ndarray | None] = []
                todo: list[tuple[int, str]] = []  # (row, text) still to embed

                def flush(todo: list[tuple[int, str]] = todo, rows: list[np.ndarray | None] = rows) -> None:
                    nonlocal done, embedded
                    if todo:
                        vecs, precision = self.embedder.embed_bulk([t for _, t in todo])
                        precisions.add(precision)
                        for (r, _), v in zip(todo, vecs, strict=True):
                            rows[r] = v
                        done += len(todo)
                        embedded += len(todo)
                        todo.clear()
                        if progress:
                            progress(done, max(total, done))

                for item_id, label, level, text in self._iter_items(g):
                    if item_id in seen:  # a backend must not yield duplicates; be safe anyway
                        continue
                    seen.add(item_id)
                    h = text_hash(text)
                    ids.append(item_id)
                    labels.append(label)
                    levels.append(level)
                    hashes.append(h)
                    r = prev.pos.get(item_id) if prev is not None else None
                    vec = prev.vector(r) if prev is not None and r is not None and prev.hashes[r] == h else None
                    if vec is None:
                        vec = known.get(text)
                    rows.append(vec)
                    if vec is None:
                        todo.append((len(rows) - 1, text))
                        if len(todo) >= EMBED_CHUNK:
                            flush()
                    else:
                        done += 1
                flush()
                vectors = (np.vstack(rows).astype(np.float32, copy=False) if rows  # type: ignore[arg-type]
                           else np.zeros((0, dim), dtype=np.float32))
                kind = choose_kind(self.cfg, len(ids))
                groups[g] = Group.single(ids, labels, levels, hashes, vectors, kind,
                                         build_faiss(vectors, kind, self.cfg, dim), dim)
            if progress:
                progress(done, max(total, done))
            self.last_embedded = embedded
            # reused vectors keep no precision of their own: the stamp says bf16 if any build that made
            # them (this one or the one reused from) embedded in bf16
            if old and self._stamp is not None and self._stamp.get("precision") == "bf16":
                precisions.add("bf16")
            self._commit(groups, version, "bf16" if "bf16" in precisions else "fp32")
        return self.status()

    def _commit(self, groups: dict[str, Group], version: int, precision: str | None = None) -> None:
        """Write `groups` (compacted first) as a new generation and make it the live one. `precision`:
        what the bulk of its vectors was embedded in (None: as the live generation says)."""
        groups = {g: compact(groups[g], self.cfg) for g in self.GROUPS}
        stamp = {
            "model": self.embedder.model_name,
            "dim": self.embedder.dim,
            "graph_version": version,
            "counts": {g: len(groups[g]) for g in self.GROUPS},
            "kinds": {g: groups[g].kind for g in self.GROUPS},
            "built_at": now_iso(),
        }
        stamp["backend"] = self.embedder.backend
        if precision is None:
            precision = str((self._stamp or {}).get("precision") or "fp32")
        stamp["precision"] = precision
        name = self._gens.write(stamp, groups)
        with self._lock:
            self._gen, self._groups, self._load_error = name, groups, None
            self._stamp = {**stamp, "format_version": FORMAT_VERSION, "generation": name}
            self._log = LogState()
        log.info("%s written: %s %s", self.WHAT, name, stamp["counts"])

    def _write_record(self, rec: dict[str, Any], vectors: np.ndarray) -> None:
        """Apply one record (adds and/or deletions) to the live generation: appended to its log, or —
        when the rows appended or deleted since it was written pass the compaction threshold — written
        with everything else as a new generation. Call under the write lock, after `_sync`."""
        assert self._stamp is not None and self._gen is not None
        groups = apply_record(self._groups, rec, vectors, self.cfg)
        if any(needs_compaction(groups[g]) for g in self.GROUPS):
            self._commit(groups, int(rec["gv"]))
            return
        counts = {g: len(groups[g]) for g in self.GROUPS}
        # under the in-process lock: a search thread's `_sync` must not replay this record from the file
        # between the write and the swap (it would be applied twice)
        with self._lock:
            self._gens.append(self._gen, {**rec, "counts": counts}, vectors, self._log, int(self._stamp["dim"]))
            self._groups = groups
            self._stamp = {**self._stamp, "graph_version": rec["gv"], "counts": counts}

    def _add_items(
        self,
        items: Sequence[tuple[str, str, str, int, str]],
        new_version: Callable[[dict[str, Any]], int],
        vectors: Sequence[np.ndarray | None] | None = None,
    ) -> int:
        """Add or replace (group, id, label, level, text) items; `vectors` (aligned, optional, None
        entries allowed) are their embeddings when the caller already has them — only the others are
        embedded. `new_version(old_stamp)` gives the graph version to record. A missing or unreadable
        index is rebuilt from the graph instead (reusing the given vectors)."""
        if not items:
            return 0
        given = list(vectors) if vectors is not None else [None] * len(items)
        # the same id twice in one call: the later one wins
        last: dict[str, int] = {}
        for i, it in enumerate(items):
            last[it[1]] = i
        order = sorted(last.values())
        with write_lock(self.root):
            self._sync()  # another process may have written since we loaded
            if self._stamp is None or self._load_error is not None:
                log.info("%s missing or unreadable; building it from the graph", self.WHAT)
                rebuild_needed = True
            elif stamp_backend(self._stamp) != self.embedder.backend:
                # never append one backend's vectors to another's: build it all with this one
                log.info("%s built with the %r backend; rebuilding it with %r", self.WHAT,
                         stamp_backend(self._stamp), self.embedder.backend)
                rebuild_needed = True
            else:
                rebuild_needed = False
                dim = int(self._stamp["dim"])
                missing = [i for i in order if given[i] is None]
                embedded = self.embedder.embed([items[i][4] for i in missing]) if missing else None
                vec_of: dict[int, np.ndarray] = {i: given[i] for i in order if given[i] is not None}  # type: ignore[misc]
                if embedded is not None:
                    vec_of.update(zip(missing, embedded, strict=True))
                self.last_embedded = len(missing)
                adds: dict[str, list[list[Any]]] = {}
                for g in self.GROUPS:
                    rows = [[items[i][1], items[i][2], int(items[i][3]), text_hash(items[i][4])]
                            for i in order if items[i][0] == g]
                    if rows:
                        adds[g] = rows
                flat = [i for g in adds for i in order if items[i][0] == g]  # record order: group, then item
                vecs = (np.vstack([vec_of[i] for i in flat]).astype(np.float32, copy=False)
                        if flat else np.zeros((0, dim), dtype=np.float32))
                self._write_record({"gv": new_version(self._stamp), "add": adds}, vecs)
        if rebuild_needed:
            known = {it[4]: v for it, v in zip(items, given, strict=True) if v is not None}
            self.rebuild(known=known)
        return len(items)

    def _remove_items(self, ids: Sequence[str], new_version: Callable[[dict[str, Any]], int]) -> int:
        """Delete items by id from every group (an append-log record; readers see all of it or none);
        `new_version(old_stamp)` gives the graph version to record. Ids not in the index are ignored.
        A missing or unreadable index holds nothing to delete and is left for the next rebuild.
        Returns how many were removed."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return 0
        with write_lock(self.root):
            self._sync()  # another process may have written since we loaded
            if self._stamp is None or self._load_error is not None:
                return 0
            held = [i for i in wanted if any(i in grp.pos for grp in self._groups.values())]
            version = new_version(self._stamp)
            if held or version != self._stamp.get("graph_version"):  # nothing held, yet now current
                dim = int(self._stamp["dim"])
                self._write_record({"gv": version, "del": held}, np.zeros((0, dim), dtype=np.float32))
        return len(held)

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
                    out[item_id] = grp.vector(row).copy()
                    break
        return out

    def disk_bytes(self) -> int:
        return self._gens.disk_bytes()

    def __len__(self) -> int:
        self._sync()
        return sum(len(g) for g in self._groups.values())
