"""scripts/install_torch.sh (setup.sh and the Dockerfile): torch from the PyTorch CPU index when it answers,
the default index when it does not; nothing when the version is installed. pip is a fake that records its
arguments, the index a loopback HTTP server or a closed port, so nothing is downloaded."""

from __future__ import annotations

import contextlib
import http.server
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "install_torch.sh"
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the CPU-index path is taken on Linux only")


@pytest.fixture
def fake_pip(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "pip-calls.txt"
    pip = tmp_path / "fake-pip"
    # fails when FAIL_ON_INDEX is set and --index-url is given (a broken index that still answers the probe)
    pip.write_text(f'#!/usr/bin/env bash\necho "$*" >> {log}\n'
                   'if [ -n "${FAIL_ON_INDEX:-}" ] && [[ " $* " == *" --index-url "* ]]; then exit 1; fi\n')
    pip.chmod(0o755)
    return pip, log


@contextlib.contextmanager
def _index(root: Path) -> Iterator[str]:
    (root / "torch").mkdir(parents=True)
    (root / "torch" / "index.html").write_text("<a href='torch-2.13.0+cpu-cp311-linux_x86_64.whl'>torch</a>")
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(root), **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.RequestHandlerClass.log_message = lambda *a: None  # type: ignore[method-assign]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SPEC = "torch-not-installed-here==9.9.9"


def _run(pip: Path, index: str, spec: str = SPEC, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PIP_CMD": str(pip), "MOTIVGRAPH_TORCH_INDEX": index, "MOTIVGRAPH_TORCH_SPEC": spec,
           "MOTIVGRAPH_TORCH_PROBE_TIMEOUT": "5", **extra}
    return subprocess.run(["bash", str(SCRIPT), sys.executable], env=env, capture_output=True, text=True, timeout=60)


def test_unreachable_index_falls_back_to_the_default_index(fake_pip: tuple[Path, Path]) -> None:
    pip, log = fake_pip
    p = _run(pip, f"http://127.0.0.1:{_closed_port()}/whl/cpu")
    assert p.returncode == 0, p.stderr
    assert log.read_text().splitlines() == ["install --quiet torch-not-installed-here==9.9.9"]
    assert "unreachable" in p.stderr


def test_reachable_index_is_used(fake_pip: tuple[Path, Path], tmp_path: Path) -> None:
    pip, log = fake_pip
    with _index(tmp_path / "idx") as url:
        p = _run(pip, url)
    assert p.returncode == 0, p.stderr
    assert log.read_text().splitlines() == [f"install --quiet --index-url {url} torch-not-installed-here==9.9.9"]


def test_index_that_fails_the_install_falls_back(fake_pip: tuple[Path, Path], tmp_path: Path) -> None:
    pip, log = fake_pip
    with _index(tmp_path / "idx") as url:
        p = _run(pip, url, FAIL_ON_INDEX="1")
    assert p.returncode == 0, p.stderr
    calls = log.read_text().splitlines()
    assert len(calls) == 2 and "--index-url" in calls[0] and calls[1] == f"install --quiet {SPEC}"


def test_installed_version_is_left_alone(fake_pip: tuple[Path, Path]) -> None:
    pip, log = fake_pip
    p = _run(pip, f"http://127.0.0.1:{_closed_port()}/whl/cpu", spec=f"pytest=={version('pytest')}")
    assert p.returncode == 0 and "already installed" in p.stdout
    assert not log.exists()


def test_setup_and_dockerfile_use_the_script() -> None:
    root = SCRIPT.parents[1]
    assert "./scripts/install_torch.sh .venv/bin/python" in (root / "scripts" / "setup.sh").read_text()
    assert "RUN ./scripts/install_torch.sh python" in (root / "Dockerfile").read_text()
