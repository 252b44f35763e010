"""`motivgraph serve`: the tool API (FastAPI) under uvicorn."""

from __future__ import annotations

import errno
import logging
import os
import socket
from enum import StrEnum

import typer

from motivgraph.cli.common import EMPTY_GRAPH_ADVICE, announce_data_dir, graph_is_empty
from motivgraph.errors import BackendUnavailable, ConfigError
from motivgraph.terminal import cli_errors, console, err_console, load_settings


class LogLevel(StrEnum):
    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"
    critical = "critical"


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


def check_port(host: str, port: int) -> None:
    """Fail before anything starts (and before "serving on" is printed) when host:port cannot be bound."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise ConfigError(f"--host {host!r} is not an address this machine can bind ({e.strerror})") from None
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT does not count
        try:
            s.bind(addr)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise BackendUnavailable(
                    f"port {port} on {host} is already in use (another `motivgraph serve`?); stop that server or "
                    f"choose another port, e.g. motivgraph serve --port {port + 1}") from None
            if e.errno == errno.EACCES:
                raise ConfigError(f"no permission to listen on port {port} (ports below 1024 need privileges); "
                                  f"use e.g. --port 8000") from None
            raise ConfigError(f"cannot listen on {host}:{port}: {e.strerror}") from None


@cli_errors
def serve(
    host: str = typer.Option(None, "--host", help="Bind address (default: MOTIVGRAPH_API_HOST, 127.0.0.1)."),
    port: int = typer.Option(None, "--port", min=1, max=65535, help="Port (default: MOTIVGRAPH_API_PORT, 8000)."),
    workers: int = typer.Option(None, "--workers", min=1, max=64,
                                help="Worker processes, each with its own model (default: MOTIVGRAPH_API_WORKERS)."),
    check: bool = typer.Option(True, "--check/--no-check",
                               help="Check the graph and index before serving (and start the embedded store)."),
    log_level: LogLevel = typer.Option(
        None, "--log-level", case_sensitive=False,
        help="Log level of the server and its workers, e.g. info for one line per request (default: warnings "
             "only; MOTIVGRAPH_LOG_LEVEL or --verbose before the command raise it too)."),
) -> None:
    """Serve the researcher tools, /triples, /nodes, /papers, /stats, /health and the explorer page over HTTP."""
    import uvicorn  # local: light CLI path

    settings = load_settings()
    level = (log_level.value if log_level else logging.getLevelName(logging.getLogger().getEffectiveLevel())).upper()
    # the root callback configured logging from settings / --verbose; a level outside LogLevel: the default
    if level not in {lv.name.upper() for lv in LogLevel}:
        level = "WARNING"
    if log_level:
        from motivgraph.logging import setup_logging  # local: light CLI path

        setup_logging(level)
    host = host or settings.api.host
    port = port or settings.api.port
    workers = workers or settings.api.workers
    check_port(host, port)
    announce_data_dir(settings)
    if check:
        from motivgraph.api.services.browse import health  # local: light CLI path
        from motivgraph.api.services.context import ToolContext  # local: light CLI path

        ctx = ToolContext(settings)
        try:
            h = health(ctx)
            empty = h.status != "down" and graph_is_empty(ctx.runtime.store)
        finally:
            ctx.runtime.close()
        if h.status == "down":
            err_console.print(f"[red]graph unreachable:[/red] {h.graph.detail}")
            raise typer.Exit(4)
        colour = "green" if h.status == "ok" else "yellow"
        err_console.print(f"graph: {h.graph.detail}; index: [{colour}]{h.index.detail}[/{colour}]")
        if empty:
            err_console.print(f"[yellow]{EMPTY_GRAPH_ADVICE}[/yellow]", highlight=False)
    if settings.api.api_key is None and host not in ("127.0.0.1", "localhost", "::1"):
        err_console.print("[yellow]warning:[/yellow] serving on a public address without MOTIVGRAPH_API_API_KEY")
    console.print(f"serving on http://{host}:{port}  (docs: /docs, explorer: /explorer)")
    # Worker processes inherit these before torch / FAISS / BLAS create their thread pools; idle
    # spinning pools of one worker would otherwise steal the cores of the other.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(settings.api.compute_threads))
    # The workers read their settings from the environment: they log at the level chosen here (in this process
    # too when uvicorn runs the one worker in it, so its cached settings are read again).
    os.environ["MOTIVGRAPH_LOG_LEVEL"] = level
    from motivgraph.settings import get_settings  # local: light CLI path

    get_settings.cache_clear()
    from motivgraph.api.server import HTTP_PROTOCOL  # local: light CLI path

    uvicorn.run("motivgraph.service:serve_factory", factory=True, host=host, port=port, workers=workers,
                http=HTTP_PROTOCOL, access_log=False, log_level=level.lower(), timeout_graceful_shutdown=10)
