"""The Ray session of one `--engine ray` command: connect to a cluster or start a local Ray, and stop it.

Ray is an optional extra (`pip install 'motivgraph[ray]'`, `./scripts/setup.sh --with-ray`); nothing here
imports it until a command asks for the Ray engine, so the default install never needs it.

- `settings.ray.address` (MOTIVGRAPH_RAY_ADDRESS, `--ray-address`) names an existing cluster: 'auto' (the
  one `ray start` left on this machine), 'host:port' (its GCS) or 'ray://host:port' (Ray Client). The
  address is checked with a plain TCP connect first: Ray's own client retries an unreachable GCS for
  minutes before it gives up, which would read as a hang.
- Otherwise the command starts a local Ray with `settings.ray.num_cpus` CPUs, no dashboard web UI, and stops
  it when it ends. (Ray 2.60's raylet starts its per-node agents, `ray::DashboardAgent` among them, whatever
  the dashboard setting; there is no switch to leave them out, and docs/operations.md says so.) A start-up
  failure (an agent that died, no memory or /dev/shm) is one BackendUnavailable line, exit 4.
- For the whole session the command's stdout is pointed at stderr (`stdout_to_stderr`): Ray prints worker
  deaths to the driver's stdout on its own, and a `--json` document must be alone there.
- Ray 2.60 refuses a loopback node address (it resolves 127.0.0.1 to the host's own IP, so its ports are
  bound on every interface); its token authentication, on by default, is what keeps other hosts out.

Usage statistics are switched off (RAY_USAGE_STATS_ENABLED=0) before Ray is imported: a command must send
nothing anywhere, and no runtime environment is requested, so Ray downloads nothing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from motivgraph.errors import BackendUnavailable, ConfigError

if TYPE_CHECKING:
    from motivgraph.settings import RaySettings

log = logging.getLogger(__name__)

INSTALL_HINT = "install it with `pip install 'motivgraph[ray]'` (or `./scripts/setup.sh --with-ray`)"
_CONNECT_TIMEOUT_S = 5.0


def import_ray() -> ModuleType:
    """The `ray` module, with usage statistics off; a ConfigError naming the extra when it is not installed."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # before the import: Ray reads it when it starts a node
    try:
        import ray  # local: optional extra
    except ImportError as e:
        raise ConfigError(f"--engine ray needs Ray, which is not installed: {INSTALL_HINT}") from e
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of a cluster address, None for 'auto'; ConfigError for anything else."""
    if address == "auto":
        return None
    parts = urlsplit(address if "://" in address else f"gcs://{address}")
    if parts.scheme not in ("gcs", "ray") or not parts.hostname or parts.path not in ("", "/"):
        raise ConfigError(
            f"--ray-address {address!r} is not a Ray cluster address: use 'auto', 'host:port' (the "
            "head node's GCS, port 6379 by default) or 'ray://host:port' (Ray Client, port 10001)"
        )
    try:
        port = parts.port
    except ValueError as e:
        raise ConfigError(f"--ray-address {address!r}: the port is not a number from 1 to 65535") from e
    if port is None:
        raise ConfigError(f"--ray-address {address!r} has no port (e.g. {parts.hostname}:6379)")
    return parts.hostname, port


def check_reachable(address: str) -> None:
    """A TCP connect to the cluster's address; BackendUnavailable (exit 4) naming it when nothing answers."""
    hp = _host_port(address)
    if hp is None:
        return
    try:
        with socket.create_connection(hp, timeout=_CONNECT_TIMEOUT_S):
            pass
    except OSError as e:
        raise BackendUnavailable(
            f"no Ray cluster answers at {address} ({e}); start one (`ray start --head`) or leave "
            "--ray-address / MOTIVGRAPH_RAY_ADDRESS unset to run on a local Ray started by this command"
        ) from e


@dataclass
class RayInfo:
    address: str  # "local (started by this command)" or the cluster's address
    cpus: int  # the cluster's CPUs when the session began

    @property
    def label(self) -> str:
        return f"Ray {self.address}, {self.cpus} CPU{'s' if self.cpus != 1 else ''}"


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send everything written to standard output — by this process (`sys.stdout`) and by the processes it
    starts meanwhile (file descriptor 1, which they inherit) — to standard error until the block ends.

    Ray writes to the driver's stdout on its own: its error subscriber prints "(raylet) A worker died …" lines
    whatever `log_to_driver` says, and the raylet, GCS and worker processes it starts inherit descriptor 1. A
    command's stdout belongs to its result (one JSON document under `--json`), so for the length of a Ray
    session it is pointed at stderr, where the progress and the logs go too; what Ray's processes write after
    the session still lands on stderr, because that is the descriptor they inherited."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        saved: int | None = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no descriptors 1/2 (an embedding host): the Python-level redirect still holds
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            with contextlib.suppress(Exception):
                sys.__stdout__.flush() if sys.__stdout__ is not None else None
            os.dup2(saved, 1)
            os.close(saved)


def _start_local(ray: ModuleType, cfg: RaySettings) -> None:
    """`ray.init` of a local Ray, its failures made one BackendUnavailable (exit 4) naming Ray's logs and the way
    around, not a traceback: a local Ray dies at start-up when a process of its own does (the raylet, the
    per-node agent), when /dev/shm or memory is short, or when its ports are taken."""
    try:
        # log_to_driver off: worker output would tear the progress bar; failures come back as results
        ray.init(address="local", num_cpus=cfg.num_cpus, include_dashboard=False, log_to_driver=False,
                 logging_level="ERROR")
    except Exception as e:  # Ray raises bare Exception / RuntimeError / ConnectionError subclasses here
        with contextlib.suppress(Exception):
            ray.shutdown()  # whatever part of the node did start
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
        raise BackendUnavailable(
            f"could not start a local Ray: {first} ({type(e).__name__}); Ray's own logs are under "
            f"{os.environ.get('RAY_TMPDIR', '/tmp/ray')}/session_latest/logs. Run again, give Ray more memory or "
            "/dev/shm, point --ray-address at a running cluster, or use --engine local"
        ) from e


@contextlib.contextmanager
def ray_session(cfg: RaySettings) -> Iterator[RayInfo]:
    """Ray for the length of a command: reuse one already initialised in this process (a test module's
    cluster, a notebook), connect to `cfg.address`, or start a local Ray; shut down only what was started here.
    For its whole length the command's stdout is kept for its result (`stdout_to_stderr`)."""
    ray = import_ray()
    with stdout_to_stderr():
        started = False
        if ray.is_initialized():
            where = "already connected"
        elif cfg.address:
            check_reachable(cfg.address)
            try:
                ray.init(address=cfg.address, log_to_driver=False, logging_level="ERROR")
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise BackendUnavailable(f"could not connect to the Ray cluster at {cfg.address}: {e}") from e
            started, where = True, f"at {cfg.address}"
        else:
            _start_local(ray, cfg)
            started, where = True, "local (started by this command)"
        try:
            cpus = int(ray.cluster_resources().get("CPU", 0))
            if cpus < 1:
                raise BackendUnavailable(f"the Ray cluster {where} has no CPUs to run tasks on")
            yield RayInfo(where, cpus)
        finally:
            if started:
                ray.shutdown()


__all__ = ["INSTALL_HINT", "RayInfo", "check_reachable", "import_ray", "ray_session", "stdout_to_stderr"]
