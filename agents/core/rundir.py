"""Run directories shared by every ideator: `<runs_dir>/<run_id>/` holding

- `status.json`   — method, topic, config, status (queued / running / completed / failed / stopped /
                     interrupted), error (the reason when not completed), owner pid, timestamps,
                     counters, usage (from LLMClient); rewritten atomically,
- `repro.json`    — the reproducibility record (models and endpoints per role, prompt hashes,
                     settings snapshot with secrets masked, seeds, code version),
- `transcript.jsonl` — one JSON event per line (messages, tool calls and results, decisions,
                     token usage, phases), appended and flushed as it happens,
- `state.json`    — the resumable state of an unfinished run: a typed, versioned checkpoint
                     (`agents.core.checkpoint`), rewritten atomically,
- `ideas.json`    — the idea records (`agents.core.idea.IdeaRecord`), and `summary.md` — a short
                     human summary with the reproducibility record.

Appending one line per event means a crash loses at most the line being written; readers skip a
torn last line.
"""

from __future__ import annotations

import builtins
import json
import logging
import os
import re
import secrets
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from motivgraph.errors import RunNotFound
from motivgraph.fsutil import atomic_write
from motivgraph.procs import live_process

if TYPE_CHECKING:
    from motivgraph.agents.core.context import RunSpec

log = logging.getLogger(__name__)

RUNNING, COMPLETED, FAILED, INTERRUPTED, QUEUED = "running", "completed", "failed", "interrupted", "queued"
STOPPED = "stopped"  # stopped cleanly by its budget; resumable with a higher budget
FINISHED = {COMPLETED, FAILED}
TERMINAL = {COMPLETED, FAILED, INTERRUPTED, STOPPED}
RESUMABLE = {FAILED, INTERRUPTED, STOPPED}
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def new_run_id(method: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"{method}-{stamp}-{secrets.token_hex(3)}"


def check_run_id(run_id: str) -> str:
    # Run ids become path components: refuse anything that could climb out of runs_dir.
    if not _ID_RE.match(run_id or "") or ".." in run_id:
        raise RunNotFound(f"invalid run id {run_id!r}: letters, digits, '_', '-', '.' only")
    return run_id


def pid_alive(pid: int | None) -> bool:
    """True when the run's owner process still exists (an exited, unreaped owner is not alive)."""
    return live_process(pid) is not None


def process_start(pid: int | None) -> str | None:
    """When process `pid` started, as '<boot id>:<start ticks>' from /proc (None where /proc cannot say): with the
    pid, it names one process for good -- after the owner dies its pid may be given to another process, which
    has another start."""
    if not pid or pid < 0:
        return None
    try:
        ticks = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except (OSError, IndexError):
        return None
    return f"{boot}:{ticks}"


def owner_alive(status: dict[str, Any]) -> bool:
    """True when the process recorded as the run's owner (`pid`, and `pid_start` when recorded) still runs."""
    pid = status.get("pid")
    if not pid_alive(pid):
        return False
    recorded = status.get("pid_start")
    return recorded is None or process_start(pid) in (None, recorded)


def resume_command(status: dict[str, Any], run_id: str) -> str:
    """The command that continues a run (an evaluation's own, or `ideate --resume`)."""
    if status.get("method") == "eval":
        return f"motivgraph eval --resume {run_id}"
    return f"motivgraph ideate --resume {run_id}"


GONE_ERROR = "its process (pid {pid}) is gone: killed (SIGKILL, out of memory) or the machine restarted before it " \
             "recorded an end"


def live_status(status: dict[str, Any], run_id: str) -> dict[str, Any]:
    """The status as it is now: a run recorded `running`/`queued` whose owner process is gone reads `interrupted`
    (`orphaned: true`, the error saying why), and every resumable run carries its `resume` command. Reading never
    writes: the stored status changes when the run is resumed (or `mark_interrupted` runs)."""
    st = dict(status)
    if st.get("status") in (RUNNING, QUEUED) and not owner_alive(st):
        st.update(status=INTERRUPTED, orphaned=True, error=GONE_ERROR.format(pid=st.get("pid")),
                  reason=f"interrupted: {GONE_ERROR.format(pid=st.get('pid'))}")
    if st.get("status") in RESUMABLE:
        st["resume"] = resume_command(st, run_id)
    return st


class RunDir:
    """One run's directory. Thread-safe for appends from the run's worker thread and readers."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.id = path.name
        # the run's spec as this process wrote or first read it (agents.core.runner.spec_of): validated once
        self.spec: RunSpec | None = None
        self._lock = threading.Lock()
        self._seq = self._last_seq()

    # ------------------------------------------------------------------ creation / lookup
    @classmethod
    def create(
        cls, runs_dir: Path, method: str, topic: str, config: dict[str, Any], run_id: str | None = None
    ) -> RunDir:
        run_id = check_run_id(run_id or new_run_id(method))
        path = Path(runs_dir) / run_id
        path.mkdir(parents=True, exist_ok=False)
        run = cls(path)
        run.write_status(
            {
                "id": run_id,
                "method": method,
                "topic": topic,
                "config": config,
                "status": QUEUED,
                "created_at": now_iso(),
                "updated_at": now_iso(),
                "pid": os.getpid(),
                "ideas_accepted": 0,
                "ideas_rejected": 0,
                "error": None,
            }
        )
        return run

    @classmethod
    def open(cls, runs_dir: Path, run_id: str) -> RunDir:
        path = Path(runs_dir) / check_run_id(run_id)
        if not (path / "status.json").is_file():
            raise RunNotFound(f"no run {run_id!r} under {runs_dir} (see `ls {runs_dir}`)")
        return cls(path)

    @staticmethod
    def list(runs_dir: Path) -> list[RunDir]:
        root = Path(runs_dir)
        if not root.is_dir():
            return []
        return [RunDir(p) for p in sorted(root.iterdir()) if (p / "status.json").is_file()]

    # ------------------------------------------------------------------ status
    def status(self) -> dict[str, Any]:
        return json.loads((self.path / "status.json").read_text(encoding="utf-8"))

    def write_status(self, status: dict[str, Any]) -> None:
        with self._lock:
            atomic_write(self.path / "status.json", json.dumps(status, indent=2, ensure_ascii=False))

    def update_status(self, **changes: Any) -> dict[str, Any]:
        with self._lock:
            st = json.loads((self.path / "status.json").read_text(encoding="utf-8"))
            st.update(changes)
            st["updated_at"] = now_iso()
            atomic_write(self.path / "status.json", json.dumps(st, indent=2, ensure_ascii=False))
            return st

    # ------------------------------------------------------------------ transcript
    @property
    def transcript_path(self) -> Path:
        return self.path / "transcript.jsonl"

    def _last_seq(self) -> int:
        last = 0
        for ev in self.events():
            last = max(last, int(ev.get("seq", 0)))
        return last

    def append(self, event: dict[str, Any]) -> dict[str, Any]:
        """Append one event (seq and ts added) and return it as written."""
        with self._lock:
            self._seq += 1
            ev = {"seq": self._seq, "ts": now_iso(), **event}
            line = json.dumps(ev, ensure_ascii=False, default=str)
            with self.transcript_path.open("a", encoding="utf-8") as f:
                f.write(line + "\n")
                f.flush()
            return ev

    def events(self, after: int = 0) -> Iterator[dict[str, Any]]:
        """Events with seq > after, in order; a torn last line (crash mid-write) is skipped."""
        p = self.transcript_path
        if not p.is_file():
            return
        with p.open(encoding="utf-8") as f:
            for line in f:
                if not line.endswith("\n"):
                    break
                try:
                    ev = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if int(ev.get("seq", 0)) > after:
                    yield ev

    # ------------------------------------------------------------------ state / results
    def save_state(self, state: dict[str, Any]) -> None:
        with self._lock:
            atomic_write(self.path / "state.json", json.dumps(state, ensure_ascii=False, default=str))

    def load_state(self) -> dict[str, Any] | None:
        p = self.path / "state.json"
        return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else None

    def write_json(self, name: str, data: Any) -> None:
        atomic_write(self.path / name, json.dumps(data, indent=2, ensure_ascii=False, default=str))

    def read_json(self, name: str) -> Any:
        p = self.path / name
        return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else None

    def write_ideas(self, ideas: builtins.list[dict[str, Any]]) -> None:
        atomic_write(self.path / "ideas.json", json.dumps(ideas, indent=2, ensure_ascii=False))

    def ideas(self) -> builtins.list[dict[str, Any]]:
        p = self.path / "ideas.json"
        return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else []

    def write_summary(self, text: str) -> None:
        atomic_write(self.path / "summary.md", text)


def mark_interrupted(runs_dir: Path, *, only_dead_owner: bool = True) -> list[str]:
    """Mark runs still 'running'/'queued' as interrupted. With only_dead_owner, a run whose owner
    process is alive (another CLI session) is left alone. Returns the ids marked."""
    marked: list[str] = []
    for run in RunDir.list(runs_dir):
        try:
            st = run.status()
        except (OSError, json.JSONDecodeError) as e:
            log.warning("unreadable status in %s: %s", run.path, e)
            continue
        if st.get("status") not in (RUNNING, QUEUED):
            continue
        pid = st.get("pid")
        if only_dead_owner and pid != os.getpid() and owner_alive(st):
            continue
        run.update_status(status=INTERRUPTED, error="the process running this session stopped before it finished")
        run.append({"type": "status", "status": INTERRUPTED})
        marked.append(run.id)
    return marked
