"""The `motivgraph` command. Its commands are the "commands" parts of the one extension mechanism
(`motivgraph/plugins.py`): each command group lives in its own module, imported only when that command runs or
its help is shown, so `motivgraph --help` and a command that needs no graph, model or server start without
importing the graph, ML or web stacks (a test checks: tests/unit/cli/test_lazy_imports.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
import typer.core

from motivgraph import __version__, plugins
from motivgraph.cli.helpfmt import polish
from motivgraph.data_format import check_data_dir
from motivgraph.errors import DataFormatError
from motivgraph.logging import setup_logging
from motivgraph.private import set_private_umask

if TYPE_CHECKING:
    # typer vendors click (typer._click): its groups are handed that Context and hold its Commands, not the
    # `click` package's
    from typer._click import Command, Context

_HELP_ASKED = "motivgraph.help_asked"  # ctx.meta key: the arguments after the root ask for a help screen
_built: dict[tuple[str, int], Command] = {}  # (name, plugins.version()) -> the command, built on first use


class _RootCommands(typer.core.TyperGroup):
    """The commands are the "commands" parts (motivgraph/plugins.py: the built-in lines, e.g. `motivgraph search`
    or `motivgraph eval`, and installed packages'), each imported only when invoked or its own help is shown;
    the root help lists the built-in ones from their summaries. Every command looked up here gets readable
    metavars, examples and the exit codes in its help (cli/helpfmt.py)."""

    _listing = False  # True while the root help is written: a command's name and summary are enough

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        polish(self, "")
        return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Context) -> Any:
        # the callback below cannot see the sub-command's arguments: note here whether they ask for help
        rest = [*ctx._protected_args, *ctx.args]
        ctx.meta[_HELP_ASKED] = "--help" in (rest[: rest.index("--")] if "--" in rest else rest)
        return super().invoke(ctx)

    def format_help(self, ctx: Context, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def list_commands(self, ctx: Context) -> list[str]:
        builtin = [n for n in plugins.BUILTIN["commands"] if n not in self.commands]
        names = [*super().list_commands(ctx), *builtin]
        return names + sorted(n for n in plugins.names("commands") if n not in names)

    def get_command(self, ctx: Context, name: str) -> Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is not None:
            return polish(cmd, name)
        builtin = plugins.BUILTIN["commands"]
        if name not in builtin and name not in plugins.names("commands"):  # only then scan installed packages
            return None
        if self._listing and name in builtin:  # its summary, without importing its code
            return typer.core.TyperCommand(name, help=builtin[name].summary)
        part = plugins.load("commands", name)
        if self._listing:  # a package's command: its own summary (importing it is the price of listing it)
            return typer.core.TyperCommand(name, help=str(part.summary or "")) if part.cli() else None
        key = (name, plugins.version())
        if key not in _built:  # built once per process: a module's register() runs once, as a lookup repeats
            sub = part.cli()
            if sub is None:  # routes only
                return None
            cmd = typer.main.get_command(sub) if isinstance(sub, typer.Typer) else sub
            cmd.name = name
            _built[key] = polish(cmd, name)
        return _built[key]


app = typer.Typer(
    cls=_RootCommands,
    name="motivgraph",
    help="MotivGraph: build a problem–challenge–solution graph from papers and ideate on it. "
    "Data lives in MOTIVGRAPH_DATA_DIR (default ~/.motivgraph); logs go to stderr, results to stdout.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
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
    if ctx.meta.get(_HELP_ASKED):  # a help screen needs no settings, logging or data dir (and starts faster)
        return
    from motivgraph.terminal import EXIT_CONFIG, err_console, load_settings  # local: light CLI path (help above)

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
    from motivgraph.cli.common import announce_new_data_dir  # local: light CLI path (help above)

    ctx.call_on_close(announce_new_data_dir(settings))


def _log_level(settings: object, verbose: bool) -> str:
    """MOTIVGRAPH_LOG_LEVEL when set; else INFO with --verbose and WARNING without (a command's own output
    says what happened; INFO lines are for when something needs explaining)."""
    if "log_level" in getattr(settings, "model_fields_set", set()):
        level = str(getattr(settings, "log_level", "INFO"))
        return "INFO" if verbose and level in ("WARNING", "ERROR", "CRITICAL") else level
    return "INFO" if verbose else "WARNING"


def main() -> None:
    set_private_umask()  # private by default: everything this process (and the servers it starts) writes is 600/700
    app()
