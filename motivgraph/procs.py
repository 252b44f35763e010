"""Is a recorded process id still the server we started? One answer for every server the project manages
(the embedded FalkorDB, the local llama.cpp model, the local Neo4j) and for a run's owner.

A pid file outlives its process: after an exit the process may linger as a zombie (a daemon nobody reaps),
and after a reboot the same number may belong to an unrelated process. So "alive" here means: the process
exists, is not a zombie, and — when the caller names what it must be — its command line says so.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LiveProcess:
    """A live, non-zombie process. `argv` is None where it cannot be read (no /proc, or another user's)."""

    pid: int
    argv: tuple[bytes, ...] | None

    @property
    def mine(self) -> bool:
        """False for a process of another user (os.kill says it exists but we may not signal it)."""
        return self.argv is not None or not Path("/proc").is_dir()

    def runs(self, *parts: bytes) -> bool:
        """True when every one of `parts` occurs in the command line (a substring of one of its arguments);
        unknown command lines (another user's process) never match."""
        if self.argv is None:
            return False
        line = b"\0".join(self.argv)
        return all(p in line for p in parts)


def live_process(pid: int | None) -> LiveProcess | None:
    """The process `pid` when it exists and is not a zombie; else None."""
    if not pid or pid < 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return LiveProcess(pid, None)  # exists, owned by someone else
    proc = Path(f"/proc/{pid}")
    if not proc.is_dir():
        return LiveProcess(pid, None) if not Path("/proc").is_dir() else None
    try:
        state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        argv = tuple((proc / "cmdline").read_bytes().split(b"\0"))
    except (OSError, IndexError):
        return None  # it exited while we looked
    if state in ("Z", "X"):
        return None  # exited, not yet reaped
    return LiveProcess(pid, argv)


def wait_exit(pid: int, timeout_s: float, alive: Callable[[int], bool]) -> bool:
    """Wait up to `timeout_s` until `alive(pid)` is false (reaping `pid` when it is our child); True when it is."""
    deadline = time.monotonic() + timeout_s
    while True:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)  # our own child lingers as a zombie until reaped
        if not alive(pid):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
