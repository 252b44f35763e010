"""`motivgraph eval --dry-run`: what an evaluation would cost, without calling any model.

Generation: each method's own estimate (Method.estimate through the platform's dry_run) per topic.
Judging: the number of calls every metric makes (both orders, every panel judge, Swiss rounds), with
prompt sizes counted from the real prompt templates around an idea of `idea_tokens` tokens, priced
with the judge model (settings.llm.prices).
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from motivgraph.agents.core import RunSpec, dry_run, get_method
from motivgraph.agents.core.method import CostLine
from motivgraph.agents.evaluation.config import EvalConfig
from motivgraph.agents.evaluation.corpus_graph import corpus_topic
from motivgraph.agents.evaluation.generate import write_background
from motivgraph.agents.evaluation.judges import (
    PAIR_DIMENSIONS,
    SYS,
    AxisRelations,
    DirectScores,
    ExtractedIdea,
    GateScores,
    PairVerdict,
    ReferenceVerdict,
    Signature,
)
from motivgraph.agents.evaluation.metrics.elo import rounds_for
from motivgraph.agents.evaluation.mindflow_split import mindflow_split, training_estimate
from motivgraph.agents.evaluation.protocol import panel_seats
from motivgraph.agents.evaluation.speed import role_model
from motivgraph.agents.evaluation.topic_graph import background_records, extractor_id, graph_key, parent_judge_id
from motivgraph.agents.evaluation.topics import EvalTopic
from motivgraph.agents.setlevel import reward as cu
from motivgraph.ingest.paper_json import record_to_paper
from motivgraph.llm.factory import split_model
from motivgraph.llm.structured import schema_instruction
from motivgraph.llm.tokens import count_message_tokens, count_tokens
from motivgraph.llm.usage import cost_usd
from motivgraph.miner.extract import EXPECTED_OUTPUT_TOKENS
from motivgraph.miner.prompts import extraction_messages, group_parent_messages, parent_messages
from motivgraph.miner.schemas import ExtractionReply, NodeText, ParentVerdict
from motivgraph.miner.text import select_input
from motivgraph.settings import Settings

REPLY_TOKENS = {"score": 80, "gates": 80, "signature": 260, "diversity": 140, "reference": 120, "pairwise": 40,
                "impact": 40, "similarity": 60,
                "extract": 350}
SCHEMAS: dict[str, type[BaseModel]] = {
    "score": DirectScores, "gates": GateScores, "signature": Signature, "diversity": AxisRelations,
    "reference": ReferenceVerdict, "pairwise": PairVerdict, "extract": ExtractedIdea}


@dataclass
class EvalEstimate:
    lines: list[CostLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def total(self) -> float:
        return sum(x.cost_usd for x in self.lines)


def model_name(settings: Settings, role: str | None) -> str:
    """The model a (base) role would use, from settings alone (no API key needed to price it)."""
    s = role_model(settings, role)[0]
    return split_model(s)[1] if s else "(no model configured)"


def _overhead(kind: str) -> int:
    return count_tokens(SYS[kind] + "\n\n" + schema_instruction(SCHEMAS[kind])) + 40


def _graph_line(settings: Settings, config: EvalConfig, topics: list[EvalTopic], out: EvalEstimate) -> None:
    """Per-topic graphs: the LLM miner's first extraction call for every background paper of topics whose
    graph is not cached yet, counted from the miner's own prompt (no API key needed); the offline
    heuristic extractor costs nothing."""


    ext = extractor_id(settings)
    _parents_line(settings, config, topics, out)
    if ext == "heuristic":
        out.notes.append(f"{config.graph} graphs: built by the offline heuristic extractor ($0; set an extractor model "
                         "for LLM-mined graphs)")
        return
    model = ext.split(":", 2)[-1]
    root = Path(config.graph_cache or settings.cache_dir / "eval-graphs").expanduser()
    todo = [t for t in topics if not (root / graph_key(t, ext, settings)[:24] / "eval-graph.json").exists()]
    line = CostLine(f"graphs: extraction ({config.graph})", model)
    schema_tokens = count_tokens(schema_instruction(ExtractionReply))
    for t in todo:
        for k, rec in enumerate(background_records(t)):
            inp = select_input(record_to_paper(rec, f"{t.topic_id} paper {k + 1}"), settings.miner)
            if inp.unusable_reason:
                continue
            line.calls += 1
            line.input_tokens += count_message_tokens(extraction_messages(inp.render(), settings.miner.max_triples)) \
                + schema_tokens
            line.output_tokens += EXPECTED_OUTPUT_TOKENS
    line.cost_usd = cost_usd(model, settings.llm.prices, line.input_tokens, line.output_tokens)
    out.lines.append(line)
    out.notes.append(f"{config.graph} graphs: {len(todo)} of {len(topics)} to build with the LLM miner ({line.calls} "
                     "extraction calls; re-asks and resolver calls add 10-30%), the others are cached")


# A parent question's size: the prompt with k candidates of typical node length (name + one-sentence description).
_NODE_TEXT = "A typical node name of six words: one sentence describing the problem or challenge in about twenty words."


def _parents_line(settings: Settings, config: EvalConfig, topics: list[EvalTopic], out: EvalEstimate) -> None:
    """Parent nodes (B.4) on every graph still to build: at most one judge call per problem/challenge node and
    level (the paper rule asks each focal node once; adopted nodes are never asked), nodes bounded by
    max_triples per background paper. An upper bound: adopted children and nodes merged at ingest ask nothing."""
    judge = parent_judge_id(settings)
    root = Path(config.graph_cache or settings.cache_dir / "eval-graphs").expanduser()
    todo = [t for t in topics if not (root / graph_key(t, extractor_id(settings), settings)[:24]
                                      / "eval-graph.json").exists()]
    papers = sum(len(t.background) for t in todo)
    mcfg = settings.miner
    if judge == "offline":
        out.notes.append(f"{config.graph} graphs: parent nodes (SoIQ B.4) by the offline clustering judge ($0; set a "
                         "parent_judge model for the paper's LLM judge)")
        return
    model = judge.split(":", 2)[-1]
    node = NodeText(name="Typical node name of six words", description=_NODE_TEXT)
    ask = group_parent_messages if mcfg.parent_rule == "paper" else parent_messages
    per_call = count_message_tokens(ask("challenge", node, [node] * mcfg.parent_k)) + count_tokens(
        schema_instruction(ParentVerdict))
    nodes = 2 * mcfg.max_triples * papers  # problems + challenges, at most max_triples of each per paper
    line = CostLine(f"graphs: parent judge ({config.graph})", model)
    line.calls = nodes + nodes // 2 * (mcfg.parent_levels - 1)  # level 2 and up: over at most half as many parents
    line.input_tokens = line.calls * per_call
    line.output_tokens = line.calls * 80
    line.cost_usd = cost_usd(model, settings.llm.prices, line.input_tokens, line.output_tokens)
    out.lines.append(line)
    out.notes.append(f"{config.graph} graphs: parent nodes (SoIQ B.4, rule {mcfg.parent_rule}) judged by {model} on "
                     f"{len(todo)} graph(s) to build: at most {line.calls} calls (one per problem/challenge node and "
                     f"level, {mcfg.parent_levels} level(s); fewer as groups form)")


def estimate_eval(settings: Settings, config: EvalConfig, topics: list[EvalTopic], *, idea_tokens: int = 700,
                  reference_tokens: int = 350) -> EvalEstimate:
    out = EvalEstimate()

    split = mindflow_split(settings, config, topics)  # MindFlow's train/test protocol: compared on held-out topics
    all_topics = list(topics)  # the corpus graph holds every topic's background papers, split or not
    if split.reason or split.active:
        out.notes.append(split.line())
    if split.active:
        out.lines.append(CostLine(**training_estimate(settings, config, topics, split)))
        topics = [t for t in topics if t.topic_id in set(split.test)]
    generating = [m for m in config.methods if config.generated(m)]
    if not generating:  # every method evaluated from existing runs (--runs): no graph is built, nothing generated
        out.notes.append("every method's ideas come from existing runs (--runs): no graph is built and nothing is "
                         "generated; only judging is priced")
    elif config.graph in ("per-topic", "corpus") and any(t.background for t in topics):
        # the corpus graph is one graph of every topic's papers (each paper extracted once)
        _graph_line(settings, config, [corpus_topic(all_topics)[0]] if config.graph == "corpus" else topics, out)
    prices = settings.llm.prices

    seats = panel_seats(settings, config)  # the protocol's panel: every seat asks every judged question
    judge_models = [s.model or model_name(settings, "judge") for s in seats]
    n, m = config.n_ideas, len(config.methods)
    # generation, per method (the method's own estimate)
    for method in config.methods:
        if not config.generated(method):  # existing runs or imported ideas: nothing to generate
            continue
        line = CostLine(f"generation: {method}", model_name(settings, None))
        cls = get_method(method)
        for t in topics:
            cfg = dict(config.method_configs.get(method, {}))
            if config.ideas_field in cls.config_model.model_fields:
                cfg[config.ideas_field] = n
            with tempfile.TemporaryDirectory() as tmp:
                # the topic's background as the method will get it (the eval hands it over as a file), so a
                # method's prompt is priced with the documents it really carries, not an empty background
                bg = str(write_background(t, Path(tmp))) if t.background else None
                plan = dry_run(settings, RunSpec(method=method, topic=t.topic, topic_id=t.topic_id, config=cfg,
                                                 background_file=bg), None)
            for r in plan.roles.values():
                base = r.scope.rsplit(".", 1)[-1]
                model = model_name(settings, base if base in settings.llm.roles else None)
                line.model = model
                line.calls += r.calls
                line.input_tokens += r.input_tokens
                line.output_tokens += r.output_tokens
                line.cost_usd += cost_usd(model, prices, r.input_tokens, r.output_tokens)
        out.lines.append(line)
    # judging, per metric
    ideas_per_topic = n * m
    for seat_no, jm in enumerate(judge_models):
        name = split_model(jm)[1] if ":" in jm else jm
        label = name + seats[seat_no].name[len(seats[seat_no].name.split("#")[0]):]  # '#s1': a further sample
        acc: dict[str, CostLine] = {}

        def add(kind: str, calls: int, tokens_in_each: int, name: str = name, label: str = label,
                acc: dict[str, CostLine] = acc) -> None:
            ln = acc.setdefault(kind, CostLine(f"eval.{kind} ({label})", name))
            ln.calls += calls
            ln.input_tokens += calls * tokens_in_each
            ln.output_tokens += calls * REPLY_TOKENS[kind]

        for t in topics:
            refs = len(t.targets)
            if seat_no == 0:  # references are extracted once, by the first judge
                for p in t.targets:
                    add("extract", 1, _overhead("extract") + count_tokens(p.text()))
            if config.on("scores"):
                add("score", ideas_per_topic, _overhead("score") + idea_tokens)
            if config.on("gates") or config.on("yield"):
                add("gates", ideas_per_topic, _overhead("gates") + idea_tokens)
            cu_axes = config.on("cu") and config.cu_distance == "judge"  # CU on the 8-axis diversity judge
            if seat_no == 0 and (config.on("yield") or cu_axes):  # decompositions: the first judge
                add("signature", ideas_per_topic, _overhead("signature") + idea_tokens)
            if config.on("yield") or cu_axes:
                add("diversity", m * math.comb(n, 2) * 2, _overhead("diversity") + 2 * idea_tokens + 2 * 200)
            if config.on("reference") or (config.on("cu") and config.cu_quality == "reference_share"):
                add("reference", ideas_per_topic * refs * 2, _overhead("reference") + idea_tokens + reference_tokens)
            if config.on("cu") and n >= 2:  # cu_collect.py: a set of one asks nothing

                if config.cu_quality == "impact":
                    over = count_tokens(cu.IMPACT_SYSTEM + "\n\n" + schema_instruction(cu.ImpactVerdict)) + 40
                    add("impact", ideas_per_topic * refs * 2, over + idea_tokens + reference_tokens)
                if config.cu_distance == "fields":
                    over = count_tokens(cu.SIMILARITY_SYSTEM + "\n\n" + schema_instruction(cu.FieldSimilarity)) + 40
                    add("similarity", m * math.comb(n, 2) * 2, over + 2 * idea_tokens)
            if config.on("elo") and ideas_per_topic > 1:
                rounds = rounds_for(ideas_per_topic, config.elo_rounds)
                add("pairwise", len(PAIR_DIMENSIONS) * rounds * (ideas_per_topic // 2) * 2,
                    _overhead("pairwise") + 2 * idea_tokens)
        for ln in acc.values():
            ln.cost_usd = cost_usd(ln.model, prices, ln.input_tokens, ln.output_tokens)
            out.lines.append(ln)
    out.notes.append(f"judging assumes ideas of ~{idea_tokens} tokens and extracted references of "
                     f"~{reference_tokens} tokens; a method's generation figure is its own estimate")
    if any(ln.cost_usd == 0 and ln.calls for ln in out.lines):
        out.notes.append("some models have no price in MOTIVGRAPH_LLM_PRICES (counted as $0)")
    return out
