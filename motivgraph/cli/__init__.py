"""The `motivgraph` command. Each command group lives in its own module and is registered here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
import typer.core

from motivgraph import __version__
from motivgraph.cli import (
    config_cmd,
    db_cmd,
    graph_cmd,
    ideate_cmd,
    ingest_cmd,
    llm_cmd,
    mcp_cmd,
    merges_cmd,
    miner_cmd,
    papers_cmd,
    runs_cmd,
    search_cmd,
    serve_cmd,
)
from motivgraph.cli.helpfmt import polish

if TYPE_CHECKING:
    # typer vendors click (typer._click): its groups are handed that Context and hold its Commands, not the
    # `click` package's
    from typer._click import Command, Context


class _RootCommands(typer.core.TyperGroup):
    """The built-in commands plus the top-level commands contributed through the agents registry
    (`CONTRIBUTIONS`, e.g. `motivgraph eval`), imported only when invoked or listed. Every command
    looked up here gets readable metavars, examples and the exit codes in its help (cli/helpfmt.py)."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        polish(self, "")
        return super().make_context(info_name, args, parent=parent, **extra)

    def list_commands(self, ctx: Context) -> list[str]:
        from motivgraph.agents.core.registry import CONTRIBUTIONS

        names = super().list_commands(ctx)
        return names + sorted(n for n in CONTRIBUTIONS if n not in names)

    def get_command(self, ctx: Context, name: str) -> Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is not None:
            return polish(cmd, name)
        from motivgraph.agents.core.registry import CONTRIBUTIONS, get_contribution

        if name not in CONTRIBUTIONS:
            return None
        sub = get_contribution(name).cli()
        if sub is None:
            return None
        cmd = typer.main.get_command(sub)
        cmd.name = name
        return polish(cmd, name)


app = typer.Typer(
    cls=_RootCommands,
    name="motivgraph",
    help="MotivGraph: build a problem–challenge–solution graph from papers and ideate on it. "
    "Data lives in MOTIVGRAPH_DATA_DIR (default ~/.motivgraph); logs go to stderr, results to stdout.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(config_cmd.app, name="config")
app.add_typer(db_cmd.app, name="db")
app.add_typer(llm_cmd.app, name="llm")
app.add_typer(graph_cmd.app, name="graph")
app.add_typer(runs_cmd.app, name="runs")
search_cmd.register(app)
ingest_cmd.register(app)
miner_cmd.register(app)
ideate_cmd.register(app)
serve_cmd.register(app)
mcp_cmd.register(app)
papers_cmd.register(app)
merges_cmd.register(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"motivgraph {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show version."),
    verbose: bool = typer.Option(
        False, "--verbose", help="Show INFO log lines and the ML libraries' progress bars and warnings (on stderr)."
    ),
) -> None:
    from motivgraph.cli.common import EXIT_CONFIG, err_console, load_settings
    from motivgraph.data_format import DataFormatError, check_data_dir
    from motivgraph.logging import setup_logging

    try:
        settings = load_settings()
    except Exception:  # a bad setting is reported by the command that loads settings
        setup_logging("INFO" if verbose else "WARNING", verbose=verbose)
        return
    setup_logging(_log_level(settings, verbose), verbose=verbose)
    if ctx.invoked_subcommand == "config":  # inspecting settings must work whatever the data dir holds
        return
    try:
        # before any command reads or writes the data dir: refuse a newer format, migrate an older one
        check_data_dir(settings.data_dir, create=False)
    except DataFormatError as e:
        err_console.print(f"[red]{e}[/red]", highlight=False)
        raise typer.Exit(EXIT_CONFIG) from None
    from motivgraph.cli.common import announce_new_data_dir

    ctx.call_on_close(announce_new_data_dir(settings))


def _log_level(settings: object, verbose: bool) -> str:
    """MOTIVGRAPH_LOG_LEVEL when set; else INFO with --verbose and WARNING without (a command's own output
    says what happened; INFO lines are for when something needs explaining)."""
    if "log_level" in getattr(settings, "model_fields_set", set()):
        level = str(getattr(settings, "log_level", "INFO"))
        return "INFO" if verbose and level in ("WARNING", "ERROR", "CRITICAL") else level
    return "INFO" if verbose else "WARNING"


def main() -> None:
    from motivgraph.private import set_private_umask

    set_private_umask()  # private by default: everything this process (and the servers it starts) writes is 600/700
    app()
