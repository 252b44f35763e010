"""The evaluation as a run: `<runs_dir>/<eval id>/` holds status.json (method "eval"), transcript.jsonl
(progress events), state.json (child run ids per method and topic, for resume), judgments.jsonl (every
judgment), references/ (target papers as idea records), graphs.json (the per-topic graphs used), and the
results (report.py).

Steps: topics → what methods see per topic (by default a graph built from its background papers,
topic_graph.py; or the user's graph; or the papers as a file) → every visible paper checked against the
target papers (refuse, or warn with allow_target_leak) → every method
through the registry until N accepted ideas per topic (or existing runs) → references → judgments →
pure metrics → report. Re-running an unfinished evaluation resumes: child runs continue, finished ones
are read back, every judgment is answered from the LLM cache.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from motivgraph.agents.core import IdeaRecord, PlatformLLMClient, get_method
from motivgraph.agents.core.context import add_usage
from motivgraph.agents.core.rundir import (
    COMPLETED,
    FAILED,
    INTERRUPTED,
    RUNNING,
    STOPPED,
    RunDir,
    new_run_id,
    now_iso,
    owner_alive,
    process_start,
)
from motivgraph.agents.evaluation.aggregate import aggregate
from motivgraph.agents.evaluation.collect import Collector, IdeaItem, TopicEvidence
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.corpus_graph import build_corpus_graph, source_records
from motivgraph.agents.evaluation.cu_collect import collect_cu
from motivgraph.agents.evaluation.cutoff import (
    TopicFilter,
    after,
    paper_span,
    read_graph_dates,
    topic_cutoff,
    topic_filters,
)
from motivgraph.agents.evaluation.generate import Delivery, Generator, View, from_existing, write_background
from motivgraph.agents.evaluation.imported import imported_records
from motivgraph.agents.evaluation.judges import METRIC_ROLE, Judge, JudgmentLog, Panel
from motivgraph.agents.evaluation.metrics.cost import from_usage
from motivgraph.agents.evaluation.mindflow_split import prepare_mindflow
from motivgraph.agents.evaluation.protocol import ORDERS, panel_seats, protocol_rows
from motivgraph.agents.evaluation.protocol import as_dict as protocol_dicts
from motivgraph.agents.evaluation.references import topic_references
from motivgraph.agents.evaluation.report import EvalResults, write_report
from motivgraph.agents.evaluation.topic_graph import TopicGraph, build_topic_graph, stop_embedded
from motivgraph.agents.evaluation.topics import EvalTopic, leaked_targets
from motivgraph.agents.tools.inprocess import InProcessToolClient
from motivgraph.embeddings import get_embedder
from motivgraph.errors import BudgetExceeded, ConfigError, TargetLeak
from motivgraph.graph.models import PaperRecord
from motivgraph.graph.runtime import Runtime
from motivgraph.settings import RoleOverride, Settings

log = logging.getLogger(__name__)
EVAL_METHOD = "eval"  # the `method` of an evaluation's status.json: how the run list tells them apart


def create_eval(settings: Settings, config: EvalConfig, topics: list[EvalTopic], *, source: str,
                run_id: str | None = None) -> RunDir:
    """A new evaluation run directory holding the config and the topics as loaded."""
    label = f"{len(topics)} topic(s) × {', '.join(config.methods)}"
    run = RunDir.create(settings.runs_dir, EVAL_METHOD, label[:400], config.model_dump(mode="json"),
                        run_id=run_id or new_run_id(EVAL_METHOD))
    run.write_json("topics.json", {"source": source, "topics": [t.model_dump(mode="json") for t in topics]})
    run.update_status(kind="evaluation")
    return run


def load_eval(run: RunDir) -> tuple[EvalConfig, list[EvalTopic]]:
    st = run.status()
    if st.get("method") != EVAL_METHOD:
        raise ConfigError(f"run {run.id} is not an evaluation (method {st.get('method')!r})")
    data = run.read_json("topics.json")
    return EvalConfig.model_validate(st["config"]), [EvalTopic.model_validate(t) for t in data["topics"]]


def paper_json_available() -> bool:
    return importlib.util.find_spec("motivgraph.ingest.paper_json") is not None


def default_panel(settings: Settings, config: EvalConfig, budget_usd: float | None, run_id: str) -> list[Judge]:
    """The protocol's panel (protocol.panel_seats): every named judge model, filled to `panel_size` with
    independent seeded samples of them; each seat its own client (its own sample, so its own cache keys)."""

    judges = []
    for seat in panel_seats(settings, config):
        s = settings
        if seat.model is not None:
            llm = settings.llm.model_copy(update={"roles": {**settings.llm.roles,
                                                            "judge": RoleOverride(model=seat.model)}})
            s = settings.model_copy(update={"llm": llm})
        client = PlatformLLMClient(s, budget_usd=budget_usd, run_id=run_id)
        client.sample = seat.sample
        suffix = "" if seat.sample is None else seat.name[seat.name.rindex("#"):]  # '#s1': which extra sample
        name = seat.name if seat.model is not None else _judge_name(client) + suffix
        judges.append(Judge(name, client))
    return judges


def _judge_name(client: Any) -> str:
    try:
        return str(client.model_id("eval.score.judge"))
    except ConfigError:
        return "judge"


class Evaluation:
    def __init__(self, settings: Settings, run: RunDir, *, llm_factory: Callable[[], Any],
                 judges: list[Judge] | None = None, tool_client_factory: Callable[[], Any] | None = None,
                 topic_tool_client_factory: Callable[[Settings], Any] | None = None,
                 embed: Callable[[list[str]], Any] | None = None,
                 listener: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.settings = settings
        self.run = run
        self.config, self.topics = load_eval(run)
        # every topic of the evaluation, also those MindFlow's split later trains on (prepare_mindflow narrows
        # self.topics to the held-out ones): the shared corpus graph is made of all their background papers
        self.all_topics = list(self.topics)
        self.llm_factory = llm_factory
        self.tool_client_factory = tool_client_factory
        self.topic_tool_client_factory = topic_tool_client_factory
        self.mode = self.config.graph
        self.visible: dict[str, list[Any]] = {}  # per topic: every paper a method can see
        self.graphs: dict[str, TopicGraph] = {}
        self.filters: dict[str, TopicFilter] = {}  # per topic: what appeared after its cutoff (cutoff.py)
        self.listener = listener
        self.state: dict[str, Any] = run.load_state() or {"children": {}}
        self.judges = judges or default_panel(settings, self.config, None, run.id)
        self.panel = Panel(self.judges, JudgmentLog(run.path / "judgments.jsonl"))
        if embed is None and (self.config.on("diversity") or self.config.on("novelty")):
            embedder = get_embedder(settings.embedding)
            embed = embedder.embed
        self.embed = embed
        self.notes: list[str] = []
        self.deliveries: list[Delivery] = []
        self.mindflow_train_usd = 0.0  # what training MindFlow's controller cost (mindflow_split.py)
        self.mindflow_split_line = ""  # MindFlow's split as the protocol states it (mindflow_split.py)

    # ------------------------------------------------------------------ events
    def emit(self, ev: dict[str, Any]) -> None:
        e = self.run.append(ev)
        if self.listener is not None:
            try:
                self.listener(e)
            except Exception:  # a broken viewer must not stop the evaluation
                log.exception("progress listener failed")

    def save_state(self) -> None:
        self.run.save_state(self.state)

    def judge_usage(self) -> dict[str, dict[str, Any]]:
        return self.panel.usage()

    def spent(self) -> float:
        gen = sum(from_usage(d.usage).cost_usd for d in self.deliveries) + self.mindflow_train_usd
        return gen + self.graph_cost_usd() + from_usage(self.judge_usage()).cost_usd

    def graph_cost_usd(self) -> float:
        """What building this evaluation's per-topic graphs cost (the LLM miner; cached graphs: nothing)."""
        unique = {id(g): g for g in self.graphs.values()}  # the corpus graph is every topic's: counted once
        return sum(float(g.summary.get("cost_usd") or 0.0) + float((g.summary.get("parents") or {}).get("cost_usd")
                                                                    or 0.0) for g in unique.values() if g.built)

    # ------------------------------------------------------------------ what methods see
    async def prepare_views(self) -> str:
        """Decide (and build) what each method sees per topic; returns the graph mode in effect.

        per-topic: every topic's graph from its background papers (topic_graph.py); tool-using methods get
        a tool client on it (their background comes from that graph), the others the same papers as a file.
        current: the user's graph for every method. file: the background papers as a file, no graph."""
        mode = self.config.graph
        self.visible = {t.topic_id: list(t.background) for t in self.topics}
        self.graphs = {}
        if mode in ("corpus", "per-topic") and not paper_json_available():
            self.notes.append(f"{mode} graphs unavailable (no paper-JSON ingest): methods got each topic's "
                              "background papers as a file, not a graph")
            mode = "file"
        if mode == "corpus":
            root = Path(self.config.graph_cache or self.settings.cache_dir / "eval-graphs").expanduser()
            left = None if self.config.budget_usd is None else max(0.0, self.config.budget_usd - self.spent())
            tg, left_out = await build_corpus_graph(self.settings, self.all_topics, root, budget_usd=left,
                                                    emit=self.emit, s2=self.config.literature_s2)
            await asyncio.to_thread(stop_embedded, tg.settings)  # restarted by the tool clients of a topic's turn
            self.graphs = {t.topic_id: tg for t in self.topics}
            for t in self.topics:  # what the leak check looks at: the whole graph (later papers go in _apply_cutoffs)
                self.visible[t.topic_id] += tg.papers
            self.notes.append(f"corpus graph in {tg.settings.data_dir}: {len(tg.papers)} papers of "
                              f"{len(self.all_topics)} topic(s), {tg.triples} triples, "
                              f"{'built' if tg.built else 'reused from the cache'}; "
                              f"extraction cost ${self.graph_cost_usd():.4f}")
            if left_out:
                self.notes.append(f"left out of the corpus graph as target papers: {'; '.join(left_out[:5])}"
                                  + (f" (+{len(left_out) - 5} more)" if len(left_out) > 5 else ""))
            if tg.summary.get("missing"):
                self.notes.append(f"{len(tg.summary['missing'])} background paper(s) could not be ingested into the "
                                  f"corpus graph: {', '.join(tg.summary['missing'][:3])}")
            if not tg.triples:
                self.notes.append(f"the corpus graph holds no triple (extractor {tg.extractor}): tool-using methods "
                                  "got each topic's background papers as a file as well")
            self.run.write_json("graphs.json", {"corpus": {"key": tg.key, "data_dir": str(tg.settings.data_dir),
                                                           "graph": tg.settings.graph.name, "built": tg.built,
                                                           "triples": tg.triples, "topics": sorted(self.graphs),
                                                           "papers": [p.paper_id for p in tg.papers],
                                                           "left_out": left_out, "summary": tg.summary}})
        if mode == "per-topic":
            root = Path(self.config.graph_cache or self.settings.cache_dir / "eval-graphs").expanduser()
            self.emit({"type": "phase", "phase": "graphs", "total": len(self.topics)})
            for n, t in enumerate(self.topics, 1):
                left = None if self.config.budget_usd is None else max(0.0, self.config.budget_usd - self.spent())
                tg = await build_topic_graph(self.settings, t, root, budget_usd=left, s2=self.config.literature_s2)
                await asyncio.to_thread(stop_embedded, tg.settings)  # restarted by the tool clients of its turn
                self.graphs[t.topic_id] = tg
                self.visible[t.topic_id] += tg.papers
                self.emit({"type": "progress", "phase": "graphs", "done": n, "total": len(self.topics),
                           "topic_id": t.topic_id, "papers": len(tg.papers), "built": tg.built})
                if not tg.triples:
                    self.notes.append(f"{t.topic_id}: its graph holds no triple (extractor {tg.extractor}): "
                                      "tool-using methods got its background papers as a file as well")
                if tg.summary.get("missing"):
                    self.notes.append(f"{t.topic_id}: {len(tg.summary['missing'])} background paper(s) could not "
                                      f"be ingested into its graph: {', '.join(tg.summary['missing'][:3])}")
            built = sum(1 for g in self.graphs.values() if g.built)
            sizes = [len(g.papers) for g in self.graphs.values()]
            self.notes.append(f"per-topic graphs in {root}: {built} built, {len(self.graphs) - built} reused from "
                              f"the cache; papers per topic graph {min(sizes, default=0)}-{max(sizes, default=0)}; "
                              f"extraction cost ${self.graph_cost_usd():.4f}")
            self.run.write_json("graphs.json", {tid: {"key": g.key, "data_dir": str(g.settings.data_dir),
                                                      "graph": g.settings.graph.name, "built": g.built,
                                                      "triples": g.triples,
                                                      "papers": [p.paper_id for p in g.papers], "summary": g.summary}
                                                for tid, g in self.graphs.items()})
        elif mode == "current" and any(t.targets for t in self.topics):  # no targets: nothing can leak
            papers = await asyncio.to_thread(_graph_papers, self.settings)
            self.visible = {t.topic_id: list(papers) for t in self.topics}
        self.mode = mode
        await self._apply_cutoffs(mode)
        return mode

    async def _apply_cutoffs(self, mode: str) -> None:
        """Per topic, its cutoff and what of its graph appeared after it (cutoff.py): hidden from its methods'
        tools, and out of what the leak check counts as visible. Said per topic in the notes and the status."""

        records = source_records(self.all_topics)
        graphs: dict[str, Any] = {}
        by_dir: dict[str, Any] = {}
        for tid, tg in self.graphs.items():
            key = str(tg.settings.data_dir)
            if key not in by_dir and tg.papers:
                by_dir[key] = await asyncio.to_thread(read_graph_dates, tg.settings, records)

                await asyncio.to_thread(stop_embedded, tg.settings)
            if key in by_dir:
                graphs[tid] = (by_dir[key], len(tg.papers))
        if mode == "current" and any(topic_cutoff(t.background, self.config.cutoff)[0] for t in self.topics):
            gd = await asyncio.to_thread(read_graph_dates, self.settings, records)
            graphs = {t.topic_id: (gd, len(gd.paper_spans)) for t in self.topics}
        self.filters = topic_filters(self.topics, self.config.cutoff, graphs)
        held = self.state.get("held_back") or {}
        for t in self.topics:
            f = self.filters[t.topic_id]
            f.held.add(held.get(t.topic_id) or {})  # a resumed evaluation goes on counting
            self.visible[t.topic_id] = [p for p in self.visible.get(t.topic_id, [])
                                        if not isinstance(p, PaperRecord) or p.paper_id not in f.later_papers]
            if f.cutoff is not None:  # a --cutoff before some background paper holds that paper back too

                self.visible[t.topic_id] = [p for p in self.visible[t.topic_id] if isinstance(p, PaperRecord)
                                            or not after(paper_span(p), f.cutoff)]
        self.run.update_status(held_back={tid: f.summary() for tid, f in self.filters.items()})

    def held_back_notes(self) -> None:
        """The per-topic cutoff rows, into the notes (report) and the status, with what the runs' tools dropped."""
        self.state["held_back"] = {tid: dict(vars(f.held)) for tid, f in self.filters.items()}
        self.save_state()
        self.run.update_status(held_back={tid: f.summary() for tid, f in self.filters.items()})
        self.notes += [f.note(tid) for tid, f in self.filters.items()]

    def view(self, topic: EvalTopic, method: str) -> View:
        uses_tools = get_method(method).uses_tools
        if self.mode == "current":
            f = self.filters.get(topic.topic_id)
            factory = self.tool_client_factory
            if f is not None and factory is not None and f.cutoff is not None:
                outer = factory
                return View(tools=lambda: f.client(outer()), label="current graph")
            return View(tools=factory, label="current graph")
        if self.mode in ("per-topic", "corpus") and uses_tools:
            s = self.graphs[topic.topic_id].settings

            def tools() -> Any:
                if self.topic_tool_client_factory is not None:
                    inner = self.topic_tool_client_factory(s)
                else:
                    inner = InProcessToolClient(s)
                f = self.filters.get(topic.topic_id)
                return inner if f is None else f.client(inner)  # nothing after the topic's cutoff reaches it

            bg = None if self.graphs[topic.topic_id].triples else write_background(self._dated(topic),
                                                                                   self.run.path / "backgrounds")
            return View(tools=tools, background_file=bg, label=f"{self.mode} graph {s.graph.name}")
        return View(background_file=write_background(self._dated(topic), self.run.path / "backgrounds"),
                    label="background file")

    def _dated(self, topic: EvalTopic) -> EvalTopic:
        """The topic with only the background papers up to its cutoff (all of them, unless --cutoff is earlier)."""
        f = self.filters.get(topic.topic_id)
        if f is None or f.cutoff is None:
            return topic

        return topic.model_copy(update={"background": [p for p in topic.background
                                                       if not after(paper_span(p), f.cutoff)]})

    def check_leaks(self) -> None:
        """Refuse (or warn, with allow_target_leak) when a target paper is among what methods see: the
        background papers and every paper of the graph they are given (id / DOI / arXiv id / title)."""
        problems = []
        for t in self.topics:
            where = {"per-topic": "its topic graph or background", "corpus": "the corpus graph or its background",
                     "current": "the current graph"}.get(
                self.mode, "its background papers")
            for hit in leaked_targets(t, self.visible.get(t.topic_id, [])):
                problems.append(f"{t.topic_id}: target paper {hit} is in {where}")
        if problems:
            msg = "; ".join(problems[:8]) + (f" (+{len(problems) - 8} more)" if len(problems) > 8 else "")
            if not self.config.allow_target_leak:
                raise TargetLeak(f"target papers visible to the methods: {msg}. Remove them from the methods' "
                                 "background/graph, or pass --allow-target-leak to evaluate anyway (flagged in "
                                 "the report).")
            self.notes.append(f"WARNING target papers visible to methods: {msg}")
            self.emit({"type": "warning", "text": f"target papers visible to methods: {msg}"})

    # ------------------------------------------------------------------ the run
    async def execute(self) -> EvalResults:
        self.run.update_status(status=RUNNING, pid=os.getpid(), pid_start=process_start(os.getpid()), error=None,
                               started_at=now_iso())
        try:
            res = await self._execute()
        except BaseException as e:
            kind = STOPPED if isinstance(e, BudgetExceeded) else INTERRUPTED if isinstance(
                e, KeyboardInterrupt) or type(e).__name__ == "CancelledError" else FAILED
            msg = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            self.emit({"type": "status", "status": kind, "error": msg})
            self.run.update_status(status=kind, error=msg, usage=self._usage())
            raise
        self.emit({"type": "status", "status": COMPLETED})
        self.run.update_status(status=COMPLETED, usage=self._usage(), finished_at=now_iso(),
                               report="report.html")
        return res

    def _usage(self) -> dict[str, Any]:
        u: dict[str, Any] = {}
        for d in self.deliveries:
            u = add_usage(u, d.usage)
        return add_usage(u, self.judge_usage())

    def protocol(self, mode: str) -> list[tuple[str, str]]:
        """The protocol rows (protocol.py) with the panel as it actually sits, and its warnings noted."""

        rows = protocol_rows(self.settings, self.config, len(self.topics), mode)
        names = self.panel.names
        rows = [(k, f"{len(names)}: {', '.join(names)} (panel of at least {self.config.panel_size}; MindFlow "
                    "Section 5.2 uses three judges)") if k == "judges" else
                (k, f"{len(names) * ORDERS} per compared pair ({len(names)} judges x {ORDERS} orders; MindFlow: "
                    "3 x 2 = 6)") if k == "votes per pairwise dimension" else (k, v) for k, v in rows]
        if len(names) < self.config.panel_size:
            rows.append(("warning", f"WARNING the panel has {len(names)} judge(s), fewer than the protocol's "
                                    f"{self.config.panel_size}"))
        if self.mindflow_split_line:  # MindFlow's train/test split (mindflow_split.py)
            rows.append(("MindFlow split", self.mindflow_split_line.removeprefix("MindFlow: ")))
        return rows

    def check_reachable(self) -> list[str]:
        """Connect once to every model endpoint the evaluation will call -- the generating methods' roles and
        the judges' -- before any graph is built, controller trained or child run made: a server that is down
        stops the evaluation at once with LLMUnreachable (exit 4) naming it. Returns the endpoints checked."""
        roles = sorted({r for m in self.config.methods if self.config.generated(m)
                        for r in get_method(m).llm_roles()})
        checked: list[str] = []
        gen_client = self.llm_factory() if roles else None
        clients = [(gen_client, roles)] if roles else []
        clients += [(j.client, sorted(set(METRIC_ROLE.values()))) for j in self.judges]
        for client, wanted in clients:
            check = getattr(client, "check_reachable", None)
            if check is None:  # an in-process client (tests, scripted panels): nothing to connect to
                continue
            for role in wanted:
                try:
                    checked += check([role])
                except ConfigError:  # no model for this role: the phase that needs it says so
                    continue
        close = getattr(gen_client, "close", None)
        if close is not None:
            close()
        return sorted(set(checked))

    def imported_delivery(self, method: str, topic: EvalTopic) -> Delivery:
        """A system's ideas from --ideas-from on one topic, after the target-leak and cutoff checks
        (imported.py); the first n_ideas accepted ones are evaluated."""
        cfg = self.config
        recs, notes = imported_records(method, topic, cfg.imported.get(method, {}).get(topic.topic_id, []),
                                       source=cfg.ideas_from or "ideas file", cutoff_override=cfg.cutoff,
                                       allow_target_leak=cfg.allow_target_leak)
        self.notes.extend(notes)
        d = Delivery(method, topic.topic_id)
        ok = [r for r in recs if r.status == "accepted"]
        for r in recs:
            if r.status == "rejected":
                self.notes.append(f"{method} on {topic.topic_id}: idea {r.title!r} rejected: {r.rejection}")
        d.ideas = ok[: cfg.n_ideas]
        if len(ok) < cfg.n_ideas:
            d.reason = (f"the ideas file holds {len(ok)} accepted of {cfg.n_ideas} requested"
                        + (f" ({len(recs) - len(ok)} rejected by the leak/cutoff checks)" if len(recs) > len(ok)
                           else ""))
        return d

    async def _execute(self) -> EvalResults:
        await asyncio.to_thread(self.check_reachable)
        await prepare_mindflow(self)  # MindFlow's train/test split: trains its controller, keeps the held-out topics
        cfg = self.config
        mode = await self.prepare_views()
        self.check_leaks()
        protocol = self.protocol(mode)
        for k, v in protocol:
            if k == "warning" or (k == "panel fill" and "WARNING" in v):
                self.notes.append(v)
                self.emit({"type": "warning", "text": v})
        gen = Generator(self.settings, cfg, self.run.id, self.state, llm_factory=self.llm_factory,
                        views=self.view, save_state=self.save_state, spent=self.spent, emit=self.emit)
        total = len(self.topics) * len(cfg.methods)
        self.emit({"type": "phase", "phase": "generate", "total": total})
        done = 0
        for t in self.topics:
            try:
                for m in cfg.methods:
                    if m in cfg.imported:  # another system's ideas (--ideas-from): scored as generated ones
                        d = self.imported_delivery(m, t)
                    elif m in cfg.run_ids:
                        d = from_existing(self.settings, m, cfg.run_ids[m], t, cfg.n_ideas)
                    else:
                        d = await gen.deliver(m, t)
                    self.deliveries.append(d)
                    self._forward_warnings(d)
                    done += 1
                    self.emit({"type": "progress", "phase": "generate", "done": done, "total": total,
                               "method": m, "topic_id": t.topic_id, "ideas": len(d.ideas),
                               "requested": cfg.n_ideas})
            finally:
                if t.topic_id in self.graphs:  # one topic's graph server up at a time

                    await asyncio.to_thread(stop_embedded, self.graphs[t.topic_id].settings)
        self.held_back_notes()
        for j in self.judges:  # what is left of the budget is the judges'
            if cfg.budget_usd is not None:
                j.client.budget_usd = max(0.0, cfg.budget_usd - self.spent())
        evidence = []
        collector = Collector(self.panel, cfg, self.embed)
        self.emit({"type": "phase", "phase": "judge", "total": len(self.topics)})
        for n, t in enumerate(self.topics, 1):
            ev = TopicEvidence(topic=t, items=self._items(t))
            if cfg.on("reference") or cfg.on("cu"):
                ev.references = await topic_references(self.panel, t, self.run.path / "references")
                if not ev.references:
                    self.notes.append(f"{t.topic_id}: no target papers: no reference-based metrics")
            collector.embeddings(ev)
            await collector.per_idea(ev)
            await collector.diversity_pairs(ev)
            await collector.reference(ev)
            if cfg.on("cu"):
                await collect_cu(self.panel, ev, quality=cfg.cu_quality, distance=cfg.cu_distance)
            await collector.tournaments(ev, seed=cfg.seed + n)
            evidence.append(ev)
            self.emit({"type": "progress", "phase": "judge", "done": n, "total": len(self.topics),
                       "topic_id": t.topic_id, "spent_usd": round(self.spent(), 6)})
        if self.panel.failures:
            self.notes.append("unusable judge replies, left out of the metrics: " + ", ".join(
                f"{k} {v}" for k, v in sorted(self.panel.failures.items())) + " (see judgments.jsonl)")
        meta = {"eval_id": self.run.id, "n_topics": len(self.topics), "n_ideas": cfg.n_ideas,
                "judges": self.panel.names, "elo_start": cfg.elo_start, "elo_k": cfg.elo_k,
                "graph": mode, "finished_at": now_iso(), "config": cfg.model_dump(mode="json"),
                "protocol": protocol_dicts(protocol),  # each with its source: the paper's, ours or a substitute
                "unusable": dict(sorted(self.panel.failures.items())), "replies": self.panel.reply_rows()}
        res = aggregate(cfg, evidence, self.deliveries, self.judge_usage(), self.panel.names, meta, self.notes)
        self.emit({"type": "phase", "phase": "report"})
        write_report(res, self.run.path)
        self.run.write_json("deliveries.json", [{"method": d.method, "topic_id": d.topic_id, "runs": d.runs,
                                                 "ideas": len(d.ideas), "reason": d.reason,
                                                 "rejected": d.rejected}
                                                for d in self.deliveries])
        return res

    def _forward_warnings(self, d: Delivery) -> None:
        """A child run's warnings (e.g. a graph background that found nothing) as the evaluation's own events,
        so the CLI shows them while the evaluation runs."""
        for rid in d.runs:
            try:
                events = list(RunDir.open(self.settings.runs_dir, rid).events())
            except Exception:  # a child's transcript is evidence, not a reason to stop the evaluation
                continue
            for e in events:
                if e.get("type") == "warning" and (e.get("text") or e.get("message")):
                    self.emit({"type": "warning", "run_id": rid, "method": d.method, "topic_id": d.topic_id,
                               "text": f"{rid}: {e.get('text') or e.get('message')}"})

    def _items(self, t: EvalTopic) -> list[IdeaItem]:
        out = []
        for d in self.deliveries:
            if d.topic_id != t.topic_id:
                continue
            for k, rec in enumerate(d.ideas, 1):
                out.append(IdeaItem(f"{d.method}:{t.topic_id}:{k}", d.method, t.topic_id, _as_record(rec)))
        return out


def _graph_papers(settings: Settings) -> list[Any]:
    """Every paper of the user's graph (what methods see with --graph current)."""

    rt = Runtime(settings)
    try:
        return list(rt.store.iter_papers())
    finally:
        rt.close()


def _as_record(x: Any) -> IdeaRecord:
    return x if isinstance(x, IdeaRecord) else IdeaRecord.model_validate(x)


def list_evals(runs_dir: Path) -> list[dict[str, Any]]:
    """Every evaluation under the runs directory (newest first), as its status summary."""
    out = []
    for r in RunDir.list(runs_dir):
        try:
            st = r.status()
        except (OSError, json.JSONDecodeError):
            continue
        if st.get("method") != EVAL_METHOD:
            continue
        if st.get("status") == RUNNING and st.get("pid") != os.getpid() and not owner_alive(st):
            # its process is gone (killed, machine restarted): say so, in status.json too, not 'running' forever
            st = r.update_status(status=INTERRUPTED, error="the process running this evaluation stopped before "
                                 f"it finished; resume with: motivgraph eval --resume {r.id}")
        out.append({"id": r.id, "status": st.get("status"), "topic": st.get("topic"),
                    "created_at": st.get("created_at"), "finished_at": st.get("finished_at"),
                    "methods": (st.get("config") or {}).get("methods"), "report": (r.path / "report.html").exists()})
    return sorted(out, key=lambda x: x.get("created_at") or "", reverse=True)
