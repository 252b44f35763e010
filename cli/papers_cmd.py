"""`motivgraph papers list|show|delete`: the papers in the graph, one paper's fields and where each came
from, and deleting one with everything it contributed (`miner.paper_delete.delete_papers`)."""

from __future__ import annotations

import json
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from motivgraph.cli.common import is_tty
from motivgraph.cli.reextract_cmd import finish, note, render_report, run_job
from motivgraph.terminal import EXIT_FAILED, cli_errors, console, load_settings

app = typer.Typer(help="Papers in the graph: list them, show one, delete one with its triples.", no_args_is_help=True)


@app.command("list")
@cli_errors
def list_cmd(
    limit: int = typer.Option(None, "--limit", min=1, help="Show at most N papers."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Paper ids (as `papers delete` takes them), titles, triples and the extractor that made them.

    Example: `motivgraph papers list --limit 20`
    """
    from motivgraph.graph import open_store  # local: light CLI path

    settings = load_settings()
    store = open_store(settings)
    try:
        rows: list[dict[str, Any]] = []
        for p in store.iter_papers():
            triples = store.paper_triples(p.paper_id)
            rows.append({"paper_id": p.paper_id, "title": p.title, "year": p.year, "triples": len(triples),
                         "extractor": triples[0].extractor if triples else None, "source_path": p.source_path})
            if limit is not None and len(rows) >= limit:
                break
    finally:
        store.close()
    if json_out:
        print(json.dumps(rows, indent=2))
        return
    t = Table(title=f"papers ({len(rows)})")
    for col in ("paper id", "title", "year", "triples", "extractor"):
        t.add_column(col, overflow="fold")
    for r in rows:
        t.add_row(escape(r["paper_id"]), escape(r["title"][:80]), str(r["year"] or ""), str(r["triples"]),
                  r["extractor"] or "–")
    console.print(t)


@app.command("show")
@cli_errors
def show_cmd(
    ident: str = typer.Argument(..., metavar="ID", help="A paper id as `papers list` shows it, or a bare DOI, arXiv "
                                "id or file sha256 (prefix of 8+ characters)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """One paper's metadata, its triple count, and where each field came from when several documents (a PDF
    and a JSON record of it) were merged into it.

    Example: `motivgraph papers show 10.1145/3292500.3330919 --json`
    """
    from motivgraph.graph import open_store  # local: light CLI path
    from motivgraph.ingest.identity import resolve_paper_id  # local: light CLI path

    settings = load_settings()
    store = open_store(settings)
    try:
        paper = store.get_paper(resolve_paper_id(store, ident))
        assert paper is not None  # resolve_paper_id names only stored papers
        row: dict[str, Any] = {**paper.model_dump(mode="json"), "triples": len(store.paper_triples(paper.paper_id))}
    finally:
        store.close()
    if json_out:
        print(json.dumps(row, indent=2, ensure_ascii=False))
        return
    t = Table(title=escape(paper.paper_id), show_header=True)
    for col in ("field", "value", "from"):
        t.add_column(col, overflow="fold")
    for name in ("title", "authors", "year", "venue", "abstract", "source_path", "sha256", "triples"):
        value = row.get(name)
        text = ", ".join(value) if isinstance(value, list) else ("" if value is None else str(value))
        t.add_row(name, escape(text[:300]), escape(paper.provenance.get(name, "")))
    console.print(t)


@app.command("delete")
@cli_errors
def delete_cmd(
    ids: list[str] = typer.Argument(..., metavar="ID...",
                                    help="Paper ids as `papers list` shows them (doi:…, arxiv:…, sha256:…), "
                                    "or a bare DOI, arXiv id or file sha256 (prefix of 8+ characters)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    json_out: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Delete papers with their triples, provenance, the nodes only they stated and those nodes' vectors.

    Papers stored later that shared nodes with them are resolved again, so the graph equals a fresh
    ingest without the deleted papers. Resumable. Example: `motivgraph papers delete 10.1145/3292500.3330919 --yes`
    """
    from motivgraph.miner.paper_delete import delete_papers  # local: light CLI path

    if not yes:
        if not is_tty():
            console.print("papers delete changes the graph for good; pass --yes to confirm")
            raise typer.Exit(EXIT_FAILED)
        typer.confirm(f"Delete {', '.join(ids)} and everything it contributed?", abort=True)
    settings = load_settings()
    report = run_job(settings, delete_papers(settings, ids, note=None if json_out else note))
    render_report(report, json_out)
    finish(report)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="papers")
