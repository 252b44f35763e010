"""MindFlow's train/test protocol inside the evaluation.

MindFlow's controller is learned: the paper splits its topics into training and held-out sets
(mindflow.txt, Section 5.1: a 70-30 split) and reports on the held-out ones. An evaluation that
includes MindFlow therefore splits its topics (seeded, by topic id), trains the controller on the
training topics -- or reuses the one already trained on exactly those topics with the same model
and settings (a content-keyed entry of MindFlow's controller store, so a killed evaluation resumes
its training instead of starting over) -- and compares EVERY method on the held-out topics only, so
all methods meet on the same topics and no method is judged on a topic the controller learned from.

No split (said in the notes and the dry run): fewer than two topics, `mindflow_train_fraction` 0,
MindFlow not among the generated methods, or a controller given in MindFlow's config (it was trained
elsewhere; the note says how many of its recorded training topics are among the evaluation's). Then
MindFlow runs as `ideate` would (given controller, else the newest stored one for its model, else the
untrained prior) on every topic.

The target papers are never read here: training sees each topic's text and background papers only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.topics import EvalTopic
from motivgraph.agents.mindflow.config import FlowConfig, TrainConfig
from motivgraph.agents.mindflow.controller import Controller
from motivgraph.agents.mindflow.cost import training_tally
from motivgraph.agents.mindflow.operators import resolve_operators
from motivgraph.agents.mindflow.protocol import IDEATOR_ROLE, train_controller
from motivgraph.agents.mindflow.store import content_key, entry_dir, find
from motivgraph.agents.mindflow.topics import Topic
from motivgraph.errors import BudgetExceeded, ConfigError, MotivGraphError
from motivgraph.llm import resolve_spec
from motivgraph.llm.factory import split_model
from motivgraph.llm.tokens import count_tokens
from motivgraph.llm.usage import cost_usd
from motivgraph.settings import Settings

METHOD = "mindflow"


@dataclass(frozen=True)
class MindflowSplit:
    """The protocol as data: which topics train the controller, which are compared, and why."""

    active: bool
    train: list[str] = field(default_factory=list)
    test: list[str] = field(default_factory=list)
    controller: str | None = None  # the controller used on the test topics (None: not decided / not trained yet)
    reason: str = ""

    def line(self) -> str:
        if not self.active:
            return f"MindFlow: no train/test split — {self.reason}"
        where = f"; controller {self.controller}" if self.controller else ""
        return (f"MindFlow: train on {len(self.train)} topics ({', '.join(self.train)}), test on {len(self.test)} "
                f"({', '.join(self.test)}); every method is compared on the {len(self.test)} held-out topic(s) "
                f"only{where}")

    def to_dict(self) -> dict[str, Any]:
        return {"active": self.active, "train": list(self.train), "test": list(self.test),
                "controller": self.controller, "reason": self.reason}


def split_ids(ids: list[str], fraction: float, seed: int, explicit: list[str] | None = None) -> tuple[list[str],
                                                                                                     list[str]]:
    """(train, test): the explicit training ids when given, else round(fraction·n) topics drawn by a
    seeded permutation of the sorted ids (file order does not matter), at least one on each side."""
    ordered = sorted(ids)
    if explicit:
        unknown = sorted(set(explicit) - set(ordered))
        if unknown:
            raise ConfigError(f"mindflow_train_topics names topic id(s) not in the evaluation: {', '.join(unknown)}; "
                              f"topic ids: {', '.join(ordered)}")
        train = [i for i in ordered if i in set(explicit)]
        if len(train) == len(ordered):
            raise ConfigError("mindflow_train_topics names every topic: leave at least one held out")
        return train, [i for i in ordered if i not in set(explicit)]
    perm = np.random.default_rng(seed).permutation(len(ordered))
    n_train = min(len(ordered) - 1, max(1, round(len(ordered) * fraction)))
    train = sorted(ordered[int(i)] for i in perm[:n_train])
    return train, [i for i in ordered if i not in set(train)]


def _given_controller(config: EvalConfig) -> str | None:
    c = (config.method_configs.get(METHOD) or {}).get("controller")
    return str(c) if c else None


def mindflow_split(settings: Settings, config: EvalConfig, topics: list[EvalTopic], *,
                   ideator_model: str | None = None) -> MindflowSplit:
    """The split this evaluation runs (no model is called). `controller` is the trained controller's
    path once it exists (in the store for `ideator_model`, when given)."""
    if METHOD not in config.methods or METHOD in config.run_ids:
        return MindflowSplit(False, reason="MindFlow is not generated in this evaluation")
    ids = [t.topic_id for t in topics]
    given = _given_controller(config)
    if given:
        return MindflowSplit(False, test=sorted(ids), controller=given,
                             reason=f"the controller {given} is given in MindFlow's config: it runs on all "
                             f"{len(ids)} topics ({_overlap(given, ids)})")
    if config.mindflow_train_fraction == 0 and not config.mindflow_train_topics:
        return MindflowSplit(False, test=sorted(ids), reason="mindflow_train_fraction is 0: MindFlow runs on all "
                             f"{len(ids)} topics with the newest controller stored for its model, else the untrained "
                             "prior (the run says which)")
    if len(ids) < 2:
        return MindflowSplit(False, test=sorted(ids), reason=f"{len(ids)} topic(s): a split needs at least 2, so "
                             "no controller is trained here; MindFlow runs with the newest controller stored for its "
                             "model, else the untrained prior (the run says which)")
    train, test = split_ids(ids, config.mindflow_train_fraction, config.seed, config.mindflow_train_topics or None)
    path = None
    if ideator_model:
        p = controller_dir(settings, config, [t for t in topics if t.topic_id in set(train)], ideator_model)
        path = str(p) if (p / "controller.npz").exists() else None
    return MindflowSplit(True, train, test, path, reason="")


def stored_overlap(settings: Settings, ids: list[str]) -> str:
    """Without a split MindFlow takes the newest controller stored for its model, which an earlier evaluation
    may have trained on some of these very topics: name it and its overlap ('' when none is stored or the
    ideator model is not configured). Read from the settings, so no client is made."""

    try:
        model = resolve_spec(settings.llm, IDEATOR_ROLE, settings.data_dir).model_id
    except MotivGraphError:
        return ""
    found = find(settings.data_dir, model, settings.embedding.model)
    if found.path is None:
        return ""
    return f"the stored controller {found.path} runs: {_overlap(str(found.path), ids)}"


def _overlap(path: str, ids: list[str]) -> str:
    try:
        rec = Controller.load(path).training.get("topics", {})
    except ConfigError as e:
        return f"its record could not be read: {e}"
    seen = set(rec.get("train_ids", [])) | set(rec.get("val_ids", []))
    if not seen:
        return "it records no training topics"
    both = sorted(seen & set(ids))
    return (f"{len(both)} of its {len(seen)} recorded training topics are evaluation topics"
            + (f": {', '.join(both)} — WARNING those are not held out" if both else ""))


def train_settings(config: EvalConfig) -> tuple[Any, Any]:
    """(FlowConfig, TrainConfig) of the evaluation's training: MindFlow's config shapes the supernet
    (layers, threshold) as it does for the test runs; `mindflow_train` overrides training settings."""

    mcfg = config.method_configs.get(METHOD) or {}
    flow = {k: mcfg[k] for k in ("layers", "threshold", "finalize") if mcfg.get(k) is not None}

    try:
        return FlowConfig(**flow), TrainConfig(**{"seed": config.seed, **config.mindflow_train})
    except ValidationError as e:  # one line naming the field and the accepted ones, not pydantic's report
        bad = "; ".join(f"{'.'.join(map(str, er['loc'])) or 'value'}: {er['msg']}" for er in e.errors())
        raise ConfigError(f"mindflow_train / MindFlow's config: {bad} (training settings: "
                          f"{', '.join(TrainConfig.model_fields)})") from None


def _mf_topics(topics: list[EvalTopic]) -> list[Any]:
    return [Topic(t.topic_id, t.topic, [p.model_dump(mode="json") for p in t.background]) for t in topics]


def controller_dir(settings: Settings, config: EvalConfig, train: list[EvalTopic], ideator_model: str) -> Path:
    """The store entry of the controller trained on `train`: keyed by the ideator and embedding model
    (store folder) and by the topics' content and the training settings (entry name), so the same
    evaluation -- or another one on the same training topics -- finds it, and a killed one resumes it."""

    fcfg, tcfg = train_settings(config)
    papers = hashlib.sha256("".join(p.model_dump_json() for t in train for p in t.background).encode()).hexdigest()
    key = content_key(sorted((t.topic_id, t.topic) for t in train), papers, fcfg.model_dump(mode="json"),
                      tcfg.model_dump(mode="json", exclude={"steps", "val_every", "parallel_flows"}))
    return entry_dir(settings.data_dir, ideator_model, settings.embedding.model, f"eval-{key}")


def training_estimate(settings: Settings, config: EvalConfig, topics: list[EvalTopic],
                      split: MindflowSplit) -> dict[str, Any]:
    """Calls, tokens and dollars of training the controller on the split's training topics (the
    untrained prior's flows at a zero topic embedding, MindFlow's own dry-run estimate)."""

    fcfg, tcfg = train_settings(config)
    items = _mf_topics([t for t in topics if t.topic_id in set(split.train)])
    ctrl = Controller(resolve_operators(fcfg), 1, fcfg)
    bg = int(np.mean([count_tokens(t.background(fcfg.background_papers, fcfg.abstract_chars)) for t in items]))
    est = training_tally(ctrl, tcfg, np.zeros(1), items[0].text, bg, len(items)).total
    override = settings.llm.roles.get("ideator")
    spec = (override.model if override and override.model else None) or settings.llm.model
    model = split_model(spec)[1] if spec else "(no model configured)"
    return {"scope": f"mindflow: controller training ({len(items)} topics, {tcfg.steps} steps, K={tcfg.group})",
            "model": model, "calls": round(est.calls), "input_tokens": round(est.input_tokens),
            "output_tokens": round(est.output_tokens),
            "cost_usd": cost_usd(model, settings.llm.prices, round(est.input_tokens), round(est.output_tokens))}


async def prepare_mindflow(ev: Any) -> None:
    """Before anything is built or generated: split the evaluation's topics, train (or resume, or
    reuse) the controller on the training topics, hand its path to MindFlow's runs and keep only the
    held-out topics for every method. `ev` is the harness's Evaluation (topics, config, notes, emit)."""

    split = mindflow_split(ev.settings, ev.config, ev.topics)
    if not split.active:  # decided without a model: an evaluation without MindFlow needs none here
        if METHOD in ev.config.methods and METHOD not in ev.config.run_ids:
            line = split.line()
            if not _given_controller(ev.config):
                stored = stored_overlap(ev.settings, [t.topic_id for t in ev.topics])
                if stored:
                    line += f" ({stored})"
                    if "WARNING" in stored:
                        ev.emit({"type": "warning", "text": f"MindFlow: {stored}"})
            ev.notes.append(line)
            ev.mindflow_split_line = line
            ev.emit({"type": "mindflow_split", **split.to_dict()})
        return
    client = ev.llm_factory()
    try:
        model = str(client.model_id(IDEATOR_ROLE))
        train = [t for t in ev.topics if t.topic_id in set(split.train)]
        out = controller_dir(ev.settings, ev.config, train, model)
        fcfg, tcfg = train_settings(ev.config)
        ev.emit({"type": "phase", "phase": "mindflow-train", "total": tcfg.steps, "train": split.train,
                 "test": split.test, "controller": str(out)})
        if ev.config.budget_usd is not None:
            client.budget_usd = max(0.0, ev.config.budget_usd - ev.spent())

        def progress(rec: dict[str, Any]) -> None:
            if rec.get("type") == "step":
                ev.emit({"type": "progress", "phase": "mindflow-train", "done": rec["step"], "total": tcfg.steps,
                         "reward": rec.get("reward_mean"), "cost_usd": rec.get("cost_usd_total")})

        res, _ = await train_controller(ev.settings, client, fcfg, tcfg, _mf_topics(train), out, on_event=progress,
                                        embedder=_embedder(ev))
    finally:
        close = getattr(client, "close", None)
        if close is not None:
            close()
    if res.stopped != "completed":
        raise BudgetExceeded(f"MindFlow controller training stopped ({res.stopped}) at step {res.steps_done}: "
                             f"{res.message}")
    path = out / "controller.npz"
    cost = _training_cost(out)
    ev.mindflow_train_usd = cost
    split = MindflowSplit(True, split.train, split.test, str(path))
    ev.notes.append(split.line() + f" ({res.steps_done} steps; validation reward: untrained prior {res.prior_val}, "
                    f"controller {res.final_val}; training cost ${cost:.4f}; trained without graph tools, so the "
                    "analogical operator drew no graph material while training)")
    ev.emit({"type": "mindflow_split", **split.to_dict()})
    ev.mindflow_split_line = split.line()
    mcfg = {**(ev.config.method_configs.get(METHOD) or {}), "controller": str(path)}
    ev.config = ev.config.model_copy(update={"method_configs": {**ev.config.method_configs, METHOD: mcfg}})
    ev.topics = [t for t in ev.topics if t.topic_id in set(split.test)]


def _training_cost(out: Path) -> float:
    log = out / "train_log.jsonl"
    if not log.exists():
        return 0.0
    total = 0.0
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        total = max(total, float(rec.get("cost_usd_total") or 0.0))
    return total


def _embedder(ev: Any) -> Any | None:
    """The evaluation's own embedder when it has one with a `dim` (tests pass a small one), else None
    (train_controller then loads the settings' embedding model)."""
    emb = getattr(ev.embed, "__self__", None)
    return emb if emb is not None and hasattr(emb, "dim") else None
