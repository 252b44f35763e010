"""`motivgraph config show`: the effective settings, secrets masked."""

from __future__ import annotations

import json

import typer
from rich.syntax import Syntax

from motivgraph.terminal import cli_errors, console, load_settings

app = typer.Typer(help="Inspect settings (env MOTIVGRAPH_*, .env file).", no_args_is_help=True)


@app.command("show")
@cli_errors
def show(as_json: bool = typer.Option(False, "--json", help="Print plain JSON.")) -> None:
    """Print the effective settings with secrets masked."""
    data = load_settings().masked()
    text = json.dumps(data, indent=2, default=str)
    if as_json:
        typer.echo(text)
    else:
        console.print(Syntax(text, "json", theme="ansi_dark", background_color="default"))
