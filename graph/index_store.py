"""The versioned on-disk store of a grouped FAISS index (`graph.grouped_index.GroupedIndex`, which
`graph.vector_index.NodeIndex` and `graph.paper_index.PaperIndex` are made of): generations
(`GenerationStore`), the append log (`LogState`, `apply_record`), compaction (`needs_compaction`,
`compact`) and the writers' lock (`write_lock`). Changing what is written here changes the index
format: `FORMAT_VERSION` says which one a generation holds.

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
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from motivgraph.choices import IndexKind
from motivgraph.errors import IndexCorrupt, IndexError_, IndexMissing
from motivgraph.fsutil import atomic_write
from motivgraph.graph.faiss_groups import Group, Part, build_faiss, choose_kind
from motivgraph.settings import IndexSettings

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


def text_hash(text: str) -> str:
    """What an item's stored vector was computed from, so a rebuild reuses vectors whose text is unchanged."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


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
