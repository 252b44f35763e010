"""`motivgraph search "query"` (node search by meaning, through the backend the tools use) and `motivgraph reindex`."""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from motivgraph.choices import NODE_TYPES, Engine, IndexKindChoice
from motivgraph.cli.common import EMPTY_GRAPH_ADVICE, graph_is_empty
from motivgraph.errors import ConfigError, IndexMissing
from motivgraph.graph.runtime import Runtime
from motivgraph.terminal import EXIT_FAILED, cli_errors, console, err_console, load_settings

if TYPE_CHECKING:
    from motivgraph.graph.grouped_index import IndexStatus
    from motivgraph.graph.models import NodeEvidence



def _types(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    out: list[str] = []
    for v in values:
        t = v.strip().lower()
        if t not in NODE_TYPES:
            raise ConfigError(f"--type {v!r} is not a node type; use one of {', '.join(NODE_TYPES)}")
        out.append(t)
    return out


@cli_errors
def search(
    query: str = typer.Argument(..., help="Text to search for (matched against node name + description)."),
    node_type: list[str] = typer.Option(
        None, "--type", "-t", help="Only this node type: problem, challenge or solution (repeatable)."
    ),
    k: int = typer.Option(10, "-k", "--top", min=1, max=1000, help="Number of matches to show."),
    min_score: float = typer.Option(None, "--min-score", min=-1.0, max=1.0, help="Hide matches below this cosine."),
    as_json: bool = typer.Option(False, "--json", help="Print the matches as JSON."),
    evidence: bool = typer.Option(
        False, "--evidence", "-e",
        help="Under each match, the quotes of the papers that state it: paper, page, section, and whether the "
             "miner located the quote in the paper (at most MOTIVGRAPH_API_EVIDENCE_QUOTES per match).",
    ),
) -> None:
    """Print the graph nodes closest in meaning to QUERY (cosine similarity, best first).

    Searches where the tools do: the FAISS node index, or Neo4j's vector indexes with
    MOTIVGRAPH_INDEX_BACKEND=neo4j. With --evidence, each match is followed by the sentences
    of its papers that state it, so every node can be checked against its source."""
    # the tools' backend choice, so the CLI and the tools answer a query alike
    from motivgraph.graph import search_backends  # local: light CLI path

    if not query.strip():
        raise ConfigError("The search query is empty; pass some text, e.g. motivgraph search \"label scarcity\"")
    types = _types(node_type)
    rt = Runtime(load_settings())
    try:
        backend = search_backends.open_node_search(rt)
        try:
            backend.ensure_ready()
        except IndexMissing:
            if graph_is_empty(rt.store):  # nothing to index yet: the fix is ingest, not reindex
                raise IndexMissing(EMPTY_GRAPH_ADVICE) from None
            raise
        hits = backend.search_vectors(rt.embedder.embed([query]), k, types, min_score,  # type: ignore[arg-type]
                                      check=False)[0]  # readiness checked just above
        per = rt.settings.api.evidence_quotes
        found = rt.store.node_evidence([h.key for h in hits], per_node=per) if evidence and hits else {}
    finally:
        rt.close()
    if as_json:
        rows = [h.model_dump() for h in hits]
        if evidence:
            for row in rows:
                row["evidence"] = [e.model_dump(mode="json") for e in found.get(row["key"], [])]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not hits:
        console.print("[yellow]no matches[/yellow]")
        return
    table = Table(title=f"Top {len(hits)} for {query!r}")
    table.add_column("score", justify="right")
    table.add_column("type")
    table.add_column("name")
    table.add_column("key", style="dim")
    for h in hits:
        table.add_row(f"{h.score:.3f}", h.type + (f" (L{h.level})" if h.level else ""), h.name, h.key)
    console.print(table)
    if evidence:  # below the table: a quote is a sentence or two, too long for a table cell
        for n, h in enumerate(hits, 1):
            console.print(f"{n}. [bold]{escape(h.name)}[/bold] [dim]{escape(h.key)}[/dim]")
            for line in evidence_lines(found.get(h.key, []), per):
                console.print(line)


def evidence_lines(statements: list[NodeEvidence], per: int) -> list[str]:
    """Rich-markup lines: up to `per` quotes (verified first), each with paper, page and section."""
    lines: list[str] = []
    for st in statements:
        for q in st.quotes:
            where = ", ".join(x for x in (f"p. {q.page}" if q.page else "", q.section or "") if x)
            mark = "[green]✓[/green]" if q.verified else f"[red]✗ {escape(q.reason or 'not located')}[/red]"
            src = f"{st.title or st.paper_id}{f' ({st.year})' if st.year else ''}{f', {where}' if where else ''}"
            lines.append(f"  {mark} “{escape(q.text)}” [dim]— {escape(src)}[/dim]")
    lines.sort(key=lambda ln: "[green]" not in ln)  # verified first, the store's order within each group
    if not lines:
        return ["  [yellow]no quoted evidence stored for this node[/yellow]"]
    return lines[:per]


def status_table(rows: list[tuple[str, IndexStatus]]) -> Table:
    table = Table(title="Vector indexes")
    for col in ("index", "state", "items", "kind", "graph version", "index version", "built"):
        table.add_column(col)
    colours = {"ok": "green", "stale": "yellow", "missing": "yellow", "corrupt": "red"}
    for name, st in rows:
        table.add_row(
            name, f"[{colours[st.state]}]{st.state}[/]", str(sum(st.counts.values())),
            ",".join(sorted(set(st.kinds.values()))) or "-", str(st.graph_version), str(st.index_version),
            st.built_at or "-",
        )
    return table


@cli_errors
def reindex(
    nodes: bool = typer.Option(True, "--nodes/--no-nodes", help="Rebuild the node index."),
    papers: bool = typer.Option(True, "--papers/--no-papers", help="Rebuild the paper (title + abstract) index."),
    kind: IndexKindChoice | None = typer.Option(
        None, "--kind", help="Index kind for this build: auto, exact or hnsw (default: MOTIVGRAPH_INDEX_KIND)."
    ),
    check: bool = typer.Option(
        False, "--check", help="Only report whether the indexes are up to date; exit 1 when one is not."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the index states as JSON (progress stays on stderr)."),
    re_embed: bool = typer.Option(
        False, "--re-embed", help="Embed every text again instead of reusing the stored vectors of unchanged ones."
    ),
    engine: Engine = typer.Option(
        "local", "--engine", help="Where the texts are embedded: local (this process) or ray (batches over the "
        "workers of a local Ray started for the command, or of --ray-address; `pip install 'motivgraph[ray]'`).",
    ),
    ray_address: str = typer.Option(
        None, "--ray-address", help="With --engine ray: an existing Ray cluster ('auto', 'host:6379', "
        "'ray://host:10001'; default MOTIVGRAPH_RAY_ADDRESS, else a local Ray).",
    ),
) -> None:
    """Rebuild the FAISS indexes from the graph. A node or paper whose text is unchanged keeps its stored
    vector (same model), so `--kind` switches embed nothing; --re-embed embeds everything. With
    MOTIVGRAPH_INDEX_BACKEND=neo4j the node embeddings and vector indexes are written to Neo4j instead."""
    from motivgraph.graph.paper_index import PaperIndex  # local: light CLI path
    from motivgraph.graph.vector_index import NodeIndex  # local: light CLI path
    from motivgraph.ray_cluster import check_reachable, import_ray  # local: light CLI path

    settings = load_settings()
    if kind is not None:
        settings.index.kind = kind
    if ray_address is not None:
        if engine != "ray":
            raise ConfigError("--ray-address needs --engine ray")
        settings.ray.address = ray_address
    on_ray = engine == "ray" and not check
    if on_ray:  # checked before anything opens: the cluster answering, Ray installed
        if settings.ray.address:
            check_reachable(settings.ray.address)
        import_ray()
    rt = Runtime(settings)
    stack = contextlib.ExitStack()
    try:
        if on_ray:
            from motivgraph.embeddings.ray_bulk import RayEmbedder  # local: light CLI path
            from motivgraph.ray_cluster import ray_session  # local: light CLI path

            info = stack.enter_context(ray_session(settings.ray))
            err_console.print(f"embedding on {info.label}", highlight=False)
            # every index this command opens embeds through the cluster (the Runtime's embedder is lazy)
            rt.embedder = RayEmbedder(settings.embedding, workers=info.cpus, max_batch=settings.ray.embed_batch,
                                      retries=settings.ray.max_retries)
        targets = [(name, cls) for name, cls, on in (("nodes", NodeIndex, nodes), ("papers", PaperIndex, papers)) if on]
        in_neo4j = settings.index.backend == "neo4j"
        if in_neo4j:
            from motivgraph.graph.neo4j_search import Neo4jNodeVectors  # local: light CLI path
        if check:
            rows = [(name, Neo4jNodeVectors(settings, rt.store, None).status() if in_neo4j and cls is NodeIndex
                     else cls.peek(settings, rt.store)) for name, cls in targets]
            _print_rows(rows, as_json)
            bad = [st.message for _, st in rows if st.state != "ok"]
            for msg in bad:
                err_console.print(f"[yellow]{msg}[/yellow]")
            if bad:
                raise typer.Exit(EXIT_FAILED)
            return
        rows = []
        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=err_console, transient=False,
        ) as bar:
            for name, cls in targets:
                task = bar.add_task(f"embedding {name}", total=None)

                def tick(done: int, total: int, task: TaskID = task) -> None:
                    bar.update(task, completed=done, total=total)

                index: Any
                if cls is NodeIndex:
                    index = Neo4jNodeVectors(settings, rt.store, rt.embedder) if in_neo4j else rt.node_index
                else:
                    index = cls.open(settings, rt.store, rt.embedder)
                if in_neo4j and cls is NodeIndex:
                    rows.append((name, index.rebuild(progress=tick)))
                else:
                    rows.append((name, index.rebuild(progress=tick, reuse=not re_embed)))
        _print_rows(rows, as_json)
        if graph_is_empty(rt.store):
            err_console.print(f"[yellow]{EMPTY_GRAPH_ADVICE}[/yellow]", highlight=False)
    finally:
        rt.close()
        stack.close()


def _print_rows(rows: list[tuple[str, IndexStatus]], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps({name: st.model_dump(mode="json") for name, st in rows}, indent=2))
    else:
        console.print(status_table(rows))


def register(app: typer.Typer) -> None:
    app.command("search")(search)
    app.command("reindex")(reindex)
