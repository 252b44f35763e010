"""`motivgraph llm ...`: check the configured model, show per-role models, show spend, and start,
stop or inspect the local model server (MOTIVGRAPH_LLM_MODEL=local:...)."""

from __future__ import annotations

import asyncio
import json
import time

import typer
from rich.table import Table

from motivgraph.errors import ConfigError
from motivgraph.terminal import EXIT_GATE, cli_errors, console, err_console, load_settings

app = typer.Typer(help="LLM access: check the configured model, per-role models, usage and cost; the local "
                  "model server.", no_args_is_help=True)

PING = "Reply with exactly one word: pong"


@app.command("check")
@cli_errors
def check(
    role: str = typer.Option(None, "--role", help="Check the model of this role (default: the default model)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    extraction: bool = typer.Option(
        False, "--extraction",
        help="Run the configured extractor (the LLM miner, or the offline extractor when no model is set) on a "
        "short research text shipped with MotivGraph: triples valid, quotes located in the text, time per paper, "
        "and whether `ingest`'s extraction gate would let it through.",
    ),
) -> None:
    """Send one tiny prompt to the configured model (bypassing the cache) and print the reply; with
    --extraction, check the extractor on a shipped research text instead."""
    from motivgraph.llm import LLMClient  # local: light CLI path

    if extraction:
        _check_extraction(as_json)
        return
    settings = load_settings()
    client = LLMClient(settings)
    try:
        spec = client.require(role)
        client.check_reachable([role])  # a server that is down: exit 4 naming it, not a retried call's exit 1
        where = spec.base_url or getattr(client.chat_model(role), "openai_api_base", None) or "provider default"
        structured = client.structured_method(role or "default")
        out = err_console if as_json else console
        out.print(f"model [bold]{spec.model_id}[/bold] at {where} (role {role or 'default'}, structured output: "
                  f"{structured} in the {spec.dialect} dialect)", highlight=False)
        t0 = time.perf_counter()
        msg = asyncio.run(client.chat(role or "default", PING, cache=False))
        dt = time.perf_counter() - t0
    finally:
        client.close()
    u = client.usage.total()
    reply = msg.content if isinstance(msg.content, str) else str(msg.content)
    if as_json:
        typer.echo(json.dumps({"ok": True, "role": role or "default", "model": spec.model_id, "endpoint": where,
                               "structured_output": structured, "dialect": spec.dialect, "seconds": round(dt, 3),
                               "reply": reply.strip()[:200], "input_tokens": u.input_tokens,
                               "output_tokens": u.output_tokens, "cost_usd": u.cost_usd}, indent=2))
        return
    console.print(f"[green]ok[/green] in {dt:.2f}s: {reply.strip()[:200]!r} "
                  f"({u.input_tokens} tokens in, {u.output_tokens} out, ${u.cost_usd:.6f})", highlight=False)


def _check_extraction(as_json: bool) -> None:
    from motivgraph.graph.runtime import Runtime  # local: light CLI path
    from motivgraph.miner.extract import LLMExtractor  # local: light CLI path
    from motivgraph.miner.extraction_check import run_extraction_check  # local: light CLI path
    from motivgraph.miner.extractor_choice import decide_extractor  # local: light CLI path
    from motivgraph.miner.heuristic import HeuristicExtractor  # local: light CLI path

    settings = load_settings()
    _, client = decide_extractor(settings)
    rt = Runtime(settings)
    try:
        model = None
        extractor: LLMExtractor | HeuristicExtractor
        if client is not None:
            client.check_reachable(["extractor"])
            model = client.model_id("extractor")
            extractor = LLMExtractor(client, settings.miner, rt.embedder)
        else:
            extractor = HeuristicExtractor(rt.embedder, settings.miner)
        res = asyncio.run(run_extraction_check(extractor, settings.miner, model))
    finally:
        if client is not None:
            client.close()
        rt.close()
    if as_json:
        typer.echo(json.dumps(res.as_json(), indent=2, ensure_ascii=False))
    else:
        who = f"LLM miner ({model})" if model else "offline heuristic extractor (no MOTIVGRAPH_LLM_MODEL)"
        t = Table(title=f"extraction check — {who}", show_header=False)
        rate = "-" if res.rate is None else f"{res.rate:.0%}"
        for k, v in (
            ("triples valid / rejected", f"{res.triples_valid} / {res.triples_rejected}"),
            ("quotes located in the text", f"{res.quotes_located} / {res.quotes} ({rate})"),
            *((f"expected {e} sentences quoted", f"{res.expected_quoted[e]} / {res.expected_total[e]}")
              for e in res.expected_total),
            ("time per paper", f"{res.seconds:.2f}s"),
            ("ingest gate", f"{'passes' if res.gate_passes else 'STOPS'} (needs {res.gate_threshold:.0%} located, "
                            "MOTIVGRAPH_MINER_GATE_MIN_VERIFIED_RATE)"),
        ):
            t.add_row(k, v)
        console.print(t)
        if res.reason and not res.triples_valid:
            console.print(f"no triples: {res.reason}", highlight=False)
        for line in res.unlocated:
            console.print(f"[yellow]not located[/yellow] {line}", highlight=False)
    if not res.gate_passes:
        err_console.print("this extractor would stop `motivgraph ingest` at the extraction gate (exit 6): use a "
                          "stronger model (MOTIVGRAPH_LLM_MODEL), or `ingest --accept-unverified`", highlight=False)
        raise typer.Exit(EXIT_GATE)


@app.command("roles")
@cli_errors
def roles(as_json: bool = typer.Option(False, "--json", help="Print JSON rows instead of a table.")) -> None:
    """Show which model and endpoint each role uses (API keys are never shown)."""
    from motivgraph.llm import ROLES, resolve_spec  # local: light CLI path

    cfg = load_settings().llm
    table = Table("role", "model", "base_url", "temperature", "max_tokens", "context", "tools")
    problems: dict[str, list[str]] = {}
    settings = load_settings()
    rows: list[dict[str, object]] = []
    for role in ROLES:
        try:
            spec = resolve_spec(cfg, role, settings.data_dir)
            base = spec.base_url or ("local server" if spec.provider == "local" else "-")
            table.add_row(role, spec.model_id, base, str(spec.temperature), str(spec.max_tokens),
                          str(spec.context_window or "-"), "native" if spec.native_tools else "text")
            rows.append({"role": role, "model": spec.model_id, "provider": spec.provider, "base_url": spec.base_url,
                         "temperature": spec.temperature, "max_tokens": spec.max_tokens,
                         "context_window": spec.context_window, "tools": "native" if spec.native_tools else "text",
                         "error": None})
        except ConfigError as e:
            problems.setdefault(str(e), []).append(role)
            table.add_row(role, "[red]not usable[/red]", "", "", "", "", "")
            rows.append({"role": role, "model": None, "error": str(e)})
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
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
    from motivgraph.llm.cache import LLMCache, cache_path  # local: light CLI path

    path = cache_path(load_settings())
    if not path.exists():
        if as_json:  # --json always prints one JSON document: no rows yet
            typer.echo("[]")
        else:
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


def _local_dir() -> tuple:
    from motivgraph.llm.local import state_dir  # local: light CLI path

    settings = load_settings()
    return settings, state_dir(settings.data_dir, settings.llm.local_dir)


@app.command("start")
@cli_errors
def start() -> None:
    """Start (or reuse) the local model server of MOTIVGRAPH_LLM_MODEL=local:... and print where it listens."""
    from motivgraph.llm import resolve_spec  # local: light CLI path

    settings = load_settings()
    spec = resolve_spec(settings.llm, None, settings.data_dir)
    if spec.provider != "local":
        raise ConfigError(f"MOTIVGRAPH_LLM_MODEL is {spec.model_id}, not a local: model (e.g. local:smollm2)")
    t0 = time.perf_counter()
    st, reused = spec.local.start()
    console.print(f"{'reusing' if reused else 'started'} [bold]{st.model}[/bold] (pid {st.pid}) at {st.base_url} "
                  f"in {time.perf_counter() - t0:.1f}s — context {st.context_window} tokens, {st.threads} "
                  f"thread(s); log {spec.local.logfile}", highlight=False)


@app.command("stop")
@cli_errors
def stop() -> None:
    """Stop the local model server(s) this data directory started (MOTIVGRAPH_LLM_LOCAL_DIR)."""
    from motivgraph.llm.local import stop_all  # local: light CLI path

    _, directory = _local_dir()
    stopped = stop_all(directory) if directory.exists() else []
    if stopped:
        console.print(f"stopped the local model server for {', '.join(stopped)}", highlight=False)
    else:
        console.print(f"no local model server running (state dir {directory})", highlight=False)


@app.command("status")
@cli_errors
def status(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Local model servers recorded for this data directory: model, pid, port, running or not."""
    from motivgraph.llm.local import all_servers, server_for_state  # local: light CLI path

    _, directory = _local_dir()
    rows = []
    for f, st in all_servers(directory) if directory.exists() else []:
        if st is None:
            continue
        running = server_for_state(f, st).running() is not None
        rows.append({**st.public(), "running": running})
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        console.print(f"no local model server recorded (state dir {directory})", highlight=False)
        return
    table = Table("model", "running", "pid", "url", "context", "threads", "file")
    for r in rows:
        table.add_row(r["model"], "yes" if r["running"] else "[red]no[/red]", str(r["pid"]), r["base_url"],
                      str(r["context_window"]), str(r["threads"]), r["path"])
    console.print(table)
