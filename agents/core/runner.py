"""Running a method in a run directory: the one place that turns a RunSpec into ideas, used by the
CLI and the JobManager alike.

Status is never left `running`: every way out of `run_method` records a terminal status with the
reason in status.json — `completed`; `stopped` (the budget was reached: resumable with a higher
budget); `interrupted` (Ctrl-C, cancellation); `failed` (any other exception, e.g. an LLM call that
could not finish: `LLMTimeout: ...`). `reason` names why a run has no accepted idea as
`<code>: <detail>` (agents/core/outcome.py): `llm_timeout: ...`, `no_valid_idea: ...` (a completed
run whose ideas were all rejected), ...; it is null after a run with an accepted idea. The event is
written before the status, so a reader that sees the terminal status has every event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from motivgraph.agents.core.background import TopicBackground
from motivgraph.agents.core.context import Listener, RunContext, RunSpec
from motivgraph.agents.core.idea import IdeaRecord
from motivgraph.agents.core.llm import account_role, model_role
from motivgraph.agents.core.method import CostPlan, Method
from motivgraph.agents.core.outcome import failure_reason, no_idea_reason, shortfall_reason
from motivgraph.agents.core.registry import get_method
from motivgraph.agents.core.report import RunView, render_summary
from motivgraph.agents.core.repro import build_record
from motivgraph.agents.core.rundir import (
    COMPLETED,
    FAILED,
    INTERRUPTED,
    QUEUED,
    RUNNING,
    STOPPED,
    TERMINAL,
    RunDir,
    owner_alive,
    process_start,
)
from motivgraph.agents.core.validity import GateConfig, embedder_similarity, gate
from motivgraph.errors import BudgetExceeded, ConfigError, MotivGraphError, RunStateError
from motivgraph.llm.factory import resolve_spec
from motivgraph.llm.tokens import count_tokens
from motivgraph.llm.usage import cost_usd
from motivgraph.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class RunOutcome:
    run_id: str
    status: str
    ideas: list[IdeaRecord]
    usage: dict[str, Any]
    run_dir: Path


def ensure_terminal(run: RunDir, e: BaseException) -> None:
    """Record `e` as the run's end when it stopped before `run_method` could (e.g. the tool client
    could not be opened): a run is never left queued or running by a process that gave up on it."""
    try:
        if run.status().get("status") in TERMINAL:
            return
        kind = INTERRUPTED if isinstance(e, KeyboardInterrupt | asyncio.CancelledError) else FAILED
        msg = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        reason = failure_reason(e, msg)
        run.append({"type": "status", "status": kind, "error": msg, "reason": reason})
        run.update_status(status=kind, error=msg, reason=reason)
    except OSError as oe:  # the run dir itself is gone or unwritable: nothing more to record
        log.warning("could not record the end of run %s: %s", run.id, oe)


def make_method(spec: RunSpec) -> Method[Any, Any]:
    """The spec's method with its config validated: the one check of a config given as JSON. An edge (the CLI's
    flags, a stored run being resumed) calls it once and hands the method on; the HTTP body is already the
    typed config (its model extends the method's config model)."""
    cls = get_method(spec.method)
    return cls(cls.config_model.model_validate(spec.config))


def _method_for(spec: RunSpec, method: Method[Any, Any] | None) -> Method[Any, Any]:
    """`method` when the caller built it from `spec` already (its config checked at the edge), else built here."""
    if method is None:
        return make_method(spec)
    if method.name != spec.method:
        raise ValueError(f"a {method.name} method was handed over for a {spec.method} run")
    return method


def create_run(runs_dir: Path, spec: RunSpec, run_id: str | None = None, *,
               method: Method[Any, Any] | None = None) -> RunDir:
    """A new run directory (status queued) for a spec whose config is valid: `method` is the spec's method as
    the caller built it (config checked at the edge); without it the config is checked here, before anything
    is written."""
    _method_for(spec, method)
    Path(runs_dir).mkdir(parents=True, exist_ok=True)
    run = RunDir.create(runs_dir, spec.method, spec.topic, spec.config, run_id=run_id)
    run.update_status(spec=spec.model_dump(mode="json"))
    run.spec = spec
    return run


def spec_of(run: RunDir) -> RunSpec:
    """The RunSpec a run was started with (older SoIQ runs stored only method + config). status.json is read and
    validated once per RunDir: the spec this process wrote (create_run) or read before is the one returned."""
    if run.spec is None:
        st = run.status()
        if "spec" in st:
            run.spec = RunSpec.model_validate(st["spec"])
        else:
            cfg = dict(st.get("config") or {})
            topic = cfg.pop("topic", st.get("topic"))
            run.spec = RunSpec(method=st.get("method", "soiq"), topic=topic, config=cfg)
    return run.spec


async def load_background(spec: RunSpec, tool_client: Any | None, from_graph: bool = True) -> TopicBackground:
    if spec.background_file:
        return TopicBackground.from_file(Path(spec.background_file), topic=spec.topic, topic_id=spec.topic_id)
    if tool_client is None or not from_graph:
        return TopicBackground(topic=spec.topic)
    try:
        return await TopicBackground.from_graph(tool_client, spec.topic)
    except MotivGraphError as e:  # an empty or unindexed graph: the method still runs from the topic
        log.info("no graph background for %r: %s", spec.topic, e)
        return TopicBackground(topic=spec.topic, searched=True, note=str(e))


def _summary(ctx: RunContext, status: str, ideas: list[IdeaRecord], repro: dict[str, Any], extra: str, *,
             reason: str | None = None) -> str:
    """summary.md through the one report renderer (agents.core.report), as of the run's end."""
    st = {**ctx.run.status(), "status": status, "usage": ctx.usage(), "reason": reason,
          "ideas_accepted": sum(1 for i in ideas if i.status == "accepted"),
          "ideas_rejected": sum(1 for i in ideas if i.status == "rejected")}
    return render_summary(RunView(status=st, ideas=ideas, events=list(ctx.run.events()), repro=repro,
                                  method_section=extra))


async def run_method(
    settings: Settings,
    run: RunDir,
    *,
    llm: Any,
    tool_client: Any | None,
    listener: Listener | None = None,
    budget_usd: float | None = None,
    argv: list[str] | None = None,
    method: Method[Any, Any] | None = None,
) -> RunOutcome:
    """Run (or resume) the run's method. `budget_usd` given on resume replaces the stored budget. `method`: the
    one the run was just created with (config already checked); without it, the stored config is checked.
    Raises what stopped the run after recording it (BudgetExceeded, CancelledError, ...)."""
    st = run.status()
    if st.get("status") == COMPLETED:
        raise RunStateError(f"run {run.id} is already completed; start a new run instead")
    owner = st.get("pid")
    if st.get("status") == RUNNING and owner != os.getpid() and owner_alive(st):
        raise RunStateError(f"run {run.id} is being run by process {owner}; wait for it or stop it first")
    spec = spec_of(run)
    if budget_usd is not None:
        spec = spec.model_copy(update={"budget_usd": budget_usd})
        run.update_status(spec=spec.model_dump(mode="json"))
        run.spec = spec
    method = _method_for(spec, method)
    cls = type(method)
    prior = dict(st.get("usage") or {})
    if cls.uses_tools is False:
        tool_client = None
    ctx = RunContext(settings=settings, run=run, method=method, spec=spec, llm=llm, tool_client=tool_client,
                     background=None, listener=listener, prior_usage=prior)
    if spec.budget_usd is not None:
        # The client's budget is what is left of the run's: spend of earlier segments counts.
        llm.budget_usd = max(0.0, spec.budget_usd - ctx.spent_usd())
    if hasattr(llm, "sample"):
        llm.sample = spec.seed  # a run with another seed draws new samples instead of replaying cached ones
    # A run that had a segment before (stopped, interrupted, failed, or its process gone) is resumed even when
    # that segment ended before the method's first checkpoint.
    resumed = run.load_state() is not None or st.get("status") not in (QUEUED, None)
    repro = build_record(settings=settings, llm=llm, method=method, roles=cls.llm_roles(), seed=spec.seed, argv=argv)
    run.write_json("repro.json", repro)
    run.update_status(status=RUNNING, pid=os.getpid(), pid_start=process_start(os.getpid()), error=None, reason=None)
    ideas: list[IdeaRecord] = []
    try:
        with sigterm_interrupts():
            ctx.background = await load_background(spec, tool_client, cls.graph_background)
            run.write_json("background.json", ctx.background.model_dump(mode="json"))
            empty = ctx.background.empty_warning()
            if empty is not None:  # a graph background that finds nothing says so (the CLI shows warnings)
                ctx.emit({"type": "warning", "text": empty})
            ctx.emit({"type": "status", "status": RUNNING, "method": cls.name, "resumed": resumed,
                      "tools": tool_client is not None, "background": ctx.background.source,
                      "background_papers": len(ctx.background.papers), "budget_usd": spec.budget_usd})
            ideas = list(await method.run(ctx))
            for i in ideas:
                if not isinstance(i, IdeaRecord):
                    raise TypeError(f"{cls.name}.run returned {type(i).__name__}, not IdeaRecord")
            ideas = validity_gate(settings, ctx, ideas)
    except BaseException as e:
        ctx.scope = {}
        if isinstance(e, BudgetExceeded):
            kind = STOPPED
        elif isinstance(e, KeyboardInterrupt | asyncio.CancelledError):
            kind = INTERRUPTED
        else:
            kind = FAILED
        msg = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        if kind == INTERRUPTED and not str(e):
            msg = "interrupted before the run finished"
        reason = failure_reason(e, msg)
        try:
            ctx.emit({"type": "status", "status": kind, "error": msg, "reason": reason, "usage": ctx.usage()})
        finally:
            run.update_status(status=kind, error=msg, reason=reason, usage=ctx.usage())
        raise
    ctx.scope = {}
    ctx.write_ideas(ideas)
    extra = ""
    summarize = getattr(method, "summary_section", None)
    if callable(summarize):
        extra = str(summarize(ideas) or "")
    # No accepted idea, or fewer than asked for: the run still completed (its rejected ideas are recorded),
    # with the reason named.
    explain = getattr(method, "no_idea_detail", None)
    outcome_reason = no_idea_reason(ideas, str(explain()) if callable(explain) and not any(
        i.status == "accepted" for i in ideas) else None)
    asked = getattr(method.config, "ideas", None)
    if asked is None and "ideas" in type(method.config).model_fields:  # None: the default count of the settings
        asked = settings.agents.ideas
    outcome_reason = outcome_reason or shortfall_reason(ideas, asked if isinstance(asked, int) else None)
    run.write_summary(_summary(ctx, COMPLETED, ideas, repro, extra, reason=outcome_reason))
    ctx.emit({"type": "status", "status": COMPLETED, "ideas": len(ideas),
              "accepted": sum(1 for i in ideas if i.status == "accepted"), "usage": ctx.usage(),
              **({"reason": outcome_reason} if outcome_reason else {})})
    run.update_status(status=COMPLETED, usage=ctx.usage(), reason=outcome_reason)
    return RunOutcome(run.id, COMPLETED, ideas, ctx.usage(), run.path)


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM (what `timeout`, systemd and Slurm send) ends the run the way Ctrl-C does: the running task is
    cancelled, so the run records `interrupted` with its state saved, and can be resumed. Only where a signal
    handler can be installed (the main thread's event loop; a server's worker threads have their own shutdown)."""
    task = asyncio.current_task()
    if task is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGTERM, task.cancel, "interrupted by SIGTERM")
    except (NotImplementedError, RuntimeError, ValueError):  # no signal support on this loop/platform
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def validity_gate(settings: Settings, ctx: RunContext, ideas: list[IdeaRecord]) -> list[IdeaRecord]:
    """Every accepted idea through the shared validity gate (agents/core/validity.py): an invalid one is
    recorded `rejected` with its reasons, and each rejection is an `idea_rejected` event. The off-topic check
    needs the embedder; when it cannot load, the run says so in a warning and the other checks still run."""
    cfg = GateConfig(min_body_words=settings.agents.idea_min_words,
                     offtopic_threshold=settings.agents.offtopic_threshold)
    sim = None
    if cfg.offtopic_threshold > 0 and any(i.status == "accepted" for i in ideas):
        try:
            from motivgraph.embeddings import get_embedder  # local: loading the model is slow, only when needed

            sim = embedder_similarity(get_embedder(settings.embedding))
        except (MotivGraphError, ImportError, OSError) as e:
            ctx.emit({"type": "warning", "text": f"the validity gate's off-topic check did not run: {e}"})
    out = gate(ideas, topic=ctx.spec.topic, cfg=cfg, similarity=sim)
    for before, after in zip(ideas, out, strict=True):
        if after is not before:
            ctx.emit({"type": "idea_rejected", "title": after.title, "reason": after.rejection})
    if out != ideas:
        ctx.write_ideas(out)
    return out


def dry_run(settings: Settings, spec: RunSpec, llm: Any, *, method: Method[Any, Any] | None = None) -> CostPlan:
    """What the run would cost per role for the configured models, without calling any model. `method`: the
    spec's method as the caller built it (see `create_run`)."""
    method = _method_for(spec, method)
    prices = settings.llm.prices

    def price(role: str, t_in: int, t_out: int) -> tuple[str, float]:
        full = type(method).role(role)
        try:
            if llm is not None:
                model = llm.spec(account_role(llm, full)).model
            else:
                model = resolve_spec(settings.llm, model_role(full), settings.data_dir).model
        except ConfigError:
            return "(no model configured)", 0.0
        return model, cost_usd(model, prices, t_in, t_out)

    plan = CostPlan(price=price, qualify=type(method).role, settings=settings)
    bg_tokens = 0
    if spec.background_file:
        bg = TopicBackground.from_file(Path(spec.background_file), topic=spec.topic, topic_id=spec.topic_id)
        bg_tokens = count_tokens(bg.as_text())
        plan.background = bg
    method.estimate(plan, topic=spec.topic, background_tokens=bg_tokens)
    if any(r.model == "(no model configured)" for r in plan.roles.values()):
        plan.notes.append("no model configured for some roles: set MOTIVGRAPH_LLM_MODEL to price them")
    return plan
