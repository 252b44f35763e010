"""The evaluation's judges: roles `eval.*` (separate from every generation role), a panel of one or
more models, every pairwise judgment asked in both presentation orders, every judgment logged.

Replies are cached by LLMClient (an identical request costs nothing the second time), so a resumed
evaluation re-asks everything and pays only for what is new. Each answered judgment is appended to
judgments.jsonl in the evaluation's directory.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from motivgraph.agents.evaluation.metrics.reference import DIMENSIONS
from motivgraph.agents.evaluation.metrics.yield_ import AXES
from motivgraph.errors import StructuredOutputError

M = TypeVar("M", bound=BaseModel)

KINDS = ("score", "pairwise", "reference", "gates", "signature", "diversity", "extract", "impact", "similarity")
# One accounting role per metric (calls/tokens/cost per metric), all answered by the judge model:
# `eval.<kind>.judge` takes its model from MOTIVGRAPH_LLM_ROLES.judge (else the default model), never
# from a generation role.
METRIC_ROLE = {k: f"eval.{k}.judge" for k in KINDS}


# ------------------------------------------------------------------------------------------ schemas
class DirectScores(BaseModel):
    novelty: int = Field(ge=1, le=10)
    experiment: int = Field(ge=1, le=10)
    motivation: int = Field(ge=1, le=10)
    rationale: str = ""


class PairVerdict(BaseModel):
    winner: Literal["A", "B", "tie"]
    rationale: str = ""


class ReferenceVerdict(BaseModel):
    problem_novelty: Literal["A", "B", "tie"]
    significance: Literal["A", "B", "tie"]
    timeliness: Literal["A", "B", "tie"]
    technical_novelty: Literal["A", "B", "tie"]
    effectiveness: Literal["A", "B", "tie"]
    feasibility: Literal["A", "B", "tie"]
    rationale: str = ""


class GateScores(BaseModel):
    non_obviousness: int = Field(ge=0, le=9)
    soundness: int = Field(ge=0, le=9)
    clarity: int = Field(ge=0, le=9)
    rationale: str = ""


class Signature(BaseModel):
    failure_mode: list[str] = Field(default_factory=list)
    causal_diagnosis: list[str] = Field(default_factory=list)
    intervention: list[str] = Field(default_factory=list)
    signal_source: list[str] = Field(default_factory=list)
    intervention_site: list[str] = Field(default_factory=list)
    target: list[str] = Field(default_factory=list)
    evaluation_paradigm: list[str] = Field(default_factory=list)
    assumption_class: list[str] = Field(default_factory=list)


Relation = Literal["same", "variant", "related", "distinct"]


class AxisRelations(BaseModel):
    failure_mode: Relation
    causal_diagnosis: Relation
    intervention: Relation
    signal_source: Relation
    intervention_site: Relation
    target: Relation
    evaluation_paradigm: Relation
    assumption_class: Relation


class ExtractedIdea(BaseModel):
    title: str = Field(min_length=3)
    motivation: str = Field(min_length=10)
    method: str = Field(min_length=10)
    experiments: str = ""
    expected_outcome: str = ""


assert set(AxisRelations.model_fields) == set(AXES) == set(Signature.model_fields)
assert set(DIMENSIONS) <= set(ReferenceVerdict.model_fields)

# ------------------------------------------------------------------------------------------ prompts
SYS = {
    "score": "You review research ideas. Rate the idea on three 1-10 scales: novelty (how new the core insight "
             "is relative to what a well-read researcher knows), experiment (how concrete, sound and feasible "
             "the experimental plan is), motivation (how well the problem is justified and the idea follows "
             "from it). Use the whole scale; 5 is an ordinary workshop-level idea. Answer in JSON.",
    "pairwise": "You compare two research ideas on ONE dimension and choose the better one on that dimension "
                "only. Ignore length, style and the order in which they are shown. Answer 'A', 'B' or 'tie' "
                "in JSON.",
    "reference": "You compare two research ideas on the same topic, dimension by dimension: problem novelty, "
                 "significance and timeliness of the problem they address; technical novelty, expected "
                 "effectiveness and feasibility of what they propose. For each dimension say which idea is "
                 "better ('A', 'B' or 'tie'). Ignore length, style and the order in which they are shown. "
                 "Answer in JSON.",
    "gates": "You grade one research idea on three 0-9 scales. non_obviousness: would a knowledgeable reviewer "
             "be surprised that this works or is worth doing (0 = textbook, 9 = a genuinely unexpected "
             "insight). soundness: are its logic and assumptions valid (0 = broken, 9 = rigorous). clarity: "
             "could a researcher start working on it from this text (0 = vague, 9 = precise). Answer in JSON.",
    "signature": "Decompose one research idea into eight axes, as short phrases naming concepts (not the idea's "
                 "own coined names): failure_mode (the problem or failure addressed), causal_diagnosis (why it "
                 "happens, as claimed), intervention (the central lever or mechanism), signal_source (the "
                 "information the method relies on), intervention_site (where in the system or workflow it "
                 "acts), target (the outcome optimised), evaluation_paradigm (the experimental setting needed "
                 "to test it), assumption_class (what must hold for it to work). Primary component first; "
                 "leave an axis empty when the idea does not say. Do not judge quality. Answer in JSON.",
    "diversity": "You compare two research ideas axis by axis, using their decompositions. For each of the eight "
                 "axes say whether the two ideas are 'same' (equivalent concept), 'variant' (same concept, "
                 "modified), 'related' (different concepts of one family) or 'distinct' (unrelated concepts). "
                 "Judge meaning, not wording; sharing a secondary element does not make two ideas the same. "
                 "Answer in JSON.",
    "extract": "Rewrite the research contribution of one paper as a research idea record, as it would have been "
               "proposed before the work was done: title, motivation (the problem and why it matters), method "
               "(what is proposed and how it works), experiments (how it would be tested), expected_outcome. "
               "Do not report results as achieved. Answer in JSON.",
}
PAIR_DIMENSIONS = {
    "novelty": "novelty: which idea's core insight is newer and less obvious?",
    "motivation": "motivation: which idea's problem is better justified, with the idea following from it?",
    "experiment": "experiment: which idea's experimental plan is more concrete, sound and feasible?",
}


def idea_block(label: str, text: str) -> str:
    return f"=== {label} ===\n{text.strip()}\n=== end of {label} ==="


def msgs(kind: str, user: str) -> list[Any]:
    return [SystemMessage(content=SYS[kind]), HumanMessage(content=user)]


def score_prompt(topic: str, idea: str) -> list[Any]:
    return msgs("score", f"Topic: {topic}\n\n{idea_block('Idea', idea)}")


def pairwise_prompt(topic: str, dimension: str, a: str, b: str) -> list[Any]:
    return msgs("pairwise", f"Topic: {topic}\nDimension — {PAIR_DIMENSIONS[dimension]}\n\n"
                            f"{idea_block('Idea A', a)}\n\n{idea_block('Idea B', b)}")


def reference_prompt(topic: str, a: str, b: str) -> list[Any]:
    return msgs("reference", f"Topic: {topic}\n\n{idea_block('Idea A', a)}\n\n{idea_block('Idea B', b)}")


def gates_prompt(topic: str, idea: str) -> list[Any]:
    return msgs("gates", f"Topic: {topic}\n\n{idea_block('Idea', idea)}")


def signature_prompt(idea: str) -> list[Any]:
    return msgs("signature", idea_block("Idea", idea))


def diversity_prompt(a: str, sig_a: Signature, b: str, sig_b: Signature) -> list[Any]:
    return msgs("diversity", f"{idea_block('Idea A', a)}\nDecomposition A: {sig_a.model_dump_json()}\n\n"
                             f"{idea_block('Idea B', b)}\nDecomposition B: {sig_b.model_dump_json()}")


def extract_prompt(paper_text: str) -> list[Any]:
    return msgs("extract", idea_block("Paper", paper_text))


# ------------------------------------------------------------------------------------------ the panel
@dataclass
class Judge:
    """One panel member: a name for reports and the client whose role model answers."""

    name: str
    client: Any  # PlatformLLMClient (accepts eval.* roles)


class JudgmentLog:
    """judgments.jsonl: one line per answered judgment (thread-safe append)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()

    def write(self, rec: dict[str, Any]) -> None:
        if self.path is None:
            return
        line = json.dumps(rec, ensure_ascii=False, default=str)
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")


class Panel:
    def __init__(self, judges: Sequence[Judge], log: JudgmentLog | None = None) -> None:
        if not judges:
            raise ValueError("a judge panel needs at least one judge")
        self.judges = list(judges)
        self.log = log or JudgmentLog(None)
        self.failures: dict[str, int] = {}  # unusable replies per kind of judgment
        # per (kind, judge): questions asked and replies left unusable (counted as such, never a verdict)
        self.asked: dict[tuple[str, str], int] = {}
        self.unusable: dict[tuple[str, str], int] = {}

    @property
    def names(self) -> list[str]:
        return [j.name for j in self.judges]

    async def ask_one(self, judge: Judge, kind: str, messages: list[Any], schema: type[M],
                      key: dict[str, Any]) -> M | None:
        """One judge's answer, or None when its replies stayed unusable (after the client's re-ask): the
        judgment is logged as failed and counted, and the metric goes on without it. Transport
        errors, timeouts and the budget stop are not swallowed."""
        cell = (kind, judge.name)
        self.asked[cell] = self.asked.get(cell, 0) + 1
        try:
            out = await judge.client.structured(METRIC_ROLE[kind], messages, schema)
        except StructuredOutputError as e:
            self.failures[kind] = self.failures.get(kind, 0) + 1
            self.unusable[cell] = self.unusable.get(cell, 0) + 1
            self.log.write({"kind": kind, "judge": judge.name, **key, "failed": str(e)[:500]})
            return None
        self.log.write({"kind": kind, "judge": judge.name, **key, "result": out.model_dump(mode="json")})
        return out

    async def ask(self, kind: str, messages: list[Any], schema: type[M], key: dict[str, Any]) -> list[M | None]:
        """The same question to every judge; one answer (or None) per judge, in panel order."""
        return list(await asyncio.gather(*(self.ask_one(j, kind, messages, schema, key) for j in self.judges)))

    def reply_rows(self) -> list[dict[str, Any]]:
        """Per kind of judgment and judge: asked, usable, unusable (for the report)."""
        return [{"kind": k, "judge": j, "asked": n, "usable": n - self.unusable.get((k, j), 0),
                 "unusable": self.unusable.get((k, j), 0)} for (k, j), n in sorted(self.asked.items())]

    def usage(self) -> dict[str, dict[str, Any]]:
        """Usage per metric role summed over the panel's clients (distinct clients only)."""
        out: dict[str, dict[str, Any]] = {}
        seen: set[int] = set()
        for j in self.judges:
            if id(j.client) in seen:
                continue
            seen.add(id(j.client))
            for role, row in j.client.usage.to_dict().items():
                if role == "total":
                    continue
                acc = out.setdefault(role, {})
                for k, v in row.items():
                    acc[k] = acc.get(k, 0) + v
        return out
