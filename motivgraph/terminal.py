"""What every command shares, whichever layer defines it: the consoles, settings loading, and a
MotivGraphError turned into one red line and an exit code.

The top-level commands live in `cli/` (a composition root); commands contributed as parts of
`motivgraph/plugins.py` (`motivgraph eval`, `motivgraph runs`, `motivgraph mindflow`) live in the agents layer,
below the CLI, so what they share with it is here in the kernel, defined once.

Exit codes (documented in docs/command-line.md and every `--help`, cli/helpfmt.EXIT_CODES): 0 ok, 1 the command ran
but something failed (e.g. some import lines invalid), 2 usage error (typer), 3 configuration or input error,
4 backend/service unreachable, 5 interrupted/budget, 6 the extraction gate (ingest). Under `--json` a failed command
still prints one JSON document on stdout: `{"error", "kind", "exit_code"}`.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from motivgraph.errors import (
    BackendUnavailable,
    BudgetExceeded,
    ConfigError,
    ExternalServiceError,
    ExtractionGateStop,
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
EXIT_GATE = 6  # an ingest's extraction is not supported by the papers (miner/gate.py, #39)

F = TypeVar("F", bound=Callable[..., Any])


def load_settings() -> Settings:
    # imported here: the settings tree (pydantic-settings) is the largest import of a command's start-up,
    # and a help screen needs none of it
    from pydantic import ValidationError  # local: light CLI path (help screens load no settings)

    from motivgraph.settings import Settings  # local: light CLI path (help screens load no settings)

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
    if isinstance(e, ExtractionGateStop):  # a clean stop like a spent budget, with its own code
        return EXIT_GATE
    if isinstance(e, BudgetExceeded):
        return EXIT_STOPPED
    return EXIT_FAILED


# The parameter names the commands give their `--json` flag.
_JSON_FLAGS = ("json_out", "as_json")


def wants_json(kwargs: dict[str, Any]) -> bool:
    """Whether a command was called with `--json` (its flag is one of `_JSON_FLAGS`)."""
    return any(kwargs.get(k) is True for k in _JSON_FLAGS)


def print_json_error(message: str, exit_code: int, kind: str) -> None:
    """A command that failed under `--json` still prints one JSON document on stdout, so a script reading it
    gets the error (and the exit code) instead of nothing; the red line on stderr is for a person."""
    sys.stdout.write(json.dumps({"error": message, "kind": kind, "exit_code": exit_code}, ensure_ascii=False)
                     + "\n")
    sys.stdout.flush()


def cli_errors(fn: F | None = None, *, on_interrupt: str = "re-run the same command to resume") -> Any:
    """Turn MotivGraphError into one red line and a meaningful exit code (no traceback); a Ctrl-C into
    `interrupted — <on_interrupt>` and exit 5. `@cli_errors`, or `@cli_errors(on_interrupt=...)`."""

    def decorate(f: F) -> F:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            as_json = wants_json(kwargs)
            try:
                return f(*args, **kwargs)
            except MotivGraphError as e:
                # The message is plain text: brackets in it (pip install 'motivgraph[anthropic]') are not markup.
                err_console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, markup=True)
                code = exit_code_for(e)
                if as_json:
                    print_json_error(str(e), code, type(e).__name__)
                raise typer.Exit(code) from None
            except KeyboardInterrupt:
                err_console.print(f"[yellow]interrupted[/yellow] — {on_interrupt}")
                if as_json:
                    print_json_error(f"interrupted — {on_interrupt}", EXIT_STOPPED, "KeyboardInterrupt")
                raise typer.Exit(EXIT_STOPPED) from None

        return wrapper  # type: ignore[return-value]

    return decorate(fn) if fn is not None else decorate
