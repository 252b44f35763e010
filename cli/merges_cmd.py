"""`motivgraph merges list|undo`: review identity decisions from the decision log and reverse one
(`miner.merges`, `miner.merge_undo.undo_merge`)."""

from __future__ import annotations

import json

import typer
from rich.markup import escape
from rich.table import Table

from motivgraph.cli.reextract_cmd import finish, note, render_report, run_job
from motivgraph.terminal import cli_errors, console, load_settings

app = typer.Typer(help="Review merge decisions (a mention joined an existing node) and undo one.",
                  no_args_is_help=True)


@app.command("list")
@cli_errors
def list_cmd(
    paper: str = typer.Option(None, "--paper", metavar="ID", help="Only decisions taken for this paper id."),
    node: str = typer.Option(None, "--node", metavar="KEY", help="Only merges into (or of) this node key."),
    include_exact: bool = typer.Option(False, "--all", help="Also list exact matches (same normalised name)."),
    limit: int = typer.Option(50, "--limit", min=1, help="Show at most N decisions (newest first)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Merge decisions, newest first, with their scores and reasons.

    Example: `motivgraph merges list --node "problem:low resource machine translation"`
    """
    from motivgraph.miner.decisions import DecisionLog  # local: light CLI path
    from motivgraph.miner.merges import list_merges  # local: light CLI path

    settings = load_settings()
    log = DecisionLog.for_data_dir(settings.data_dir)
    try:
        rows = list_merges(log, paper_id=paper, key=node, include_exact=include_exact, limit=limit)
    finally:
        log.close()
    if json_out:
        print(json.dumps([r.as_dict() for r in rows], indent=2))
        return
    if not rows:
        console.print("no merge decisions" + (" (try --all for exact matches)" if not include_exact else ""))
        return
    t = Table(title="merge decisions (undo with `motivgraph merges undo ID`)")
    for col in ("id", "decision", "mention", "merged into", "score", "paper", "reason"):
        t.add_column(col, overflow="fold")
    for r in rows:
        decision = r.decision + (" (undone)" if r.undone else "")
        score = f"{r.score:.3f}" if r.score is not None else ""
        t.add_row(str(r.id), decision, escape(r.mention_name), escape(r.final_key), score, escape(r.paper_id or ""),
                  escape(r.reason[:120]))
    console.print(t)


@app.command("undo")
@cli_errors
def undo_cmd(
    decision_id: int = typer.Argument(..., metavar="DECISION_ID", help="The id `merges list` shows."),
    json_out: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Reverse one merge: the mention becomes its own node again (edges and provenance restored from
    the decision log and the stored extraction), and later runs keep it apart. Example: `motivgraph merges undo 42`
    """
    from motivgraph.miner.merge_undo import undo_merge  # local: light CLI path

    settings = load_settings()
    report = run_job(settings, undo_merge(settings, decision_id, note=None if json_out else note))
    render_report(report, json_out)
    finish(report)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="merges")
