"""`--engine ray` on bad input, for `ingest` and `reindex`: each mistake is one clear line and the exit code
of its kind (2 usage, 3 configuration or input, 4 unreachable), before anything is opened or started. None of these
needs Ray: a missing Ray is simulated, and the address checks run before Ray is imported."""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from motivgraph.cli import app

COMMANDS = {"ingest": lambda tmp: ["ingest", str(tmp)], "reindex": lambda tmp: ["reindex"]}


def _run(tmp_path: Path, command: str, *args: str) -> tuple[int, str]:
    (tmp_path / "papers").mkdir(exist_ok=True)
    (tmp_path / "papers" / "a.pdf").write_bytes(b"%PDF-1.4\n")  # never read: every check comes first
    env = {"MOTIVGRAPH_DATA_DIR": str(tmp_path / "data"), "MOTIVGRAPH_RAY_ADDRESS": ""}
    r = CliRunner().invoke(app, [*COMMANDS[command](tmp_path / "papers"), *args], env=env)
    # one line, whatever the console's width, and without the box typer draws around a usage error
    return r.exit_code, " ".join(re.sub("[│╭╮╰╯─]", " ", r.output).split())


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ray_not_installed_names_the_extra(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError, as without the extra
    code, out = _run(tmp_path, command, "--engine", "ray")
    assert code == 3, out
    assert "needs Ray, which is not installed" in out and "pip install 'motivgraph[ray]'" in out
    assert "--with-ray" in out and "Traceback" not in out
    assert not (tmp_path / "data" / "falkordb").exists()  # nothing was started


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_bad_engine_and_address_are_input_errors(command: str, tmp_path: Path) -> None:
    code, out = _run(tmp_path, command, "--engine", "spark")  # typed `Engine`: a usage error naming the choices
    assert code == 2 and "'spark' is not one of 'local', 'ray'" in out, out
    code, out = _run(tmp_path, command, "--engine", "ray", "--ray-address", "http://head:8265")
    assert code == 3 and "is not a Ray cluster address" in out and "ray://host:port" in out
    code, out = _run(tmp_path, command, "--ray-address", "head:6379")
    assert code == 3 and "--ray-address needs --engine ray" in out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_unreachable_cluster_is_named_not_waited_for(command: str, tmp_path: Path) -> None:
    """Ray's own client retries an unreachable GCS for minutes; the command says so at once (exit 4)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free a moment ago: nothing listens there
    code, out = _run(tmp_path, command, "--engine", "ray", "--ray-address", f"127.0.0.1:{port}")
    assert code == 4, out
    assert f"no Ray cluster answers at 127.0.0.1:{port}" in out and "ray start --head" in out
