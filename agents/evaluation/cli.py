"""`motivgraph eval`: every method on the same topics, the seeds' metrics, one report.

    motivgraph eval --topics topics.jsonl --methods soiq,setlevel,ideagent,stateless --ideas 5
    motivgraph eval --topics topics.jsonl --methods soiq,setlevel --dry-run      # cost, no model called
    motivgraph eval --resume EVAL_ID [--budget-usd 5]                            # continue an evaluation
    motivgraph eval --list | --check EVAL_ID
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from motivgraph.errors import BudgetExceeded, ConfigError
from motivgraph.terminal import EXIT_CONFIG, EXIT_FAILED, EXIT_STOPPED, cli_errors, console, err_console, load_settings

# agents sit below the CLI layer (cli/ is a composition root): the consoles, settings loading and
# exit codes every command shares are the kernel's (motivgraph/terminal.py)
_RESUME_HINT = "`motivgraph eval --list` shows the evaluations to resume"


def _floats3(s: str | None, name: str) -> tuple[float, float, float] | None:
    if not s:
        return None
    try:
        v = tuple(float(x) for x in s.split(","))
    except ValueError:
        raise typer.BadParameter(f"{name}: three comma-separated numbers, e.g. 0.5,0.25,0.25") from None
    if len(v) != 3:
        raise typer.BadParameter(f"{name}: three comma-separated numbers, e.g. 0.5,0.25,0.25")
    return (v[0], v[1], v[2])


def _pairs(items: list[str], name: str) -> dict[str, str]:
    out = {}
    for it in items:
        k, sep, v = it.partition("=")
        if not sep or not k.strip():
            raise typer.BadParameter(f"{name}: expected NAME=VALUE, got {it!r}")
        out[k.strip()] = v.strip()
    return out


class ProgressPrinter:
    """Progress bars from the evaluation's events (generation, judging)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, Any] = {}

    def __call__(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        if kind == "phase" and ev.get("total"):
            self.tasks[ev["phase"]] = self.progress.add_task(ev["phase"], total=ev["total"])
        elif kind == "progress" and ev.get("phase") in self.tasks:
            desc = f"{ev['phase']} {ev.get('method', '')} {ev.get('topic_id', '')}".strip()
            self.progress.update(self.tasks[ev["phase"]], completed=ev.get("done", 0), description=escape(desc))
            if ev["phase"] == "generate" and "ideas" in ev:  # what was accepted, not what was asked for
                self.progress.console.print(f"[dim]{escape(accepted_line(ev))}[/dim]")
        elif kind == "warning":
            self.progress.console.print(f"[bold yellow]warning:[/bold yellow] {escape(str(ev.get('text') or ''))}")
        elif kind == "child":
            self.progress.console.print(f"[dim]run {escape(ev['run_id'])}: asking for {ev['need']} more "
                                        f"idea(s)[/dim]")


def accepted_line(ev: dict[str, Any]) -> str:
    """'stateless T1: 0 ideas accepted (of 2 requested)': the delivered count, whatever was asked."""
    n = int(ev.get("ideas") or 0)
    req = ev.get("requested")
    of = f" (of {req} requested)" if req is not None else ""
    return f"{ev.get('method', '')} {ev.get('topic_id', '')}: {n} idea{'' if n == 1 else 's'} accepted{of}"


def _print_protocol(rows: list[tuple[str, str]]) -> None:
    from motivgraph.agents.evaluation.protocol import source_of  # local: light CLI path

    table = Table(title="protocol (source: the paper's choice, ours, or a substitute)")
    table.add_column("item", justify="left")
    table.add_column("value", justify="left")
    table.add_column("source", justify="left")
    for k, v in rows:
        table.add_row(escape(k), escape(v), escape(source_of(k)))
    Console(width=max(console.width, 150)).print(table)


def _print_time(settings: Any, cfg: Any, est: Any, measure_speed: bool) -> None:
    """The time the estimate's tokens take: local models timed (or their recorded timing), hosted on a basis."""
    from motivgraph.agents.evaluation import speed  # local: light CLI path

    speeds: dict[str, Any] = {}
    for model, role in speed.local_models(settings, ["judge", None]):
        sp = None if measure_speed else speed.usable(speed.recorded(settings, model))
        if sp is None:  # never timed, or timed while the machine was busy: time it now
            err_console.print(f"[dim]timing {escape(model)}: two short completions (prompt and reply speed), "
                              f"machine load {speed.load_per_core():.2f} per core[/dim]")
            sp = speed.measure(settings, role)
        speeds[model] = sp
    seconds, basis = speed.time_lines(settings, est, speeds)
    console.print(f"time: about {speed.hours(seconds)} of model time", highlight=False, soft_wrap=True)
    for b in basis:
        console.print(f"  basis: {escape(b)}", highlight=False, soft_wrap=True)


def _print_estimate(est: Any, title: str) -> None:
    table = Table(title=title)
    for col in ("scope", "model", "calls", "tokens in", "tokens out", "USD"):
        table.add_column(col, justify="left" if col in ("scope", "model") else "right")
    for ln in est.lines:
        table.add_row(escape(ln.scope), escape(ln.model), str(ln.calls), str(ln.input_tokens), str(ln.output_tokens),
                      f"{ln.cost_usd:.4f}")
    table.add_row("total", "", str(sum(x.calls for x in est.lines)), str(sum(x.input_tokens for x in est.lines)),
                  str(sum(x.output_tokens for x in est.lines)), f"{est.total:.4f}")
    wide = Console(width=max(console.width, 150))  # the cost table is read (and parsed) whole, never cut
    wide.print(table)
    for n in est.notes:
        wide.print(f"[dim]{escape(n)}[/dim]")


@cli_errors(on_interrupt=_RESUME_HINT)
def eval_command(
    topics: Path | None = typer.Option(None, "--topics", help="Topics JSONL (topic_id, topic_name, "
                                       "background_papers, target_papers)."),
    topic: list[str] = typer.Option([], "--topic", help="A topic string (repeatable); background from your graph."),
    methods: str | None = typer.Option(None, "--methods", help="Comma-separated registered methods."),
    ideas: int | None = typer.Option(None, "--ideas", min=1, max=50, help="Ideas every method must deliver per "
                                     "topic (default 10: IDEAgent's set per topic; fewer than 3 make Yield and CU "
                                     "say little)."),
    panel_size: int | None = typer.Option(None, "--panel-size", min=1, max=9, help="Judges on the panel (default "
                                          "3, MindFlow's; fewer distinct --judges: filled with seeded samples)."),
    max_runs: int | None = typer.Option(None, "--max-runs", min=1, max=20, help="Runs per method and topic to reach "
                                        "--ideas accepted ideas (default 5)."),
    config: list[str] = typer.Option([], "--config", help="METHOD=JSON config for one method (repeatable)."),
    runs: list[str] = typer.Option([], "--runs", help="METHOD=RUN_ID,RUN_ID: evaluate existing runs instead of "
                                   "generating (repeatable)."),
    ideas_from: Path | None = typer.Option(None, "--ideas-from", help="JSONL of other systems' ideas, one per line: "
                                           '{"method": "my-system", "topic_id": "T1", "idea": "text" or {"title": '
                                           '..., "motivation": ..., "method": ...}}; scored exactly as generated '
                                           "ideas (bad lines are reported by number and skipped). --methods may "
                                           "then be left out."),
    graph: str = typer.Option("corpus", "--graph", help="corpus (default: one graph from every topic's background "
                              "papers, target papers left out, cached) | per-topic (a graph per topic from its own "
                              "background papers) | current (your graph) | file (background papers only)."),
    graph_cache: Path | None = typer.Option(None, "--graph-cache", help="Where evaluation graphs are cached "
                                            "(default <data_dir>/cache/eval-graphs)."),
    cutoff: str | None = typer.Option(None, "--cutoff", help="YYYY-MM[-DD]: nothing published after it reaches a "
                                      "method (default per topic: its latest background paper's date)."),
    literature_s2: bool = typer.Option(False, "--literature-s2", help="literature_search on the evaluation graph "
                                       "asks Semantic Scholar too (results after the cutoff are dropped)."),
    allow_target_leak: bool = typer.Option(False, "--allow-target-leak", "--allow-leak", help="Warn instead of "
                                           "refusing when a target paper is visible to the methods."),
    judges: str | None = typer.Option(None, "--judges", help="Panel models, comma-separated provider:model "
                                      "(default: the judge role's model)."),
    metrics: str | None = typer.Option(None, "--metrics", help="Subset of metrics, comma-separated."),
    elo_k: float = typer.Option(32.0, "--elo-k", help="ELO K-factor."),
    elo_start: float = typer.Option(1000.0, "--elo-start", help="ELO start rating."),
    elo_rounds: int | None = typer.Option(None, "--elo-rounds", help="Swiss rounds (default 5; at least "
                                          "ceil(log2 N))."),
    n_boot: int | None = typer.Option(None, "--n-boot", help="Bootstrap resamples (default 1000)."),
    w_pd: str | None = typer.Option(None, "--w-pd", help="MOScore_PD weights, e.g. 0.5,0.25,0.25."),
    w_ps: str | None = typer.Option(None, "--w-ps", help="MOScore_PS weights."),
    gates: str | None = typer.Option(None, "--gates", help="Yield gates k,l,m (non-obviousness, soundness, "
                                     "clarity), default 7,7,6 (IDEAgent's main table)."),
    tau: float | None = typer.Option(None, "--tau", help="Yield pairwise diversity threshold (default 7, "
                                     "IDEAgent's)."),
    cu_distance: str | None = typer.Option(None, "--cu-distance", help="Creative Utility distance: fields "
                                           "(default, the set-level paper's) | judge | embedding."),
    cu_quality: str | None = typer.Option(None, "--cu-quality", help="Creative Utility quality: impact (default, "
                                          "the set-level paper's) | reference_share."),
    budget_usd: float | None = typer.Option(None, "--budget-usd", min=0, help="Budget for the whole evaluation."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the protocol, the cost and a time estimate; no "
                                 "evaluation runs (a local model is timed once by two short completions)."),
    measure_speed: bool = typer.Option(False, "--measure-speed", help="With --dry-run: time the local model again "
                                       "instead of using its recorded timing."),
    resume: str | None = typer.Option(None, "--resume", help="Continue an unfinished evaluation."),
    list_: bool = typer.Option(False, "--list", help="List evaluations."),
    check: str | None = typer.Option(None, "--check", help="Check an evaluation's report (sections, plots, "
                                     "tables = CSV)."),
    mindflow_split: float | None = typer.Option(None, "--mindflow-split", help="With mindflow among the methods: the "
                                                "share of topics its controller is trained on; every method is "
                                                "compared on the rest (default 0.7, the paper's 70-30; 0: no split)."),
    mindflow_train: str | None = typer.Option(None, "--mindflow-train", help="JSON settings of that training "
                                              "(e.g. '{\"steps\": 30, \"group\": 4}')."),
) -> None:
    """Evaluate ideation methods on the same topics with every seed's metrics; write one report."""
    from motivgraph.agents.core.rundir import RunDir  # local: light CLI path
    from motivgraph.agents.evaluation.config import EvalConfig  # local: light CLI path
    from motivgraph.agents.evaluation.harness import create_eval, list_evals, load_eval  # local: light CLI path

    settings = load_settings()
    if list_:
        for e in list_evals(settings.runs_dir):
            rep = "yes" if e["report"] else "no"
            console.print(f"{e['id']}  {e['status']}  {escape(str(e['topic']))}  report={rep}")
        return
    if check:
        from motivgraph.agents.evaluation.report_check import (  # local: light CLI path
            check_report,
            no_signal_notes,
            order_bias_warnings,
        )

        out = RunDir.open(settings.runs_dir, check).path
        problems = check_report(out)
        for p in problems:
            err_console.print(f"[red]{escape(p)}[/red]")
        # an order-biased judge is a finding the report states, not a broken report: a warning, exit 0
        for w in order_bias_warnings(out):
            err_console.print(f"[yellow]warning:[/yellow] {escape(w)}")
        if problems:
            raise typer.Exit(EXIT_FAILED)
        silent = no_signal_notes(out)
        console.print("report OK: every section, every plot drawing data, every table equal to its CSV"
                      + (f"; {len(silent)} table(s) say they carry no signal:" if silent else ""))
        for n in silent:  # whole is not the same as informative: say where the report has nothing to show
            console.print(f"  - {escape(n)}", highlight=False)
        return
    if resume:
        run = RunDir.open(settings.runs_dir, resume)
        cfg, tlist = load_eval(run)
        if budget_usd is not None:
            cfg = cfg.model_copy(update={"budget_usd": budget_usd})
            run.update_status(config=cfg.model_dump(mode="json"))
    else:
        tlist = _topics(topics, topic)
        generated = [m.strip() for m in (methods or "").split(",") if m.strip()]
        imported: dict[str, Any] = {}
        if ideas_from is not None:
            from motivgraph.agents.evaluation.imported import read_ideas_file  # local: light CLI path

            got = read_ideas_file(ideas_from, {t.topic_id for t in tlist}, set(generated))
            for bad in got.errors:
                err_console.print(f"[yellow]--ideas-from:[/yellow] {escape(bad)} (line skipped)", highlight=False)
            err_console.print(f"--ideas-from: {got.count} idea(s) of {len(got.ideas)} system(s) read"
                              + (f", {len(got.errors)} line(s) skipped" if got.errors else ""), highlight=False)
            imported = got.ideas
        if not generated and not imported:
            raise ConfigError("--methods is required (comma-separated registered methods), or --ideas-from FILE")
        # only what the user gave: everything else is the protocol's default (EvalConfig, with its sources)
        kw: dict[str, Any] = {k: v for k, v in (("n_ideas", ideas), ("panel_size", panel_size), ("max_runs", max_runs),
                                                ("elo_rounds", elo_rounds), ("n_boot", n_boot), ("tau", tau),
                                                ("cu_distance", cu_distance), ("cu_quality", cu_quality))
                              if v is not None}
        for name, val in (("w_pd", _floats3(w_pd, "--w-pd")), ("w_ps", _floats3(w_ps, "--w-ps"))):
            if val is not None:
                kw[name] = val
        if mindflow_split is not None:
            kw["mindflow_train_fraction"] = mindflow_split
        if mindflow_train:
            try:
                kw["mindflow_train"] = json.loads(mindflow_train)
            except json.JSONDecodeError as e:
                raise ConfigError(f"--mindflow-train is not JSON ({e.msg}): e.g. '{{\"steps\": 30}}'") from e
        g = _floats3(gates, "--gates")
        if g is not None:
            kw |= {"gate_k": g[0], "gate_l": g[1], "gate_m": g[2]}
        try:
            method_configs = {k: json.loads(v) for k, v in _pairs(config, "--config").items()}
        except json.JSONDecodeError as e:
            raise typer.BadParameter(f"--config: not JSON ({e.msg})") from None
        cfg = EvalConfig(
            methods=generated + list(imported), method_configs=method_configs, imported=imported,
            ideas_from=str(ideas_from) if ideas_from is not None else None,
            run_ids={k: [x for x in v.split(",") if x] for k, v in _pairs(runs, "--runs").items()},
            graph=graph if topics else "current", allow_target_leak=allow_target_leak,
            graph_cache=str(graph_cache) if graph_cache else None, cutoff=cutoff, literature_s2=literature_s2,
            judges=[j.strip() for j in (judges or "").split(",") if j.strip()],
            elo_k=elo_k, elo_start=elo_start,
            budget_usd=budget_usd,
            **({"metrics": [x.strip() for x in metrics.split(",") if x.strip()]} if metrics else {}), **kw)
        from motivgraph.agents.core.registry import get_method  # local: light CLI path

        for m in cfg.methods:
            if m not in cfg.imported:
                get_method(m)  # unknown method: a clear error naming the registered ones
    if dry_run:
        from motivgraph.agents.evaluation.estimate import estimate_eval  # local: light CLI path
        from motivgraph.agents.evaluation.mindflow_split import mindflow_split as split_of  # local: light CLI path
        from motivgraph.agents.evaluation.protocol import cutoff_rows, protocol_rows  # local: light CLI path

        est = estimate_eval(settings, cfg, tlist)
        split = split_of(settings, cfg, tlist)  # MindFlow's train/test protocol: who is compared where
        rows = protocol_rows(settings, cfg, len(split.test) if split.active else len(tlist))
        compared_topics = [t for t in tlist if not split.active or t.topic_id in set(split.test)]
        _print_protocol(rows + ([("MindFlow split", split.line().removeprefix("MindFlow: "))]
                                if split.active or split.reason else []) + cutoff_rows(compared_topics, cfg.cutoff))
        compared = f"{len(split.test)} compared topic(s) of {len(tlist)}" if split.active else f"{len(tlist)} topic(s)"
        _print_estimate(est, f"dry run: {compared} × {len(cfg.methods)} method(s) × {cfg.n_ideas} "
                             "idea(s) (no evaluation run)")
        _print_time(settings, cfg, est, measure_speed)
        return
    if not resume:
        run = create_eval(settings, cfg, tlist, source=str(topics) if topics else "topic strings")
    err_console.print(f"evaluation {run.id}: {run.path}", highlight=False)  # a note: results alone on stdout
    from motivgraph.llm.local import stopping_servers_started  # local: light CLI path

    try:
        # A local model server the eval starts (graph build, methods, judges) ends with it; one the user
        # started before is theirs and keeps running (#42 item 3).
        with stopping_servers_started(lambda names: err_console.print(
                f"stopped the local model server(s) this evaluation started: {', '.join(names)}", highlight=False)):
            asyncio.run(_execute(settings, run))
    except BudgetExceeded as e:
        err_console.print(f"[yellow]stopped: {escape(str(e))} — resume with: motivgraph eval --resume {run.id} "
                          "--budget-usd <more>[/yellow]")
        raise typer.Exit(EXIT_STOPPED) from None
    except KeyboardInterrupt:
        err_console.print(f"[yellow]interrupted[/yellow] — resume with: motivgraph eval --resume {run.id}")
        raise typer.Exit(EXIT_STOPPED) from None
    except ConfigError as e:
        err_console.print(f"[red]{escape(str(e))}[/red]")
        raise typer.Exit(EXIT_CONFIG) from None
    console.print(f"report: {run.path / 'report.html'}\nsummary: {run.path / 'summary.md'}")
    console.print((run.path / "summary.md").read_text(encoding="utf-8"), markup=False, highlight=False)


def _topics(topics: Path | None, topic: list[str]) -> list[Any]:
    from motivgraph.agents.evaluation.topics import load_topics_file, topics_from_strings  # local: light CLI path

    if topics and topic:
        raise ConfigError("give --topics FILE or --topic strings, not both")
    if topics:
        out = load_topics_file(topics)
    elif topic:
        out = topics_from_strings(topic)
    else:
        raise ConfigError("--topics FILE or at least one --topic is required")
    check_topic_lengths(out, str(topics) if topics else "--topic")
    return out


def check_topic_lengths(tlist: list[Any], where: str) -> None:
    """Every topic within what a run takes (RunSpec.topic, as `ideate` checks it): a usage error (exit 2)
    naming the topic, before anything is made -- not a traceback from the first child run."""
    from motivgraph.agents.core.context import RunSpec  # local: light CLI path

    field = RunSpec.model_fields["topic"]
    lo = next((m.min_length for m in field.metadata if getattr(m, "min_length", None) is not None), 0)
    hi = next((m.max_length for m in field.metadata if getattr(m, "max_length", None) is not None), None)
    for t in tlist:
        n = len(t.topic)
        if hi is not None and n > hi:
            raise typer.BadParameter(f"{where}: topic {t.topic_id} is too long ({n} characters); a topic takes at "
                                     f"most {hi}: name the topic, and put background in the topics file's papers")
        if n < lo:
            raise typer.BadParameter(f"{where}: topic {t.topic_id} is too short ({n} characters); it needs at "
                                     f"least {lo}")


async def _execute(settings: Any, run: Any) -> None:
    from motivgraph.agents.core.llm import PlatformLLMClient  # local: light CLI path
    from motivgraph.agents.evaluation.harness import Evaluation  # local: light CLI path

    def tools() -> Any:
        from motivgraph.agents.tools.inprocess import InProcessToolClient  # local: light CLI path

        return InProcessToolClient(settings)

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console) as progress:  # progress and notes on stderr, results on stdout
        ev = Evaluation(settings, run, llm_factory=lambda: PlatformLLMClient(settings), tool_client_factory=tools,
                        listener=ProgressPrinter(progress))
        await ev.execute()


def cli() -> typer.Typer:
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command("eval", help="Evaluate ideation methods on the same topics; write one report.")(eval_command)
    return app
