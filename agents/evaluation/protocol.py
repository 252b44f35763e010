"""The evaluation's protocol, decided once from the config and settings: who judges (the panel's seats),
whether a judge shares a generator's model, and every choice as lines a person reads (the dry run prints
them, the report lists them), each naming whose choice it is: a source paper's (which one), ours (a design
choice or number the papers do not give), or a substitute for something of a paper's we cannot run. No
model is called here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from motivgraph.agents.core import get_method
from motivgraph.agents.core.llm import model_role
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.cutoff import topic_cutoff
from motivgraph.agents.evaluation.metrics.elo import rounds_for
from motivgraph.agents.evaluation.speed import role_model
from motivgraph.agents.evaluation.topic_graph import parent_judge_id
from motivgraph.api.contract.tools import LITERATURE_SEARCH
from motivgraph.llm.factory import split_model
from motivgraph.settings import Settings

ORDERS = 2  # every pairwise question is asked in both presentation orders (fixed, not configurable)


@dataclass(frozen=True)
class Seat:
    """One judge of the panel: its report name, its model (provider:model or None = the judge role's
    model) and which sample of that model it draws (None: the model's ordinary sample)."""

    name: str
    model: str | None
    sample: int | None


def judge_models(settings: Settings, config: EvalConfig) -> list[str | None]:
    """The distinct judge models named (None: the judge role's model, from settings)."""
    named = list(dict.fromkeys(config.judges))
    return list(named) if named else [None]


def _label(settings: Settings, model: str | None) -> str:
    return model if model is not None else _role_model(settings, "judge") or "judge"


def _role_model(settings: Settings, role: str | None) -> str | None:
    return role_model(settings, role)[0] or None


def panel_seats(settings: Settings, config: EvalConfig) -> list[Seat]:
    """At least `panel_size` seats: every named model once, then (when fewer distinct models are named)
    further seeded samples of them in turn, so a one-model panel is still three independent judges."""
    models = judge_models(settings, config)
    seats = [Seat(_label(settings, m), m, None) for m in models]
    k = 0
    while len(seats) < config.panel_size:
        m = models[k % len(models)]
        k += 1
        sample = config.seed * 1000 + k  # one fixed sample per extra seat: a resumed evaluation re-asks the same
        seats.append(Seat(f"{_label(settings, m)}#s{k}", m, sample))
    return seats


def generator_models(settings: Settings, config: EvalConfig) -> dict[str, set[str]]:
    """Per method: the models its roles write with (from settings, as a run would bind them)."""

    out: dict[str, set[str]] = {}
    for m in config.methods:
        if not config.generated(m):  # existing runs / imported ideas: their models are whatever they used
            continue
        roles = getattr(get_method(m), "roles", ()) or ()
        models = {x for r in roles if (x := _role_model(settings, model_role(f"{m}.{r}"))) is not None}
        if not roles and settings.llm.model:
            models.add(settings.llm.model)
        out[m] = models
    return out


def _same_model(a: str, b: str) -> bool:
    if a == b:
        return True
    return ":" in a and ":" in b and split_model(a)[1] == split_model(b)[1]


def shared_model_warnings(settings: Settings, config: EvalConfig) -> list[str]:
    """One warning per judge model that also writes a method's ideas (a judge grading its own model's
    ideas favours them; IDEAgent and MindFlow judge with models distinct from the generator's)."""
    gens = generator_models(settings, config)
    out = []
    for m in judge_models(settings, config):
        label = _label(settings, m)
        same = sorted(meth for meth, ms in gens.items() if any(_same_model(label, g) for g in ms))
        if same:
            out.append(f"WARNING judge model {label} also generates the ideas of {', '.join(same)}: a judge "
                       "rating its own model's ideas may favour them; name distinct judges with --judges")
    return out


def panel_note(settings: Settings, config: EvalConfig, seats: list[Seat]) -> str | None:
    """What the report says when the panel was filled with samples of the named judge(s)."""
    extra = [s for s in seats if s.sample is not None]
    if not extra:
        return None
    temp = settings.llm.temperature
    note = (f"judge panel of {len(seats)}: {len(seats) - len(extra)} distinct model(s) named, filled with "
            f"{len(extra)} independent seeded sample(s) of them ({', '.join(s.name for s in extra)})")
    if temp == 0:
        note += "; WARNING the temperature is 0, so the samples are likely identical copies of one judge"
    return note


# Whose choice each protocol item is: "paper (...)", "ours (...)" or "substitute (...)". Items not listed
# (warnings, the ELO matches played) are facts of the run, not choices.
SOURCES: dict[str, str] = {
    "judges": "paper: three judges (MindFlow 5.2); ours: one named model is filled to three with seeded samples "
              "of it unless --judges names three",
    "quality judge": "substitute: SoIQ scores with its Fast-Reviewer (a fine-tuned Qwen2.5-7B, not available); "
                     "a generic LLM judge panel scores instead",
    "orders": "paper: each judge votes twice with the order swapped (MindFlow 5.2)",
    "votes per pairwise dimension": "paper: 3 judges x 2 orders = 6 votes (MindFlow 5.2)",
    "ideas per topic": "paper: IDEAgent judges a set of 10 per topic",
    "runs per method and topic": "ours: the papers run each method once; up to max_runs runs reach --ideas",
    "top-up memory": "ours: the papers have no top-up runs",
    "Yield gates": "paper: IDEAgent's main-table gates",
    "Yield diversity": "paper: IDEAgent's eight axes",
    "Yield surface": "paper: IDEAgent",
    "reference win rates": "paper: MindFlow 5.2 and its MOScore",
    "Creative Utility": "paper: set-level seed, Section 4",
    "set-level sets": "paper: K = 3 (set-level seed); ours: sets of K drawn until --ideas",
    "MindFlow training": "paper: a 70-30 split (MindFlow 5.1); ours: validation on the training topics, or a "
                         "second hold-out only when val_fraction asks for one",
    "ELO": "paper: Swiss tournament, per-method ELO (SoIQ); ours: the 5-round minimum, both orders, the per-idea "
           "average beside SoIQ's per-method rating",
    "literature search": "paper: SoIQ's tool returns the top 20 papers",
    "order bias": "ours",
    "intervals": "ours: the papers report point values; we add bootstrap intervals",
    "graph grounding": "ours: SoIQ grounds on a graph of 8,625 papers; we build one of the topics' background "
                       "papers so every method sees the same literature",
    "parents": "paper: SoIQ B.4 hierarchical parent nodes",
    "cutoff": "ours: the papers do not say how they kept later papers from the methods",
    "topics": "ours",
    "metrics": "ours: the selection of metrics",
    "panel fill": "ours",
    "imported ideas": "ours: other systems' ideas under this protocol (--ideas-from)",
}


def source_of(item: str) -> str:
    """Whose choice a protocol item is (SOURCES); a cutoff row of one topic is the cutoff's."""
    if item.startswith("cutoff "):
        item = "cutoff"
    return SOURCES.get(item, "")


def cutoff_rows(topics: list[Any], override: str | None) -> list[tuple[str, str]]:
    """One row per topic: its cutoff and where it came from (cutoff.py: --cutoff, else the latest dated
    background paper, where an arXiv id's YYMM dates a record that has nothing else), or why none applies."""
    rows = []
    for t in topics:
        day, how = topic_cutoff(t.background, override)
        rows.append((f"cutoff {t.topic_id}", f"{day.isoformat()} ({how})" if day is not None else
                     f"no cutoff applies, because {how}"))
    return rows


def protocol_rows(settings: Settings, config: EvalConfig, n_topics: int, graph: str | None = None) -> list[
        tuple[str, str]]:
    """Every protocol choice as (item, what it is and where it comes from)."""
    seats = panel_seats(settings, config)
    n = config.n_ideas
    per_topic = n * len(config.methods)
    rounds = rounds_for(per_topic, config.elo_rounds) if per_topic > 1 else 0
    rows: list[tuple[str, str]] = [
        ("judges", f"{len(seats)}: " + ", ".join(s.name for s in seats)
         + f" (panel of at least {config.panel_size}; MindFlow Section 5.2 uses three judges)"),
        ("orders", f"{ORDERS}: every pairwise question (ELO matches, reference comparisons, diversity pairs) is asked "
         "in both presentation orders; a verdict that flips with the order counts as a tie (no signal)"),
        ("votes per pairwise dimension", f"{len(seats) * ORDERS} per compared pair ({len(seats)} judges x {ORDERS} "
         "orders; MindFlow: 3 x 2 = 6)"),
        ("quality judge", "the panel's judges (direct scores, gates, pairwise) with our prompts"),
        ("ideas per topic", f"{n} per method ({per_topic} per topic); "
         + ("Yield and Creative Utility over fewer than 3 ideas say little (Yield is capped at the set size)"
            if n < 3 else "IDEAgent judges a set of 10 per topic; the set-level paper's CU uses K = 3")),
        ("runs per method and topic", f"up to {config.max_runs}: a method with fewer than {n} accepted ideas "
         "runs again, asked only for the ideas still missing"),
        ("top-up memory", "; ".join(_memory_line(config, m) for m in config.methods)),
        ("Yield gates", f"NB >= {config.gate_k:g}, S >= {config.gate_l:g}, C >= {config.gate_m:g}, "
         f"D >= {config.tau:g} (IDEAgent main table)"
         + (f"; also at NB >= {config.gate_k_alt:g}" if config.gate_k_alt is not None else "")),
        ("Yield diversity", "eight axes, each counted once, relation same/variant/related/distinct -> 0-9"),
        ("Yield surface", f"NB x S grid 0-9 at C >= {config.surface_m:g}, D >= {config.tau:g}"),
        ("reference win rates", "six dimensions (problem novelty, significance, timeliness; technical novelty, "
         "effectiveness, feasibility) against the target papers; MOScore weights PD "
         f"{', '.join(f'{w:g}' for w in config.w_pd)}, PS {', '.join(f'{w:g}' for w in config.w_ps)} (MindFlow)"),
        ("Creative Utility", f"gamma {config.cu_gamma:g}, greedy order, quality = "
         f"{getattr(config, 'cu_quality', 'strict win rate against the targets')}, distance = {config.cu_distance} "
         "(set-level paper, Section 4)"),
        ("ELO", f"Swiss tournament per topic and dimension, {rounds} round(s) (requested {config.elo_rounds}, at "
         f"least ceil(log2 {per_topic})), ~{rounds * (per_topic // 2)} match(es) per topic and dimension; "
         f"K {config.elo_k:g}, start {config.elo_start:g}; interval: bootstrap over matches "
         f"({max(10, config.n_boot // 2)} resamples)"),
        ("order bias", f"a judge naming the same slot in >= {config.order_bias_share:.0%} of at least "
         f"{config.order_bias_min} decisive verdicts on a dimension is flagged order-biased"),
        ("intervals", f"95% percentile bootstrap, {config.n_boot} resamples, seed {config.seed}"),
        ("literature search", f"{_literature_limit()} results per query for every method's literature_search"),
        ("graph grounding", {"corpus": "one graph of every topic's background papers (target papers left out)",
                             "per-topic": "a graph per topic built from its background papers",
                             "current": "your current graph",
                             "file": "the background papers as a file (no graph)"}.get(graph or config.graph,
                                                                                     graph or config.graph)),
        ("topics", str(n_topics)),
        ("metrics", ", ".join(config.metrics)),
    ]
    if config.imported:
        rows.append(("imported ideas", f"{', '.join(config.imported)} from {config.ideas_from}: scored as generated "
                     "ideas, after the target-leak and cutoff checks on their text"))
    if "setlevel" in config.methods:
        k = int((config.method_configs.get("setlevel") or {}).get("set_size") or 3)
        rows.append(("set-level sets", f"sets of K = {k} cards, one call each, drawn until {n} ideas "
                     f"({-(-n // k)} set(s) per run); each set gated (exactly K valid cards) and scored by R_set"))
    if "mindflow" in config.methods:
        vf = float((config.mindflow_train or {}).get("val_fraction") or 0.0)
        rows.append(("MindFlow training", "the controller trains on every training topic of the split"
                     + (f", {vf:.0%} of them held out again for validation" if vf else
                        "; its validation reward is measured on those topics (no second hold-out)")))
    if (graph or config.graph) in ("corpus", "per-topic"):
        rows.append(("parents", _parents_line(settings)))
    note = panel_note(settings, config, seats)
    if note:
        rows.append(("panel fill", note))
    for w in shared_model_warnings(settings, config):
        rows.append(("warning", w))
    return rows


def _memory_line(config: EvalConfig, method: str) -> str:
    """What a method's top-up run carries over from the topic's earlier runs (Method.top_up_memory)."""
    if not config.generated(method):
        return f"{method}: no runs here (existing runs or imported ideas)"
    memory = getattr(get_method(method), "top_up_memory", "") or ""
    return f"{method}: {memory}" if memory else f"{method}: starts from nothing (it keeps no memory to carry)"


def _literature_limit() -> int:
    return int(dict(LITERATURE_SEARCH.agent_defaults).get("limit", 0) or 0)


def _parents_line(settings: Settings) -> str:
    judge = parent_judge_id(settings)
    m = settings.miner
    who = ("the offline clustering judge (no parent_judge model set)" if judge == "offline"
           else f"the parent_judge model {judge.removeprefix('llm:')}")
    return (f"every evaluation graph gets parent nodes, judged by {who}; rule {m.parent_rule}, k {m.parent_k}, "
            f"{m.parent_levels} level(s) (calls and cost in the estimate)")


def as_dict(rows: list[tuple[str, str]]) -> list[dict[str, Any]]:
    return [{"item": k, "source": source_of(k), "value": v} for k, v in rows]
