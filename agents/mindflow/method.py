"""`ideate --method mindflow`: ideas from thinking flows chosen by a (trained) controller.

Per idea: the controller picks a flow for the topic (greedy for the first idea; later ideas are
sampled so they differ), the flow runs on the topic's background, the first candidate becomes the
idea record, and `ctx.ground` checks its kg: links and citations. The flow trace (operators, order,
tokens per step) is emitted as `flow_step` / `flow` events (transcript.jsonl, SSE), stored in the
idea's `extra.flow` and listed in summary.md. The controller: `--controller` when given, else the
newest one stored for the ideator's model (store.py, written by `mindflow train`), else the
untrained prior (uniform over the operators) -- and the run says which, in its first phase event.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, Field, field_validator

from motivgraph.agents.core import CostPlan, IdeaRecord, Method, MethodConfig, RunContext
from motivgraph.agents.mindflow import prompts
from motivgraph.agents.mindflow.config import FlowConfig
from motivgraph.agents.mindflow.controller import Controller
from motivgraph.agents.mindflow.cost import idea_tally
from motivgraph.agents.mindflow.executor import execute_flow
from motivgraph.agents.mindflow.flow import StepTrace
from motivgraph.agents.mindflow.llmcall import role_ask
from motivgraph.agents.mindflow.operators import OpEnv, resolve_operators
from motivgraph.agents.mindflow.store import ID_PATTERN, find, is_controller_id, resolve
from motivgraph.embeddings import get_embedder
from motivgraph.errors import ConfigError, MotivGraphError, UnknownReference
from motivgraph.llm.factory import resolve_spec

if TYPE_CHECKING:
    import typer

PRIOR = "untrained prior"


class MindflowConfig(MethodConfig):
    ideas: int = Field(1, ge=1, le=10, description="Ideas to generate (one flow each).")
    controller: str | None = Field(
        None, description="Trained controller: the id of a stored one (`motivgraph method mindflow controllers` "
                          "lists them) or, from the CLI only, a controller.npz or training directory; none: the "
                          "newest one stored for the ideator's model (mindflow train), else the untrained prior.")
    sampling: Literal["greedy", "sample"] = Field(
        "greedy", description="greedy: the first idea's flow by descending probability, later ideas sampled; "
                              "sample: every flow sampled.")
    layers: int = Field(4, ge=1, le=12, description="Supernet layers of the untrained prior (a trained "
                                                    "controller keeps its own).")
    threshold: float | None = Field(None, gt=0, le=1, description="Override the cumulative-probability threshold.")
    finalize: Literal["converge", "first"] = Field("converge", description="Merge leftover candidates at the end.")


    @field_validator("controller")
    @classmethod
    def _exists(cls, v: str | None) -> str | None:
        # a stored id is looked up in the data dir of the run (check_references, Method.controller); a path (CLI
        # only: a remote caller's field takes ids alone, remote_fields) is checked here: a missing controller is the
        # caller's mistake, refused up front
        if v is not None and is_controller_id(v):
            return v
        p = Path(v).expanduser() if v is not None else None
        if p is not None and not (p.is_file() or (p / "controller.npz").is_file()):
            raise ValueError(f"controller {v} does not exist (a controller.npz or a training directory holding "
                             "one); leave it out to use the untrained prior")
        return v


class MindflowState(BaseModel):
    done: list[IdeaRecord] = Field(default_factory=list)


class MindflowExtra(BaseModel):
    controller: str
    flow: dict[str, Any]
    flow_summary: str


class MindflowMethod(Method[MindflowConfig, MindflowState]):
    name = "mindflow"
    summary = "Thinking flows of operators sampled from a mind supernet by a topic-aware controller."
    config_model = MindflowConfig
    state_model = MindflowState
    state_version = 1
    roles = ("ideator", "judge")  # judge: training tournaments only
    uses_tools = True
    extra_model = MindflowExtra

    def prompt_templates(self) -> dict[str, str]:
        return prompts.templates()

    @classmethod
    def remote_fields(cls) -> dict[str, Any]:
        # Over HTTP/MCP a controller is a stored one, named by id: a caller never names a server path, so no answer
        # can tell an existing server file from a missing one (issue 41).
        cid = Annotated[str, Field(pattern=ID_PATTERN, max_length=257)]
        return {"controller": (cid | None, Field(
            None, description="Id of a stored trained controller (`motivgraph method mindflow controllers` lists "
                              "them); none: the newest one stored for the ideator's model, else the untrained prior.",
            examples=["model--all-MiniLM-L6-v2-1a2b3c4d:topics-0123456789ab"]))}

    def check_references(self, settings: Any) -> None:
        cid = self.config.controller
        if cid is not None and is_controller_id(cid) and resolve(settings.data_dir, cid) is None:
            raise UnknownReference("controller", f"No stored MindFlow controller has the id {cid!r}; "
                                   "`motivgraph method mindflow controllers` lists the stored ones")

    def _flow_config(self) -> FlowConfig:
        fc = FlowConfig(layers=self.config.layers, finalize=self.config.finalize)
        if self.config.threshold is not None:
            fc.threshold = self.config.threshold
        return fc

    def controller(self, settings: Any | None = None, model: str | None = None) -> tuple[Controller, str, list[str]]:
        """(controller, label, notes): config.controller when given, else the newest stored controller
        for `model` (the ideator's model id) and the settings' embedding model, else the untrained
        prior. `notes` say why (no stored controller; a controller recorded for another model)."""
        notes: list[str] = []
        path = self.config.controller
        source = "given"
        if not path and settings is not None and model:
            found = find(settings.data_dir, model, settings.embedding.model)
            path = str(found.path) if found.path is not None else None
            source = "stored for this model"
            notes.append(found.note)
        if path and settings is not None and is_controller_id(path):
            stored_at = resolve(settings.data_dir, path)
            if stored_at is None:
                raise ConfigError(f"No stored MindFlow controller has the id {path!r} (`motivgraph method mindflow "
                                  "controllers` lists them)")
            path = str(stored_at)
        if path:
            ctrl = Controller.load(path)
            overrides: dict[str, Any] = {"finalize": self.config.finalize}
            if self.config.threshold is not None:
                overrides["threshold"] = self.config.threshold
            ctrl.cfg = ctrl.cfg.model_copy(update=overrides)
            trained_for = str(ctrl.training.get("ideator_model") or "")
            if model and trained_for and trained_for != model:
                # a given controller is used as asked, but never silently: its flows were rewarded for another model
                notes.append(f"WARNING: controller {path} was trained for ideator {trained_for}, this run uses "
                             f"{model}; train one for {model} (`motivgraph method mindflow train`) or pass a "
                             "controller trained for it")
            topics = ctrl.training.get("topics", {}).get("count")
            what = f"{ctrl.steps_trained} steps" + (f" on {topics} topics" if topics else "")
            return ctrl, f"trained controller {path} ({what}; {source})", notes
        fc = self._flow_config()
        return Controller(resolve_operators(fc), 1, fc), PRIOR, notes

    @staticmethod
    def _embedding(ctx: RunContext, ctrl: Controller, label: str) -> np.ndarray:
        if label == PRIOR:
            return np.zeros(ctrl.embed_dim)  # the prior ignores the topic: every weight is zero

        emb = get_embedder(ctx.settings.embedding)
        if ctrl.embedding_model and ctrl.embedding_model != ctx.settings.embedding.model:
            ctx.emit({"type": "warning", "text": f"controller trained with embeddings of {ctrl.embedding_model}, "
                                                 f"topic embedded with {ctx.settings.embedding.model}"})
        return np.asarray(emb.embed([ctx.topic])[0], dtype=np.float64)

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        state = ctx.load_checkpoint() or MindflowState()
        try:
            model: str | None = ctx.llm("ideator").model_id
        except MotivGraphError:  # no model for the role: the run fails on its first call with the fix
            model = None
        ctrl, label, notes = self.controller(ctx.settings, model)
        if label == PRIOR:
            note = ("MindFlow controller: untrained prior — not trained: every flow comes from a uniform choice over "
                    "the operators, whatever the topic (" + "; ".join(notes or ["no controller given"]) + "); train "
                    "one for this model with "
                    "`motivgraph method mindflow train --topics FILE` or pass --controller")
        else:
            note = f"MindFlow controller: {label}" + "".join(f" — {n}" for n in notes if n.startswith("WARNING"))
        ctx.emit({"type": "phase", "phase": note, "controller": label, "prior": label == PRIOR, "notes": notes})
        for n in notes:
            if n.startswith("WARNING"):
                ctx.emit({"type": "warning", "text": n})
        emb = self._embedding(ctx, ctrl, label)
        bg = ctx.background
        graph = "\n".join(f"- {n.get('type')}: {n.get('name')} — {str(n.get('description', ''))[:160]}"
                          for n in bg.nodes[: ctrl.cfg.context_nodes])
        env = OpEnv(ctx.topic, bg.as_text(max_papers=ctrl.cfg.background_papers,
                                          chars_per_paper=ctrl.cfg.abstract_chars),
                    graph, ctrl.cfg, role_ask(ctx.llm("ideator")), ctx.toolbox if ctx.has_tools else None)
        while len(state.done) < self.config.ideas:
            i = len(state.done) + 1
            ctx.scope = {"idea": i}
            env.flow = i  # each idea's flow samples anew, even where it asks what an earlier flow asked
            greedy = self.config.sampling == "greedy" and i == 1
            plan = ctrl.greedy(emb) if greedy else ctrl.sample(emb, np.random.default_rng([ctx.seed, i]))
            ctx.emit({"type": "flow_plan", "plan": plan.to_dict(), "ops": plan.ops})

            def on_step(s: StepTrace) -> None:
                ctx.emit({"type": "flow_step", **s.to_dict()})

            result = await execute_flow(plan, env, ctrl.cfg, on_step)
            trace = result.trace
            ctx.emit({"type": "flow", "summary": trace.summary_line(), "tokens": trace.tokens,
                      "calls": trace.calls, "cached": trace.cached, "trace": trace.to_dict()})
            p = result.idea
            idea = ctx.new_idea(
                title=p.get("title") or "(untitled)", motivation=p.get("motivation", ""), method=p.get("method", ""),
                experiments=p.get("experiments", ""), expected_outcome=p.get("expected_outcome", ""),
                risks=p.get("risks", ""),
                extra=MindflowExtra(controller=label, flow=trace.to_dict(), flow_summary=trace.summary_line()))
            state.done.append(await ctx.ground(idea))
            ctx.save_checkpoint(state)
            ctx.write_ideas(state.done)
        return state.done

    def summary_section(self, ideas: list[IdeaRecord]) -> str:
        lines = ["## MindFlow flows", ""]
        for i, idea in enumerate(ideas, start=1):
            ex = idea.extra
            flow = ex.get("flow", {})
            lines += [f"### Idea {i}: {idea.title}", "", f"Controller: {ex.get('controller', '?')}", "",
                      f"Flow: {ex.get('flow_summary', '')}", "",
                      "| layer | position | operator | paid calls | cached | tokens paid | tools | error |",
                      "|---|---|---|---|---|---|---|---|"]
            for s in flow.get("steps", []):
                layer = s["layer"] or "finalize"
                lines.append(f"| {layer} | {s['position']} | {s['op']} | {s['calls']} | {s.get('cached', 0)} | "
                             f"{s['tokens']} | {', '.join(s.get('tools', []))} | {s.get('error') or ''} |")
            lines += ["", f"Flow total: {flow.get('calls', 0)} paid calls ({flow.get('tokens', 0)} tokens), "
                      f"{flow.get('cached', 0)} answered from the LLM cache (no tokens paid).", ""]
        return "\n".join(lines)

    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        settings = getattr(plan, "settings", None)
        model = None
        if settings is not None:
            with contextlib.suppress(MotivGraphError):
                model = resolve_spec(settings.llm, "mindflow.ideator", settings.data_dir).model_id
        ctrl, label, notes = self.controller(settings, model)
        plan.notes += [f"MindFlow: {n}" for n in notes]
        emb = np.zeros(ctrl.embed_dim)
        # prompts carry at most `background_papers` abstracts cut to `abstract_chars`, not the whole background
        background_tokens = min(background_tokens,
                                ctrl.cfg.background_papers * (ctrl.cfg.abstract_chars // 4 + 30))
        if label != PRIOR:
            plan.notes.append("trained controller: flows estimated at a zero topic embedding")
        first = idea_tally(ctrl, emb, topic, background_tokens, greedy=self.config.sampling == "greedy")
        rest = idea_tally(ctrl, emb, topic, background_tokens, greedy=False)
        total = first.plus(rest.scaled(self.config.ideas - 1))
        plan.add("ideator", calls=max(1, round(total.calls)), input_tokens=round(total.input_tokens),
                 output_tokens=round(total.output_tokens))
        per_op = ", ".join(f"{o} {c / self.config.ideas:.1f}" for o, c in sorted(total.by_op.items()))
        plan.notes.append(f"MindFlow ({label}): per idea {total.calls / self.config.ideas:.1f} calls, "
                          f"{total.input_tokens / self.config.ideas:,.0f} in / "
                          f"{total.output_tokens / self.config.ideas:,.0f} out tokens; calls per operator: {per_op}")

    @classmethod
    def cli(cls) -> typer.Typer | None:
        from motivgraph.agents.mindflow.cli import app  # local: plugin part, loaded on use

        return app
