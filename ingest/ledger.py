"""The ingest ledger: durable per-document state in SQLite (WAL) under the data directory.

States: queued → parsed → extracted → stored, or failed (+ error, reason kind, attempts).
Every transition is its own committed transaction, so a Ctrl-C or kill -9 at any point leaves
each document in its last completed state and a re-run picks up from there.

Paper identity (ingest.identity): `paper_keys` maps every key a stored paper is known by (its id, DOI,
arXiv id, title + first author) to its paper id, so a document of a paper met before joins it
(`resolve_paper`); `identity_conflicts` holds the probable duplicates that were kept apart, for
`ingest report`; `paper_years` the year a metadata record gave a paper (it outranks a year read off a PDF);
`paper_fields` the best-known value of each field of a paper with the document it came from (ingest.paper_merge);
`doc_notes` what happened to a document besides its state (merged into a paper stored under another id, read
only up to the page limit, judged not a paper) and `skipped_inputs` the inputs the walk skipped (special files,
dangling links, link loops): with `documents` and `duplicates` they make `fates()`, every document's fate for
`ingest report`.

A document's key (column `sha256`, kept for compatibility) is the sha256 of the file for PDFs, a stable
record id for record inputs, or `path:<path>` for an input that could not be read at all. Paths are
stored in the reversible text form of `motivgraph.fsutil.path_to_text` (valid UTF-8 even when the
file name is not); callers pass that form.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from motivgraph.errors import IngestError
from motivgraph.ingest.identity import PaperKeys, Resolution, decide
from motivgraph.ingest.paper_merge import Held, merge_fields

State = Literal["queued", "parsed", "extracted", "stored", "failed"]
STATES: tuple[State, ...] = ("queued", "parsed", "extracted", "stored", "failed")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    sha256      TEXT PRIMARY KEY,
    path        TEXT NOT NULL,
    size        INTEGER,
    state       TEXT NOT NULL,
    paper_id    TEXT,
    parser      TEXT,
    error       TEXT,
    reason      TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    counts      TEXT,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_state ON documents(state);
CREATE TABLE IF NOT EXISTS duplicates (
    path    TEXT PRIMARY KEY,
    sha256  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS paper_keys (
    key         TEXT PRIMARY KEY,
    paper_id    TEXT NOT NULL,
    doc         TEXT,
    created_at  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS paper_keys_paper ON paper_keys(paper_id);
CREATE TABLE IF NOT EXISTS paper_years (
    paper_id    TEXT PRIMARY KEY,
    year        INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS paper_fields (
    paper_id    TEXT NOT NULL,
    field       TEXT NOT NULL,
    value       TEXT NOT NULL,
    source      TEXT NOT NULL,
    rank        INTEGER NOT NULL,
    PRIMARY KEY (paper_id, field)
);
CREATE TABLE IF NOT EXISTS doc_notes (
    doc         TEXT NOT NULL,
    kind        TEXT NOT NULL,
    detail      TEXT NOT NULL,
    PRIMARY KEY (doc, kind, detail)
);
CREATE TABLE IF NOT EXISTS skipped_inputs (
    path        TEXT PRIMARY KEY,
    why         TEXT NOT NULL,
    seen_at     REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS identity_conflicts (
    doc         TEXT NOT NULL,
    other       TEXT NOT NULL,
    path        TEXT NOT NULL,
    paper_id    TEXT NOT NULL,
    reason      TEXT NOT NULL,
    created_at  REAL NOT NULL,
    PRIMARY KEY (doc, other)
);
"""


@dataclass
class DocRow:
    sha256: str
    path: str
    size: int | None
    state: State
    paper_id: str | None
    parser: str | None
    error: str | None
    reason: str | None
    attempts: int
    counts: dict[str, int]
    updated_at: float


class Ledger:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")  # WAL+NORMAL survives process kills
            self._conn.executescript(_SCHEMA)
        except sqlite3.Error as e:
            raise IngestError(f"cannot open the ingest ledger at {path}: {e}") from e
        self._lock = threading.Lock()

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> Ledger:
        return cls(data_dir / "ingest" / "ledger.sqlite")

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # writes
    def register(self, sha256: str, path: str, size: int | None) -> bool:
        """Queue a document; False if its sha256 is known already (then `path` is recorded as a
        duplicate when it differs from the first path seen)."""
        now = time.time()
        with self._tx() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO documents(sha256, path, size, state, created_at, updated_at) "
                "VALUES (?, ?, ?, 'queued', ?, ?)",
                (sha256, path, size, now, now),
            )
            if cur.rowcount:
                return True
            row = c.execute("SELECT path FROM documents WHERE sha256=?", (sha256,)).fetchone()
            if row and row[0] != path:
                c.execute("INSERT OR IGNORE INTO duplicates(path, sha256) VALUES (?, ?)", (path, sha256))
            return False

    def update_path(self, sha256: str, path: str) -> None:
        with self._tx() as c:
            c.execute("UPDATE documents SET path=? WHERE sha256=?", (path, sha256))

    def mark(
        self,
        sha256: str,
        state: State,
        *,
        paper_id: str | None = None,
        parser: str | None = None,
        counts: dict[str, int] | None = None,
    ) -> None:
        with self._tx() as c:
            c.execute(
                "UPDATE documents SET state=?, paper_id=COALESCE(?, paper_id), parser=COALESCE(?, parser), "
                "counts=COALESCE(?, counts), error=NULL, reason=NULL, updated_at=? WHERE sha256=?",
                (state, paper_id, parser, json.dumps(counts) if counts is not None else None, time.time(), sha256),
            )

    def fail(self, sha256: str, error: str, reason: str) -> None:
        with self._tx() as c:
            c.execute(
                "UPDATE documents SET state='failed', error=?, reason=?, attempts=attempts+1, updated_at=? "
                "WHERE sha256=?",
                (error[:2000], reason, time.time(), sha256),
            )

    def record_failure(self, key: str, path: str, error: str, reason: str) -> None:
        """Register `key` if new and mark it failed, in one transaction (inputs that never got further
        than the walk: unreadable files and folders)."""
        now = time.time()
        with self._tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO documents(sha256, path, size, state, created_at, updated_at) "
                "VALUES (?, ?, NULL, 'queued', ?, ?)",
                (key, path, now, now),
            )
            c.execute(
                "UPDATE documents SET state='failed', error=?, reason=?, attempts=attempts+1, updated_at=? "
                "WHERE sha256=?",
                (error[:2000], reason, now, key),
            )

    def forget(self, key: str) -> bool:
        """Drop a document's row (a `path:` failure whose file has become readable and got a real key)."""
        with self._tx() as c:
            return bool(c.execute("DELETE FROM documents WHERE sha256=?", (key,)).rowcount)

    def resolve_paper(self, doc: str, path: str, keys: PaperKeys, year: int | None = None,
                      year_from_record: bool = False) -> tuple[Resolution, int | None]:
        """Which paper document `doc` is (ingest.identity.decide over the key table), its keys recorded
        under that paper in the same transaction, its probable duplicates recorded for the report. Returns
        the resolution and the paper's year: a metadata record's year (`year_from_record`) is kept for the
        paper and outranks a year read off a PDF. Idempotent: the same document resolves the same way again."""
        now = time.time()
        with self._tx() as c:

            def lookup(key: str) -> str | None:
                row = c.execute("SELECT paper_id FROM paper_keys WHERE key=?", (key,)).fetchone()
                return str(row[0]) if row else None

            def strong_of(paper_id: str) -> list[str]:
                return [str(r[0]) for r in c.execute(
                    "SELECT key FROM paper_keys WHERE paper_id=? AND (key LIKE 'doi:%' OR key LIKE 'arxiv:%')",
                    (paper_id,))]

            res = decide(keys, lookup, strong_of)
            for key in (keys.paper_id, *keys.strong, keys.title):
                if key:
                    c.execute("INSERT OR IGNORE INTO paper_keys(key, paper_id, doc, created_at) VALUES (?, ?, ?, ?)",
                              (key, res.paper_id, doc, now))
            for other, why in res.conflicts:
                c.execute("INSERT OR REPLACE INTO identity_conflicts(doc, other, path, paper_id, reason, created_at) "
                          "VALUES (?, ?, ?, ?, ?, ?)", (doc, other, path, res.paper_id, why, now))
            if year is not None and year_from_record:
                c.execute("INSERT OR REPLACE INTO paper_years(paper_id, year) VALUES (?, ?)", (res.paper_id, year))
            else:
                row = c.execute("SELECT year FROM paper_years WHERE paper_id=?", (res.paper_id,)).fetchone()
                year = int(row[0]) if row else year
        return res, year

    def merge_paper_fields(self, paper_id: str, values: dict[str, Any], parser: str, source: str
                           ) -> dict[str, Held]:
        """Merge one document's field values into paper `paper_id`'s best-known ones (ingest.paper_merge) and
        keep the result, in one transaction: documents of one paper merge in any order to the same values."""
        with self._tx() as c:
            held = {str(f): Held(json.loads(v), str(src), int(r)) for f, v, src, r in c.execute(
                "SELECT field, value, source, rank FROM paper_fields WHERE paper_id=?", (paper_id,))}
            merged = merge_fields(held, values, parser, source)
            for f, h in merged.items():
                if held.get(f) != h:
                    c.execute("INSERT OR REPLACE INTO paper_fields(paper_id, field, value, source, rank) "
                              "VALUES (?, ?, ?, ?, ?)", (paper_id, f, json.dumps(h.value), h.source, h.rank))
        return merged

    def set_notes(self, doc: str, notes: Sequence[tuple[str, str]]) -> None:
        """Replace document `doc`'s notes ((kind, detail): 'merged', 'note') with `notes` (its latest parse's)."""
        with self._tx() as c:
            c.execute("DELETE FROM doc_notes WHERE doc=?", (doc,))
            c.executemany("INSERT OR IGNORE INTO doc_notes(doc, kind, detail) VALUES (?, ?, ?)",
                          [(doc, k, d) for k, d in notes])

    def record_skipped(self, skipped: Sequence[tuple[str, str]]) -> None:
        """Remember inputs the walk skipped ((path text, why)), so the report lists them after the run."""
        now = time.time()
        with self._tx() as c:
            c.executemany("INSERT OR REPLACE INTO skipped_inputs(path, why, seen_at) VALUES (?, ?, ?)",
                          [(p, why, now) for p, why in skipped])

    def fates(self) -> list[dict[str, Any]]:
        """Every document the ledger knows, with its fate: `stored`, `failed` (and why), `pending` (a run
        stopped before it was done: re-run), `duplicate` (of which document), `skipped` (and why); a stored
        document's `notes` say whether it was merged into a paper stored under another id, read only up to the
        page limit, or judged not a paper. Sorted by path."""
        notes: dict[str, list[dict[str, str]]] = {}
        for doc, kind, detail in self._conn.execute("SELECT doc, kind, detail FROM doc_notes ORDER BY doc, kind"):
            notes.setdefault(doc, []).append({"kind": kind, "detail": detail})
        first = {r.sha256: r.path for r in self.rows()}
        out: list[dict[str, Any]] = []
        for r in self.rows():
            fate = {"stored": "stored", "failed": "failed"}.get(r.state, "pending")
            row: dict[str, Any] = {"path": r.path, "fate": fate, "state": r.state, "paper_id": r.paper_id,
                                   "notes": notes.get(r.sha256, [])}
            if fate == "failed":
                row.update(reason=r.reason, error=r.error, attempts=r.attempts)
            out.append(row)
        for path, key in self.duplicates():
            out.append({"path": path, "fate": "duplicate", "state": None, "duplicate_of": first.get(key),
                        "notes": []})
        for path, why in self._conn.execute("SELECT path, why FROM skipped_inputs ORDER BY path"):
            out.append({"path": path, "fate": "skipped", "state": None, "why": why, "notes": []})
        return sorted(out, key=lambda r: (r["path"], r["fate"]))

    def outstanding(self) -> dict[str, int]:
        """Documents not yet done: failed ones, and pending ones (queued, parsed or extracted: a run stopped)."""
        c = self.counts()
        pending = c.get("queued", 0) + c.get("parsed", 0) + c.get("extracted", 0)
        return {"failed": c.get("failed", 0), "pending": pending}

    def identity_conflicts(self) -> list[tuple[str, str, str, str]]:
        """(path, paper id, the other paper's id, why) of every probable duplicate kept apart."""
        return [tuple(r) for r in self._conn.execute(
            "SELECT path, paper_id, other, reason FROM identity_conflicts ORDER BY path, other")]

    def requeue_failed(self) -> int:
        with self._tx() as c:
            return c.execute("UPDATE documents SET state='queued' WHERE state='failed'").rowcount

    # reads
    def get(self, sha256: str) -> DocRow | None:
        row = self._conn.execute(
            "SELECT sha256, path, size, state, paper_id, parser, error, reason, attempts, counts, updated_at "
            "FROM documents WHERE sha256=?",
            (sha256,),
        ).fetchone()
        return _row(row) if row else None

    def rows(self, state: State | None = None) -> list[DocRow]:
        q = (
            "SELECT sha256, path, size, state, paper_id, parser, error, reason, attempts, counts, updated_at "
            "FROM documents"
        )
        args: tuple[str, ...] = ()
        if state:
            q += " WHERE state=?"
            args = (state,)
        return [_row(r) for r in self._conn.execute(q + " ORDER BY path", args).fetchall()]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = dict.fromkeys(STATES, 0)
        for state, n in self._conn.execute("SELECT state, COUNT(*) FROM documents GROUP BY state"):
            out[state] = n
        return out

    def duplicates(self) -> list[tuple[str, str]]:
        return [tuple(r) for r in self._conn.execute("SELECT path, sha256 FROM duplicates ORDER BY path")]

    def failures_by_reason(self) -> dict[str, list[DocRow]]:
        out: dict[str, list[DocRow]] = {}
        for r in self.rows("failed"):
            out.setdefault(r.reason or "other", []).append(r)
        return dict(sorted(out.items(), key=lambda kv: (-len(kv[1]), kv[0])))

    def snapshot(self) -> list[tuple[str, str, str | None, str | None]]:
        """(sha256, state, paper_id, reason) for every document — to compare two runs."""
        return [
            tuple(r)
            for r in self._conn.execute("SELECT sha256, state, paper_id, reason FROM documents ORDER BY sha256")
        ]


def _row(r: tuple) -> DocRow:
    return DocRow(
        sha256=r[0], path=r[1], size=r[2], state=r[3], paper_id=r[4], parser=r[5], error=r[6], reason=r[7],
        attempts=r[8], counts=json.loads(r[9]) if r[9] else {}, updated_at=r[10],
    )
