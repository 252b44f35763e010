"""The miner's own SQLite file (`<data_dir>/miner/decisions.sqlite`): an audit log of every identity
decision, caches of LLM verdicts (resolver, parent judge, parent join) so an interrupted run resumes
without asking again, parent-run state, and the extraction outcomes that were recorded but not
stored (triples that failed validation, papers that yielded nothing and why).

Everything here is derived and safe to delete: the graph stays the source of truth; deleting the
file only means the next run asks the LLM again (or hits the LLM layer's own reply cache).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from motivgraph.miner.sqlite_file import SqliteFile

SCHEMA = """
CREATE TABLE IF NOT EXISTS merge_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts TEXT NOT NULL,
  run_id TEXT,
  paper_id TEXT,
  node_type TEXT NOT NULL,
  mention_name TEXT NOT NULL,
  mention_key TEXT NOT NULL,
  candidate_key TEXT,
  score REAL,
  desc_score REAL,
  decision TEXT NOT NULL,
  reason TEXT,
  final_key TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS merge_log_final ON merge_log(final_key);
CREATE INDEX IF NOT EXISTS merge_log_paper ON merge_log(paper_id);
CREATE TABLE IF NOT EXISTS verdicts (
  kind TEXT NOT NULL,
  qkey TEXT NOT NULL,
  verdict TEXT NOT NULL,
  ts TEXT NOT NULL,
  PRIMARY KEY (kind, qkey)
);
CREATE TABLE IF NOT EXISTS parent_runs (
  run_key TEXT PRIMARY KEY,
  node_type TEXT NOT NULL,
  level INTEGER NOT NULL,
  status TEXT NOT NULL,
  members TEXT NOT NULL,
  created TEXT NOT NULL,
  finished TEXT
);
CREATE TABLE IF NOT EXISTS extraction_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts TEXT NOT NULL,
  run_id TEXT,
  paper_id TEXT NOT NULL,
  outcome TEXT NOT NULL,
  reason TEXT,
  detail TEXT
);
CREATE INDEX IF NOT EXISTS extraction_log_paper ON extraction_log(paper_id);
"""

# Identity decisions, as written to merge_log.decision.
EXACT, ALIAS, AUTO_MERGE, LLM_MERGE, LLM_APART, APART, HOMONYM, NEW, BAND_NO_LLM = (
    "exact",
    "alias",
    "auto_merge",
    "llm_merge",
    "llm_apart",
    "apart",
    "homonym",
    "new",
    "band_no_llm",
)
MERGING = frozenset({EXACT, ALIAS, AUTO_MERGE, LLM_MERGE})


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def qhash(*parts: Any) -> str:
    """Stable hash of a question's identifying parts (used as a cache key)."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


@dataclass
class MergeDecision:
    node_type: str
    mention_name: str
    mention_key: str
    decision: str
    final_key: str
    candidate_key: str | None = None
    score: float | None = None
    desc_score: float | None = None
    reason: str = ""
    paper_id: str | None = None
    final_name: str | None = None  # the name a new node gets (differs from mention_name for homonyms)

    @property
    def merged(self) -> bool:
        return self.decision in MERGING


class DecisionLog(SqliteFile):
    """Thread-safe access to the miner's SQLite file."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, SCHEMA)

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> DecisionLog:
        return cls(Path(data_dir) / "miner" / "decisions.sqlite")

    # -- identity decisions -----------------------------------------------------------------
    def log_merges(self, decisions: Iterable[MergeDecision], run_id: str | None = None) -> None:
        rows = [
            (
                now(), run_id, d.paper_id, d.node_type, d.mention_name, d.mention_key, d.candidate_key,
                d.score, d.desc_score, d.decision, d.reason, d.final_key,
            )
            for d in decisions
        ]
        if not rows:
            return
        with self._lock:
            self._db.executemany(
                "INSERT INTO merge_log (ts, run_id, paper_id, node_type, mention_name, mention_key, candidate_key,"
                " score, desc_score, decision, reason, final_key) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                rows,
            )
            self._db.commit()

    def merges(
        self,
        *,
        final_key: str | None = None,
        paper_id: str | None = None,
        decision: str | None = None,
        mention_key: str | None = None,
    ) -> list[dict[str, Any]]:
        """Logged identity decisions, oldest first, optionally filtered."""
        sql = "SELECT * FROM merge_log WHERE 1=1"
        args: list[Any] = []
        filters = (
            ("final_key", final_key), ("paper_id", paper_id), ("decision", decision), ("mention_key", mention_key)
        )
        for col, val in filters:
            if val is not None:
                sql += f" AND {col} = ?"
                args.append(val)
        with self._lock:
            cur = self._db.execute(sql + " ORDER BY id", args)
            cols = [c[0] for c in cur.description]
            return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    # -- cached verdicts ----------------------------------------------------------------------
    def get_verdict(self, kind: str, qkey: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT verdict FROM verdicts WHERE kind = ? AND qkey = ?", (kind, qkey)).fetchone()
        return json.loads(row[0]) if row else None

    def put_verdict(self, kind: str, qkey: str, verdict: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO verdicts (kind, qkey, verdict, ts) VALUES (?,?,?,?)",
                (kind, qkey, json.dumps(verdict, ensure_ascii=False), now()),
            )
            self._db.commit()

    # -- parent runs ----------------------------------------------------------------------------
    def open_parent_run(self, node_type: str, level: int, members: Sequence[str]) -> tuple[str, list[str], bool]:
        """Start, or resume, the parent pass for (type, level). Returns (run key, working set, resumed).
        An unfinished pass resumes with the working set it started with, so the focal order and
        candidate lists — and hence the cached verdicts — are the same as before the interruption."""
        with self._lock:
            row = self._db.execute(
                "SELECT run_key, members FROM parent_runs WHERE node_type = ? AND level = ? AND status = 'running'",
                (node_type, level),
            ).fetchone()
            if row:
                return row[0], json.loads(row[1]), True
            n = self._db.execute(
                "SELECT COUNT(*) FROM parent_runs WHERE node_type = ? AND level = ?", (node_type, level)
            ).fetchone()[0]
            run_key = f"{node_type}:{level}:{n + 1}"
            self._db.execute(
                "INSERT INTO parent_runs (run_key, node_type, level, status, members, created, finished)"
                " VALUES (?,?,?,?,?,?,NULL)",
                (run_key, node_type, level, "running", json.dumps(list(members)), now()),
            )
            self._db.commit()
        return run_key, list(members), False

    def processed_members(self, node_type: str, level: int) -> set[str]:
        """Keys that completed passes at (type, level) already considered (incremental mode)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT members FROM parent_runs WHERE node_type = ? AND level = ? AND status = 'done'",
                (node_type, level),
            ).fetchall()
        out: set[str] = set()
        for (m,) in rows:
            out.update(json.loads(m))
        return out

    def finish_parent_run(self, run_key: str) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE parent_runs SET status = 'done', finished = ? WHERE run_key = ?", (now(), run_key)
            )
            self._db.commit()

    def forget_members(self, keys: Iterable[str]) -> int:
        """Drop removed nodes from every parent pass's working set, so a node that comes back under
        the same key (a re-extraction) is new to the next incremental parent pass. Returns the
        number of passes changed."""
        gone = set(keys)
        if not gone:
            return 0
        changed = 0
        with self._lock:
            rows = self._db.execute("SELECT run_key, members FROM parent_runs").fetchall()
            for run_key, members in rows:
                old = json.loads(members)
                kept = [k for k in old if k not in gone]
                if len(kept) != len(old):
                    self._db.execute("UPDATE parent_runs SET members = ? WHERE run_key = ?",
                                     (json.dumps(kept), run_key))
                    changed += 1
            self._db.commit()
        return changed

    # -- extraction outcomes ----------------------------------------------------------------------
    def log_extraction(
        self, paper_id: str, outcome: str, reason: str | None = None, detail: Any = None, run_id: str | None = None
    ) -> None:
        """outcome: 'ok', 'no_triples', 'rejected' (triples that failed validation) or 'failed'."""
        with self._lock:
            self._db.execute(
                "INSERT INTO extraction_log (ts, run_id, paper_id, outcome, reason, detail) VALUES (?,?,?,?,?,?)",
                (now(), run_id, paper_id, outcome, reason, json.dumps(detail, ensure_ascii=False, default=str)),
            )
            self._db.commit()

    def extractions(self, paper_id: str | None = None, outcome: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM extraction_log WHERE 1=1"
        args: list[Any] = []
        if paper_id is not None:
            sql += " AND paper_id = ?"
            args.append(paper_id)
        if outcome is not None:
            sql += " AND outcome = ?"
            args.append(outcome)
        with self._lock:
            cur = self._db.execute(sql + " ORDER BY id", args)
            cols = [c[0] for c in cur.description]
            rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
        for r in rows:
            r["detail"] = json.loads(r["detail"]) if r["detail"] else None
        return rows
