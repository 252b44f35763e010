"""`motivgraph ingest --re-extract` (also `ingest re-extract`) and the report every re-processing
command prints (`papers delete`, `merges undo` share it). The work is `miner.reprocess` and its jobs
(`miner.reextract`, `miner.paper_delete`, `miner.merge_undo`); this only renders."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from motivgraph.errors import BudgetExceeded, ExtractionGateStop, IngestInterrupted, MotivGraphError
from motivgraph.terminal import (
    EXIT_FAILED,
    EXIT_GATE,
    EXIT_STOPPED,
    EXIT_UNAVAILABLE,
    cli_errors,
    console,
    err_console,
    load_settings,
)


def note(msg: str) -> None:
    err_console.print(escape(msg), highlight=False)


def render_report(report: Any, json_out: bool) -> None:
    """The outcome of a re-processing command: what went out, what came back, the miner report."""
    if json_out:
        print(json.dumps(report.as_dict(), indent=2, default=str))
        return
    if report.banner:
        err_console.print(f"[bold]{escape(report.banner)}[/bold]", highlight=False)
    t = Table(title=f"re-processing ({report.kind})", show_header=False)
    rows: list[tuple[str, Any]] = [
        ("finished an interrupted job first", "yes" if report.resumed else "no"),
        ("papers re-extracted", len(report.reextracted)),
        ("papers replayed (shared nodes, stored later)", len(report.replayed)),
        ("papers deleted", len(report.deleted)),
        ("papers failed", len(report.failed)),
        ("papers skipped", len(report.skipped)),
        ("nodes removed (no source left)", report.nodes_removed),
        ("vectors removed from the node index", report.vectors_removed),
        ("aliases removed", report.aliases_removed),
        ("triples before / after", f"{report.triples_before} / {report.triples_after}"),
    ]
    for k, v in rows:
        t.add_row(k, str(v))
    console.print(t)
    if report.miner_rows:
        m = Table(title="miner report", show_header=False)
        for k, v in report.miner_rows:
            m.add_row(k, escape(str(v)))
        console.print(m)
    for pid, why in report.skipped:
        err_console.print(f"[yellow]skipped[/yellow] {escape(pid)}: {escape(why)}", highlight=False)
    for pid, why in report.failed.items():
        err_console.print(f"[red]failed[/red] {escape(pid)}: {escape(why)}", highlight=False)
    if report.derived is not None:
        for msg in report.derived.done:
            console.print(escape(msg), highlight=False)
        for msg in report.derived.problems:
            err_console.print(f"[yellow]{escape(msg)}[/yellow]", highlight=False)


def run_job(settings: Any, coro: Any) -> Any:
    """Run a re-processing coroutine; when it stops on an error, say that the job is kept and how to finish it.
    A lasting outage (the store or LLM stayed down through every reconnect) exits 4, as `ingest` does."""
    from motivgraph.miner.reprocess import pending_job  # local: off the CLI's start-up path (heavy)

    def kept() -> None:
        job = pending_job(settings)
        if job is not None:
            err_console.print(f"the interrupted job ({escape(job.describe())}, {len(job.done)} of {len(job.order)} "
                              "papers back in) is kept: re-run the same command to finish it", highlight=False)

    try:
        return asyncio.run(coro)
    except ExtractionGateStop as e:  # the new extractor's quotes are not in the papers (#39)
        err_console.print(f"[red]stopped:[/red] {escape(str(e))}", highlight=False)
        err_console.print("(for a re-extraction, MOTIVGRAPH_MINER_ACCEPT_UNVERIFIED=1 accepts unverified triples)")
        kept()
        raise typer.Exit(EXIT_GATE) from None
    except BudgetExceeded as e:
        err_console.print(f"[yellow]stopped:[/yellow] {escape(str(e))}", highlight=False)
        err_console.print("re-run the same command to resume")
        raise typer.Exit(EXIT_STOPPED) from None
    except IngestInterrupted as e:
        err_console.print(f"[red]stopped:[/red] {escape(str(e))}", highlight=False)
        kept()
        raise typer.Exit(EXIT_UNAVAILABLE) from None
    except (MotivGraphError, KeyboardInterrupt):
        kept()
        raise


def finish(report: Any) -> None:
    if report.failed:
        err_console.print("re-run with `motivgraph ingest --re-extract` or see `motivgraph ingest report`")
        raise typer.Exit(EXIT_FAILED)


@cli_errors
def reextract_cmd(
    only_extractor: str = typer.Option(
        None, "--only-extractor", metavar="NAME",
        help="Only the papers whose triples this extractor produced: heuristic or llm.",
    ),
    paper: list[str] = typer.Option(None, "--paper", metavar="ID", help="Only this paper (repeatable)."),
    budget_usd: float = typer.Option(
        None, "--budget-usd", min=0, help="Stop cleanly (resumable) when the estimated LLM spend reaches this (USD).",
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Re-run the miner with the current extractor on stored papers, replacing their triples.

    Uses the parsed-document cache (no PDF is parsed again). Resumable: after an interruption run the
    same command again. Example: after setting MOTIVGRAPH_LLM_MODEL, upgrade the offline triples with
    `motivgraph ingest --re-extract --only-extractor heuristic`.
    """
    from motivgraph.miner.extractor_choice import decide_extractor  # local: off the CLI's start-up path (heavy)
    from motivgraph.miner.reextract import reextract  # local: as above

    settings = load_settings()
    mode, client = decide_extractor(settings, budget_usd=budget_usd)
    report = run_job(settings, reextract(settings, only_extractor=only_extractor, paper_ids=paper or None,
                                         client=client, mode=mode, note=None if json_out else note))
    render_report(report, json_out)
    if not json_out and not (report.reextracted or report.failed or report.resumed):
        console.print("nothing to re-extract" + (f" (no papers from the {only_extractor} extractor)"
                                                 if only_extractor else ""))
    finish(report)
