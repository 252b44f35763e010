"""A real Neo4j 5.26 Community server on loopback, without Docker: `motivgraph neo4j start|stop|status`.

The server's artefacts are pinned in `neo4j_pom/pom.xml` and resolved from Maven Central by Maven
(`mvn dependency:build-classpath`, once; the jars stay in Maven's local repository, ~/.m2/repository
unless MOTIVGRAPH_NEO4J_MAVEN_REPO says otherwise). The server is the distribution's own entry point,
`org.neo4j.server.CommunityEntryPoint`, run by a Java 17 or 21 on a home folder of its own:

    <home>/conf/neo4j.conf   written from the settings at every start (ports, memory, loopback only)
    <home>/data              the databases and the auth file (the password is set before the first start)
    <home>/logs              neo4j.log, debug.log and console.log (the JVM's own output)
    <home>/classpath.txt     the resolved classpath, tagged with the pom's hash (a changed pom resolves again)
    <home>/neo4j.pid         the server's pid; server.lock serialises concurrent starters

"Running" means Bolt answers a handshake and, where the `neo4j` driver is installed, `RETURN 1` succeeds
with the configured password: a port that is merely open is not a server that works.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from motivgraph.errors import BackendUnavailable, ConfigError
from motivgraph.procs import live_process

log = logging.getLogger(__name__)

POM = Path(__file__).with_name("neo4j_pom") / "pom.xml"
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
SUPPORTED_JAVA = (17, 21)  # what Neo4j 5.26 runs on
BOLT_MAGIC = b"\x60\x60\xb0\x17"
# Bolt 5.x and 4.4, newest first (four 4-byte proposals: [0, range, minor, major]).
BOLT_VERSIONS = struct.pack(">IIII", 0x00080805, 0x00000404, 0, 0)


@dataclass
class Neo4jStatus:
    running: bool
    home: str
    bolt_uri: str
    http_url: str
    browser_url: str
    pid: int | None = None
    reused: bool = False
    version: str | None = None
    edition: str | None = None
    rss_bytes: int | None = None
    uptime_s: int | None = None
    data_bytes: int = 0
    started_in_s: float | None = None
    note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def bolt_port(uri: str | None, default: int = 7687) -> int:
    """The port of a Bolt URI (the one the local server must listen on for clients to find it)."""
    if not uri:
        return default
    parts = urlsplit(uri)
    if parts.hostname not in ("localhost", "127.0.0.1", "::1"):
        raise ConfigError(f"MOTIVGRAPH_NEO4J_URI={uri!r} is not on this machine; the local Neo4j server listens on "
                          "loopback only (use bolt://127.0.0.1:PORT)")
    return parts.port or default


def java_major(java: str) -> int:
    """The major version of the `java` binary at `java` (e.g. 17)."""
    try:
        out = subprocess.run([java, "-XshowSettings:properties", "-version"], capture_output=True, text=True,
                             timeout=30).stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ConfigError(f"Cannot run {java} ({e}); install a Java 17 JDK or set JAVA_HOME") from e
    m = re.search(r"java\.specification\.version = (\d+)", out)
    if not m:
        raise ConfigError(f"Cannot tell the version of {java}; set JAVA_HOME to a Java 17 or 21 JDK")
    return int(m.group(1))


def find_java() -> str:
    """The Java to run Neo4j with: $JAVA_HOME/bin/java, else `java` on PATH; it must be 17 or 21."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not java or not Path(java).exists():
        raise ConfigError("Neo4j needs Java 17 or 21: install a JDK (e.g. apt-get install openjdk-17-jre-headless) "
                          "or set JAVA_HOME")
    major = java_major(java)
    if major not in SUPPORTED_JAVA:
        raise ConfigError(f"{java} is Java {major}; Neo4j 5.26 runs on Java {' or '.join(map(str, SUPPORTED_JAVA))}: "
                          "set JAVA_HOME to such a JDK")
    return java


def _pid_alive(pid: int) -> bool:
    proc = live_process(pid)
    return proc is not None and (proc.argv is None or proc.runs(ENTRY_POINT.encode()))


def _gone(pid: int) -> bool:
    """True when no thread of process `pid` is left. A JVM's main thread turns zombie (no longer "alive") while its
    other threads are still exiting, and those hold the process's sockets: a start on the same ports must wait for
    this, not for `_pid_alive` to turn false. A child of ours is reaped here."""
    with contextlib.suppress(ChildProcessError, OSError):
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        threads = len(os.listdir(f"/proc/{pid}/task"))
    except (OSError, IndexError):
        return True
    return state in ("Z", "X") and threads <= 1


def _rss(pid: int) -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return None


def _uptime(pid: int) -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        start_ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
        boot_uptime = float(Path("/proc/uptime").read_text().split()[0])
        return int(boot_uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    return None


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) or "(empty)"
    except OSError:
        return "(no log)"


def bolt_handshake(port: int, host: str = "127.0.0.1", timeout: float = 2.0) -> bool:
    """True when a Bolt server on host:port agrees a protocol version (not merely an open port)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(BOLT_MAGIC + BOLT_VERSIONS)
            reply = s.recv(4)
    except OSError:
        return False
    return len(reply) == 4 and reply != b"\x00\x00\x00\x00"


class Neo4jServer:
    """Resolve, start, probe, stop (or kill) one local Neo4j server living in `home`."""

    def __init__(self, home: Path | str, *, password: str, bolt_port: int = 7687, http_port: int = 7474,
                 heap: str = "1g", pagecache: str = "512m", maven_repo: Path | None = None,
                 user: str = "neo4j") -> None:
        if bolt_port == http_port:
            raise ConfigError(f"the Bolt and HTTP ports are both {bolt_port}; set MOTIVGRAPH_NEO4J_HTTP_PORT apart")
        self.home = Path(home).expanduser().resolve()
        self.password, self.user = password, user
        self.bolt_port, self.http_port = bolt_port, http_port
        self.heap, self.pagecache = heap, pagecache
        self.maven_repo = maven_repo
        self.pidfile = self.home / "neo4j.pid"
        self.conf_dir = self.home / "conf"
        self.console_log = self.home / "logs" / "console.log"

    # ------------------------------------------------------------------------------ addresses
    @property
    def bolt_uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    # ------------------------------------------------------------------------------ artefacts
    def classpath(self) -> str:
        """The server's classpath, resolved by Maven once per pom (later starts need no network)."""
        tag = hashlib.sha256(POM.read_bytes()).hexdigest()[:16]
        cp_file = self.home / "classpath.txt"
        with contextlib.suppress(OSError, ValueError):
            saved = json.loads(cp_file.read_text())
            if saved["pom"] == tag and all(Path(j).exists() for j in saved["classpath"].split(os.pathsep)):
                return str(saved["classpath"])
        mvn = shutil.which("mvn")
        if not mvn:
            raise ConfigError("resolving Neo4j's artefacts needs Maven: apt-get install maven (or put mvn on PATH)")
        out = self.home / "classpath.part"
        cmd = [mvn, "-q", "-B", "-f", str(POM), "dependency:build-classpath", f"-Dmdep.outputFile={out}"]
        if self.maven_repo:
            cmd.append(f"-Dmaven.repo.local={self.maven_repo}")
        log.info("resolving Neo4j's artefacts from Maven Central (once): %s", " ".join(cmd))
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not out.exists():
            raise BackendUnavailable(f"Maven could not resolve Neo4j's artefacts (exit {proc.returncode}); "
                                     f"check that Maven Central is reachable:\n{(proc.stdout + proc.stderr)[-2000:]}")
        classpath = out.read_text().strip()
        out.unlink()
        cp_file.write_text(json.dumps({"pom": tag, "classpath": classpath}))
        return classpath

    def _conf(self) -> str:
        d = self.home
        return "\n".join([
            "# written by motivgraph at every start (graph/neo4j_server.py); edits here are overwritten",
            f"server.directories.data={d / 'data'}",
            f"server.directories.logs={d / 'logs'}",
            f"server.directories.run={d / 'run'}",
            f"server.directories.import={d / 'import'}",
            f"server.directories.plugins={d / 'plugins'}",
            "server.default_listen_address=127.0.0.1",
            f"server.bolt.listen_address=127.0.0.1:{self.bolt_port}",
            f"server.bolt.advertised_address=127.0.0.1:{self.bolt_port}",
            f"server.http.listen_address=127.0.0.1:{self.http_port}",
            f"server.http.advertised_address=127.0.0.1:{self.http_port}",
            "server.https.enabled=false",
            f"server.memory.heap.initial_size={self.heap}",
            f"server.memory.heap.max_size={self.heap}",
            f"server.memory.pagecache.size={self.pagecache}",
            "dbms.usage_report.enabled=false",
            # Neo4j Browser (served at /browser/) reads this when it connects: no product analytics or crash
            # reports to outside hosts, which a closed network cannot reach and a local server should not send
            "client.allow_telemetry=false",
            "",
        ])

    def _java_args(self, java: str, classpath: str, main: str, *args: str) -> list[str]:
        argfile = self.home / "java.args"  # a classpath of ~200 jars goes in an @argfile, not on the command line
        argfile.write_text(f"-cp\n{classpath}\n")
        return [java, f"-Xms{self.heap}", f"-Xmx{self.heap}", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError",
                "-Dfile.encoding=UTF-8", f"@{argfile}", main, *args]

    # ------------------------------------------------------------------------------ lifecycle
    @contextlib.contextmanager
    def _lock(self, timeout: float = 120.0) -> Iterator[None]:
        self.home.mkdir(parents=True, exist_ok=True)
        with open(self.home / "server.lock", "w") as fh:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise BackendUnavailable(f"another process is starting Neo4j in {self.home}") from None
                    time.sleep(0.2)
            yield

    def pid(self) -> int | None:
        with contextlib.suppress(OSError, ValueError):
            pid = int(self.pidfile.read_text().strip())
            return pid if _pid_alive(pid) else None
        return None

    def start(self, timeout: float = 180.0) -> Neo4jStatus:
        """Start the server (or reuse the one running in `home`) and wait until Bolt answers."""
        if len(self.password) < 8:
            raise ConfigError("Neo4j needs a password of 8+ characters: set MOTIVGRAPH_NEO4J_PASSWORD")
        with self._lock():
            pid = self.pid()
            if pid and self._answers():
                st = self.status()
                st.reused = True
                return st
            if pid:  # alive but not answering: a start in progress elsewhere or a wedged server
                return self._wait(pid, time.monotonic(), timeout, reused=True)
            self._check_ports_free()
            java = find_java()
            classpath = self.classpath()
            for sub in ("conf", "data", "logs", "run", "import", "plugins"):
                (self.home / sub).mkdir(parents=True, exist_ok=True)
            (self.conf_dir / "neo4j.conf").write_text(self._conf())
            env = {**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.conf_dir)}
            if not (self.home / "data" / "dbms" / "auth.ini").exists():
                self._set_initial_password(java, classpath, env)
            t0 = time.monotonic()
            with open(self.console_log, "ab") as out:
                proc = subprocess.Popen(
                    self._java_args(java, classpath, ENTRY_POINT, f"--home-dir={self.home}",
                                    f"--config-dir={self.conf_dir}"),
                    cwd=self.home, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True,  # outlives the command that started it, like `neo4j start`
                )
            self.pidfile.write_text(str(proc.pid))
            return self._wait(proc.pid, t0, timeout, proc=proc)

    def _check_ports_free(self) -> None:
        # Another server on our port would answer our handshake, and we would report it as ours.
        for port, setting in ((self.bolt_port, "MOTIVGRAPH_NEO4J_URI"), (self.http_port, "MOTIVGRAPH_NEO4J_HTTP_PORT")):
            with socket.socket() as s:
                s.settimeout(1.0)
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    raise BackendUnavailable(
                        f"port {port} on 127.0.0.1 is already taken by another process (not the Neo4j in {self.home}); "
                        f"stop it or choose another port with {setting}")

    def _set_initial_password(self, java: str, classpath: str, env: dict[str, str]) -> None:
        # The distribution's `neo4j-admin dbms set-initial-password`, before the first start. The password is
        # on this short-lived process's argv (the tool reads it nowhere else); it is never logged or printed.
        proc = subprocess.run(self._java_args(java, classpath, ADMIN_TOOL, "dbms", "set-initial-password",
                                              self.password), cwd=self.home, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BackendUnavailable(f"setting Neo4j's initial password failed (exit {proc.returncode}): "
                                     f"{proc.stderr.replace(self.password, '***')[-1500:]}")

    def _wait(self, pid: int, t0: float, timeout: float, proc: subprocess.Popen[bytes] | None = None,
              reused: bool = False) -> Neo4jStatus:
        deadline = t0 + timeout
        while time.monotonic() < deadline:
            if (proc is not None and proc.poll() is not None) or not _pid_alive(pid):
                logs = self.home / "logs"
                how = f"exit status {proc.returncode}" if proc is not None and proc.returncode is not None else \
                    f"pid {pid} gone"
                raise BackendUnavailable(f"Neo4j exited while starting ({how}; see {logs}):\n"
                                         f"{_tail(logs / 'neo4j.log')}\n{_tail(self.console_log, 10)}")
            if bolt_handshake(self.bolt_port):
                self._check_login()
                st = self.status()
                st.reused, st.started_in_s = reused, round(time.monotonic() - t0, 2)
                return st
            time.sleep(0.25)
        raise BackendUnavailable(f"Neo4j did not answer on Bolt port {self.bolt_port} within {timeout:.0f} s "
                                 f"(pid {pid}; see {self.home / 'logs' / 'neo4j.log'}); try --timeout or "
                                 "`motivgraph neo4j stop`")

    def _check_login(self) -> None:
        try:
            import neo4j  # local: optional extra
        except ImportError:
            return  # the handshake is proof enough without the driver
        with neo4j.GraphDatabase.driver(self.bolt_uri, auth=(self.user, self.password)) as driver:
            try:
                driver.execute_query("RETURN 1")
            except neo4j.exceptions.AuthError as e:
                raise BackendUnavailable(
                    f"Neo4j in {self.home} rejects MOTIVGRAPH_NEO4J_PASSWORD: its password was set at its first start; "
                    f"use that one, or stop it and remove {self.home / 'data'} to start afresh (deletes the graph)"
                ) from e

    def _answers(self) -> bool:
        return bolt_handshake(self.bolt_port)

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop the server (SIGTERM: a clean shutdown that checkpoints; SIGKILL after `timeout`). True when one ran."""
        pid = self.pid()
        if pid is None:
            self.pidfile.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while not _gone(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not _gone(pid):
            log.warning("Neo4j (pid %d) did not stop within %.0f s; killing it", pid, timeout)
            self.kill()
        self.pidfile.unlink(missing_ok=True)
        return True

    def kill(self) -> None:
        """SIGKILL, as a crash would (chaos tests); the next start recovers from the transaction log."""
        pid = self.pid()
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not _gone(pid) and time.monotonic() < deadline:  # until every thread is gone: the ports are free
            time.sleep(0.05)

    def status(self) -> Neo4jStatus:
        pid = self.pid()
        st = Neo4jStatus(running=bool(pid) and self._answers(), home=str(self.home), bolt_uri=self.bolt_uri,
                         http_url=self.http_url, browser_url=f"{self.http_url}/browser/", pid=pid)
        data = self.home / "data"
        if data.exists():
            st.data_bytes = sum(p.stat().st_size for p in data.rglob("*") if p.is_file() and not p.is_symlink())
        if pid:
            st.rss_bytes = _rss(pid)
            st.uptime_s = _uptime(pid)
        if st.running:
            with contextlib.suppress(OSError, ValueError):
                with urllib.request.urlopen(self.http_url + "/", timeout=3) as r:
                    info = json.loads(r.read())
                st.version, st.edition = info.get("neo4j_version"), info.get("neo4j_edition")
        elif pid:
            st.note = "the process is alive but Bolt does not answer (starting, or wedged)"
        return st


def from_settings(settings: Any) -> Neo4jServer:
    """The local server the settings point at: home, ports and memory from `settings.neo4j`."""
    cfg = settings.neo4j
    home = cfg.server_home or (Path(settings.data_dir) / "neo4j-server")
    return Neo4jServer(home, password=cfg.password.get_secret_value(), user=cfg.user, bolt_port=bolt_port(cfg.uri),
                       http_port=cfg.http_port, heap=cfg.server_heap, pagecache=cfg.server_pagecache,
                       maven_repo=cfg.maven_repo)
