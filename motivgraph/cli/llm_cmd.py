"""`motivgraph llm ...`: check the configured model, show per-role models, show spend."""

from __future__ import annotations

import asyncio
import json
import time

import typer
from rich.table import Table

from motivgraph.cli.common import cli_errors, console, load_settings

app = typer.Typer(help="LLM access: check the configured model, per-role models, usage and cost.",
                  no_args_is_help=True)

PING = "Reply with exactly one word: pong"


@app.command("check")
@cli_errors
def check(
    role: str = typer.Option(None, "--role", help="Check the model of this role (default: the default model)."),
) -> None:
    """Send one tiny prompt to the configured model (bypassing the cache) and print the reply."""
    from motivgraph.llm import LLMClient

    settings = load_settings()
    client = LLMClient(settings)
    try:
        spec = client.require(role)
        console.print(f"model [bold]{spec.model_id}[/bold] at {spec.base_url or 'provider default'}"
                      f" (role {role or 'default'})", highlight=False)
        t0 = time.perf_counter()
        msg = asyncio.run(client.chat(role or "default", PING, cache=False))
        dt = time.perf_counter() - t0
    finally:
        client.close()
    u = client.usage.total()
    reply = msg.content if isinstance(msg.content, str) else str(msg.content)
    console.print(f"[green]ok[/green] in {dt:.2f}s: {reply.strip()[:200]!r} "
                  f"({u.input_tokens} tokens in, {u.output_tokens} out, ${u.cost_usd:.6f})", highlight=False)


@app.command("roles")
@cli_errors
def roles() -> None:
    """Show which model and endpoint each role uses (API keys are never shown)."""
    from motivgraph.errors import ConfigError
    from motivgraph.llm import ROLES, resolve_spec

    cfg = load_settings().llm
    table = Table("role", "model", "base_url", "temperature", "max_tokens")
    problems: dict[str, list[str]] = {}
    for role in ROLES:
        try:
            spec = resolve_spec(cfg, role)
            table.add_row(role, spec.model_id, spec.base_url or "-", str(spec.temperature), str(spec.max_tokens))
        except ConfigError as e:
            problems.setdefault(str(e), []).append(role)
            table.add_row(role, "[red]not usable[/red]", "", "", "")
    console.print(table)
    for message, names in problems.items():
        console.print(f"[red]{', '.join(names)}:[/red] {message}", highlight=False)


@app.command("usage")
@cli_errors
def usage(
    run: str = typer.Option(None, "--run", help="Only this run id (default: every run recorded)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON rows instead of a table."),
) -> None:
    """Tokens, calls, cache hits and estimated cost recorded in the LLM ledger, by run, role and model."""
    from motivgraph.llm.cache import LLMCache, cache_path

    path = cache_path(load_settings())
    if not path.exists():
        console.print(f"No LLM calls recorded yet ({path} does not exist).")
        return
    cache = LLMCache(path)
    try:
        rows = cache.usage_rows(run)
    finally:
        cache.close()
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table("run", "role", "model", "calls", "cache hits", "tokens in", "tokens out", "cost USD")
    total = [0, 0, 0, 0, 0.0]
    for r in rows:
        table.add_row(r["run_id"], r["role"], r["model"], str(r["calls"]), str(r["cache_hits"]),
                      str(r["input_tokens"]), str(r["output_tokens"]), f"{r['cost_usd']:.4f}")
        for i, k in enumerate(("calls", "cache_hits", "input_tokens", "output_tokens", "cost_usd")):
            total[i] += r[k]
    table.add_row("[bold]total[/bold]", "", "", *(str(v) for v in total[:4]), f"{total[4]:.4f}")
    console.print(table)
