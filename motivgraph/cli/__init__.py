"""The `motivgraph` command. Each command group lives in its own module, imported only when that command
runs or its help is shown (`COMMANDS` below): `motivgraph --help` and a command that needs no graph, model
or server start without importing the graph, ML or web stacks (a test checks: tests/unit/cli/test_lazy_imports.py)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import typer
import typer.core

from motivgraph import __version__
from motivgraph.cli.helpfmt import polish

if TYPE_CHECKING:
    # typer vendors click (typer._click): its groups are handed that Context and hold its Commands, not the
    # `click` package's
    from typer._click import Command, Context

# name -> (module that registers it, the first paragraph of its help). The order is the order of
# `motivgraph --help`. The summary is what the help listing shows without importing the module;
# tests/unit/cli/test_lazy_imports.py checks each one against the command's own help text. A module
# registers its commands with `register(app)`, or is a group whose `app` is added under the name.
COMMANDS: dict[str, tuple[str, str]] = {
    "search": ("motivgraph.cli.search_cmd",
               "Print the graph nodes closest in meaning to QUERY (cosine similarity, best first)."),
    "reindex": ("motivgraph.cli.search_cmd",
                "Rebuild the FAISS indexes from the graph. A node or paper whose text is unchanged keeps its stored\n"
                "vector (same model), so `--kind` switches embed nothing; --re-embed embeds everything. With\n"
                "MOTIVGRAPH_INDEX_BACKEND=neo4j the node embeddings and vector indexes are written to Neo4j instead."),
    "parse": ("motivgraph.cli.ingest_cmd", "Parse one PDF and print the structured paper (nothing is stored)."),
    "extract": ("motivgraph.cli.miner_cmd",
                "Parse one paper and print its (problem, challenge, solution) triples; nothing is stored."),
    "ideate": ("motivgraph.cli.ideate_cmd",
               "Run an ideation method on TOPIC, streaming its progress: `motivgraph ideate TOPIC --method NAME`\n"
               "followed by the method's own flags, e.g. `--method soiq --ideas 2 --rounds 3`; `--list-methods`\n"
               "shows every method's flags. TOPIC is not needed with --resume, or with a topics file and --topic-id."),
    "serve": ("motivgraph.cli.serve_cmd", "Serve the researcher tools, /triples, /nodes, /papers, /stats, /health "
              "and the explorer page over HTTP."),
    "mcp": ("motivgraph.cli.mcp_cmd",
            "Serve the researcher tools, node and paper resources over MCP on stdin/stdout."),
    "config": ("motivgraph.cli.config_cmd", "Inspect settings (env MOTIVGRAPH_*, .env file)."),
    "db": ("motivgraph.cli.db_cmd",
           "Manage the embedded FalkorDB server that stores the graph under the data directory."),
    "neo4j": ("motivgraph.cli.neo4j_cmd",
              "Run a local Neo4j 5.26 Community server (Bolt + Browser on loopback) from Maven Central, "
              "without Docker."),
    "embeddings": ("motivgraph.cli.embeddings_cmd",
                   "The embedding model: export it to ONNX (scripts/setup.sh does) and check the backend."),
    "llm": ("motivgraph.cli.llm_cmd",
            "LLM access: check the configured model, per-role models, usage and cost; the local model server."),
    "graph": ("motivgraph.cli.graph_cmd", "Export, import, copy and count the graph."),
    "ingest": ("motivgraph.cli.ingest_cmd",
               "Ingest PDFs into the graph (default: run). Also: `ingest status`, `ingest report`, "
               "`ingest --re-extract`."),
    "parents": ("motivgraph.cli.miner_cmd", "Hierarchical parent nodes for problems and challenges."),
    "method": ("motivgraph.cli.ideate_cmd",
               "Commands contributed by ideation methods (motivgraph method NAME COMMAND)."),
    "papers": ("motivgraph.cli.papers_cmd", "Papers in the graph: list them, show one, delete one with its triples."),
    "merges": ("motivgraph.cli.merges_cmd",
               "Review merge decisions (a mention joined an existing node) and undo one."),
}
# The same for the commands contributed as "commands" parts (motivgraph/plugins.py: built-in or from an installed
# package); one missing here is still listed, by importing it.
CONTRIBUTED: dict[str, str] = {
    "eval": "Evaluate ideation methods on the same topics; write one report.",
    "mindflow": "MindFlow: train the thinking-flow controller.",
    "runs": "List ideation runs of every method and show one run's report.",
}

_loaded: dict[str, dict[str, Command]] = {}  # module -> the commands it added (imported once per process)
_HELP_ASKED = "motivgraph.help_asked"  # ctx.meta key: the arguments after the root ask for a help screen


def load_commands(module: str) -> dict[str, Command]:
    """The commands `module` adds to the root CLI, by name (imports the module)."""
    if module not in _loaded:
        mod = importlib.import_module(module)
        holder = typer.Typer()
        if hasattr(mod, "register"):
            mod.register(holder)
        else:
            holder.add_typer(mod.app, name=next(n for n, (m, _) in COMMANDS.items() if m == module))
        _loaded[module] = dict(typer.main.get_group(holder).commands)
    return _loaded[module]


class _RootCommands(typer.core.TyperGroup):
    """The built-in commands (`COMMANDS`) plus the top-level commands of "commands" parts
    (motivgraph/plugins.py, e.g. `motivgraph eval`), imported only when invoked or their own help is
    shown; the root help lists them from their summaries. Every command looked up here gets readable
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
        from motivgraph import plugins

        names = [*super().list_commands(ctx), *(n for n in COMMANDS if n not in self.commands)]
        return names + sorted(n for n in plugins.names("commands") if n not in names)

    def get_command(self, ctx: Context, name: str) -> Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is not None:
            return polish(cmd, name)
        if name in COMMANDS:
            module, summary = COMMANDS[name]
            if self._listing:
                return typer.core.TyperCommand(name, help=summary)
            return polish(load_commands(module)[name], name)
        from motivgraph import plugins

        if name not in plugins.names("commands"):
            return None
        if self._listing and name in CONTRIBUTED:
            return typer.core.TyperCommand(name, help=CONTRIBUTED[name])
        part = plugins.load("commands", name)
        sub = part.cli()
        if sub is None:  # routes only
            return None
        if self._listing:  # a package's command: its own summary (importing it is the price of listing it)
            return typer.core.TyperCommand(name, help=str(getattr(part, "summary", "") or ""))
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
    from motivgraph.data_format import check_data_dir
    from motivgraph.errors import DataFormatError
    from motivgraph.logging import setup_logging
    from motivgraph.terminal import EXIT_CONFIG, err_console, load_settings

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
