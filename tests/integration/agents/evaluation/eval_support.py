"""Scripted world for evaluation tests: writer methods of known quality and a judge with a known
preference (higher QUALITY marker wins; `flip=True` prefers the lower one). Test code only."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from motivgraph.agents.core import CostPlan, IdeaRecord, Method, MethodConfig, RunContext, register
from motivgraph.agents.evaluation.judges import SYS
from motivgraph.agents.evaluation.metrics.reference import DIMENSIONS
from motivgraph.agents.evaluation.metrics.yield_ import AXES
from motivgraph.agents.setlevel.reward import IMPACT_SYSTEM, SIMILARITY_SYSTEM
from motivgraph.api.contract.tools import LITERATURE_SEARCH
from motivgraph.llm import ScriptedChatModel
from motivgraph.llm.tokens import content_text

Q_RE = re.compile(r"QUALITY (\d)")
BLOCK_RE = re.compile(r"=== (Idea A|Idea B|Idea|Paper) ===\n(.*?)\n=== end of \1 ===", re.S)


class WriterConfig(MethodConfig):
    ideas: int = Field(2, ge=1, le=10)
    reject_first: bool = Field(False, description="Mark the first idea of each run rejected.")


class WriterState(BaseModel):
    done: list[IdeaRecord] = Field(default_factory=list)


class _Writer(Method[WriterConfig, WriterState]):
    summary = "scripted writer of a fixed quality (tests)"
    config_model = WriterConfig
    state_model = WriterState
    roles = ("writer",)
    uses_tools = False
    quality = 1

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        state = ctx.load_checkpoint() or WriterState()
        while len(state.done) < self.config.ideas:
            i = len(state.done) + 1
            reply = await ctx.llm("writer").chat(
                f"SCRIPTED-WRITE quality={self.quality} idea={i} run={ctx.run_id} topic={ctx.topic}")
            title, _, body = str(reply.content).partition("\n")
            motivation, _, method = body.partition("\n")
            rejected = self.config.reject_first and i == 1
            idea = ctx.new_idea(title=title, motivation=motivation, method=method or f"Method: {body}",
                                status="rejected" if rejected else "accepted")
            state.done.append(await ctx.ground(idea))
            ctx.save_checkpoint(state)
        return state.done

    def estimate(self, plan: CostPlan, *, topic: str, background_tokens: int = 0) -> None:
        plan.add("writer", calls=self.config.ideas, input_tokens=50 * self.config.ideas,
                 output_tokens=100 * self.config.ideas)


WORDS = ["graph", "reward", "memory", "retrieval", "sparsity", "curriculum", "contrastive", "uncertainty",
         "distillation", "planning", "robustness", "calibration"]


def make_writer(name: str, quality: int) -> type[_Writer]:
    cls = type(f"Writer_{name}", (_Writer,), {"name": name, "quality": quality})
    register(cls, replace=True)  # type: ignore[arg-type]
    return cls  # type: ignore[return-value]


def _quality(text: str) -> int:
    m = Q_RE.search(text)
    return int(m.group(1)) if m else 0


def _write(prompt: str) -> str:
    q = int(re.search(r"quality=(\d)", prompt).group(1))  # type: ignore[union-attr]
    i = int(re.search(r"idea=(\d+)", prompt).group(1))  # type: ignore[union-attr]
    run = re.search(r"run=(\S+)", prompt).group(1)  # type: ignore[union-attr]
    topic = prompt.split("topic=", 1)[1].strip() if "topic=" in prompt else "the topic"
    seed = sum(map(ord, run + str(i)))
    w = [WORDS[(seed + k * 5) % len(WORDS)] for k in range(3)]
    # title, motivation, method: an idea the shared validity gate accepts (on the topic, no field copied)
    return (f"Idea {i}: {w[0]} meets {w[1]} (QUALITY {q})\nWe study {w[0]} and {w[1]} under {w[2]} for {topic}; "
            f"QUALITY {q}; variant {seed % 97}.\nCombine {w[0]} with {w[1]} in one model for {topic} and compare it "
            f"with each alone on held-out data.")


def _setlevel(prompt: str, k: int) -> str:
    # cards that pass the set-level schema gate: taxonomy labels, a few content words in every field; on the topic
    m = re.search(r"(?i)topic:[ \t]*(.+)", prompt)
    topic = m.group(1).strip()[:120] if m else "the topic"
    return json.dumps({"cards": [{"title": f"Card {i} on {WORDS[i % 12]} for {topic}",
                                  "problem_gap": f"[Evidence Gap] Gap about {WORDS[i % 12]} in {topic} stays open "
                                                 "QUALITY 2",
                                  "core_claim": f"Claim {i} holds for {WORDS[(i + 1) % 12]} QUALITY 2",
                                  "method": f"[Method Combination] Method {i} with {WORDS[(i + 3) % 12]} "
                                  "measured against baselines", "inspiration": "Document 1 leaves it open for now.",
                                  "documents": [1]} for i in range(1, k + 1)]})


def judge_reply(messages: list[Any], flip: bool = False) -> str:
    system = content_text(messages[0].content)
    user = content_text(messages[-1].content)
    blocks = dict((k, v) for k, v in BLOCK_RE.findall(user))
    sign = -1 if flip else 1

    def better(a: str, b: str) -> str:
        qa, qb = sign * _quality(a), sign * _quality(b)
        return "A" if qa > qb else "B" if qb > qa else "tie"

    if system.startswith(SYS["score"]):
        q = _quality(blocks["Idea"])
        v = 2 + 2 * q if not flip else 10 - 2 * q
        return json.dumps({"novelty": v, "experiment": v, "motivation": v})
    if system.startswith(SYS["pairwise"]):
        return json.dumps({"winner": better(blocks["Idea A"], blocks["Idea B"])})
    if system.startswith(SYS["reference"]):
        w = better(blocks["Idea A"], blocks["Idea B"])
        return json.dumps({d: w for d in DIMENSIONS})
    if system.startswith(SYS["gates"]):
        q = _quality(blocks["Idea"])
        v = min(9, 3 * q) if not flip else min(9, 3 * (4 - q))
        return json.dumps({"non_obviousness": v, "soundness": v, "clarity": v})
    if system.startswith(SYS["signature"]):
        return json.dumps({a: [f"{a} of {blocks['Idea'][:30]}"] for a in AXES})
    if system.startswith(SYS["diversity"]):
        # a pair is as diverse as its weaker idea allows: both ideas are read, so swapping or mis-indexing
        # the pair changes the answer whenever their qualities differ
        q = min(_quality(blocks["Idea A"]), _quality(blocks["Idea B"]))
        rel = {3: "distinct", 2: "variant", 1: "same"}.get(q if not flip else 4 - q, "same")
        return json.dumps({a: rel for a in AXES})
    if system.startswith(IMPACT_SYSTEM):  # Creative Utility's impact judge (the set-level R_set judge)
        return json.dumps({"winner": better(blocks["Idea A"], blocks["Idea B"])})
    if system.startswith(SIMILARITY_SYSTEM):  # per-field similarity: a higher quality tag, a more distinct idea
        q = _quality(blocks["Idea A"])
        s = {3: 1, 2: 3, 1: 5}.get(q if not flip else 4 - q, 5)
        return json.dumps({"problem_gap": s, "core_claim": s, "method": s})
    if system.startswith(SYS["extract"]):
        paper = blocks["Paper"]
        return json.dumps({"title": paper.split("\n", 1)[0][:200] or "Target", "motivation":
                           f"Reference problem QUALITY 2: {paper[:200]}", "method": "Reference method QUALITY 2"})
    raise AssertionError(f"unscripted judge prompt: {system[:80]!r}")


# The known-answer reference judge: the winner per (idea quality, dimension, idea shown first?), so every
# dimension, both presentation orders and the two writers get different votes. "idea" / "reference" /
# "tie" name the side, not the slot: the judge answers the slot letter where that side was shown.
KNOWN_REFERENCE_VOTES: dict[int, dict[str, tuple[str, str]]] = {
    3: {"problem_novelty": ("idea", "idea"), "significance": ("idea", "reference"), "timeliness": ("tie", "tie"),
        "technical_novelty": ("idea", "tie"), "effectiveness": ("reference", "idea"),
        "feasibility": ("reference", "tie")},
}
_OTHER_SIDE = {"idea": "reference", "reference": "idea", "tie": "tie"}
# the QUALITY 1 writer gets every verdict of the QUALITY 3 writer reversed
KNOWN_REFERENCE_VOTES[1] = {d: (_OTHER_SIDE[a], _OTHER_SIDE[b]) for d, (a, b) in KNOWN_REFERENCE_VOTES[3].items()}


def known_answer_judge_reply(messages: list[Any]) -> str:
    """`judge_reply`, except reference questions are answered from KNOWN_REFERENCE_VOTES."""
    system = content_text(messages[0].content)
    if not system.startswith(SYS["reference"]):
        return judge_reply(messages)
    blocks = dict((k, v) for k, v in BLOCK_RE.findall(content_text(messages[-1].content)))
    idea_first = "Reference problem" not in blocks["Idea A"]
    idea = blocks["Idea A"] if idea_first else blocks["Idea B"]
    votes = KNOWN_REFERENCE_VOTES[_quality(idea)]
    out = {}
    for d in DIMENSIONS:
        side = votes[d][0 if idea_first else 1]
        out[d] = "tie" if side == "tie" else "A" if (side == "idea") == idea_first else "B"
    return json.dumps(out)


def world_reply(messages: list[Any], flip: bool = False) -> str:
    last = content_text(messages[-1].content)
    if last.startswith("SCRIPTED-WRITE"):
        return _write(last)
    if "idea cards as JSON" in last:
        k = int(re.search(r"Write exactly (\d+) idea cards", last).group(1))  # type: ignore[union-attr]
        return _setlevel(last, k)
    return judge_reply(messages, flip)


def world_model(name: str = "scripted-world", flip: bool = False) -> ScriptedChatModel:
    return ScriptedChatModel(default=lambda msgs: world_reply(msgs, flip), model_name=name)


class _GraphReader(_Writer):
    """A tool-using writer that records what it can see: its background's source and papers, and what a
    literature_search on its tool client returns (the test checks it is exactly the topic's papers)."""

    uses_tools = True

    async def run(self, ctx: RunContext) -> list[IdeaRecord]:
        seen = sorted(p.title for p in ctx.background.papers)
        found: list[str] = []
        if ctx.tool_client is not None:
            res = await ctx.tool_client.call(LITERATURE_SEARCH, query=ctx.topic, limit=50, source="local")
            found = sorted(p.title for p in res.papers)
        note = json.dumps({"background": ctx.background.source, "papers": seen, "tools": ctx.tool_client is not None,
                           "literature": found})
        out = []
        for i in range(1, self.config.ideas + 1):
            reply = await ctx.llm("writer").chat(
                f"SCRIPTED-WRITE quality={self.quality} idea={i} run={ctx.run_id} topic={ctx.topic}")
            title, _, body = str(reply.content).partition("\n")
            out.append(ctx.new_idea(title=title, motivation=body, method=f"Method: {body}", status="accepted",
                                    extra={"seen": note}))
        return out


def make_graph_reader(name: str, quality: int = 2) -> type[_Writer]:
    cls = type(f"GraphReader_{name}", (_GraphReader,), {"name": name, "quality": quality})
    register(cls, replace=True)  # type: ignore[arg-type]
    return cls  # type: ignore[return-value]


def all_methods_reply(messages: list[Any], flip: bool = False, params: dict[str, Any] | None = None) -> Any:
    """One scripted model for the registered methods and the evaluation's judges: MindFlow's operators
    (their `MODE:` line), IDEAgent and its baselines (their `ROLE:` header), set-level cards, the scripted
    writers and the evaluation judges (world_reply)."""
    from langchain_core.messages import SystemMessage

    from motivgraph.agents.ideagent.scripted_world import reply as ideagent_reply
    from motivgraph.agents.mindflow.scripted import reply as mindflow_reply

    system = next((content_text(m.content) for m in messages if isinstance(m, SystemMessage)), "")
    if "MODE: " in system:
        return mindflow_reply(messages)
    if system.startswith("ROLE:") or "\nROLE:" in system:
        return ideagent_reply(messages, params)  # the request's seed picks the soundness sample
    return world_reply(messages, flip)


class _AllMethods:
    takes_params = True  # ScriptedChatModel passes the request's params (IDEAgent's panel seeds)

    def __call__(self, messages: list[Any], params: dict[str, Any] | None = None) -> Any:
        return all_methods_reply(messages, params=params)


def all_methods_model(name: str = "scripted-all") -> ScriptedChatModel:
    return ScriptedChatModel(default=_AllMethods(), model_name=name)


@contextmanager
def registered_writers(qualities: dict[str, int]) -> Iterator[list[str]]:
    """Writer methods of the given qualities, registered for one test and removed after it."""
    from motivgraph.agents.core import unregister

    for n, q in qualities.items():
        make_writer(n, q)
    try:
        yield list(qualities)
    finally:
        for n in qualities:
            unregister(n)


def one_topic_file(tmp_path: Path) -> Path:
    """A topics file of one topic with one background and one target paper."""
    row = {"topic_id": "T0", "topic_name": "Topic about sparse rewards",
           "background_papers": [{"paper_id": "b0", "title": "Background 0", "abstract": "Reward shaping."}],
           "target_papers": [{"paper_id": "g0", "title": "Target 0", "abstract": "Later work."}]}
    f = tmp_path / "topics.jsonl"
    f.write_text(json.dumps(row) + "\n")
    return f
