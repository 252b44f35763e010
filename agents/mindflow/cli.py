"""`motivgraph method mindflow train`: train the controller by anchor tournaments on a topics file.

    motivgraph method mindflow train --topics ../shared/eval/topics.jsonl --steps 30 --group 4 \
        --budget-usd 5 [--out DIR] [--dry-run]

Topics come from a JSONL file (topic text + background papers, e.g. eval/topics.jsonl; the
`target_papers` there are never read) and are embedded once with the graph's embedding model. The
output directory (default: an entry of the controller store, store.py, keyed by the ideator and
embedding model) holds the checkpoint (resumed automatically when the command is run again), the
controller (which `ideate --method mindflow` finds in the store for its model, or takes from
`--controller DIR`), the JSONL log and the PNG plot. The controller file records the model, the
embedding model, the topics, the reward, the steps and the seed it was trained with (`show`).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import typer

from motivgraph.agents.mindflow.config import FlowConfig, TrainConfig
from motivgraph.errors import ConfigError, MotivGraphError

app = typer.Typer(help="MindFlow: train the thinking-flow controller.", no_args_is_help=True)


def _tool_client(settings: Any) -> Any | None:
    """Graph tools for the analogical operator: the API when configured, else the local graph; None
    (the operator then draws analogies without the graph) when neither can be reached."""
    try:
        if settings.api.url:
            from motivgraph.agents.tools.http import HttpToolClient  # local: light CLI path

            return HttpToolClient.from_settings(settings)
        from motivgraph.agents.tools.inprocess import InProcessToolClient  # local: light CLI path

        return InProcessToolClient(settings)
    except Exception as e:  # no graph: training still works, without graph material
        typer.echo(f"note: no graph tools ({type(e).__name__}: {e}); analogical runs without graph material")
        return None


@app.command("train")
def train(
    topics: Path | None = typer.Option(None, "--topics",
                                       help="JSONL of topics (topic_name/topic + background_papers)."),
    from_graph: int = typer.Option(0, "--from-graph",
                                   help="Instead of --topics: N problem nodes drawn from the graph as topics."),
    steps: int = typer.Option(30, "--steps", help="Policy-gradient steps."),
    group: int = typer.Option(4, "--group", help="K: flows per topic and step, anchor included."),
    lr: float = typer.Option(0.05, "--lr", help="Learning rate (Adam)."),
    budget_usd: float | None = typer.Option(None, "--budget-usd", help="Stop cleanly once this much is spent."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print calls, tokens and dollars; call no model."),
    out: Path | None = typer.Option(None, "--out", help="Output dir (default: the controller store, "
                                    "<data_dir>/mindflow/controllers/<ideator>--<embedding model>/<topics>-<key>, "
                                    "which ideate --method mindflow searches)."),
    seed: int = typer.Option(0, "--seed", help="Seeds split, sampling, presentation order and coins."),
    layers: int = typer.Option(4, "--layers", help="Supernet layers L."),
    threshold: float = typer.Option(0.25, "--threshold", help="Per-layer cumulative-probability threshold."),
    hidden: int = typer.Option(0, "--hidden", help="Controller hidden units (0: linear)."),
    cost_lambda: float = typer.Option(0.1, "--cost-lambda", help="λ: weight of the flow cost in the reward."),
    cost_mode: str = typer.Option("tokens", "--cost-mode", help="tokens | ops."),
    val_every: int = typer.Option(10, "--val-every", help="Validate every N steps (0: start and end only)."),
    val_fraction: float = typer.Option(0.0, "--val-fraction", min=0.0, max=0.9, help="Share of the topics held "
                                       "out for validation only (default 0: train on every topic and measure "
                                       "the validation reward on them, as the evaluation's 70-30 split does)."),
    topics_per_step: int = typer.Option(1, "--topics-per-step", help="Training topics per step."),
    no_tools: bool = typer.Option(False, "--no-tools", help="Do not use graph tools (analogical without graph)."),
) -> None:
    from motivgraph.agents.mindflow.topics import Topic, load_topics  # local: light CLI path
    from motivgraph.settings import Settings  # local: light CLI path

    try:
        # read now, not the process's cached copy: the model and data dir decide the store entry
        settings = Settings()
        fcfg = FlowConfig(layers=layers, threshold=threshold, hidden=hidden)
        tcfg = TrainConfig(steps=steps, group=group, lr=lr, seed=seed, cost_lambda=cost_lambda,
                           cost_mode=cost_mode, val_every=val_every, topics_per_step=topics_per_step,
                           val_fraction=val_fraction)
        if (topics is None) == (from_graph <= 0):
            raise ConfigError("give exactly one of --topics FILE and --from-graph N")
        if topics is not None:
            items = load_topics(topics)
        else:
            items = [Topic(f"graph-{i}", f"a problem drawn from the graph ({i + 1})") for i in range(from_graph)]
        if dry_run:
            _dry_run(settings, fcfg, tcfg, items)
            return
        outcome = asyncio.run(_train(settings, fcfg, tcfg, items if topics else [], out, budget_usd, no_tools,
                                     from_graph, topics.stem if topics else "graph"))
    except MotivGraphError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    except ValueError as e:  # pydantic validation of the settings above
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    typer.echo(outcome)


def _dry_run(settings: Any, fcfg: FlowConfig, tcfg: TrainConfig, items: list[Any]) -> None:
    import numpy as np  # local: light CLI path (`mindflow --help` needs no numpy)

    from motivgraph.agents.mindflow.controller import Controller  # local: light CLI path
    from motivgraph.agents.mindflow.cost import REFERENCE_MODELS, price_lines, training_tally  # local: light CLI path
    from motivgraph.agents.mindflow.operators import resolve_operators  # local: light CLI path
    from motivgraph.llm.factory import resolve_spec  # local: light CLI path
    from motivgraph.llm.tokens import count_tokens  # local: light CLI path

    ctrl = Controller(resolve_operators(fcfg), 1, fcfg)
    bg = int(np.mean([count_tokens(t.background(fcfg.background_papers, fcfg.abstract_chars)) for t in items]))
    est = training_tally(ctrl, tcfg, np.zeros(1), items[0].text, bg, len(items))
    models = []
    for role in ("ideator", "judge"):
        with contextlib.suppress(MotivGraphError):
            models.append(resolve_spec(settings.llm, role, settings.data_dir).model)
    models = list(dict.fromkeys(models + list(REFERENCE_MODELS)))
    prices = settings.llm.prices
    typer.echo(f"MindFlow training dry run (no model called): {len(items)} topics ({est.n_val} validation), "
               f"{tcfg.steps} steps, K={tcfg.group}, {tcfg.topics_per_step} topic(s)/step, L={fcfg.layers}, "
               f"threshold {fcfg.threshold}, mean background {bg} tokens; untrained prior flows")
    typer.echo(price_lines("per generated idea", est.idea, prices, models))
    typer.echo(price_lines("per training step", est.step, prices, models))
    typer.echo(price_lines(f"validation ({est.val_points}x)", est.validation, prices, models))
    typer.echo(price_lines("total", est.total, prices, models))
    typer.echo("calls per idea by operator: " + ", ".join(f"{o} {c:.2f}" for o, c in sorted(est.idea.by_op.items())))


async def _graph_topics(tools: Any, items: list[Any], n: int, seed: int) -> tuple[list[Any], dict[str, str]]:
    """Topics drawn from the graph (when `n`), and each topic's graph nodes as prompt text."""
    from motivgraph.agents.core.background import TopicBackground  # local: light CLI path
    from motivgraph.agents.mindflow.topics import Topic  # local: light CLI path

    if n:
        if tools is None:
            raise ConfigError("--from-graph needs the graph (a data dir with a graph, or MOTIVGRAPH_API_URL)")
        from motivgraph.api.contract.tools import RANDOM_NODES  # local: light CLI path

        drawn = await tools.call(RANDOM_NODES, n=n, types=["problem"], seed=seed)
        items = [Topic(node.key, f"{node.name}: {node.description}" if node.description else node.name)
                 for node in drawn.nodes]
        if not items:
            raise ConfigError("--from-graph: the graph holds no problem nodes")
    graph: dict[str, str] = {}
    for t in items if tools is not None else []:
        try:
            bg = await TopicBackground.from_graph(tools, t.text)
        except MotivGraphError as e:
            typer.echo(f"note: no graph background for {t.id}: {e}")
            continue
        graph[t.id] = "\n".join(f"- {x.get('type')}: {x.get('name')} — {str(x.get('description', ''))[:160]}"
                                for x in bg.nodes)
        if n:
            t.papers = [p.model_dump() for p in bg.papers]
    return items, graph


def store_entry(settings: Any, model: str, fcfg: FlowConfig, tcfg: TrainConfig, items: list[Any], stem: str) -> Path:
    """The store entry `train` writes to without --out: keyed by the ideator and embedding model, named
    by the topics and every setting but the step count, so re-running the command (with more steps)
    resumes the same checkpoint and other settings do not overwrite it."""
    from motivgraph.agents.mindflow.store import content_key, entry_dir  # local: light CLI path

    key = content_key(sorted((t.id, t.text) for t in items), fcfg.model_dump(mode="json"),
                      tcfg.model_dump(mode="json", exclude={"steps", "val_every", "parallel_flows"}))
    return entry_dir(settings.data_dir, model, settings.embedding.model, f"{stem}-{key}")


async def _train(settings: Any, fcfg: FlowConfig, tcfg: TrainConfig, items: list[Any], out_dir: Path | None,
                 budget_usd: float | None, no_tools: bool, from_graph: int = 0, stem: str = "graph") -> str:
    from motivgraph.agents.core.llm import PlatformLLMClient  # local: light CLI path
    from motivgraph.agents.mindflow.protocol import IDEATOR_ROLE, JUDGE_ROLE, train_controller  # local: light CLI path

    tools = None if no_tools else _tool_client(settings)
    client = PlatformLLMClient(settings, budget_usd=budget_usd)
    try:
        for role in (IDEATOR_ROLE, JUDGE_ROLE):
            # bind both roles' models now: a config error surfaces before any spend, and a local model
            # server is reached while idle rather than from a busy moment mid-step
            client.require(role)
        items, graph = await _graph_topics(tools, items, from_graph, tcfg.seed)
        if out_dir is None:
            out_dir = store_entry(settings, str(client.model_id(IDEATOR_ROLE)), fcfg, tcfg, items,
                                  stem if not from_graph else f"graph{from_graph}")
            typer.echo(f"controller store entry (for {client.model_id(IDEATOR_ROLE)} / {settings.embedding.model}; "
                       f"ideate --method mindflow picks the newest one for this model): {out_dir}")

        def show(rec: dict[str, Any]) -> None:
            probs = " ".join(f"{k[:5]}={v:.2f}" for k, v in rec.get("op_probs", {}).items())
            if rec["type"] == "step":
                typer.echo(f"step {rec['step']:4d}  reward {rec['reward_mean']:+.3f}  ops/flow {rec['mean_n_ops']:.1f}"
                           f"  tokens {rec['tokens']:,}  ${rec['cost_usd']:.4f} (total ${rec['cost_usd_total']:.4f})"
                           f"  {probs}")
            else:
                typer.echo(f"{rec['type']} @ step {rec['step']}: reward {rec['reward']:.3f}  {probs}")

        res, reuses = await train_controller(settings, client, fcfg, tcfg, items, out_dir, tools=tools, graph=graph,
                                             on_event=show)
        if reuses:
            typer.echo("note: a single topic — validation reused the training topic")
    finally:
        if tools is not None:
            await tools.aclose()
        client.close()
    gain = (f"{res.final_val - res.prior_val:+.3f}" if res.final_val is not None and res.prior_val is not None
            else "n/a")
    lines = [f"{'resumed at step ' + str(res.resumed_from) + '; ' if res.resumed_from else ''}"
             f"stopped: {res.stopped} after {res.steps_done} steps",
             f"validation reward: untrained prior {res.prior_val}, controller {res.final_val} ({gain})",
             f"controller: {res.out_dir / 'controller.npz'}  (ideate --method mindflow --controller {res.out_dir}; "
             "without --controller ideate picks the newest stored one for its model)",
             f"log: {res.out_dir / 'train_log.jsonl'}  plot: {res.out_dir / 'training.png'}"]
    if res.message:
        lines.append(res.message)
    return "\n".join(lines)


@app.command("show")
def show(
    controller: Path = typer.Argument(..., help="controller.npz or a training directory."),
    topic: str | None = typer.Option(None, "--topic", help="Show the flow this topic gets (embeds it)."),
) -> None:
    """A controller's operators, settings and, for a topic, its per-layer probabilities and greedy flow."""
    from motivgraph.agents.mindflow.controller import Controller  # local: light CLI path
    from motivgraph.settings import Settings  # local: light CLI path

    try:
        ctrl = Controller.load(controller)
    except MotivGraphError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"operators: {', '.join(ctrl.operators)}; layers {ctrl.cfg.layers}; threshold {ctrl.cfg.threshold}; "
               f"trained {ctrl.steps_trained} steps; embeddings {ctrl.embedding_model or '?'} ({ctrl.embed_dim}-dim)")
    tr = ctrl.training
    if tr:
        reward = tr.get("reward", {})
        typer.echo(f"trained for ideator {tr.get('ideator_model') or '?'} on {tr.get('topics', {}).get('count', '?')} "
                   f"topics (train {', '.join(tr.get('topics', {}).get('train_ids', []))}); seed {tr.get('seed')}; "
                   f"reward {reward.get('formula', '?')} with K={reward.get('group')}, "
                   f"lambda={reward.get('cost_lambda')}, cost {reward.get('cost_mode')}")
    if topic:
        from motivgraph.embeddings import get_embedder  # local: light CLI path

        emb = get_embedder(Settings().embedding).embed([topic])[0]
        for li, row in enumerate(ctrl.mean_probs(emb), start=1):
            typer.echo(f"layer {li}: " + "  ".join(f"{o}={p:.2f}" for o, p in zip(ctrl.operators, row, strict=True)))
        typer.echo("greedy flow: " + " → ".join(ctrl.greedy(emb).ops))


@app.command("controllers")
def controllers() -> None:
    """The stored trained controllers with their ids, oldest first: an id is what `--controller` and the HTTP body's
    `controller` field take (over HTTP a controller is named by id only, never by a server path)."""
    from motivgraph.agents.mindflow.store import store_root, stored  # local: light CLI path
    from motivgraph.settings import Settings  # local: light CLI path

    settings = Settings()
    rows = stored(settings.data_dir)
    if not rows:
        typer.echo(f"no stored controllers under {store_root(settings.data_dir)} (train one with "
                   "`motivgraph method mindflow train`)")
        return
    for cid, path in rows:
        typer.echo(f"{cid}\t{path.parent}")
