"""`motivgraph ideate`: run (or resume) any registered ideation method, streaming its progress.

Everything method-specific comes from the registry (`motivgraph.agents.core.registry`): the flags
after `--method NAME` are generated from the method's config model, `--list-methods` shows them,
`--dry-run` prints the method's cost estimate, and `motivgraph method NAME COMMAND` runs the
sub-commands a method contributes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import typer
import typer.core
import typer.main
from rich.markup import escape
from rich.panel import Panel

from motivgraph.cli.helpfmt import polish
from motivgraph.errors import BudgetExceeded, ConfigError, MotivGraphError
from motivgraph.terminal import EXIT_FAILED, EXIT_STOPPED, cli_errors, console, err_console, load_settings

if TYPE_CHECKING:
    from pydantic import ValidationError

    from motivgraph.agents.core.method import Method

log = logging.getLogger(__name__)

_COLOURS = {"researcher": "cyan", "mentor": "magenta"}
_PALETTE = ("cyan", "magenta", "green", "blue", "yellow")


def _colour(agent: str) -> str:
    return _COLOURS.get(agent) or _PALETTE[sum(map(ord, agent)) % len(_PALETTE)]


class DialoguePrinter:
    """Prints run events as they happen: agent messages in panels, tool calls on one line, tool
    results shortened (full text is in transcript.jsonl); any method's events use these types."""

    def __init__(self, verbose: bool = False) -> None:
        self.verbose = verbose

    def __call__(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        agent = ev.get("agent", "")
        where = " ".join(str(x) for x in (f"idea {ev['idea']}" if "idea" in ev else "",
                                           f"round {ev['round']}" if "round" in ev else "") if x)
        if kind == "phase":
            console.rule(f"[bold]{ev['phase']}[/bold] {where}")
        elif kind == "message" and ev.get("role") == "assistant":
            text = ev.get("content") or ""
            if ev.get("tool_calls") and not text.strip():
                return
            title = f"{agent} · {where}" if where else agent
            console.print(Panel(escape(text.strip() or "(empty)"), title=title, title_align="left",
                                border_style=_colour(agent)))
        elif kind == "message" and ev.get("role") == "user" and self.verbose:
            console.print(f"[dim]→ {agent}: {escape(ev.get('content', '')[:300])}[/dim]")
        elif kind == "tool_call":
            args = json.dumps(ev.get("args") or {}, ensure_ascii=False)
            name = ev.get("name") or "(unreadable call)"
            console.print(f"[yellow]⚙ {escape(str(name))}[/yellow] {escape(args[:200])}")
        elif kind == "tool_result":
            text = (ev.get("text") or "").strip()
            limit = 2000 if self.verbose else 240
            style = "dim" if ev.get("ok") else "red"
            console.print(f"[{style}]{escape(text[:limit])}{' …' if len(text) > limit else ''}[/{style}]")
        elif kind == "question":
            console.print(f"[magenta]aspect: {ev.get('aspect')}[/magenta]")
        elif kind == "decision":
            colour = "green" if ev.get("decision") == "ACCEPT" else "red"
            forced = " (round limit)" if ev.get("forced") else ""
            console.print(f"[bold {colour}]decision: {ev.get('decision')}{forced}[/bold {colour}] "
                          f"after {ev.get('rounds')} round(s)")
        elif kind == "grounding":
            flag = "[red]flagged[/red]" if ev.get("flagged") else "[green]grounded[/green]"
            console.print(f"grounding (check {ev.get('attempt')}): links {ev.get('links_resolved')}/"
                          f"{ev.get('links_total')}, citations {ev.get('citations_resolved')}/"
                          f"{ev.get('citations_total')} — {flag}")
            for u in ev.get("unresolved_links", []):
                console.print(f"  [red]✗[/red] kg:{escape(u['type'])}:{escape(u['name'])} — {escape(u['reason'])}")
            for u in ev.get("unresolved_citations", []):
                console.print(f"  [red]✗[/red] ({escape(u['raw'])}) — {escape(u['reason'])}")
        elif kind == "context_trimmed":
            console.print(f"[dim]{agent} context trimmed {ev['tokens_before']} → {ev['tokens_after']} tokens[/dim]")
        elif kind == "idea_invalid":
            console.print(f"[red]no valid idea: {escape(str(ev.get('error')))}[/red]")
        elif kind == "warning":
            text = str(ev.get("text") or ev.get("message") or "")
            console.print(f"[bold yellow]warning:[/bold yellow] {escape(text)}")
        elif kind == "resumed":
            console.print(f"[yellow]resumed at stage {ev.get('stage')}, round {ev.get('round')}[/yellow]")
        elif kind == "status" and ev.get("status") in ("failed", "stopped", "interrupted"):
            console.print(f"[red]{ev['status']}[/red]: {escape(str(ev.get('error') or ''))}")
        elif kind == "status" and ev.get("status") == "running":
            bits = [f"method {ev.get('method')}", "resumed" if ev.get("resumed") else "",
                    f"background: {ev.get('background')} ({ev.get('background_papers', 0)} papers)",
                    "tools" if ev.get("tools") else "no tools"]
            console.print("[dim]" + escape(", ".join(b for b in bits if b)) + "[/dim]")


# ----------------------------------------------------------------------------- flags from a config
def _unwrap(ann: Any) -> tuple[Any, bool]:
    """(inner type, optional) for `X | None`."""
    args = typing.get_args(ann)
    if (typing.get_origin(ann) in (typing.Union, types.UnionType)) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else str), True
    return ann, False


def config_options(config_model: Any) -> list[click.Option]:
    """One `--kebab-case` option per config field. Defaults stay None so only the flags given
    override the config's own defaults; lists are comma-separated."""
    opts: list[click.Option] = []
    for name, f in config_model.model_fields.items():
        flag = "--" + name.replace("_", "-")
        ann, _ = _unwrap(f.annotation)
        origin = typing.get_origin(ann)
        default = None if f.is_required() else f.get_default(call_default_factory=True)
        desc = (f.description or name).rstrip(".")
        shown = f" [default: {default}]" if default not in (None, [], "") else ""
        if ann is bool:
            opts.append(click.Option([f"{flag}/--no-{name.replace('_', '-')}"], default=None, help=desc + shown))
            continue
        if origin is typing.Literal:
            ptype: Any = click.Choice([str(x) for x in typing.get_args(ann)])
        elif origin in (list, tuple, set):
            ptype, desc = click.STRING, desc + " (comma-separated)"
        elif ann in (int, float, str):
            ptype = {int: click.INT, float: click.FLOAT, str: click.STRING}[ann]
        else:
            ptype, desc = click.STRING, desc + " (JSON)"
        opts.append(click.Option([flag], type=ptype, default=None, help=desc + shown, required=False,
                                 metavar=getattr(ptype, "name", "TEXT").upper()))
    return opts


def parse_config_args(cls: Any, args: list[str]) -> tuple[str | None, dict[str, Any]]:
    """(topic, config fields) from the words `ideate` did not consume itself: the TOPIC and the
    method's flags, in any order (typer.BadParameter on anything else)."""
    params: list[click.Parameter] = [*config_options(cls.config_model),
                                     click.Argument(["topic_words"], nargs=-1, required=False)]
    cmd = click.Command(cls.name, params=params, add_help_option=False)
    try:
        ctx = cmd.make_context(f"ideate --method {cls.name}", list(args), resilient_parsing=False)
    except click.UsageError as e:
        flags = ", ".join(o.opts[0] for o in config_options(cls.config_model)) or "none"
        raise typer.BadParameter(f"{e.format_message()} (flags of method {cls.name}: {flags})") from None
    out: dict[str, Any] = {}
    words = ctx.params.pop("topic_words", ()) or ()
    topic = " ".join(words) if words else None
    for name, value in ctx.params.items():
        if value is None:
            continue
        ann, _ = _unwrap(cls.config_model.model_fields[name].annotation)
        if typing.get_origin(ann) in (list, tuple, set):
            value = [v.strip() for v in str(value).split(",") if v.strip()]
        elif ann not in (int, float, str, bool) and typing.get_origin(ann) is not typing.Literal:
            try:
                value = json.loads(value)
            except json.JSONDecodeError as e:
                raise typer.BadParameter(f"--{name.replace('_', '-')}: not JSON ({e.msg})") from None
        out[name] = value
    return topic, out


def _method_help(cls: Any) -> str:
    lines = [f"[bold]{cls.name}[/bold] — {escape(cls.summary or '')}",
             f"  LLM roles: {', '.join(cls.llm_roles()) or 'none'}; tools: {'yes' if cls.uses_tools else 'no'}"]
    for o in config_options(cls.config_model):
        names = "/".join(o.opts + o.secondary_opts)
        lines.append(f"  {escape(names)} {'' if o.is_flag else o.metavar}  {escape(o.help or '')}")
    sub = cls.cli()
    if sub is not None:
        group: Any = typer.main.get_command(sub)
        cmds = ", ".join(sorted(group.commands)) if hasattr(group, "commands") else cls.name
        lines.append(escape(f"  sub-commands: motivgraph method {cls.name} [{cmds}]"))
    return "\n".join(lines)


def list_methods() -> None:
    from motivgraph.agents.core.registry import all_methods  # local: light CLI path

    for cls in all_methods():
        console.print(_method_help(cls), highlight=False)
        console.print()


# ----------------------------------------------------------------------------- running
def _describe_error(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


async def _open_tools(settings: Any, background_file: str | None) -> Any | None:
    """A ToolClient, or None when there is no graph to reach (then the method runs from its
    background alone). A run on a background file with no graph never starts a store."""
    if settings.api.url:
        from motivgraph.agents.tools.http import HttpToolClient  # local: light CLI path

        return HttpToolClient.from_settings(settings)
    no_store = settings.graph.backend == "falkordb" and not settings.graph.falkordb_url and not settings.db_dir.exists()
    if background_file and no_store:
        return None
    from motivgraph.agents.tools.inprocess import InProcessToolClient  # local: light CLI path
    from motivgraph.api.contract.tools import NODE_SEARCH  # local: light CLI path

    client = InProcessToolClient(settings)
    if background_file:
        try:  # a background run does not need the graph: use it only when it answers
            await client.call(NODE_SEARCH, query="probe", k=1)
        except MotivGraphError as e:
            log.info("graph not usable (%s): running without tools", e)
            await client.aclose()
            return None
    return client


def _require_llm(settings: Any, roles: list[str]) -> None:
    from motivgraph.agents.core.llm import PlatformLLMClient  # local: light CLI path

    llm = PlatformLLMClient(settings)
    try:
        for role in roles:
            llm.require(role)
        llm.check_reachable(roles)  # a server that is down: exit 4 naming it, before a run directory exists
    finally:
        llm.close()


async def _run(settings: Any, run: Any, printer: DialoguePrinter, budget_usd: float | None, uses_tools: bool,
               background_file: str | None, method: Method[Any, Any] | None = None) -> Any:
    from motivgraph.agents.core.llm import PlatformLLMClient  # local: light CLI path
    from motivgraph.agents.core.runner import ensure_terminal, run_method  # local: light CLI path

    llm = PlatformLLMClient(settings, run_id=run.id)
    client = None
    try:
        client = await _open_tools(settings, background_file) if uses_tools else None
        if uses_tools and client is None:
            console.print("[yellow]no graph available: the method runs from the background alone[/yellow]")
        return await run_method(settings, run, llm=llm, tool_client=client, listener=printer, budget_usd=budget_usd,
                                argv=sys.argv, method=method)
    except BaseException as e:
        ensure_terminal(run, e)
        raise
    finally:
        llm.close()
        if client is not None:
            await client.aclose()


def _print_plan(plan: Any, method: str) -> None:
    from rich.table import Table  # local: light CLI path

    table = Table(title=f"dry run: {method} (no model called)")
    for col in ("role", "model", "calls", "tokens in", "tokens out", "USD"):
        table.add_column(col, justify="right" if col not in ("role", "model") else "left")
    for r in [*plan.roles.values(), plan.total]:
        table.add_row(r.scope, r.model, str(r.calls), str(r.input_tokens), str(r.output_tokens), f"{r.cost_usd:.4f}")
    console.print(table)
    for note in plan.notes:
        console.print(f"[dim]{escape(note)}[/dim]")


def argument_problems(e: ValidationError) -> str:
    """A run's arguments out of their limits, on one line, named as typed (TOPIC, --flag) with the limit:
    pydantic's own report spans lines and carries type codes, the input echoed and a documentation URL."""
    out = []
    for err in e.errors(include_url=False):
        loc = [str(p) for p in err.get("loc", ())]
        field = loc[0] if loc else ""
        name = "TOPIC" if field == "topic" else f"--{field.replace('_', '-')}" if field else "arguments"
        if loc[1:]:
            name += "." + ".".join(loc[1:])
        ctx, value = err.get("ctx") or {}, err.get("input")
        kind = err.get("type", "")
        if kind == "string_too_short" and isinstance(value, str):
            out.append(f"{name} is too short ({len(value)} characters); it needs at least {ctx.get('min_length')}")
        elif kind == "string_too_long" and isinstance(value, str):
            out.append(f"{name} is too long ({len(value)} characters); it takes at most {ctx.get('max_length')}")
        else:
            msg = str(err.get("msg", "invalid"))
            subject, _, rest = msg.partition(" should ")
            # "Input should be greater than or equal to 1" -> "--ideas should be greater than or equal to 1"
            plain = rest and subject in ("Input", "String", "Value")
            out.append(f"{name} should {rest}" if plain else f"{name}: {msg}")
    return "; ".join(out)


@cli_errors
def ideate(
    ctx: typer.Context,
    method: str = typer.Option("soiq", "--method", help="Ideation method (see --list-methods)."),
    list_methods_: bool = typer.Option(False, "--list-methods", help="List the methods and their flags, then exit."),
    budget_usd: float = typer.Option(None, "--budget-usd", min=0,
                                     help="Stop cleanly once the run has spent this much (resumable)."),
    dry_run: bool = typer.Option(False, "--dry-run",
                                 help="Print calls, tokens and dollars per LLM role without calling any model."),
    background: Path = typer.Option(None, "--background",
                                    help="Topic background: JSONL paper records, or a topics file with --topic-id."),
    topic_id: str = typer.Option(None, "--topic-id", help="Topic of a topics file (only its background_papers "
                                 "are used)."),
    seed: int = typer.Option(None, "--seed", help="Run seed (default MOTIVGRAPH_AGENTS_SEED)."),
    out: Path = typer.Option(None, "--out", help="Directory for run directories (default <data_dir>/runs)."),
    resume: str = typer.Option(None, "--resume", help="Continue an interrupted, failed or stopped run by its id."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also print prompts and longer tool results."),
) -> None:
    """Run an ideation method on TOPIC, streaming its progress: `motivgraph ideate TOPIC --method NAME`
    followed by the method's own flags, e.g. `--method soiq --ideas 2 --rounds 3`; `--list-methods`
    shows every method's flags. TOPIC is not needed with --resume, or with a topics file and --topic-id.

    Writes <out>/<run id>/ with transcript.jsonl, ideas.json (idea records), summary.md, repro.json
    and a checkpoint for --resume.
    """
    from motivgraph.agents.core.background import TopicBackground  # local: light CLI path
    from motivgraph.agents.core.context import RunSpec  # local: light CLI path
    from motivgraph.agents.core.registry import get_method  # local: light CLI path
    from motivgraph.agents.core.rundir import RunDir  # local: light CLI path
    from motivgraph.agents.core.runner import create_run, make_method, spec_of  # local: light CLI path
    from motivgraph.agents.core.runner import dry_run as plan_run  # local: light CLI path

    if list_methods_:
        list_methods()
        return
    settings = load_settings()
    runs_dir = out or settings.runs_dir
    # a new run's method, its config checked once here and handed on; a resumed run's config is read back by the runner
    method_obj: Method[Any, Any] | None = None
    if resume:
        if ctx.args:
            raise typer.BadParameter(f"a topic or method flags cannot change a run being resumed: {' '.join(ctx.args)}")
        run = RunDir.open(runs_dir, resume)
        st = run.status()
        if st.get("status") == "completed":  # nothing to continue: say so, and it is not an error
            console.print(f"run [bold]{run.id}[/bold] is already complete ({st.get('ideas_accepted', 0)} accepted, "
                          f"{st.get('ideas_rejected', 0)} rejected): see motivgraph runs show {run.id}; start a new "
                          "run for more ideas")
            return
        spec = spec_of(run)
        cls = get_method(spec.method)
    else:
        cls = get_method(method)
        topic, config = parse_config_args(cls, ctx.args)
        bg_file = str(background.resolve()) if background else None
        if topic_id and not background:
            raise typer.BadParameter("--topic-id needs --background FILE (a topics file)")
        if not topic:
            if not background:
                raise typer.BadParameter("give a TOPIC, or --resume RUN_ID")
            topic = TopicBackground.from_file(background, topic_id=topic_id).topic  # a topics file names it
        try:
            spec = RunSpec(method=cls.name, topic=topic, topic_id=topic_id, config=config,
                           budget_usd=budget_usd, seed=settings.agents.seed if seed is None else seed,
                           background_file=bg_file)
            method_obj = make_method(spec)
        except ValueError as e:  # pydantic's ValidationError is one; imported only here, help screens stay light
            from pydantic import ValidationError  # local: light CLI path

            if isinstance(e, ValidationError):
                raise typer.BadParameter(argument_problems(e)) from None
            raise typer.BadParameter(str(e)) from e
        if dry_run:
            _print_plan(plan_run(settings, spec, None, method=method_obj), cls.name)
            return
    if dry_run:
        _print_plan(plan_run(settings, spec, None), cls.name)
        return
    _require_llm(settings, cls.llm_roles())  # before any run directory is created
    if resume:
        console.print(f"resuming [bold]{run.id}[/bold] ({run.status()['status']}): {escape(spec.topic)}")
    else:
        run = create_run(runs_dir, spec, method=method_obj)
        console.print(f"run [bold]{run.id}[/bold] ({cls.name}) → {run.path}")
    printer = DialoguePrinter(verbose)
    hint = f"motivgraph ideate --resume {run.id}" + (f" --out {out}" if out else "")
    try:
        result = asyncio.run(_run(settings, run, printer, budget_usd, cls.uses_tools, spec.background_file,
                                  method_obj))
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C, or SIGTERM (the runner cancels the run)
        err_console.print(f"[yellow]interrupted[/yellow] — continue with: {hint}")
        raise typer.Exit(EXIT_STOPPED) from None
    except BudgetExceeded as e:
        err_console.print(f"[yellow]stopped: {escape(str(e))}[/yellow]\ncontinue with: {hint} --budget-usd <more>")
        raise typer.Exit(EXIT_STOPPED) from None
    except Exception as e:
        err_console.print(f"[red]run stopped[/red] ({escape(_describe_error(e))}); transcript in {run.path}. "
                          f"Fix the cause, then: {hint}")
        if isinstance(e, MotivGraphError):
            raise
        raise typer.Exit(EXIT_FAILED) from None
    u = result.usage.get("total", {})
    accepted = [i for i in result.ideas if i.status == "accepted"]
    console.rule("[bold]result[/bold]")
    console.print(f"{len(accepted)} accepted, {len(result.ideas) - len(accepted)} rejected — LLM calls "
                  f"{u.get('calls', 0)}, tokens in {u.get('input_tokens', 0)} / out {u.get('output_tokens', 0)}, "
                  f"${u.get('cost_usd', 0.0):.4f}")
    for rec in accepted:
        flag = " [red](flagged: unresolved references)[/red]" if rec.grounding.flagged else ""
        console.print(f"• [bold]{escape(rec.title)}[/bold]{flag}")
    console.print(f"ideas: {run.path / 'ideas.json'}\nsummary: {run.path / 'summary.md'}")
    if not accepted:
        raise typer.Exit(EXIT_FAILED)


# ----------------------------------------------------------------------------- method sub-commands
class MethodCommands(typer.core.TyperGroup):
    """`motivgraph method NAME ...`: the sub-commands each method contributes, looked up in the
    registry when invoked (so methods registered at run time appear too)."""

    def list_commands(self, ctx: Any) -> list[str]:
        from motivgraph.agents.core.registry import all_methods  # local: light CLI path

        return [m.name for m in all_methods() if m.cli() is not None]

    def get_command(self, ctx: Any, name: str) -> Any:
        from motivgraph.agents.core.registry import get_method  # local: light CLI path

        try:
            sub = get_method(name).cli()
        except ConfigError:
            return None
        if sub is None:
            return None
        cmd = typer.main.get_command(sub)
        cmd.name = name
        return polish(cmd, f"method {name}")


method_app = typer.Typer(cls=MethodCommands, help="Commands contributed by ideation methods (motivgraph method "
                         "NAME COMMAND).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command("ideate", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(ideate)
    app.add_typer(method_app, name="method")
