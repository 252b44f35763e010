"""Issue 12 #6: data stays private — the data dir and the embedded DB's dir are 700, the files the
server and the CLI write (AOF/RDB, ledger, LLM cache, transcripts) are 600, whatever umask the user
started with."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from motivgraph.graph.embedded import EmbeddedFalkorDB


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.lstat().st_mode)


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)  # the usual default: what the issue saw (755 dirs, 644 files)
    try:
        yield
    finally:
        os.umask(old)


def test_embedded_db_dir_and_files_are_private(tmp_path: Path, loose_umask: None) -> None:
    data = tmp_path / "data"
    server = EmbeddedFalkorDB(data)
    server.start()
    try:
        client = redis.Redis(unix_socket_path=str(server.socket_path))
        client.execute_command("GRAPH.QUERY", "g", "CREATE (:Problem {key: 'problem:x'})")
        client.save()
        client.close()
        assert _mode(data) == 0o700 and _mode(server.db_dir) == 0o700
        written = [p for p in server.db_dir.rglob("*") if p.is_file() and not p.is_symlink() and p.suffix != ".sock"]
        assert any(p.name == "falkordb.rdb" for p in written) and any("aof" in p.name for p in written)
        loose = {str(p.relative_to(data)): oct(_mode(p)) for p in written if _mode(p) & 0o077}
        assert not loose, loose
        dirs = [p for p in server.db_dir.rglob("*") if p.is_dir()]
        assert all(_mode(d) == 0o700 for d in dirs), {str(d): oct(_mode(d)) for d in dirs}
    finally:
        with contextlib.suppress(Exception):
            server.stop(timeout_s=20)


def test_existing_open_data_dir_is_tightened(tmp_path: Path, loose_umask: None) -> None:
    data = tmp_path / "data"
    (data / "falkordb").mkdir(parents=True, mode=0o755)
    data.chmod(0o755)
    server = EmbeddedFalkorDB(data)
    server.start()
    try:
        assert _mode(data) == 0o700 and _mode(data / "falkordb") == 0o700
    finally:
        with contextlib.suppress(Exception):
            server.stop(timeout_s=20)


def test_cli_entry_point_sets_a_private_umask(tmp_path: Path) -> None:
    code = (
        "import os, sys\n"
        "os.umask(0o022)\n"
        "sys.argv = ['motivgraph', 'config', 'show', '--json']\n"
        "from motivgraph.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('UMASK', oct(os.umask(0o022)))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOTIVGRAPH_")}
    env["MOTIVGRAPH_DATA_DIR"] = str(tmp_path / "data")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                         timeout=120, check=False)
    assert "UMASK 0o77" in out.stdout, out.stdout + out.stderr
