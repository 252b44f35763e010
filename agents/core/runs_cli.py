"""`motivgraph runs list|show`: the runs of every ideation method (and evaluation) under the runs directory,
contributed with GET /runs by the "runs" line of the "commands" parts (motivgraph/plugins.py).

The layout is `agents.core.rundir`'s; the report is `agents.core.report`'s (the same renderer as
summary.md and GET /runs/{id}).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from motivgraph.terminal import cli_errors, console, load_settings

app = typer.Typer(help="List ideation runs of every method and show one run's report.", no_args_is_help=True)

_OUT_HELP = "Runs directory (default <data_dir>/runs; the --out given to `ideate`)."


def _runs_dir(out: Path | None) -> Path:
    return out if out is not None else load_settings().runs_dir


@app.command("list")
@cli_errors
def list_cmd(
    method: str = typer.Option(None, "--method", help="Only runs of this method."),
    status: str = typer.Option(None, "--status", help="Only runs in this state (completed, failed, stopped, ...)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON rows instead of a table."),
    out: Path = typer.Option(None, "--out", help=_OUT_HELP),
) -> None:
    """Every run, newest first: id, method, status, ideas accepted, cost, topic."""
    from motivgraph.agents.core.report import list_rows  # local: light CLI path

    runs_dir = _runs_dir(out)
    rows = list_rows(runs_dir, method=method, status=status)
    if as_json:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        console.print(f"no runs under {runs_dir} — start one with: motivgraph ideate \"TOPIC\" --method soiq",
                      highlight=False)
        return
    t = Table(title=f"runs ({runs_dir})")
    for col in ("id", "method", "status", "accepted", "cost USD", "started", "topic"):
        t.add_column(col, overflow="fold", justify="right" if col in ("accepted", "cost USD") else "left")
    for r in rows:
        state = str(r["status"]) + (" (process gone)" if r.get("orphaned") else "")
        t.add_row(escape(r["id"]), escape(str(r["method"])), escape(state), str(r["ideas_accepted"]),
                  f"{float(r['cost_usd'] or 0):.4f}", escape(str(r["created_at"] or ""))[:19],
                  escape(str(r["topic"] or "")))
    console.print(t)
    resumable = [r for r in rows if r.get("resume")]
    if resumable:
        console.print(f"{len(resumable)} run(s) can be continued, e.g.: {escape(str(resumable[0]['resume']))}",
                      highlight=False)


@app.command("show")
@cli_errors
def show_cmd(
    run_id: str = typer.Argument(..., help="The run id (see `motivgraph runs list`)."),
    summary: bool = typer.Option(False, "--summary", help="Print the full report (summary.md) as markdown."),
    as_json: bool = typer.Option(False, "--json", help="Print status, ideas and the reproducibility record as JSON."),
    out: Path = typer.Option(None, "--out", help=_OUT_HELP),
) -> None:
    """One run: status, cost, ideas with their grounding, and where its files are; --summary prints the full report."""
    from motivgraph.agents.core.report import load_view, render_summary, run_row  # local: light CLI path
    from motivgraph.agents.core.rundir import RunDir  # local: light CLI path

    run = RunDir.open(_runs_dir(out), run_id)
    view = load_view(run)
    if as_json:
        st = {k: v for k, v in view.status.items() if k != "pid"}
        typer.echo(json.dumps({"status": st, "ideas": [i.model_dump(mode="json") for i in view.ideas],
                               "repro": view.repro, "path": str(run.path)}, indent=2, ensure_ascii=False))
        return
    if summary:
        typer.echo(render_summary(view))
        return
    r = run_row(run)
    console.print(f"[bold]{escape(r['id'])}[/bold] ({escape(str(r['method']))}) — {escape(str(r['status']))}"
                  + (f": {escape(str(r['error']))}" if r.get("error") else ""), highlight=False)
    if r.get("reason") and r.get("reason") != r.get("error"):
        console.print(f"reason: {escape(str(r['reason']))}", highlight=False)
    if r.get("resume"):
        console.print(f"resume with: {escape(str(r['resume']))}", highlight=False)
    console.print(f"topic: {escape(str(r['topic'] or ''))}", highlight=False)
    console.print(f"LLM calls {r['llm_calls']}, cost ${float(r['cost_usd'] or 0):.4f}; started {r['created_at']}",
                  highlight=False)
    for n, idea in enumerate(view.ideas, 1):
        g = idea.grounding
        flag = " [red](flagged)[/red]" if g.flagged else ""
        console.print(f"{n}. [bold]{escape(idea.title)}[/bold] — {idea.status}; links {g.links_resolved}/"
                      f"{len(g.links)}, citations {g.citations_resolved}/{len(g.citations)}{flag}", highlight=False)
    console.print(f"files: {run.path} (summary.md, ideas.json, transcript.jsonl, repro.json)\n"
                  f"full report: motivgraph runs show {run.id} --summary; HTML: GET /runs/{run.id} on "
                  "`motivgraph serve`", highlight=False)
