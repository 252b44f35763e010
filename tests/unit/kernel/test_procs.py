"""motivgraph.procs: a recorded pid is "alive" only while its process exists, is not a zombie and runs what
the caller says it must."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from motivgraph.procs import live_process, wait_exit


def test_a_running_child_is_live_with_its_command_line() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "marker-arg"])
    try:
        proc = live_process(child.pid)
        assert proc is not None and proc.mine
        assert proc.runs(b"marker-arg", b"time.sleep")
        assert not proc.runs(b"marker-arg", b"redis-server")
    finally:
        child.kill()
        child.wait()


def test_an_exited_unreaped_child_is_not_live_and_wait_exit_reaps_it() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    pid = child.pid
    # Not reaped yet: the process is a zombie until waited for, and a zombie is not a live server.
    deadline = time.monotonic() + 60
    while live_process(pid) is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_process(pid) is None
    assert wait_exit(pid, 5.0, lambda p: live_process(p) is not None)
    child.returncode = 0  # reaped by wait_exit; keep Popen's destructor quiet


def test_no_such_pid_and_non_pids() -> None:
    assert live_process(None) is None
    assert live_process(0) is None
    assert live_process(-5) is None
    assert live_process(2**22 + 12345) is None  # above Linux's pid_max


def test_this_process_is_live() -> None:
    proc = live_process(os.getpid())
    assert proc is not None and proc.runs(os.fsencode(sys.executable).rsplit(b"/", 1)[-1][:6])
