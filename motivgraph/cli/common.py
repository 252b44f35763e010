"""What every CLI command shares: the console, settings loading, and error-to-exit-code mapping.

Exit codes (documented in docs/command-line.md and every `--help`, cli/helpfmt.EXIT_CODES): 0 ok, 1 the command ran
but something failed (e.g. some import lines invalid), 2 usage error (typer), 3 configuration or input error,
4 backend/service unreachable, 5 interrupted/budget.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from motivgraph.errors import (
    NOTHING_TO_SEARCH,
    BackendUnavailable,
    BudgetExceeded,
    ConfigError,
    ExternalServiceError,
    MotivGraphError,
)

if TYPE_CHECKING:
    from motivgraph.settings import Settings

# Piped or redirected, Rich would lay tables out for 80 columns and cut ids and titles mid-word; a file or a
# pipe has no width, so output is as wide as its content unless the user sets COLUMNS.
PIPED_WIDTH = 1000
console = Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else PIPED_WIDTH)
err_console = Console(stderr=True, soft_wrap=True)  # one message, one line: greppable, never cut mid-path

EXIT_FAILED, EXIT_CONFIG, EXIT_UNAVAILABLE, EXIT_STOPPED = 1, 3, 4, 5

F = TypeVar("F", bound=Callable[..., Any])


def load_settings() -> Settings:
    # imported here: the settings tree (pydantic-settings) is the largest import of a command's start-up,
    # and a help screen needs none of it
    from pydantic import ValidationError

    from motivgraph.settings import Settings

    try:
        return Settings()
    except ValidationError as e:
        lines = [
            f"  MOTIVGRAPH_{'_'.join(str(p) for p in err['loc']).upper()}: {err['msg']}" for err in e.errors()
        ]
        raise ConfigError("Invalid settings:\n" + "\n".join(lines)) from e


def exit_code_for(e: MotivGraphError) -> int:
    if isinstance(e, ConfigError):
        return EXIT_CONFIG
    if isinstance(e, BackendUnavailable | ExternalServiceError):
        return EXIT_UNAVAILABLE
    if isinstance(e, BudgetExceeded):
        return EXIT_STOPPED
    return EXIT_FAILED


def cli_errors(fn: F) -> F:
    """Turn MotivGraphError into one red line and a meaningful exit code (no traceback)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MotivGraphError as e:
            # The message is plain text: brackets in it (pip install 'motivgraph[anthropic]') are not markup.
            err_console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, markup=True)
            raise typer.Exit(exit_code_for(e)) from None
        except KeyboardInterrupt:
            err_console.print("[yellow]interrupted[/yellow] — re-run the same command to resume")
            raise typer.Exit(EXIT_STOPPED) from None

    return wrapper  # type: ignore[return-value]


def is_tty() -> bool:
    return sys.stdout.isatty()


_announced: set[str] = set()


def data_dir_note(settings: Settings) -> str:
    default = Path(settings.data_dir).expanduser() == (Path.home() / ".motivgraph")
    why = "the default; set MOTIVGRAPH_DATA_DIR to use another" if default else "MOTIVGRAPH_DATA_DIR"
    return f"data dir: {settings.data_dir} ({why})"


def announce_data_dir(settings: Settings) -> None:
    """Say (on stderr, once per process) which data dir a command writes to."""
    key = str(settings.data_dir)
    if key not in _announced:
        _announced.add(key)
        err_console.print(data_dir_note(settings), highlight=False, markup=False)


def announce_new_data_dir(settings: Settings) -> Callable[[], None]:
    """A close-callback: when the command created the data dir, say which one (nothing is silent about where
    files go, least of all the default ~/.motivgraph)."""
    existed = Path(settings.data_dir).expanduser().exists()

    def after() -> None:
        if not existed and Path(settings.data_dir).expanduser().exists() and str(settings.data_dir) not in _announced:
            _announced.add(str(settings.data_dir))
            err_console.print(f"created {data_dir_note(settings)}", highlight=False, markup=False)

    return after


EMPTY_GRAPH_ADVICE = NOTHING_TO_SEARCH


def graph_is_empty(store: Any) -> bool:
    """No problem, challenge or solution node (papers whose triples were all rejected leave nothing to search)."""
    try:
        st = store.stats()
    except MotivGraphError:
        return False
    return not st.searchable_nodes
