"""The embedded FalkorDB server: start, reuse, stop, crash recovery, persistence, connection errors."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from motivgraph.errors import BackendUnavailable, ConfigError
from motivgraph.graph import open_store
from motivgraph.graph.embedded import MAX_SOCKET_PATH, EmbeddedFalkorDB, _pid_alive
from motivgraph.graph.models import NodeIn, TripleIn
from motivgraph.settings import GraphSettings, Settings

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def servers() -> Iterator[Callable[[Path], EmbeddedFalkorDB]]:
    """Make EmbeddedFalkorDB handles; every server they started is stopped (or killed) afterwards."""
    made: list[EmbeddedFalkorDB] = []

    def make(data_dir: Path, **kw: float) -> EmbeddedFalkorDB:
        s = EmbeddedFalkorDB(data_dir, **kw)
        made.append(s)
        return s

    yield make
    for s in made:
        with contextlib.suppress(Exception):
            s.stop(timeout_s=20)
        pid = s.read_pid()
        if pid and _pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


def _wait_dead(pid: int) -> None:
    for _ in range(400):
        if not _pid_alive(pid):
            return
        time.sleep(0.025)
    raise AssertionError(f"pid {pid} did not exit")


def _triple(i: int) -> TripleIn:
    return TripleIn(paper_id=f"paper-{i}", index=0, problem=NodeIn(name=f"Problem {i}"),
                    challenge=NodeIn(name=f"Challenge {i}"), solution=NodeIn(name=f"Solution {i}"))


def test_start_reuse_stop(tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB]) -> None:
    a = servers(tmp_path / "d")
    st = a.start()
    assert st.running and not st.reused and st.pid
    assert Path(st.socket) == tmp_path.resolve() / "d" / "falkordb" / "falkordb.sock"
    assert stat.S_ISSOCK(os.stat(st.socket).st_mode)
    assert stat.S_IMODE(os.stat(st.socket).st_mode) == 0o700
    assert a.pidfile.exists() and a.logfile.exists()
    # a second handle (another process, in practice) reuses the same server
    b = servers(tmp_path / "d")
    st2 = b.start()
    assert st2.reused and st2.pid == st.pid
    status = b.status()
    assert status.running and status.version and status.data_bytes > 0
    assert b.stop() is True
    _wait_dead(st.pid)
    assert not a.is_running()
    assert not Path(st.socket).exists() and not a.pidfile.exists()
    assert a.stop() is False  # stopping a stopped server is a no-op
    assert a.status().running is False


def test_persists_across_restart(tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB]) -> None:
    settings = Settings(data_dir=tmp_path / "d", graph=GraphSettings(name="persist"), _env_file=None)  # type: ignore[call-arg]
    server = servers(settings.data_dir)
    store = open_store(settings)  # starts the embedded server itself
    try:
        store.upsert_triples([_triple(i) for i in range(5)])
        version = store.node_version()
    finally:
        store.close()
    assert server.is_running()
    assert (settings.db_dir / "appendonlydir").is_dir()
    server.stop()
    server.start()
    store = open_store(settings)
    try:
        assert store.stats().triples == 5
        assert store.node_version() == version
        assert store.find_nodes("problem 3")[0].key == "problem:problem 3"
    finally:
        store.close()
    assert "persist" in server.status().graphs


def test_recovers_after_kill_9(tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB]) -> None:
    settings = Settings(data_dir=tmp_path / "d", graph=GraphSettings(name="crash"), _env_file=None)  # type: ignore[call-arg]
    server = servers(settings.data_dir)
    old_pid = server.start().pid
    assert old_pid
    store = open_store(settings)
    store.upsert_triples([_triple(i) for i in range(3)])
    # Block until the writes are fsynced to the append-only file, so a kill cannot lose them.
    client = redis.Redis(unix_socket_path=str(server.socket_path))
    assert client.execute_command("WAITAOF", 1, 0, 0)[0] == 1
    client.close()
    store.close()
    os.kill(old_pid, signal.SIGKILL)
    _wait_dead(old_pid)
    # the crash left its pidfile and socket file behind
    assert server.pidfile.exists() and server.socket_path.exists()
    assert not server.is_running()
    st = server.start()
    assert st.running and not st.reused and st.pid != old_pid
    store = open_store(settings)
    try:
        assert store.stats().triples == 3
    finally:
        store.close()


def test_stale_pidfile_of_unrelated_process_is_not_killed(
    tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB]
) -> None:
    server = servers(tmp_path / "d")
    server.db_dir.mkdir(parents=True)
    # After a reboot the recorded pid may belong to anything — here, this test process.
    server.pidfile.write_text(f"{os.getpid()}\n")
    server.socket_path.write_text("not a socket")
    st = server.start()
    assert st.running and st.pid != os.getpid()
    assert stat.S_ISSOCK(os.stat(server.socket_path).st_mode)


def test_concurrent_starts_share_one_server(tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB]) -> None:
    server = servers(tmp_path / "d")
    code = (
        "import sys; from graph.embedded import EmbeddedFalkorDB; "
        "print(EmbeddedFalkorDB(sys.argv[1]).start().pid)"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "d")], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    pids = {int(out.strip()) for out, _ in outs}
    assert len(pids) == 1
    assert server.read_pid() in pids and server.is_running()


def test_long_data_dir_uses_short_socket(tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB]) -> None:
    deep = tmp_path / ("x" * 60) / ("y" * 60)
    server = servers(deep)
    assert len(os.fsencode(deep / "falkordb" / "falkordb.sock")) > MAX_SOCKET_PATH
    assert len(os.fsencode(server.socket_path)) <= MAX_SOCKET_PATH
    assert EmbeddedFalkorDB(deep).socket_path == server.socket_path  # every process finds the same one
    st = server.start()
    assert st.running
    assert (deep / "falkordb" / "falkordb.pid").exists()  # data files still live under the data dir
    assert stat.S_IMODE(os.stat(server.socket_path.parent).st_mode) == 0o700


def test_start_failure_quotes_the_server_log(
    tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB], monkeypatch: pytest.MonkeyPatch
) -> None:
    import motivgraph.graph.embedded as emb

    real_server, _ = emb._binaries()
    bogus = tmp_path / "not-a-module.so"
    bogus.write_text("this is not a shared object")
    monkeypatch.setattr(emb, "_binaries", lambda: (real_server, bogus))
    server = servers(tmp_path / "d", start_timeout_s=20)
    with pytest.raises(BackendUnavailable) as err:
        server.start()
    msg = str(err.value)
    assert "falkordb.log" in msg
    assert "not-a-module.so" in msg  # the log line about the failed module load is quoted
    assert not server.is_running()


def test_external_url_unreachable_names_the_setting(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, graph=GraphSettings(falkordb_url=f"unix://{tmp_path}/nope.sock"),
                        _env_file=None)  # type: ignore[call-arg]
    with pytest.raises(BackendUnavailable, match="MOTIVGRAPH_GRAPH_FALKORDB_URL"):
        open_store(settings)
    settings.graph.falkordb_url = "redis://:s3cret@127.0.0.1:1"
    with pytest.raises(BackendUnavailable) as err:
        open_store(settings)
    assert "s3cret" not in str(err.value) and "MOTIVGRAPH_GRAPH_FALKORDB_URL" in str(err.value)
    settings.graph.falkordb_url = "http://localhost:6379"
    with pytest.raises(ConfigError, match="MOTIVGRAPH_GRAPH_FALKORDB_URL"):
        open_store(settings)


def test_external_url_reaches_a_running_server(tmp_path: Path, falkordb_server: EmbeddedFalkorDB) -> None:
    settings = Settings(data_dir=tmp_path, graph=GraphSettings(falkordb_url=falkordb_server.url, name="ext_url"),
                        _env_file=None)  # type: ignore[call-arg]
    store = open_store(settings)
    try:
        store.upsert_triples([_triple(1)])
        assert store.stats().triples == 1
        assert not (tmp_path / "falkordb").exists()  # no embedded server was started for this data dir
    finally:
        store.drop_graph()  # type: ignore[attr-defined]
        store.close()


def test_reads_on_a_graph_that_does_not_exist(tmp_path: Path, falkordb_server: EmbeddedFalkorDB) -> None:
    settings = Settings(data_dir=tmp_path, graph=GraphSettings(falkordb_url=falkordb_server.url, name="never_made"),
                        _env_file=None)  # type: ignore[call-arg]
    store = open_store(settings, ensure_schema=False)
    try:
        st = store.stats()
        assert st.triples == 0 and st.node_version == 0
        assert store.random_nodes(3, seed=1) == [] and store.get_node("problem:x") is None
    finally:
        store.close()


def test_server_gone_mid_session_is_backend_unavailable(
    tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB]
) -> None:
    settings = Settings(data_dir=tmp_path / "d", _env_file=None)  # type: ignore[call-arg]
    server = servers(settings.data_dir)
    store = open_store(settings)
    try:
        server.stop()
        with pytest.raises(BackendUnavailable, match="motivgraph db start"):
            store.stats()
    finally:
        store.close()


def test_live_server_whose_socket_was_deleted_is_replaced(
    tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB]
) -> None:
    """A tmp cleaner removed the socket: the old server is unreachable but still owns the data
    files, so start() shuts it down gracefully (saving) and starts a new one on the same data."""
    settings = Settings(data_dir=tmp_path / "d", graph=GraphSettings(name="orphan"), _env_file=None)  # type: ignore[call-arg]
    server = servers(settings.data_dir)
    old_pid = server.start().pid
    assert old_pid
    store = open_store(settings)
    store.upsert_triples([_triple(i) for i in range(4)])
    store.close()
    server.socket_path.unlink()
    st = server.start()
    assert st.running and st.pid != old_pid
    _wait_dead(old_pid)
    store = open_store(settings)
    try:
        assert store.stats().triples == 4
    finally:
        store.close()


def test_stale_pidfile_naming_another_data_dirs_server_is_left_alone(
    tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB], falkordb_server: EmbeddedFalkorDB
) -> None:
    other_pid = falkordb_server.read_pid()
    assert other_pid and falkordb_server.is_running()
    server = servers(tmp_path / "d")
    server.db_dir.mkdir(parents=True)
    server.pidfile.write_text(f"{other_pid}\n")  # a recycled pid that is now someone else's server
    st = server.start()
    assert st.running and st.pid != other_pid
    assert falkordb_server.is_running() and falkordb_server.read_pid() == other_pid


def test_data_dir_with_spaces_and_quotes(tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB]) -> None:
    server = servers(tmp_path / "my data" / "it's here")
    st = server.start()
    assert st.running and " " in st.socket
    assert server.stop() is True


def test_start_timeout_when_the_server_never_answers(
    tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server process that stays alive but never opens its socket: start() gives up after its
    bounded timeout with BackendUnavailable instead of hanging."""
    import motivgraph.graph.embedded as emb

    fake = tmp_path / "bin" / "redis-server"
    fake.parent.mkdir()
    fake.write_text(
        f"#!{sys.executable}\n"
        "import os, sys, time\n"
        "args = sys.argv[1:]\n"
        "pidfile = args[args.index('--pidfile') + 1]\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    open(pidfile, 'w').write(str(os.getpid()))\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
    )
    fake.chmod(0o755)
    _, module = emb._binaries()
    monkeypatch.setattr(emb, "_binaries", lambda: (fake, module))
    server = servers(tmp_path / "d", start_timeout_s=1.5)
    try:
        with pytest.raises(BackendUnavailable, match="did not answer"):
            server.start()
    finally:
        pid = server.read_pid()
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_launcher_failure_quotes_its_output(
    tmp_path: Path, servers: Callable[[Path], EmbeddedFalkorDB], monkeypatch: pytest.MonkeyPatch
) -> None:
    import motivgraph.graph.embedded as emb

    fake = tmp_path / "bin" / "redis-server"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho '*** FATAL CONFIG FILE ERROR: Bad directive'\nexit 1\n")
    fake.chmod(0o755)
    _, module = emb._binaries()
    monkeypatch.setattr(emb, "_binaries", lambda: (fake, module))
    with pytest.raises(BackendUnavailable, match="FATAL CONFIG FILE ERROR") as err:
        servers(tmp_path / "d").start()
    assert "exited with code 1" in str(err.value)
