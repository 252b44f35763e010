"""Generation for the evaluation: every method on every topic through the registry (this module never
imports a method), each until it has delivered N accepted ideas or used its runs, or from existing runs.

Child runs are ordinary runs in the runs directory (ids `<eval id>-<method>-<topic>-<k>`), recorded in
the evaluation's state so a resumed evaluation continues them instead of starting new ones.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from motivgraph.agents.core import IdeaRecord, RunSpec, create_run, get_method, run_method
from motivgraph.agents.core.context import add_usage
from motivgraph.agents.core.rundir import COMPLETED, RunDir
from motivgraph.agents.core.validity import GateConfig, embedder_similarity, gate
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.topics import EvalTopic
from motivgraph.errors import BudgetExceeded, RunNotFound
from motivgraph.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Delivery:
    """What one method delivered on one topic."""

    method: str
    topic_id: str
    ideas: list[IdeaRecord] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    reason: str = ""  # why fewer than N (empty when N were delivered)
    rejected: list[dict[str, str]] = field(default_factory=list)  # {run_id, title, reason} of every rejected idea


@dataclass
class View:
    """What one method sees on one topic: a tool client on a graph (factory) and/or a background file."""

    tools: Callable[[], Any] | None = None
    background_file: Path | None = None
    label: str = ""


def safe_id(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", s).strip("-.")[:60] or "x"


def write_background(topic: EvalTopic, root: Path) -> Path:
    """The topic's BACKGROUND papers only, as a one-topic topics file the methods read: the target papers
    are not even in the file, so no reader can leak them."""
    path = root / f"{safe_id(topic.topic_id)}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    row = {"topic_id": topic.topic_id, "topic_name": topic.topic,
           "background_papers": [p.model_dump(mode="json") for p in topic.background]}
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def accepted(ideas: list[dict[str, Any]] | list[IdeaRecord]) -> list[IdeaRecord]:
    recs = [i if isinstance(i, IdeaRecord) else IdeaRecord.model_validate(i) for i in ideas]
    return [r for r in recs if r.status == "accepted"]


def take(d: Delivery, run: RunDir, topic: str, check: IdeaGate) -> list[IdeaRecord]:
    """The valid accepted ideas of `run`, added to `d`; every rejected one (by its method, or by the shared
    validity gate -- applied again here, so runs made before the gate or elsewhere count only valid ideas) is
    recorded in `d.rejected` with its reason."""
    recs = [IdeaRecord.model_validate(i) for i in run.ideas()]
    got = []
    for r in check(recs, topic):
        if r.status == "accepted":
            got.append(r)
        elif r.status == "rejected":
            d.rejected.append({"run_id": run.id, "title": r.title,
                               "reason": r.rejection or str(r.extra.get("rejection") or "rejected by the method")})
    d.ideas += got
    return got


IdeaGate = Callable[[list[IdeaRecord], str], list[IdeaRecord]]


def settings_gate(settings: Settings) -> IdeaGate:
    """The shared validity gate with the settings' thresholds (the off-topic check when the embedder loads)."""
    cfg = GateConfig(min_body_words=settings.agents.idea_min_words,
                     offtopic_threshold=settings.agents.offtopic_threshold)
    sim: list[Any] = []

    def check(ideas: list[IdeaRecord], topic: str) -> list[IdeaRecord]:
        if cfg.offtopic_threshold > 0 and not sim and any(i.status == "accepted" for i in ideas):
            from motivgraph.embeddings import get_embedder  # local: loading the model is slow

            sim.append(embedder_similarity(get_embedder(settings.embedding)))
        return gate(ideas, topic=topic, cfg=cfg, similarity=sim[0] if sim else None)
    return check


def usage_of(run: RunDir) -> dict[str, Any]:
    return dict(run.status().get("usage") or {})


class Generator:
    def __init__(self, settings: Settings, config: EvalConfig, eval_id: str, state: dict[str, Any], *,
                 llm_factory: Callable[[], Any], views: Callable[[EvalTopic, str], View],
                 save_state: Callable[[], None],
                 spent: Callable[[], float], emit: Callable[[dict[str, Any]], None]) -> None:
        self.settings = settings
        self.config = config
        self.eval_id = eval_id
        self.state = state
        self.llm_factory = llm_factory
        self.views = views
        self.save_state = save_state
        self.spent = spent
        self.emit = emit
        self.check = settings_gate(settings)

    def _method_config(self, method: str, need: int) -> dict[str, Any]:
        cfg = dict(self.config.method_configs.get(method, {}))
        cls = get_method(method)
        if self.config.ideas_field in cls.config_model.model_fields:
            cfg[self.config.ideas_field] = need
        return cfg

    def _budget_left(self) -> float | None:
        if self.config.budget_usd is None:
            return None
        left = self.config.budget_usd - self.spent()
        if left <= 0:
            raise BudgetExceeded(f"evaluation budget ${self.config.budget_usd:.2f} reached")
        return left

    async def _run_child(self, run: RunDir, view: View) -> None:
        client = None
        if view.tools is not None and get_method(run.status().get("method", "")).uses_tools:
            client = view.tools()
        try:
            await run_method(self.settings, run, llm=self.llm_factory(), tool_client=client,
                             budget_usd=self._budget_left())
        finally:
            close = getattr(client, "aclose", None)
            if close is not None:
                await close()

    async def deliver(self, method: str, topic: EvalTopic) -> Delivery:
        n = self.config.n_ideas
        d = Delivery(method, topic.topic_id)
        view = self.views(topic, method)
        key = f"{method}|{topic.topic_id}"
        children: list[str] = self.state.setdefault("children", {}).setdefault(key, [])
        for rid in list(children):
            run = RunDir.open(self.settings.runs_dir, rid)
            if run.status().get("status") != COMPLETED:
                try:
                    await self._run_child(run, view)
                except BudgetExceeded:
                    raise
                except Exception as e:  # the child recorded its failure; it counts as one attempt
                    d.reason = f"run {rid} {type(e).__name__}: {e}"
            d.runs.append(rid)
            take(d, run, topic.topic, self.check)
            d.usage = add_usage(d.usage, usage_of(run))
        while len(d.ideas) < n and len(children) < self.config.max_runs:
            need = n - len(d.ideas)
            spec = RunSpec(method=method, topic=topic.topic, topic_id=topic.topic_id,
                           config=self._method_config(method, need), seed=self.config.seed + len(children),
                           background_file=str(view.background_file) if view.background_file is not None else None,
                           # a top-up run continues the method's own memory of this topic's earlier runs
                           memory_from=list(children))
            rid = f"{self.eval_id}-{safe_id(method)}-{safe_id(topic.topic_id)}-{len(children) + 1}"
            run = create_run(self.settings.runs_dir, spec, run_id=rid)
            run.update_status(parent=self.eval_id)
            children.append(rid)
            self.save_state()
            self.emit({"type": "child", "method": method, "topic_id": topic.topic_id, "run_id": rid, "need": need})
            try:
                await self._run_child(run, view)
            except BudgetExceeded:
                raise
            except Exception as e:
                d.reason = f"run {rid} {type(e).__name__}: {e}"
            d.runs.append(rid)
            got = take(d, run, topic.topic, self.check)
            d.usage = add_usage(d.usage, usage_of(run))
            if not got and not d.reason:
                d.reason = f"run {rid} delivered no accepted idea"
        if len(d.ideas) >= n:
            d.ideas, d.reason = d.ideas[:n], ""
        elif not d.reason:
            d.reason = f"{len(d.ideas)} of {n} accepted after {len(children)} run(s)"
        return d


def from_existing(settings: Settings, method: str, run_ids: list[str], topic: EvalTopic, n: int,
                  check: IdeaGate | None = None) -> Delivery:
    """Ideas of existing runs (evaluate without regenerating): runs whose topic id (or topic) matches; only
    the ideas that pass the shared validity gate count."""
    d = Delivery(method, topic.topic_id)
    check = check or settings_gate(settings)
    for rid in run_ids:
        try:
            run = RunDir.open(settings.runs_dir, rid)
        except RunNotFound:
            raise
        st = run.status()
        spec = st.get("spec") or {}
        if spec.get("topic_id") not in (None, topic.topic_id) or (
                spec.get("topic_id") is None and (spec.get("topic") or st.get("topic")) != topic.topic):
            continue
        if st.get("method") not in (None, method):
            continue
        d.runs.append(rid)
        take(d, run, topic.topic, check)
        d.usage = add_usage(d.usage, usage_of(run))
    if len(d.ideas) >= n:
        d.ideas = d.ideas[:n]
    else:
        d.reason = f"existing runs hold {len(d.ideas)} of {n} accepted ideas"
    return d
