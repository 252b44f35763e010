"""`motivgraph extract FILE.pdf` (triples of one paper, nothing stored) and
`motivgraph parents build` (hierarchical parent nodes)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from motivgraph.choices import NODE_TYPES, ParentKind, ParserName
from motivgraph.errors import BudgetExceeded, ParseError
from motivgraph.terminal import cli_errors, console, err_console, load_settings

parents_app = typer.Typer(help="Hierarchical parent nodes for problems and challenges.", no_args_is_help=True)


@cli_errors
def extract_cmd(
    file: Path = typer.Argument(..., help="The PDF (or GROBID .tei.xml) to extract triples from."),
    json_out: bool = typer.Option(False, "--json", help="Print the extraction result as JSON."),
    offline: bool = typer.Option(False, "--offline", help="Use the offline heuristic extractor even if an LLM is set."),
    parser: ParserName | None = typer.Option(None, "--parser", help="Parser: auto, grobid or pdf (offline)."),
) -> None:
    """Parse one paper and print its (problem, challenge, solution) triples; nothing is stored."""
    from motivgraph.embeddings import get_embedder  # local: light CLI path
    from motivgraph.ingest.walker import sha256_file  # local: light CLI path
    from motivgraph.miner.evidence import verify_result  # local: light CLI path
    from motivgraph.miner.extract import LLMExtractor  # local: light CLI path
    from motivgraph.miner.extractor_choice import decide_extractor  # local: light CLI path
    from motivgraph.miner.heuristic import HeuristicExtractor  # local: light CLI path

    if not file.is_file():
        raise ParseError(f"no such file: {file}")
    settings = load_settings()
    _, client = decide_extractor(settings, offline=offline)  # the same decision as `ingest`
    if client is None:
        err_console.print("[yellow]offline extractor[/yellow] (no LLM configured; set MOTIVGRAPH_LLM_MODEL "
                          "for full SciMotivMiner quality)")

    async def go() -> Any:
        if file.name.endswith(".xml"):
            from motivgraph.ingest.tei import tei_to_paper  # local: light CLI path

            paper = tei_to_paper(file.read_bytes(), source_path=str(file))
        else:
            from motivgraph.ingest.parsers import make_parser  # local: light CLI path

            p = await make_parser(settings.ingest, parser, workers=1)
            try:
                paper = await p.parse(file.resolve(), await asyncio.to_thread(sha256_file, file))
            finally:
                await p.aclose()
        embedder = get_embedder(settings.embedding)
        ext = LLMExtractor(client, settings.miner, embedder) if client else HeuristicExtractor(embedder, settings.miner)
        result = await ext.extract(paper)
        result.evidence = verify_result(paper, result)  # each quote located in the paper, or why not (#39)
        return paper, result

    try:
        paper, res = asyncio.run(go())
    finally:
        if client is not None:
            client.close()
    if json_out:
        print(json.dumps({"title": paper.title, **res.model_dump(mode="json")}, indent=2, ensure_ascii=False))
        return
    console.print(f"[bold]{paper.title or '(no title)'}[/bold]  ({res.extractor}, sections: "
                  f"{', '.join(res.sections_used) or '-'})", highlight=False)
    if not res.triples:
        console.print(f"[yellow]no triples:[/yellow] {res.reason}", highlight=False)
    for i, t in enumerate(res.triples, 1):
        tab = Table(title=f"triple {i} (from {t.section or '?'})", show_header=False, title_justify="left")
        tab.add_column("part", style="bold")
        tab.add_column("name")
        tab.add_column("description")
        tab.add_column("evidence")
        ev = res.evidence[i - 1] if len(res.evidence) == len(res.triples) else None
        for part in NODE_TYPES:
            node = getattr(t, part)
            quotes = ev.of(part) if ev is not None else []
            cell = "\n".join(
                (f"\u201c{q.text}\u201d ({q.section}" + (f", p. {q.page}" if q.page else "") + ")") if q.verified
                else f"[yellow]unverified[/yellow] \u201c{q.text}\u201d: {q.reason}" for q in quotes
            ) or "[yellow]no quote[/yellow]"
            tab.add_row(part, node.name, node.description, cell)
        console.print(tab)
    for r in res.rejected:
        console.print(f"[red]rejected[/red] {r.triple.challenge.name!r}: {'; '.join(r.violations)}", highlight=False)


@parents_app.command("build")
@cli_errors
def parents_build_cmd(
    node_type: ParentKind | None = typer.Option(None, "--type", help="problem or challenge (default: both)."),
    levels: int = typer.Option(None, "--levels", min=1, max=5, help="Levels of parents (default: setting)."),
    offline: bool = typer.Option(False, "--offline", help="Cluster by embeddings only, even if an LLM is set."),
    concurrency: int = typer.Option(None, "--concurrency", min=1, max=256, help="Judge calls in flight."),
    budget_usd: float = typer.Option(None, "--budget-usd", min=0, help="Stop cleanly when this spend is reached."),
    relaxed: bool = typer.Option(
        False, "--relaxed", help="Dispatch focal nodes freely for throughput (result depends on reply timing)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the per-level results as JSON."),
) -> None:
    """Add parent nodes over the graph's problems and challenges; incremental and resumable."""
    from motivgraph.graph.runtime import Runtime  # local: light CLI path
    from motivgraph.llm import LLMClient  # local: light CLI path
    from motivgraph.miner.decisions import DecisionLog  # local: light CLI path
    from motivgraph.miner.parents import ParentBuilder  # local: light CLI path

    settings = load_settings()
    rt = Runtime(settings)
    client = None if offline else LLMClient(settings, budget_usd=budget_usd)
    if client is not None and not client.is_configured("parent_judge"):
        client.close()
        client = None
    decisions = DecisionLog.for_data_dir(settings.data_dir)
    try:
        builder = ParentBuilder(
            rt.store, rt.embedder, settings.miner, decisions, client=client, index=rt.node_index,
            concurrency=concurrency or settings.llm.concurrency, relaxed=relaxed,
        )
        if builder.offline:
            err_console.print("[yellow]offline parent addition[/yellow]: embedding clustering, parents named after "
                              "the most central member (set MOTIVGRAPH_LLM_MODEL for the LLM judge)")
        kinds: list[ParentKind] = [node_type] if node_type else ["problem", "challenge"]
        with err_console.status("building parents…"):
            try:
                results = asyncio.run(builder.build(kinds, levels, progress=lambda m: err_console.print(m)))
            except BudgetExceeded as e:
                err_console.print(f"[yellow]stopped:[/yellow] {e}")
                raise
        if as_json:
            typer.echo(json.dumps({"levels": [r.as_dict() for r in results],
                                   "cost_usd": client.usage.cost_usd if client is not None else 0.0,
                                   "offline": builder.offline}, indent=2, default=str))
            return
        t = Table(title="parent nodes")
        for col in ("type", "level", "parents", "children", "joined", "focal", "judge calls", "cached", "failures"):
            t.add_column(col, justify="right")
        for r in results:
            d = r.as_dict()
            t.add_row(*(str(d[k]) for k in ("type", "level", "parents", "children", "joined", "focal",
                                            "judge_calls", "cache_hits", "failures")))
        console.print(t)
        if client is not None:
            console.print(f"LLM cost: ${client.usage.cost_usd:.4f}")
    finally:
        decisions.close()
        if client is not None:
            client.close()
        rt.close()


def register(root: typer.Typer) -> None:
    """Add `extract` and the `parents` group to the root CLI."""
    root.command("extract")(extract_cmd)
    root.add_typer(parents_app, name="parents")
