"""`motivgraph ideate`: run (or resume) a grounded ideation session, streaming the dialogue."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.panel import Panel

from motivgraph.cli.common import EXIT_FAILED, EXIT_STOPPED, cli_errors, console, err_console, load_settings
from motivgraph.errors import ConfigError

log = logging.getLogger(__name__)

_COLOURS = {"researcher": "cyan", "mentor": "magenta"}


class DialoguePrinter:
    """Prints session events as they happen: agent messages in panels, tool calls on one line,
    tool results shortened (full text is in transcript.jsonl)."""

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
                                border_style=_COLOURS.get(agent, "white")))
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
        elif kind == "resumed":
            console.print(f"[yellow]resumed at stage {ev.get('stage')}, round {ev.get('round')}[/yellow]")


def _tool_client(settings: Any) -> Any:
    if settings.api.url:
        from motivgraph.agents.tools.http import HttpToolClient

        return HttpToolClient.from_settings(settings)
    from motivgraph.agents.tools.inprocess import InProcessToolClient

    return InProcessToolClient(settings)


def _require_llm(settings: Any) -> None:
    from motivgraph.llm import LLMClient

    llm = LLMClient(settings)
    try:
        llm.require("researcher")
        llm.require("mentor")
    finally:
        llm.close()


async def _run(settings: Any, config: Any, run: Any, printer: DialoguePrinter) -> Any:
    from motivgraph.agents.soiq.session import SoiqSession
    from motivgraph.llm import LLMClient

    llm = LLMClient(settings, run_id=run.id)
    try:
        async with _tool_client(settings) as client:
            session = SoiqSession(settings, config, run, tool_client=client, llm=llm, emit=printer)
            return await session.run()
    finally:
        llm.close()


@cli_errors
def ideate(
    topic: str = typer.Argument(None, help="Research topic or task description (not needed with --resume)."),
    method: str = typer.Option("soiq", "--method", help="Ideation method: soiq (Socratic researcher + mentor)."),
    ideas: int = typer.Option(None, "--ideas", min=1, max=20,
                              help="Ideas to attempt (default MOTIVGRAPH_AGENTS_IDEAS)."),
    rounds: int = typer.Option(None, "--rounds", min=1, max=20,
                               help="Mentor rounds before a forced decision (default MOTIVGRAPH_AGENTS_ROUNDS)."),
    ablation: str = typer.Option("", "--ablation",
                                 help="Comma-separated ablations: no_mentor, no_graph, no_lit_details."),
    tool_mode: str = typer.Option("auto", "--tool-mode",
                                  help="Tool calling: native, text (name(arg=value) <CALL>) or auto."),
    out: Path = typer.Option(None, "--out", help="Directory for run directories (default <data_dir>/runs)."),
    resume: str = typer.Option(None, "--resume", help="Continue an interrupted or failed session by its run id."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also print prompts and longer tool results."),
) -> None:
    """Run a grounded ideation session on TOPIC, streaming the researcher–mentor dialogue.

    Writes <out>/<run id>/ with transcript.jsonl, ideas.json, summary.md and state for --resume.
    """
    from motivgraph.agents.runs import RunDir
    from motivgraph.agents.soiq.session import SessionConfig
    from motivgraph.agents.soiq.toolbox import parse_ablations

    if method != "soiq":
        raise ConfigError(f"--method {method!r} is not available here; use --method soiq")
    settings = load_settings()
    _require_llm(settings)  # before any run directory is created
    runs_dir = out or settings.runs_dir
    if resume:
        run = RunDir.open(runs_dir, resume)
        config = SessionConfig.model_validate(run.status()["config"])
        console.print(f"resuming [bold]{run.id}[/bold] ({run.status()['status']}): {escape(config.topic)}")
    else:
        if not topic:
            raise typer.BadParameter("give a TOPIC, or --resume RUN_ID")
        try:
            config = SessionConfig(topic=topic, ideas=ideas or settings.agents.ideas, rounds=rounds,
                                   ablations=sorted(parse_ablations(ablation)), tool_mode=tool_mode)
        except ValueError as e:
            raise typer.BadParameter(str(e)) from e
        runs_dir.mkdir(parents=True, exist_ok=True)
        run = RunDir.create(runs_dir, method, config.topic, config.model_dump())
        console.print(f"session [bold]{run.id}[/bold] → {run.path}")
    printer = DialoguePrinter(verbose)
    try:
        result = asyncio.run(_run(settings, config, run, printer))
    except KeyboardInterrupt:
        err_console.print(f"[yellow]interrupted[/yellow] — continue with: motivgraph ideate --resume {run.id}"
                          + (f" --out {out}" if out else ""))
        raise typer.Exit(EXIT_STOPPED) from None
    except Exception:
        hint = f"motivgraph ideate --resume {run.id}" + (f" --out {out}" if out else "")
        err_console.print(f"[red]session stopped[/red]; transcript in {run.path}. Fix the cause, then: {hint}")
        raise
    u = result.usage["total"]
    console.rule("[bold]result[/bold]")
    console.print(f"{len(result.ideas)} accepted, {result.rejected} rejected — LLM calls {u['calls']}, "
                  f"tokens in {u['input_tokens']} / out {u['output_tokens']}")
    for rec in result.ideas:
        flag = " [red](flagged: unresolved references)[/red]" if rec["flagged"] else ""
        console.print(f"• [bold]{escape(rec['idea']['Title'])}[/bold]{flag}")
    console.print(f"ideas: {run.path / 'ideas.json'}\nsummary: {run.path / 'summary.md'}")
    if not result.ideas:
        raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    app.command("ideate")(ideate)
