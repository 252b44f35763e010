"""Persistent reply cache (SQLite) and the per-call usage ledger behind `motivgraph llm usage`.

Key = SHA-256 of a canonical JSON of (model id, endpoint, messages incl. tool calls, bound tools,
call parameters). Volatile fields (message ids, response metadata) are left out so the same
conversation always hits the same entry. Replies are cached even at temperature > 0: a re-run
must reproduce the first run and cost nothing, which matters more than resampling.
The file is opened in WAL mode so several processes can share it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motivgraph.errors import LLMError

if TYPE_CHECKING:  # the usage ledger (`llm usage`) is read without LangChain; the reply cache imports it
    from langchain_core.messages import AIMessage, BaseMessage

    from motivgraph.settings import Settings

SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
  key TEXT PRIMARY KEY, model TEXT NOT NULL, role TEXT, created REAL NOT NULL, message TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
  ts REAL NOT NULL, run_id TEXT, role TEXT, model TEXT, cached INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, estimated INTEGER NOT NULL,
  cost_usd REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_run ON calls(run_id);
"""


def cache_path(settings: Settings) -> Path:
    """Where the reply cache and the usage ledger live: <data_dir>/cache/llm.sqlite."""
    return settings.cache_dir / "llm.sqlite"


def canonical_message(m: BaseMessage) -> dict[str, Any]:
    d: dict[str, Any] = {"type": m.type, "content": m.content}
    if getattr(m, "name", None):
        d["name"] = m.name
    calls = getattr(m, "tool_calls", None)
    if calls:
        d["tool_calls"] = [{"name": c["name"], "args": c["args"], "id": c.get("id")} for c in calls]
    if getattr(m, "tool_call_id", None):
        d["tool_call_id"] = m.tool_call_id  # type: ignore[attr-defined]
    return d


def cache_key(
    model_id: str,
    messages: Sequence[BaseMessage],
    *,
    tools: Sequence[dict] | None = None,
    params: dict[str, Any] | None = None,
) -> str:
    payload = {
        "v": 1,
        "model": model_id,
        "messages": [canonical_message(m) for m in messages],
        "tools": list(tools or []),
        "params": params or {},
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class LLMCache:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as e:
            raise LLMError(
                f"Cannot open the LLM cache at {self.path}: {e} (check MOTIVGRAPH_DATA_DIR is writable)"
            ) from e
        self._lock = threading.Lock()

    def get(self, key: str) -> AIMessage | None:
        with self._lock:
            row = self._db.execute("SELECT message FROM replies WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        from langchain_core.messages import AIMessage, messages_from_dict  # local: light CLI path

        try:
            msg = messages_from_dict([json.loads(row[0])])[0]
        except (ValueError, KeyError, TypeError):
            return None  # an unreadable entry is a miss, and gets overwritten
        return msg if isinstance(msg, AIMessage) else None

    def put(self, key: str, model_id: str, role: str, msg: AIMessage) -> None:
        from langchain_core.messages import message_to_dict  # local: light CLI path

        blob = json.dumps(message_to_dict(msg), ensure_ascii=False, default=str)
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO replies(key, model, role, created, message) VALUES (?,?,?,?,?)",
                (key, model_id, role, time.time(), blob),
            )

    def log_call(
        self,
        *,
        run_id: str,
        role: str,
        model_id: str,
        cached: bool,
        input_tokens: int = 0,
        output_tokens: int = 0,
        estimated: bool = False,
        cost: float = 0.0,
    ) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO calls VALUES (?,?,?,?,?,?,?,?,?)",
                (time.time(), run_id, role, model_id, int(cached), input_tokens, output_tokens, int(estimated), cost),
            )

    def usage_rows(self, run_id: str | None = None) -> list[dict[str, Any]]:
        """Aggregated ledger by run, role and model (all runs unless `run_id`)."""
        sql = (
            "SELECT run_id, role, model, SUM(1-cached), SUM(cached), SUM(input_tokens), SUM(output_tokens),"
            " SUM(cost_usd), MIN(ts), MAX(ts) FROM calls {where} GROUP BY run_id, role, model ORDER BY MIN(ts)"
        )
        args: tuple = ()
        where = ""
        if run_id:
            where, args = "WHERE run_id=?", (run_id,)
        with self._lock:
            rows = self._db.execute(sql.format(where=where), args).fetchall()
        keys = ("run_id", "role", "model", "calls", "cache_hits", "input_tokens", "output_tokens", "cost_usd",
                "first", "last")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def stats(self) -> dict[str, int]:
        with self._lock:
            (n,) = self._db.execute("SELECT COUNT(*) FROM replies").fetchone()
        return {"replies": int(n)}

    def close(self) -> None:
        with self._lock:
            self._db.close()
