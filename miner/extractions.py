"""What each paper's extraction produced, kept per paper (`<data_dir>/miner/extractions.sqlite`).

Re-processing needs it: deleting a paper or undoing a merge replays the papers that came after it
(resolution and upsert again, in their first-ingest order) from the triples they were extracted
with — not by asking the extractor again, which could answer differently (another model, another
prompt) or cost money. `seq` is the order a paper was first stored in; a replay or re-extraction
keeps it, so "first-ingest order" survives any number of re-processings.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from motivgraph.miner.schemas import ExtractionResult
from motivgraph.miner.sqlite_file import SqliteFile

_SCHEMA = """
CREATE TABLE IF NOT EXISTS extractions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  paper_id TEXT NOT NULL UNIQUE,
  extractor TEXT NOT NULL,
  result TEXT NOT NULL,
  ts TEXT NOT NULL
);
"""


class ExtractionStore(SqliteFile):
    """Thread-safe access to the per-paper extraction records."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, _SCHEMA)

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> ExtractionStore:
        return cls(Path(data_dir) / "miner" / "extractions.sqlite")

    def put(self, result: ExtractionResult) -> None:
        """Record (or replace) a paper's extraction; a replaced record keeps its `seq`."""
        # the checked quotes too (#39): a replay stores them without the paper's parse to check against
        blob = result.model_dump_json(
            include={"paper_id", "extractor", "triples", "reason", "sections_used", "evidence"})
        with self._lock:
            self._db.execute(
                "INSERT INTO extractions (paper_id, extractor, result, ts) VALUES (?,?,?,?) "
                "ON CONFLICT(paper_id) DO UPDATE SET extractor = excluded.extractor, result = excluded.result, "
                "ts = excluded.ts",
                (result.paper_id, result.extractor, blob, datetime.now(UTC).isoformat(timespec="seconds")),
            )
            self._db.commit()

    def get(self, paper_id: str) -> ExtractionResult | None:
        with self._lock:
            row = self._db.execute("SELECT result FROM extractions WHERE paper_id = ?", (paper_id,)).fetchone()
        return ExtractionResult.model_validate_json(row[0]) if row else None

    def extractor_of(self, paper_id: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT extractor FROM extractions WHERE paper_id = ?", (paper_id,)).fetchone()
        return str(row[0]) if row else None

    def order(self) -> dict[str, int]:
        """paper id -> seq (first-stored order) of every recorded paper."""
        with self._lock:
            return {str(p): int(s) for p, s in self._db.execute("SELECT paper_id, seq FROM extractions")}

    def forget(self, paper_id: str) -> bool:
        with self._lock:
            n = self._db.execute("DELETE FROM extractions WHERE paper_id = ?", (paper_id,)).rowcount
            self._db.commit()
        return bool(n)
