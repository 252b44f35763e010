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
    gen-000007/        one generation: a complete base, then an append log
        stamp.json     format version, model, dim, graph version, counts, kinds, built time
        <group>.npy    float32 vectors (row i = item i), so vectors are always reconstructable
        <group>.json   item metadata, row-aligned with the vectors ([id, label, level, text hash]
                       lists; the hash lets a rebuild reuse the vector of an unchanged text)
        <group>.faiss  the HNSW graph (only for groups built as HNSW; exact indexes are rebuilt
                       from the .npy on load, which costs no more than reading them)
        delta.vec      float32 rows appended since the base was written (adds of every group)
        delta.log      one JSON line per append (adds with their rows in delta.vec, deletions, the
                       graph version and counts after it); a line is the append's commit
    .lock              flock held by writers (rebuild / add / remove), so two processes never interleave

`add` and `remove` append to the live generation (vectors fsynced, then the log line fsynced), so a
flush costs what it adds, not the whole index; once the rows appended or deleted since the base pass
a fraction of it, the next write compacts everything into a new generation. A writer killed
mid-append leaves a torn tail that readers ignore and the next writer cuts off; the graph version
stays that of the last whole record, so the index reads as stale and the ingest's derived-index
repair rebuilds it (reusing every stored vector whose text is unchanged).

Readers never lock: a generation's base is written completely, then CURRENT is swapped; log records
are applied whole. A process notices a newer generation or new log records written by another
process on its next search (one stat) and loads them.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
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

FORMAT_VERSION = 2  # 2: text hash per item, append log (delta.vec + delta.log) per generation
KEEP_GENERATIONS = 2  # the live one and its predecessor (a reader may still be loading it)

DELTA_VECTORS = "delta.vec"
DELTA_LOG = "delta.log"
# Appends go to the live generation's log until the rows appended or deleted since it was written pass
# max(COMPACT_MIN_ROWS, COMPACT_FRACTION x its rows): then one new generation holds them all, so a full
# rewrite costs O(total) amortised instead of O(total) per flush.
COMPACT_MIN_ROWS = 4096
COMPACT_FRACTION = 0.25
# Deleted rows stay in FAISS until compaction and a search over-fetches by their number: keep it small.
DEAD_MIN_ROWS = 256
DEAD_FRACTION = 0.005
MAX_PARTS = 8  # appended parts per group before they are merged into one (bounds FAISS calls per search)

IndexKind = Literal["exact", "hnsw"]


def text_hash(text: str) -> str:
    """What an item's stored vector was computed from, so a rebuild reuses vectors whose text is unchanged."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


@dataclass(frozen=True)
class Part:
    """A run of rows [start, start + len(vectors)) of a group with its own FAISS index (local row ids)."""

    start: int
    vectors: np.ndarray
    index: Any  # faiss.Index


@dataclass
class Group:
    """One group's items, row-aligned (rows of deleted items stay until compaction, listed in `dead`):
    parts[0] is the generation's base, the rest were appended since. Treated as immutable once
    published, so a search holding it is never disturbed by a writer (writers build a new one)."""

    ids: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    levels: list[int] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)
    parts: list[Part] = field(default_factory=list)
    kind: IndexKind = "exact"  # of the base part; appended parts are exact
    pos: dict[str, int] = field(default_factory=dict)  # live id -> row
    dead: frozenset[int] = frozenset()
    dim: int = 0

    def __len__(self) -> int:
        return len(self.pos)

    @property
    def rows(self) -> int:
        return len(self.ids)

    @property
    def base_rows(self) -> int:
        return len(self.parts[0].vectors) if self.parts else 0

    @property
    def index(self) -> Any:
        """The base FAISS index."""
        return self.parts[0].index if self.parts else None

    def vector(self, row: int) -> np.ndarray:
        for p in reversed(self.parts):
            if row >= p.start:
                return p.vectors[row - p.start]
        raise IndexError(row)

    def all_vectors(self) -> np.ndarray:
        if not self.parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(self.parts) == 1:
            return self.parts[0].vectors
        return np.concatenate([p.vectors for p in self.parts])

    @classmethod
    def single(
        cls, ids: list[str], labels: list[str], levels: list[int], hashes: list[str], vectors: np.ndarray,
        kind: IndexKind, index: Any, dim: int,
    ) -> Group:
        return cls(ids=ids, labels=labels, levels=levels, hashes=hashes, parts=[Part(0, vectors, index)],
                   kind=kind, pos={k: i for i, k in enumerate(ids)}, dim=dim)


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


def apply_record(
    groups: dict[str, Group], rec: dict[str, Any], vectors: np.ndarray, cfg: IndexSettings
) -> dict[str, Group]:
    """The groups after one append-log record: `rec["del"]` ids deleted, `rec["add"]` = {group:
    [[id, label, level, hash], ...]} added (replacing an id already there), their vectors being the
    rows of `vectors` in record order. Returns new Group objects; the given ones are not touched."""
    dels = set(rec.get("del") or ())
    adds: dict[str, list[list[Any]]] = rec.get("add") or {}
    out = dict(groups)
    off = 0
    for g, grp in groups.items():
        items = adds.get(g) or []
        kill = [grp.pos[i] for i in dels if i in grp.pos] + [grp.pos[m[0]] for m in items if m[0] in grp.pos]
        if not items and not kill:
            continue
        pos = dict(grp.pos)
        for r in kill:
            pos.pop(grp.ids[r], None)
        new = Group(
            ids=grp.ids + [m[0] for m in items], labels=grp.labels + [m[1] for m in items],
            levels=grp.levels + [int(m[2]) for m in items], hashes=grp.hashes + [m[3] for m in items],
            parts=list(grp.parts), kind=grp.kind, pos=pos, dead=grp.dead | frozenset(kill), dim=grp.dim,
        )
        if items:
            vecs = np.ascontiguousarray(vectors[off : off + len(items)], dtype=np.float32)
            off += len(items)
            for j, m in enumerate(items):
                pos[m[0]] = grp.rows + j
            new.parts.append(Part(grp.rows, vecs, build_faiss(vecs, "exact", cfg, grp.dim)))
            if len(new.parts) > 1 + MAX_PARTS:  # merge the appended parts (small: compaction bounds them)
                merged = np.concatenate([p.vectors for p in new.parts[1:]])
                new.parts = [new.parts[0], Part(new.parts[1].start, merged, build_faiss(merged, "exact", cfg, grp.dim))]
        out[g] = new
    return out


def needs_compaction(grp: Group) -> bool:
    delta = grp.rows - grp.base_rows
    return (
        delta + len(grp.dead) > max(COMPACT_MIN_ROWS, COMPACT_FRACTION * grp.base_rows)
        or len(grp.dead) > max(DEAD_MIN_ROWS, DEAD_FRACTION * grp.rows)
    )


def compact(grp: Group, cfg: IndexSettings) -> Group:
    """One base part holding the live rows, of the configured kind. An HNSW base with no deleted rows
    grows by the appended rows (no rebuild); otherwise the FAISS index is built from the stored vectors."""
    import faiss

    if len(grp.parts) == 1 and not grp.dead and grp.kind == choose_kind(cfg, len(grp)):
        return grp
    rows = sorted(grp.pos.values())
    allv = grp.all_vectors()
    vectors = np.ascontiguousarray(allv[rows] if grp.dead else allv, dtype=np.float32)
    kind = choose_kind(cfg, len(rows))
    if kind == "hnsw" and grp.kind == "hnsw" and not grp.dead and grp.parts and grp.base_rows:
        index: Any = faiss.deserialize_index(faiss.serialize_index(grp.parts[0].index))
        index.hnsw.efSearch = cfg.hnsw_ef_search
        if grp.rows > grp.base_rows:
            index.add(np.ascontiguousarray(vectors[grp.base_rows :]))
    else:
        index = build_faiss(vectors, kind, cfg, grp.dim)
    return Group.single([grp.ids[r] for r in rows], [grp.labels[r] for r in rows], [grp.levels[r] for r in rows],
                        [grp.hashes[r] for r in rows], vectors, kind, index, grp.dim)


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


@dataclass
class LogState:
    """How much of a generation's append log is applied: bytes of delta.log, rows of delta.vec."""

    log_bytes: int = 0
    vec_rows: int = 0
    last: dict[str, Any] | None = None  # the last record applied
    seen: tuple[int, int] = (0, 0)  # (size, mtime_ns) of delta.log when last read: a torn tail is read once


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

    def read_effective_stamp(self, gen: str | None = None) -> dict[str, Any] | None:
        """The stamp with the graph version and counts of the last complete append-log record (for a
        status without loading any vectors)."""
        gen = gen or self.current_name()
        stamp = self.read_stamp(gen) if gen else None
        if stamp is None or gen is None:
            return stamp
        last = last_complete_line(self.root / gen / DELTA_LOG)
        if last is not None:
            rec = self._parse(last, self.root / gen / DELTA_LOG)
            stamp = {**stamp, "graph_version": rec["gv"], "counts": rec["counts"]}
        return stamp

    def load(
        self, groups: Sequence[str], cfg: IndexSettings
    ) -> tuple[str, dict[str, Any], dict[str, Group], LogState]:
        """Load the live generation and its append log. IndexMissing when there is none; IndexCorrupt
        when a file is bad."""
        gen = self.current_name()
        stamp = self.read_stamp(gen) if gen else None
        if gen is None or stamp is None:
            raise IndexMissing(f"No {self.what} at {self.root}; run `motivgraph reindex` to build it")
        dim = int(stamp["dim"])
        out: dict[str, Group] = {}
        for g in groups:
            out[g] = self._load_group(self.root / gen, g, stamp, dim, cfg)
        state = LogState()
        out, stamp = self.catch_up(gen, stamp, out, state, cfg)
        return gen, stamp, out, state

    def catch_up(
        self, gen: str, stamp: dict[str, Any], groups: dict[str, Group], state: LogState, cfg: IndexSettings
    ) -> tuple[dict[str, Group], dict[str, Any]]:
        """Apply the append-log records written since `state` (updated in place). A torn last line
        (a writer killed mid-append) is not a record yet and is ignored."""
        path = self.root / gen / DELTA_LOG
        seen = self.log_seen(gen)
        try:
            with open(path, "rb") as fh:
                fh.seek(state.log_bytes)
                data = fh.read()
        except FileNotFoundError:
            return groups, stamp
        state.seen = seen
        end = data.rfind(b"\n")
        if end < 0:
            return groups, stamp
        dim = int(stamp["dim"])
        lines = data[: end + 1].splitlines()
        recs = [self._parse(line, path) for line in lines]
        need = max((int(r["at"]) + int(r["n"]) for r in recs), default=0)
        vec_path = self.root / gen / DELTA_VECTORS
        try:
            allv = np.fromfile(vec_path, dtype=np.float32, count=need * dim) if need else np.zeros(0, np.float32)
        except FileNotFoundError:
            allv = np.zeros(0, np.float32)
        if allv.size < need * dim:
            raise IndexCorrupt(
                f"The {self.what} append log {path} names {need} vector rows, {vec_path.name} holds "
                f"{allv.size // max(dim, 1)}; run `motivgraph reindex`"
            )
        allv = allv.reshape(-1, dim) if dim else allv.reshape(0, 0)
        for rec in recs:
            at, n = int(rec["at"]), int(rec["n"])
            groups = apply_record(groups, rec, allv[at : at + n], cfg)
            state.vec_rows = max(state.vec_rows, at + n)
            state.last = rec
        state.log_bytes += end + 1
        if state.last is not None:
            stamp = {**stamp, "graph_version": state.last["gv"], "counts": {g: len(groups[g]) for g in groups}}
        return groups, stamp

    def _parse(self, line: bytes, path: Path) -> dict[str, Any]:
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict) or not {"gv", "at", "n", "counts"} <= rec.keys():
                raise ValueError("not an index log record")
        except ValueError as e:
            raise IndexCorrupt(
                f"The {self.what} append log {path} has a bad record ({e}); run `motivgraph reindex`"
            ) from e
        return rec

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
            or any(not isinstance(m, list) or len(m) != 4 for m in meta)
            or vectors.dtype != np.float32
            or vectors.ndim != 2
            or vectors.shape != (expected, dim)
        ):
            raise IndexCorrupt(
                f"The {self.what} at {gdir} is inconsistent for {g!r} (stamp says {expected} x {dim}, files "
                f"hold {len(meta) if isinstance(meta, list) else '?'} items and vectors {vectors.shape}); "
                "run `motivgraph reindex`"
            )
        index: Any
        if kind == "hnsw":
            try:
                index = faiss.read_index(str(gdir / f"{g}.faiss"))
            except Exception as e:  # faiss raises RuntimeError with a C++ message
                raise IndexCorrupt(
                    f"The {self.what} HNSW file for {g!r} in {gdir} is unreadable ({e}); run `motivgraph reindex`"
                ) from e
            if index.ntotal != expected or index.d != dim:
                raise IndexCorrupt(
                    f"The {self.what} HNSW file for {g!r} does not match its stamp; run `motivgraph reindex`"
                )
            index.hnsw.efSearch = cfg.hnsw_ef_search
        else:
            index = build_faiss(vectors, "exact", cfg, dim)
        return Group.single([m[0] for m in meta], [m[1] for m in meta], [int(m[2]) for m in meta],
                            [str(m[3]) for m in meta], vectors, kind, index, dim)

    # -- writing (call under write_lock) -------------------------------------------------------
    def write(self, stamp: dict[str, Any], groups: dict[str, Group]) -> str:
        """Write a complete new generation (of compacted groups) and make it live. Returns its name."""
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
                assert len(grp.parts) <= 1 and not grp.dead, "write() takes compacted groups"
                meta = [list(m) for m in zip(grp.ids, grp.labels, grp.levels, grp.hashes, strict=True)]
                (tmp / f"{g}.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
                with open(tmp / f"{g}.npy", "wb") as fh:
                    np.save(fh, np.ascontiguousarray(grp.all_vectors(), dtype=np.float32), allow_pickle=False)
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

    def append(self, gen: str, rec: dict[str, Any], vectors: np.ndarray, state: LogState, dim: int) -> None:
        """Append one record to the live generation's log: its vectors first (fsynced), then the
        record line (fsynced) — the line is the commit. Leftovers of a writer killed mid-append (past
        `state`, which holds everything committed) are cut off first."""
        gdir = self.root / gen
        rec = {**rec, "at": state.vec_rows, "n": len(vectors)}
        line = (json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        with open(gdir / DELTA_VECTORS, "ab") as fv:
            if fv.tell() != state.vec_rows * dim * 4:
                fv.truncate(state.vec_rows * dim * 4)
                fv.seek(0, os.SEEK_END)
            if len(vectors):
                fv.write(np.ascontiguousarray(vectors, dtype=np.float32).tobytes())
            fv.flush()
            os.fsync(fv.fileno())
        with open(gdir / DELTA_LOG, "ab") as fl:
            if fl.tell() != state.log_bytes:
                fl.truncate(state.log_bytes)
                fl.seek(0, os.SEEK_END)
            fl.write(line)
            fl.flush()
            os.fsync(fl.fileno())
        state.log_bytes += len(line)
        state.vec_rows += len(vectors)
        state.last = rec
        state.seen = self.log_seen(gen)

    def log_seen(self, gen: str) -> tuple[int, int]:
        """(size, mtime_ns) of the generation's append log: one stat tells a reader whether to read it."""
        try:
            st = (self.root / gen / DELTA_LOG).stat()
        except FileNotFoundError:
            return (0, 0)
        return (st.st_size, st.st_mtime_ns)

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


def last_complete_line(path: Path, block: int = 65536) -> bytes | None:
    """The last newline-terminated line of a file (None if it has none), reading from the end."""
    if not path.exists():
        return None
    with open(path, "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        tail = b""
        pos = size
        while pos > 0:
            step = min(block, pos)
            pos -= step
            fh.seek(pos)
            tail = fh.read(step) + tail
            end = tail.rfind(b"\n")
            if end < 0:
                continue
            start = tail.rfind(b"\n", 0, end)
            if start >= 0 or pos == 0:
                return tail[start + 1 : end]
        return None


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def search_groups(
    groups: dict[str, Group], names: Sequence[str], queries: np.ndarray, k: int, min_score: float | None
) -> list[list[tuple[float, str, int]]]:
    """Top-k (score, group, row) per query over the named groups (each part of each), merged best first.
    Deleted rows still in FAISS are over-fetched and dropped (compaction keeps them few)."""
    per_query: list[list[tuple[float, str, int]]] = [[] for _ in range(len(queries))]
    for g in names:
        grp = groups.get(g)
        if grp is None or not len(grp):
            continue
        dead = grp.dead
        for part in grp.parts:
            n = len(part.vectors)
            if not n:
                continue
            kk = min(k + len(dead), n)
            scores, rows = part.index.search(queries, kk)
            for qi in range(len(queries)):
                for s, r in zip(scores[qi], rows[qi], strict=True):
                    if r < 0:  # HNSW may return fewer than k
                        continue
                    row = part.start + int(r)
                    if row in dead:
                        continue
                    if min_score is not None and s < min_score:
                        continue
                    per_query[qi].append((float(s), g, row))
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
        vectors: Sequence[np.ndarray | None] | None = None,
    ) -> int:
        """Add (or replace, by key) the given nodes; returns how many were added. `vectors`, aligned
        with `nodes`, are their embeddings of `node_text(name, description)` when the caller already
        computed them (the resolver does): only nodes without one are embedded here.

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
        return self._add_items(items, new_version, vectors)

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
