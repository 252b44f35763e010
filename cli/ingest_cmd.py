"""`motivgraph parse FILE.pdf` and `motivgraph ingest PATH... | status | report`.

`ingest` is a group whose default command is `run`: `motivgraph ingest papers/` is
`motivgraph ingest run papers/`; `status` and `report` are its other commands (a file literally
named `status` is ingested with `motivgraph ingest run status`).
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from motivgraph.choices import Engine, ParserName
from motivgraph.cli.common import announce_data_dir
from motivgraph.cli.ingest_support import check_inputs, run_json
from motivgraph.cli.reextract_cmd import reextract_cmd
from motivgraph.errors import ConfigError, ExtractionGateStop, IngestInterrupted, ParseError
from motivgraph.fsutil import printable
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

if TYPE_CHECKING:
    from typer._click import Context  # typer vendors click: its groups are handed this Context

    from motivgraph.ingest.summary import DocOutcome, IngestSummary


class _DefaultRunGroup(TyperGroup):
    """Route `ingest PATH...` to `ingest run PATH...` unless the first word is a subcommand."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if "--re-extract" in args and (not args or args[0] not in self.commands):
            # `ingest --re-extract [...]` is the `ingest re-extract` command (it takes no paths)
            args = ["re-extract", *[a for a in args if a != "--re-extract"]]
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


    def format_help(self, ctx: Any, formatter: Any) -> None:
        """`ingest --help` shows the group, then the options of `ingest run` (what `ingest PATH...` runs)."""
        super().format_help(ctx, formatter)
        run = self.commands.get("run")
        if run is not None:
            run.format_help(run.context_class(run, info_name="run", parent=ctx), formatter)


app = typer.Typer(
    cls=_DefaultRunGroup,
    help="Ingest PDFs into the graph (default: run). Also: `ingest status`, `ingest report`, "
         "`ingest --re-extract`.",
    no_args_is_help=True,
)


@app.callback()
def _ingest_options(
    re_extract: bool = typer.Option(
        False, "--re-extract",
        help="Re-mine the stored papers with the extractor set now, replacing their triples (no paths): the same "
             "as `ingest re-extract`, which takes --only-extractor, --paper, --budget-usd and --json."),
) -> None:
    """Listed on `ingest --help`; `ingest --re-extract ...` is routed to `ingest re-extract ...` before this runs."""
    del re_extract

_PARSER_HELP = "Parser: auto (GROBID when configured and alive, else offline), grobid, or pdf (offline)."


class _RateColumn(ProgressColumn):
    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.2f} files/s" if speed else "– files/s", style="cyan")


class _RichProgress:
    def __init__(self) -> None:
        self.progress = Progress(
            TextColumn("[bold]ingest[/bold]"),
            BarColumn(),
            MofNCompleteColumn(),
            _RateColumn(),
            TextColumn("[green]ok {task.fields[ok]}[/green] [red]failed {task.fields[failed]}[/red]"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=err_console,
            transient=False,
        )
        self.task: Any = None
        self.ok = self.failed = 0

    def start(self, total: int, parser: str) -> None:
        err_console.print(f"parser: [bold]{parser}[/bold]")
        self.progress.start()
        self.task = self.progress.add_task("ingest", total=total, ok=0, failed=0)

    def advance(self, outcome: DocOutcome) -> None:
        if outcome.state == "failed":
            self.failed += 1
            name = Path(outcome.path).name
            self.progress.console.print(f"[red]failed[/red] {escape(printable(name))}: "
                                        f"{escape(printable(outcome.error or ''))}", highlight=False)
        else:
            self.ok += 1
        self.progress.update(self.task, advance=1, ok=self.ok, failed=self.failed)

    def stop(self) -> None:
        self.progress.stop()


# What the summary calls each input kind's files (ingest.plan.input_kinds; another kind shows its name).
_KIND_FILES = {"pdf": "PDF", "paper_json": "paper JSON"}


def _input_kind_names() -> list[str]:
    from motivgraph.ingest.plan import input_kinds  # local: off the CLI's start-up path (heavy)

    return list(dict.fromkeys(k.name for k in input_kinds().values()))


def _found_rows(s: IngestSummary) -> list[tuple[str, Any]]:
    """One 'found' row per input kind present (PDF files; paper JSON files with their records), so a
    paper-JSON ingest is not reported as PDFs; 'input files found 0' when the walk found nothing."""
    if not s.found_by_kind:
        return [("input files found", s.found)]
    rows: list[tuple[str, Any]] = []
    for kind, files in s.found_by_kind.items():
        docs = s.documents_by_kind.get(kind, 0)
        value = f"{files}" if kind == "pdf" else f"{files} ({docs} record{'s' if docs != 1 else ''})"
        rows.append((f"{_KIND_FILES.get(kind, kind)} files found", value))
    return rows


_COPIES_SHOWN = 20  # a folder of many copies names the first ones; the count is in the summary table


def _summary_table(s: IngestSummary) -> Table:
    t = Table(title="ingest summary" + (" (dry run)" if s.dry_run else ""), show_header=False)
    t.add_column("what")
    t.add_column("value", justify="right")
    rows: list[tuple[str, Any]] = [("parser", s.parser or "–"), *_found_rows(s),
        (f"other files skipped (not {' or '.join(_KIND_FILES.get(k, k) for k in _input_kind_names())})",
         s.non_pdf_skipped),
        ("special files, dangling links, link loops skipped", len(s.skipped)),
        ("duplicates (same file sha256 / record id)", s.duplicates),
        ("already stored (skipped)", s.already_done),
        ("failed earlier (skipped; --retry-failed)", s.skipped_failed),
        ("to process" if s.dry_run else "processed", s.to_process if s.dry_run else s.processed),
    ]
    if not s.dry_run:
        rate = s.processed / s.elapsed_s if s.elapsed_s else 0.0
        rows += [
            ("ok", s.ok),
            ("failed", s.failed),
            ("parsed now / from cache", f"{s.parsed} / {s.from_cache}"),
            ("transient pauses (reconnected)", s.transient_pauses),
            ("same paper as one stored under another id (joined it)", s.same_paper),
            ("probable duplicates with conflicting ids (not merged; ingest report)", len(s.probable_duplicates)),
            ("elapsed", f"{s.elapsed_s:.1f}s ({rate:.2f} files/s)"),
        ]
        rows += [(note, f"{n} papers") for note, n in s.notes.items()]
    rows.append(("ledger", ", ".join(f"{k} {v}" for k, v in s.states.items() if v) or "empty"))
    for k, v in rows:
        t.add_row(k, str(v))
    return t


@app.command("run")
@cli_errors
def run_cmd(
    paths: list[str] = typer.Argument(..., help="PDF files, folders (searched recursively) or glob patterns."),
    parser: ParserName | None = typer.Option(None, "--parser", help=_PARSER_HELP),
    concurrency: int = typer.Option(None, "--concurrency", min=1, max=256, help="Documents processed in parallel."),
    limit: int = typer.Option(None, "--limit", min=0, help="Process at most N documents that still need work."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Walk, hash and report what would be done; write nothing."),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Process documents that failed before again."),
    budget_usd: float = typer.Option(
        None, "--budget-usd", min=0, help="Stop cleanly (resumable) when the estimated LLM spend reaches this (USD)."
    ),
    extract: bool = typer.Option(
        True, "--extract/--no-extract",
        help="Extract motivation triples (the LLM miner, or the offline extractor when no LLM is set); "
        "--no-extract stores Paper nodes only.",
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the outcome as JSON on stdout (progress stays on "
                                  "stderr)."),
    engine: Engine = typer.Option(
        "local", "--engine",
        help="Where parsing and extraction run: local (this process and its workers) or ray (Ray tasks on a "
        "local Ray started for the command, or on --ray-address; needs `pip install 'motivgraph[ray]'`).",
    ),
    ray_address: str = typer.Option(
        None, "--ray-address",
        help="With --engine ray: an existing Ray cluster ('auto', 'host:6379', 'ray://host:10001'; default "
        "MOTIVGRAPH_RAY_ADDRESS, else a local Ray).",
    ),
    accept_unverified: bool = typer.Option(
        False, "--accept-unverified",
        help="Go on past a failed extraction gate: store the triples whose quotes are not found in the papers, "
        "marked unverified (MOTIVGRAPH_MINER_ACCEPT_UNVERIFIED). Without it, an extractor whose quotes are mostly "
        "not in the papers stops the ingest (exit 6).",
    ),
) -> None:
    """Parse PDFs, extract motivation triples and store them in the graph; resumable (re-run the same command)."""
    from motivgraph.miner.ingest_job import (  # local: off the CLI's start-up path (heavy)
        IngestRequest,
        run_ingest_command,
    )

    check_inputs(paths)  # a typo or an empty glob is an error before anything starts
    settings = load_settings()
    if accept_unverified:
        settings.miner.accept_unverified = True
    _check_engine(engine, ray_address, settings, dry_run)
    if not dry_run:
        announce_data_dir(settings)
    req = IngestRequest(paths=paths, parser=parser, concurrency=concurrency, limit=limit, dry_run=dry_run,
                        retry_failed=retry_failed, extract=extract, budget_usd=budget_usd, engine=engine)
    prog = None if dry_run else _RichProgress()

    def on_start(run: Any) -> None:
        if run.engine:
            err_console.print(run.engine, highlight=False)
        if run.banner:
            style = "bold" if run.extractor == "llm" else "bold yellow"
            err_console.print(f"[{style}]{run.banner}[/{style}]", highlight=False)

    def note(msg: str) -> None:
        (prog.progress.console if prog is not None and prog.task is not None else err_console).print(
            f"[yellow]{msg}[/yellow]", highlight=False)

    try:
        run = asyncio.run(run_ingest_command(req, settings, progress=prog, note=note, on_start=on_start))
    finally:
        if prog is not None and prog.task is not None:
            prog.stop()
    if json_out:
        typer.echo(json.dumps(run_json(run), indent=2, ensure_ascii=False, default=str))
    else:
        _render_run(run)
    if isinstance(run.stopped, ExtractionGateStop) or run.extraction_failed:
        err_console.print(f"[red]stopped:[/red] {run.stopped or run.extraction_failed}", highlight=False)
        raise typer.Exit(EXIT_GATE)
    if run.stopped is not None:
        if isinstance(run.stopped, IngestInterrupted):
            err_console.print(f"[red]stopped:[/red] {run.stopped}", highlight=False)
            raise typer.Exit(EXIT_UNAVAILABLE)
        err_console.print(f"[yellow]stopped:[/yellow] {run.stopped}", highlight=False)
        err_console.print("re-run the same command to resume")
        raise typer.Exit(EXIT_STOPPED)
    # the exit code says whether anything is outstanding: a re-run that skipped documents failed earlier has
    # not ingested them either (`ingest report` names them; --retry-failed tries them again)
    if run.summary.failed or (not run.summary.dry_run and run.summary.states.get("failed", 0)):
        still = run.summary.states.get("failed", run.summary.failed)
        err_console.print(f"{still} document(s) failed and not ingested: [bold]motivgraph ingest report[/bold] "
                          "names them; fix them and re-run with --retry-failed")
        raise typer.Exit(EXIT_FAILED)


def _check_engine(engine: Engine, ray_address: str | None, settings: Any, dry_run: bool) -> None:
    """`--engine ray` is checked before anything starts: Ray installed, the cluster address well formed and
    answering (a ConfigError / BackendUnavailable naming the fix, not a hang or a traceback mid-run)."""
    from motivgraph.ray_cluster import check_reachable, import_ray  # local: only `--engine ray` needs it

    if ray_address is not None:
        if engine != "ray":
            raise ConfigError("--ray-address needs --engine ray")
        settings.ray.address = ray_address
    if engine == "ray" and not dry_run:  # a dry run plans on the driver alone: it needs no cluster
        if settings.ray.address:
            check_reachable(settings.ray.address)
        import_ray()


def _render_run(run: Any) -> None:
    """The command's output: dry-run estimate or miner report, derived indexes, skipped inputs, summary."""
    from motivgraph.miner.extractor_choice import OFFLINE_NOTICE  # local: off the CLI's start-up path (heavy)

    s = run.summary
    if s.dry_run and run.extractor == "heuristic":
        err_console.print(f"[yellow]{OFFLINE_NOTICE}[/yellow]", highlight=False)
        console.print("dry run: the offline extractor makes no LLM calls (cost $0)")
    if run.estimate is not None:
        est = run.estimate
        t = Table(title=f"extraction estimate (dry run, {est.model})", show_header=False)
        for k, v in (
            ("papers to extract", est.papers), ("LLM calls needed", est.papers_needing_llm),
            ("already answered (cache)", est.cached_calls), ("unparseable", est.unparsed),
            ("input tokens", est.input_tokens), ("output tokens (estimate)", est.output_tokens),
            ("estimated cost", f"${est.cost_usd:.4f} (+10-30% for re-asks and resolver calls)"),
        ):
            t.add_row(k, str(v))
        console.print(t)
    if run.miner_rows:
        t = Table(title="miner report", show_header=False)
        for k, v in run.miner_rows:
            t.add_row(k, v)
        console.print(t)
        if run.extractor != "llm":
            console.print("[yellow]Triples came from the offline heuristic extractor.[/yellow] For full "
                          "SciMotivMiner quality set MOTIVGRAPH_LLM_MODEL and re-run.")
    if run.derived is not None:
        for msg in run.derived.done:
            console.print(msg, highlight=False)
        for msg in run.derived.problems:
            err_console.print(f"[yellow]{msg}[/yellow]", highlight=False)
    if run.stopped is not None and not s.dry_run and not s.processed:
        return  # stopped before the summary existed
    for m in s.missing:
        err_console.print(f"[yellow]not found:[/yellow] {escape(printable(m))}", highlight=False)
    for path, why in s.skipped:
        err_console.print(f"[yellow]skipped:[/yellow] {escape(printable(path))} ({escape(printable(why))})",
                          highlight=False)
    for copy, first in s.copies[:_COPIES_SHOWN]:
        err_console.print(f"duplicate: {escape(printable(copy))} is the same document as {escape(printable(first))} "
                          "(not processed again)", highlight=False)
    if len(s.copies) > _COPIES_SHOWN:
        err_console.print(f"… and {len(s.copies) - _COPIES_SHOWN} more duplicates", highlight=False)
    console.print(_summary_table(s))


@app.command("status")
@cli_errors
def status_cmd(json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """Documents per ledger state (queued, parsed, extracted, stored, failed)."""
    from motivgraph.ingest.ledger import Ledger  # local: off the CLI's start-up path (heavy)

    settings = load_settings()
    ledger = Ledger.for_data_dir(settings.data_dir)
    try:
        counts = ledger.counts()
        dups = len(ledger.duplicates())
    finally:
        ledger.close()
    if json_out:
        console.print_json(json.dumps({"states": counts, "duplicates": dups, "ledger": str(ledger.path)}))
        return
    t = Table(title=f"ingest ledger ({ledger.path})")
    t.add_column("state")
    t.add_column("documents", justify="right")
    for k, v in counts.items():
        t.add_row(k, str(v))
    t.add_row("duplicate paths", str(dups))
    console.print(t)


_FATE_ORDER = ("failed", "pending", "skipped", "duplicate", "stored")


def _fate_text(row: dict[str, Any]) -> str:
    """One document's fate in words (`ingest report`)."""
    fate = row["fate"]
    if fate == "failed":
        text = f"failed ({row.get('reason') or 'error'}): {row.get('error') or ''}"
    elif fate == "pending":
        text = f"not finished ({row['state']}): re-run the same command"
    elif fate == "skipped":
        text = f"skipped: {row.get('why')}"
    elif fate == "duplicate":
        text = f"duplicate of {row.get('duplicate_of')} (the same document; not processed again)"
    else:
        text = f"stored as {row.get('paper_id')}"
    notes = [f"judged not a paper: {n['detail']}" if n["kind"] == "not a paper" else n["detail"]
             for n in row.get("notes", [])]
    return "; ".join(dict.fromkeys([text, *notes]))


@app.command("report")
@cli_errors
def report_cmd(
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
    failed_only: bool = typer.Option(False, "--failed", help="Only the failed documents (grouped by reason)."),
) -> None:
    """Every document's fate: stored (merged with a paper stored under another id, read up to the page limit,
    judged not a paper), failed and why, not finished, a duplicate of which document, skipped and why; and the
    probable duplicate papers kept apart.

    Exit code 1 while any document is still failed or not finished (outstanding), else 0.
    Example: `motivgraph ingest report --failed`, `motivgraph ingest report --json | jq '.outstanding'`
    """
    from motivgraph.ingest.ledger import Ledger  # local: off the CLI's start-up path (heavy)

    settings = load_settings()
    ledger = Ledger.for_data_dir(settings.data_dir)
    try:
        groups = ledger.failures_by_reason()
        conflicts = ledger.identity_conflicts()
        fates = ledger.fates()
        outstanding = ledger.outstanding()
        evidence = _evidence_report(ledger, settings)
    finally:
        ledger.close()
    if json_out:
        data: dict[str, Any] = {
            "documents": fates,
            "failures": {reason: [{"path": r.path, "error": r.error, "attempts": r.attempts} for r in rows]
                         for reason, rows in groups.items()},
            "probable duplicates (not merged)": [
                {"path": path, "paper_id": pid, "other_paper_id": other, "why": why}
                for path, pid, other, why in conflicts
            ],
            "fates": {f: sum(1 for r in fates if r["fate"] == f) for f in _FATE_ORDER},
            "outstanding": outstanding,
            "verified quotes": evidence.overall(),
        }
        for r in fates:
            if (fig := evidence.get(r["path"], r.get("paper_id"))) is not None:
                r["evidence"] = fig
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        _render_report(fates, groups, conflicts, failed_only)
        _render_evidence(evidence, failed_only)
        left = sum(outstanding.values())
        console.print(f"outstanding: {outstanding['failed']} failed, {outstanding['pending']} not finished"
                      if left else "outstanding: none (every document is stored or accounted for)")
    if sum(outstanding.values()):
        raise typer.Exit(EXIT_FAILED)


def _evidence_report(ledger: Any, settings: Any) -> Any:
    """Each stored document's verified-quote rate and unverified rejections (miner/evidence_report.py)."""
    from motivgraph.miner.decisions import DecisionLog  # local: off the CLI's start-up path (heavy)
    from motivgraph.miner.evidence_report import evidence_report  # local: as above

    path = Path(settings.data_dir) / "miner" / "decisions.sqlite"
    decisions = DecisionLog.for_data_dir(settings.data_dir) if path.exists() else None
    try:
        return evidence_report(ledger.rows(), decisions)
    finally:
        if decisions is not None:
            decisions.close()


def _render_evidence(evidence: Any, failed_only: bool) -> None:
    if failed_only or not evidence.by_doc:
        return
    t = Table(title="evidence — quotes located in each stored paper", title_justify="left")
    t.add_column("document", overflow="fold")
    t.add_column("paper", overflow="fold")
    t.add_column("verified quotes", overflow="fold")
    for path, pid in sorted(evidence.by_doc, key=lambda k: (k[0], k[1] or "")):
        t.add_row(escape(printable(path)), escape(pid or ""), escape(evidence.cell(path, pid)))
    console.print(t)
    rate = f" ({evidence.rate:.1%})" if evidence.rate is not None else ""
    console.print(f"verified quotes overall: {evidence.located}/{evidence.quotes}{rate}")


def _render_report(fates: list[dict[str, Any]], groups: dict[str, Any], conflicts: list[tuple[str, str, str, str]],
                   failed_only: bool) -> None:
    if conflicts:
        t = Table(title=f"probable duplicates, not merged (conflicting ids) — {len(conflicts)}", title_justify="left")
        for col in ("file", "stored as", "other paper", "why"):
            t.add_column(col, overflow="fold")
        for path, pid, other, why in conflicts:
            t.add_row(escape(printable(Path(path).name)), escape(pid), escape(other), escape(why))
        console.print(t)
    if not groups:
        console.print("no failed documents")
    for reason, rows in groups.items():
        t = Table(title=f"{reason} — {len(rows)} document(s)", title_justify="left")
        t.add_column("file", no_wrap=True)
        t.add_column("folder", overflow="fold")
        t.add_column("error", overflow="fold")
        t.add_column("attempts", justify="right")
        for r in rows:
            p = Path(r.path)
            t.add_row(escape(printable(p.name)), escape(printable(str(p.parent))), escape(printable(r.error or "")),
                      str(r.attempts))
        console.print(t)
    if failed_only:
        return
    counts = {f: sum(1 for r in fates if r["fate"] == f) for f in _FATE_ORDER}
    t = Table(title="every document — " + ", ".join(f"{n} {f}" for f, n in counts.items() if n), title_justify="left")
    t.add_column("document", overflow="fold")
    t.add_column("fate", overflow="fold")
    for r in sorted(fates, key=lambda r: (_FATE_ORDER.index(r["fate"]), r["path"])):
        t.add_row(escape(printable(r["path"])), escape(printable(_fate_text(r))))
    console.print(t)


@cli_errors
def parse_cmd(
    file: Path = typer.Argument(..., help="The PDF to parse."),
    json_out: bool = typer.Option(False, "--json", help="Print the Paper as JSON."),
    parser: ParserName | None = typer.Option(None, "--parser", help=_PARSER_HELP),
) -> None:
    """Parse one PDF and print the structured paper (nothing is stored)."""
    from motivgraph.ingest.parsers import make_parser  # local: off the CLI's start-up path (heavy)
    from motivgraph.ingest.walker import sha256_file  # local: as above

    if not file.is_file():
        raise ParseError(f"no such file: {file}")
    settings = load_settings()

    async def go() -> Any:
        p = await make_parser(settings.ingest, parser, workers=1)
        try:
            t0 = time.perf_counter()
            paper = await p.parse(file.resolve(), await asyncio.to_thread(sha256_file, file))
            return p.description, paper, time.perf_counter() - t0
        finally:
            await p.aclose()

    desc, paper, secs = asyncio.run(go())
    if json_out:
        print(paper.model_dump_json(indent=2))
        return
    err_console.print(f"parser: {desc} ({secs:.2f}s)")
    console.print(f"[bold]{paper.title or '(no title found)'}[/bold]", highlight=False)
    console.print(f"id: {paper.paper_id}  pages: {paper.page_count}  year: {paper.year}  venue: {paper.venue}")
    if paper.authors:
        console.print("authors: " + ", ".join(paper.authors), highlight=False)
    if paper.abstract:
        console.print(f"abstract: {paper.abstract[:400]}{'…' if len(paper.abstract) > 400 else ''}", highlight=False)
    t = Table(title="sections")
    t.add_column("#")
    t.add_column("heading")
    t.add_column("role")
    t.add_column("chars", justify="right")
    for s in paper.sections:
        t.add_row(s.number or "", s.heading, s.role, str(len(s.text)))
    console.print(t)
    console.print(f"references: {len(paper.references)}")


app.command("re-extract")(reextract_cmd)


def register(root: typer.Typer) -> None:
    """Add `parse` and the `ingest` group to the root CLI."""
    root.command("parse")(parse_cmd)
    root.add_typer(app, name="ingest")
