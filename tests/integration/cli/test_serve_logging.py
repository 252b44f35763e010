"""`motivgraph serve` logs as the README says: only warnings by default (no uvicorn start-up chatter, no access
lines); `--log-level`, `--verbose` or MOTIVGRAPH_LOG_LEVEL raise it. A real `motivgraph serve` process, a few
requests, Ctrl-C, and its stderr read."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

LEVEL_WORD = ("DEBUG", "INFO")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(tmp_path: Path, *args: str, env_level: str | None = None, root: tuple[str, ...] = ()) -> str:
    """Run `motivgraph [root] serve --no-check --port P [args]`, make three requests, stop it; its stderr."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}
    env.update({"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "MOTIVGRAPH_API_NODE_CACHE": "0"})  # no cache warm-up: these requests never open the graph
    if env_level:
        env["MOTIVGRAPH_LOG_LEVEL"] = env_level
    proc = subprocess.Popen([sys.executable, "-m", "motivgraph", *root, "serve", "--no-check", "--port", str(port),
                             *args], env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, f"serve exited: {proc.communicate()}"
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health/live", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "serve did not answer within 90 s"
            time.sleep(0.3)
        httpx.get(f"http://127.0.0.1:{port}/tools", timeout=10)
        httpx.get(f"http://127.0.0.1:{port}/no/such/route", timeout=10)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    return err


def _chatty(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if any(f"{w} " in line or f"{w}:" in line for w in LEVEL_WORD)]


def test_serve_shows_only_warnings_by_default(tmp_path: Path) -> None:
    err = _serve(tmp_path)
    assert not _chatty(err), f"INFO lines by default:\n{err}"


@pytest.mark.parametrize(("args", "env_level", "root"), [
    (("--log-level", "info"), None, ()),
    ((), "INFO", ()),
    ((), None, ("--verbose",)),
])
def test_serve_log_level_can_be_raised(tmp_path: Path, args: tuple[str, ...], env_level: str | None,
                                       root: tuple[str, ...]) -> None:
    err = _serve(tmp_path, *args, env_level=env_level, root=root)
    lines = _chatty(err)
    # the workers' own log lines (one per request on api.access) and uvicorn's start-up lines
    assert any("api.access" in line and "/tools" in line for line in lines), err
    assert any("Uvicorn running" in line or "Application startup" in line for line in lines), err


def test_serve_log_level_is_checked(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}
    env["MOTIVGRAPH_DATA_DIR"] = str(tmp_path / "data")
    p = subprocess.run([sys.executable, "-m", "motivgraph", "serve", "--log-level", "chatty", "--no-check"],
                       env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p
    assert "--log-level" in p.stderr
