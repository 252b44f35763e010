"""The miner's SQLite files (identity decisions, per-paper extractions): one open-and-migrate routine.

WAL lets the API read a file while an ingest writes it; one lock per file because the connection is shared
by the miner's worker threads (`check_same_thread=False`)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path


class SqliteFile:
    """A thread-safe connection to one SQLite file whose schema script is applied on open."""

    def __init__(self, path: Path, schema: str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(schema)
        self._db.commit()

    def close(self) -> None:
        with self._lock:
            self._db.close()
