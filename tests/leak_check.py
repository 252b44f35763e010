"""The suite ends every process it started: a session-end check that fails the run when one outlives it.

At import, before any test runs, the pytest process makes itself a child subreaper (Linux prctl
PR_SET_CHILD_SUBREAPER): a server that daemonises or detaches from the test that started it is then
re-parented to pytest instead of to init, so it stays findable as a descendant. (A marker in the
environment would not do: redis-server rewrites its environment block with its process title.) When the
session finishes — after every fixture's teardown — a descendant still running has leaked: it is named,
killed, and the run fails. Python's own helpers (multiprocessing's resource tracker and forkserver) end
with the interpreter and are not counted.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
GRACE_S = 20.0  # a server stopped in the last teardown may still be writing its last snapshot
RUNTIME_HELPERS = (b"multiprocessing.resource_tracker", b"multiprocessing.forkserver")

_active = False


def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux only); True when the check can run."""
    global _active
    if sys.platform != "linux":
        return False
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        _active = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return _active


def _state_and_cmd(pid: int) -> tuple[str, bytes]:
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return stat, Path(f"/proc/{pid}/cmdline").read_bytes()


def _children(pid: int) -> list[int]:
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                out += [int(x) for x in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    return out


def running_descendants(root: int | None = None) -> dict[int, str]:
    """Descendants of `root` (this process) that are running (not zombies, not Python's helpers): pid -> cmd."""
    found: dict[int, str] = {}
    todo = _children(root or os.getpid())
    while todo:
        pid = todo.pop()
        todo += _children(pid)
        with contextlib.suppress(OSError, IndexError):
            state, cmd = _state_and_cmd(pid)
            if state not in ("Z", "X") and not any(h in cmd for h in RUNTIME_HELPERS):
                found[pid] = cmd.replace(b"\0", b" ").decode(errors="replace").strip()
    return found


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def leaked(grace_s: float = GRACE_S) -> dict[int, str]:
    """The descendants still running after `grace_s`; they are killed (and reaped) before this returns."""
    if not _active:
        return {}
    deadline = time.monotonic() + grace_s
    while (alive := running_descendants()) and time.monotonic() < deadline:
        _reap()
        time.sleep(0.5)
    for pid in alive:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    _reap()
    return alive
