"""motivgraph.ray_cluster.stdout_to_stderr: for the length of a Ray session everything written to standard
output -- by Python code and by child processes, which inherit descriptor 1 -- lands on standard error, so the
command's stdout holds its result alone; the kernel's `printable` escapes control characters in names."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from motivgraph.fsutil import printable


def test_python_and_child_process_output_go_to_stderr_inside_the_block() -> None:
    code = textwrap.dedent("""
        import subprocess, sys
        from motivgraph.ray_cluster import stdout_to_stderr
        print("before")
        with stdout_to_stderr():
            print("(raylet) A worker died")
            subprocess.run(["echo", "child says hi"], check=True)
        print("after")
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["before", "after"]
    assert "(raylet) A worker died" in p.stderr and "child says hi" in p.stderr


def test_printable_escapes_control_characters_only() -> None:
    assert printable("bad\nname.pdf") == "bad\\nname.pdf"
    assert printable("a\rb\tc\x1b[31m") == "a\\rb\\tc\\x1b[31m"
    assert printable("résumé – ok.pdf") == "résumé – ok.pdf"


def test_a_local_ray_that_fails_to_start_is_one_clean_error(monkeypatch: object) -> None:
    """motivgraph/ray_cluster.py: Ray's start-up failure (its local ray::DashboardAgent died) was a raw traceback with
    exit 1; it is a BackendUnavailable (exit 4) naming Ray's logs and the ways around, and what started is shut down."""
    import types

    import pytest

    import motivgraph.ray_cluster as rc
    from motivgraph.errors import BackendUnavailable
    from motivgraph.settings import RaySettings
    from motivgraph.terminal import exit_code_for

    calls: list[str] = []

    def init(**kw: object) -> None:
        calls.append(f"init dashboard={kw.get('include_dashboard')}")
        raise Exception("Failed to start the dashboard agent: The local ray::DashboardAgent died")

    fake = types.SimpleNamespace(is_initialized=lambda: False, init=init, shutdown=lambda: calls.append("shutdown"))
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(rc, "import_ray", lambda: fake)
        with pytest.raises(BackendUnavailable) as info, rc.ray_session(RaySettings()):
            pass
    finally:
        mp.undo()
    msg = str(info.value)
    assert "could not start a local Ray" in msg and "DashboardAgent died" in msg and "--engine local" in msg
    assert exit_code_for(info.value) == 4
    assert calls == ["init dashboard=False", "shutdown"]
