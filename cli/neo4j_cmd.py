"""`motivgraph neo4j start|stop|status`: a real Neo4j 5.26 Community server on loopback, without Docker.

Its artefacts come from Maven Central through Maven (graph/neo4j_pom/pom.xml), resolved once; it needs a
Java 17 or 21. The Bolt port is the one in MOTIVGRAPH_NEO4J_URI (7687 when unset), the password is
MOTIVGRAPH_NEO4J_PASSWORD (set at the server's first start), the home folder MOTIVGRAPH_NEO4J_SERVER_HOME
(default <data_dir>/neo4j-server).

Exit codes: 0 done (start: running; stop: stopped or was not running; status: running), 3 invalid
settings (no password, no Java 17/21, no Maven), 4 the server is not running or could not be started.
"""

from __future__ import annotations

import json

import typer
from rich.table import Table

from motivgraph.graph.neo4j_server import Neo4jServer, Neo4jStatus, from_settings
from motivgraph.terminal import EXIT_UNAVAILABLE, cli_errors, console, load_settings

app = typer.Typer(
    help="Run a local Neo4j 5.26 Community server (Bolt + Browser on loopback) from Maven Central, without Docker.",
    no_args_is_help=True,
)


def _server() -> Neo4jServer:
    return from_settings(load_settings())


def _mb(n: int | None) -> str:
    return "-" if n is None else f"{n / 2**20:.0f} MB"


def _print(st: Neo4jStatus, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(st.as_dict(), indent=2))
        return
    table = Table(show_header=False, box=None)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("state", "[green]running[/green]" if st.running else "[red]stopped[/red]")
    for label, value in (("pid", st.pid), ("version", st.version and f"{st.version} {st.edition}"),
                         ("bolt", st.bolt_uri), ("browser", st.browser_url), ("home", st.home),
                         ("memory (RSS)", st.rss_bytes and _mb(st.rss_bytes)), ("data size", _mb(st.data_bytes)),
                         ("uptime", st.uptime_s is not None and f"{st.uptime_s} s"),
                         ("started in", st.started_in_s is not None and f"{st.started_in_s} s"), ("note", st.note)):
        if value:
            table.add_row(label, str(value))
    console.print(table)


@app.command("fetch")
@cli_errors
def fetch() -> None:
    """Resolve the server's pinned artefacts from Maven Central into Maven's local repository (once; `start`
    does it too). Needs Maven; afterwards starts need no network.
    """
    server = _server()
    jars = server.classpath().split(":")
    console.print(f"Neo4j server artefacts ready: {len(jars)} jars (classpath in {server.home / 'classpath.txt'})")


@app.command("start")
@cli_errors
def start(
    timeout: float = typer.Option(180.0, "--timeout", min=1.0, help="Seconds to wait until Bolt answers."),
    as_json: bool = typer.Option(False, "--json", help="Print the status as JSON."),
) -> None:
    """Start the local Neo4j (or reuse the one running in its home) and wait until Bolt answers a login."""
    server = _server()
    st = server.start(timeout=timeout)
    if not as_json:
        verb = "already running" if st.reused else "started"
        console.print(f"Neo4j {verb} (pid {st.pid}); use it with MOTIVGRAPH_GRAPH_BACKEND=neo4j "
                      f"MOTIVGRAPH_NEO4J_URI={st.bolt_uri}")
    _print(st, as_json)


@app.command("stop")
@cli_errors
def stop(
    timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="Seconds to wait for a clean shutdown."),
) -> None:
    """Stop the local Neo4j cleanly (SIGTERM; killed after --timeout)."""
    console.print("Neo4j stopped" if _server().stop(timeout=timeout) else "Neo4j was not running")


@app.command("status")
@cli_errors
def status(as_json: bool = typer.Option(False, "--json", help="Print the status as JSON.")) -> None:
    """Show whether the local Neo4j answers on Bolt, its pid, version, memory and data size (exit 4 when not)."""
    st = _server().status()
    _print(st, as_json)
    if not st.running:
        raise typer.Exit(EXIT_UNAVAILABLE)
