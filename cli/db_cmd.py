"""`motivgraph db start|stop|status`: the embedded FalkorDB server of the data directory.

Exit codes: 0 done (start: running; stop: stopped or was not running; status: running),
4 the server is not running (status) or could not be started, 3 invalid settings.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from motivgraph.data_format import check_data_dir
from motivgraph.graph.embedded import EmbeddedFalkorDB, ServerStatus
from motivgraph.terminal import EXIT_UNAVAILABLE, cli_errors, console, err_console, load_settings

if TYPE_CHECKING:  # the settings tree loads when a command runs, not for its --help
    from motivgraph.settings import Settings

app = typer.Typer(
    help="Manage the embedded FalkorDB server that stores the graph under the data directory.",
    no_args_is_help=True,
)


def _server(settings: Settings, timeout: float | None = None) -> EmbeddedFalkorDB:
    if settings.graph.backend != "falkordb" or settings.graph.falkordb_url:
        where = (
            "Neo4j" if settings.graph.backend != "falkordb" else "the external FalkorDB (MOTIVGRAPH_GRAPH_FALKORDB_URL)"
        )
        err_console.print(f"[yellow]note:[/yellow] the configured graph store is {where}; "
                          "this command manages the embedded server only")
    kw = {"start_timeout_s": timeout} if timeout else {}
    return EmbeddedFalkorDB(settings.data_dir, **kw)


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _print_status(st: ServerStatus, as_json: bool) -> None:
    data = st.as_dict()
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    table = Table(show_header=False, box=None)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("state", "[green]running[/green]" if data["running"] else "[red]stopped[/red]")
    if data["pid"]:
        table.add_row("pid", str(data["pid"]))
    table.add_row("socket", data["socket"])
    table.add_row("data dir", data["data_dir"])
    table.add_row("data size", _size(data["data_bytes"]))
    if data["running"]:
        table.add_row("version", str(data["version"]))
        table.add_row("memory", str(data["used_memory"]))
        table.add_row("uptime", f"{data['uptime_s']} s")
        table.add_row("graphs", ", ".join(data["graphs"]) or "(none)")
    console.print(table)


@app.command("start")
@cli_errors
def start(
    timeout: float = typer.Option(30.0, "--timeout", min=1.0, help="Seconds to wait for the server to answer."),
    as_json: bool = typer.Option(False, "--json", help="Print the status as JSON."),
) -> None:
    """Start the embedded FalkorDB for the data directory, or reuse the one already running."""
    st = _server(load_settings(), timeout).start()
    if not as_json:
        verb = "already running" if st.reused else "started"
        console.print(f"embedded FalkorDB {verb} (pid {st.pid})")
    _print_status(st, as_json)


@app.command("stop")
@cli_errors
def stop(
    timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="Seconds to wait for the server to save and exit."),
) -> None:
    """Save the graph (AOF fsync + RDB snapshot, as SHUTDOWN SAVE does) and stop the embedded FalkorDB."""
    if _server(load_settings()).stop(timeout_s=timeout):
        console.print("embedded FalkorDB stopped (data saved)")
    else:
        console.print("embedded FalkorDB was not running")


@app.command("status")
@cli_errors
def status(as_json: bool = typer.Option(False, "--json", help="Print the status as JSON.")) -> None:
    """Show whether the embedded FalkorDB is running, its pid, socket and data size (exit 4 when stopped)."""
    st = _server(load_settings()).status()
    _print_status(st, as_json)
    if not st.running:
        raise typer.Exit(EXIT_UNAVAILABLE)


@app.command("upgrade")
@cli_errors
def upgrade() -> None:
    """Migrate the data directory to this version's format (FORMAT.json); refuses one written by a newer version.
    (Every command runs the automatic steps too; this one also creates and stamps a missing data dir.)"""
    settings = load_settings()
    version = check_data_dir(settings.data_dir)
    console.print(f"{settings.data_dir} is in format version {version} (current)")
