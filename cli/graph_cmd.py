"""`motivgraph graph export|import|push|stats`: interchange (docs/interchange.md) and counts."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from motivgraph.cli.common import EMPTY_GRAPH_ADVICE
from motivgraph.errors import ConfigError, ImportFormatError
from motivgraph.fsutil import atomic_open
from motivgraph.graph import open_store
from motivgraph.graph.runtime import Runtime
from motivgraph.terminal import EXIT_FAILED, cli_errors, console, err_console, load_settings

if TYPE_CHECKING:  # the settings tree loads when a command runs, not for its --help
    from motivgraph.settings import Settings

app = typer.Typer(help="Export, import, copy and count the graph.", no_args_is_help=True)

MAX_ERRORS_SHOWN = 50


@contextlib.contextmanager
def _progress() -> Iterator[Callable[[str, int, int], None]]:
    """A rich progress bar (on stderr) driven by (phase, done, total) callbacks."""
    with Progress(
        TextColumn("{task.description:>9}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err_console, transient=False, disable=not err_console.is_terminal,
    ) as bar:
        tasks: dict[str, TaskID] = {}

        def tick(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=total)

        yield tick


@app.command("export")
@cli_errors
def export(
    out: str = typer.Argument(..., help="File to write (JSONL), or '-' for standard output."),
) -> None:
    """Write the whole graph (nodes, papers, triples with provenance, parent links) as JSONL."""
    from motivgraph.graph.interchange import export_to  # local: light CLI path

    rt = Runtime(load_settings())
    try:
        if out == "-":
            counts = export_to(rt.store, sys.stdout)
        else:
            path = Path(out)
            path.parent.mkdir(parents=True, exist_ok=True)
            # written beside the target then renamed: an interrupted export never leaves half a file
            with atomic_open(path, "w") as fh, _progress() as tick:
                counts = export_to(rt.store, fh, progress=tick)
        err_console.print(
            f"exported {counts['node']} nodes, {counts['paper']} papers, {counts['triple']} triples, "
            f"{counts['parent']} parent links" + ("" if out == "-" else f" to {out}")
        )
    finally:
        rt.close()


@app.command("import")
@cli_errors
def import_(
    path: Path = typer.Argument(..., help="JSONL file written by `motivgraph graph export`."),
    replace: bool = typer.Option(False, "--replace", help="Delete the current graph first (default: merge into it)."),
    batch_size: int = typer.Option(
        None, "--batch-size", min=1, help="Rows per write (default: MOTIVGRAPH_GRAPH_BATCH_SIZE)."
    ),
) -> None:
    """Import a JSONL export. Bad lines are reported by number and skipped; the rest are imported;
    the exit code is 1 when any line was bad. Safe to re-run after an interruption."""
    from motivgraph.graph.interchange import import_lines  # local: light CLI path

    if not path.is_file():
        raise ConfigError(f"No such file: {path}")
    settings = load_settings()
    rt = Runtime(settings)
    try:
        # bytes: the importer rejects invalid UTF-8 by line number instead of replacing it (keys must not change)
        with open(path, "rb") as fh, _progress() as tick:
            report = import_lines(
                rt.store, fh, batch_size=batch_size or settings.graph.batch_size, replace=replace, progress=tick
            )
    finally:
        rt.close()
    table = Table(title=f"Imported {path.name}")
    table.add_column("lines read")
    for col in ("nodes", "papers", "triples", "parents", "bad lines"):
        table.add_column(col, justify="right")
    table.add_row(
        str(report.lines), str(report.nodes), str(report.papers), str(report.triples), str(report.parents),
        f"[red]{len(report.errors)}[/red]" if report.errors else "0",
    )
    console.print(table)
    for lineno, reason in report.errors[:MAX_ERRORS_SHOWN]:
        err_console.print(f"[red]line {lineno}:[/red] {reason}", highlight=False)
    if len(report.errors) > MAX_ERRORS_SHOWN:
        err_console.print(f"... and {len(report.errors) - MAX_ERRORS_SHOWN} more bad lines")
    err_console.print("The vector index is now stale: run `motivgraph reindex`.")
    if report.errors:
        valid = report.nodes + report.papers + report.triples + report.parents
        err_console.print(
            f"[red]{len(report.errors)} bad line(s) skipped[/red]; the {valid} valid records were imported. "
            "Fix the lines and re-run (import is idempotent)."
        )
        raise typer.Exit(EXIT_FAILED)


def _neo4j_settings(settings: Settings, uri: str, user: str, password: str | None, database: str) -> Settings:
    from pydantic import SecretStr  # local: light CLI path

    neo = settings.neo4j.model_copy(
        update={
            "uri": uri, "user": user, "database": database,
            "password": SecretStr(password) if password is not None else settings.neo4j.password,
        }
    )
    return settings.model_copy(update={"graph": settings.graph.model_copy(update={"backend": "neo4j"}), "neo4j": neo})


@app.command("push")
@cli_errors
def push(
    neo4j_uri: str = typer.Option(..., "--neo4j-uri", help="Bolt URI of the target Neo4j, e.g. bolt://localhost:7687."),
    neo4j_user: str = typer.Option("neo4j", "--neo4j-user", help="Neo4j user."),
    neo4j_password: str = typer.Option(
        None, "--neo4j-password", envvar="MOTIVGRAPH_NEO4J_PASSWORD", show_default=False,
        help="Neo4j password (prefer the MOTIVGRAPH_NEO4J_PASSWORD environment variable).",
    ),
    database: str = typer.Option("neo4j", "--database", help="Neo4j database name."),
    replace: bool = typer.Option(False, "--replace", help="Delete the target graph first (default: merge)."),
    embeddings: bool = typer.Option(True, "--embeddings/--no-embeddings",
                                    help="Also write node embeddings and create the vector + full-text indexes."),
) -> None:
    """Copy the configured (usually embedded) graph into Neo4j through the export/import path; then write node
    embeddings and create the vector indexes and the full-text index (names in graph/neo4j_search.py)."""
    from motivgraph.graph.interchange import copy_graph  # local: light CLI path

    settings = load_settings()
    target_settings = _neo4j_settings(settings, neo4j_uri, neo4j_user, neo4j_password, database)
    rt = Runtime(settings)
    target = None
    indexed = None
    try:
        src = rt.store
        target = open_store(target_settings)
        target.ping()
        target.ensure_schema()
        with _progress() as tick:
            report = copy_graph(src, target, batch_size=settings.graph.batch_size, replace=replace, progress=tick)
        if embeddings and not report.errors:
            from motivgraph.graph.neo4j_search import push_embeddings  # local: light CLI path

            with _progress() as tick:
                indexed = push_embeddings(target, rt.embedder, src.iter_nodes(),
                                          progress=lambda done: tick("embed", done, report.nodes))
    finally:
        if target is not None:
            target.close()
        rt.close()
    if report.errors:
        raise ImportFormatError(
            f"push finished with {len(report.errors)} bad records: {report.errors[:5]}", report.errors
        )
    console.print(
        f"pushed {report.nodes} nodes, {report.papers} papers, {report.triples} triples, {report.parents} parent "
        f"links to {neo4j_uri} (database {database})"
    )
    if indexed is not None:
        console.print(f"embedded {indexed.nodes} nodes; indexes: {', '.join(indexed.indexes)}")


@app.command("stats")
@cli_errors
def stats(as_json: bool = typer.Option(False, "--json", help="Print the counts as JSON.")) -> None:
    """Count nodes per label, relationships per type and triples; show the vector index state."""
    from motivgraph.graph.paper_index import PaperIndex  # local: light CLI path
    from motivgraph.graph.search_backends import node_index_status  # local: light CLI path

    settings = load_settings()
    rt = Runtime(settings)
    try:
        st = rt.store.stats()
        node_idx = node_index_status(settings, rt.store)  # the configured index backend, as reindex --check reads it
        paper_idx = PaperIndex.peek(settings, rt.store)
    finally:
        rt.close()
    data = {
        **st.model_dump(),
        "backend": rt.store.backend,
        "index": {"nodes": node_idx.state, "papers": paper_idx.state},
        "index_backend": settings.index.backend,  # where the node index state above was read
    }
    if as_json:
        typer.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    table = Table(title=f"Graph ({rt.store.backend})")
    table.add_column("what")
    table.add_column("count", justify="right")
    for label, n in sorted(st.nodes.items()):
        table.add_row(f"nodes: {label}", str(n))
    for rel, n in sorted(st.relationships.items()):
        table.add_row(f"relationships: {rel}", str(n))
    table.add_row("triples (P→C→S paths)", str(st.triples), end_section=True)
    table.add_row("node version", str(st.node_version))
    table.add_row(f"node index ({settings.index.backend})", node_idx.state)
    table.add_row("paper index", paper_idx.state)
    console.print(table)
    if not st.searchable_nodes:
        err_console.print(f"[yellow]{EMPTY_GRAPH_ADVICE}[/yellow]", highlight=False)  # not `reindex`: nothing to index
        return
    for s in (node_idx, paper_idx):
        if s.state != "ok":
            err_console.print(f"[yellow]{s.message}[/yellow]")
