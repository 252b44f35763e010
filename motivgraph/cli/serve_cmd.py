"""`motivgraph serve`: the tool API (FastAPI) under uvicorn."""

from __future__ import annotations

import os

import typer

from motivgraph.cli.common import cli_errors, console, err_console, load_settings


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


@cli_errors
def serve(
    host: str = typer.Option(None, "--host", help="Bind address (default: MOTIVGRAPH_API_HOST, 127.0.0.1)."),
    port: int = typer.Option(None, "--port", min=1, max=65535, help="Port (default: MOTIVGRAPH_API_PORT, 8000)."),
    workers: int = typer.Option(None, "--workers", min=1, max=64,
                                help="Worker processes, each with its own model (default: MOTIVGRAPH_API_WORKERS)."),
    check: bool = typer.Option(True, "--check/--no-check",
                               help="Check the graph and index before serving (and start the embedded store)."),
) -> None:
    """Serve the researcher tools, /triples, /nodes, /papers, /stats, /health and the explorer page over HTTP."""
    import uvicorn

    settings = load_settings()
    host = host or settings.api.host
    port = port or settings.api.port
    workers = workers or settings.api.workers
    if check:
        from motivgraph.api.services.browse import health
        from motivgraph.api.services.context import ToolContext

        ctx = ToolContext(settings)
        try:
            h = health(ctx)
        finally:
            ctx.runtime.close()
        if h.status == "down":
            err_console.print(f"[red]graph unreachable:[/red] {h.graph.detail}")
            raise typer.Exit(4)
        colour = "green" if h.status == "ok" else "yellow"
        console.print(f"graph: {h.graph.detail}; index: [{colour}]{h.index.detail}[/{colour}]")
    if settings.api.api_key is None and host not in ("127.0.0.1", "localhost", "::1"):
        err_console.print("[yellow]warning:[/yellow] serving on a public address without MOTIVGRAPH_API_API_KEY")
    console.print(f"serving on http://{host}:{port}  (docs: /docs, explorer: /explorer)")
    # Worker processes inherit these before torch / FAISS / BLAS create their thread pools; idle
    # spinning pools of one worker would otherwise steal the cores of the other.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(settings.api.compute_threads))
    from motivgraph.api.server import HTTP_PROTOCOL

    uvicorn.run("motivgraph.service:serve_factory", factory=True, host=host, port=port, workers=workers,
                http=HTTP_PROTOCOL, access_log=False, log_level=settings.log_level.lower(),
                timeout_graceful_shutdown=10)
