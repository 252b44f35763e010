"""Scripted replies for MindFlow (tests, demos, CLI/HTTP end-to-end runs without a model).

Use with ScriptedChatModel, e.g. a script file `{"default": {"call":
"motivgraph.agents.mindflow.scripted:reply"}}` (MOTIVGRAPH_LLM_MODEL=scripted:PATH).

The scripted operators read the working set from the prompt and hand it back with the operator's
tag `[op:<name>]` appended to the first candidate's method: an idea's text thus carries the trace
of the operators that shaped it, which is all a scripted judge can see (like a real judge, it reads
only the two proposals). `judge_preferring(op)` votes for the proposal showing `op` more often.
Ties go to the proposal shown first (a position-biased judge:
the tournament's randomised order is what keeps that fair).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage

from motivgraph.agents.mindflow.config import DIMENSIONS
from motivgraph.llm.tokens import content_text

_TAG = re.compile(r"\[op:([a-z_]+)\]")
_MODE = re.compile(r"MODE: ([a-z_]+)")
_STAGE = re.compile(r"STAGE: ([a-z_]+)")
_TOPIC = re.compile(r"TOPIC: (.*)")


def _system(messages: list[BaseMessage]) -> str:
    return next((content_text(m.content) for m in messages if isinstance(m, SystemMessage)), "")


def _last(messages: list[BaseMessage]) -> str:
    return content_text(messages[-1].content) if messages else ""


def _working_set(text: str) -> list[dict[str, Any]]:
    start = text.find("WORKING SET (best first):\n")
    if start < 0:
        return []
    end = text.find("\n\nSTAGE:", start)
    body = text[start + len("WORKING SET (best first):\n"): end if end > 0 else None]
    try:
        return list(json.loads(body).get("candidates", []))
    except (json.JSONDecodeError, AttributeError):
        return []


def _tagged(p: dict[str, Any], op: str) -> dict[str, Any]:
    q = dict(p)
    q["method"] = f"{q.get('method', '').rstrip()} [op:{op}]".strip()
    return q


def operator_reply(messages: list[BaseMessage]) -> str:
    mode_m = _MODE.search(_system(messages))
    user = _last(messages)
    stage_m = _STAGE.search(user)
    mode = mode_m.group(1) if mode_m else "generate"
    stage = stage_m.group(1) if stage_m else mode
    if stage == "critical_critique":
        return json.dumps({"issues": ["The evaluation lacks a strong baseline; add one and an ablation."]})
    ws = _working_set(user)
    topic_m = _TOPIC.search(user)
    topic = topic_m.group(1).strip() if topic_m else "the topic"
    fresh = {"title": f"A proposal on {topic[:80]}", "motivation": f"Current work on {topic[:80]} leaves a gap.",
             "method": "A two-stage method.", "experiments": "Compare with two baselines on public data.",
             "expected_outcome": "A measurable gain.", "risks": "The gain may not transfer."}
    base = ws[0] if ws else fresh
    if stage == "generate":
        out = [_tagged(fresh, mode)]
    elif stage == "divergent":
        alts = [_tagged({**base, "title": f"{base.get('title', '')} (alternative {i + 1})"}, mode) for i in range(2)]
        out = alts + ws
    elif stage == "convergent":
        out = [_tagged(base, mode)]
    else:  # critical_revise, analogical, counterfactual, constraint: rework the best candidate
        out = [_tagged(base, mode), *ws[1:]]
    return json.dumps({"candidates": out})


def _proposals(text: str) -> tuple[str, str]:
    a_at, b_at = text.find("=== PROPOSAL A ==="), text.find("=== PROPOSAL B ===")
    return text[a_at:b_at], text[b_at:]


def _verdict(a_better: bool) -> str:
    side = "A" if a_better else "B"
    return json.dumps({**dict.fromkeys(DIMENSIONS, side), "rationale": "scripted"})


def judge_preferring(op: str) -> Callable[[list[BaseMessage]], str]:
    def judge(messages: list[BaseMessage]) -> str:
        a, b = _proposals(_last(messages))
        na = sum(1 for t in _TAG.findall(a) if t == op)
        nb = sum(1 for t in _TAG.findall(b) if t == op)
        return _verdict(na >= nb)

    return judge


def dispatch(judge: Callable[[list[BaseMessage]], str]) -> Callable[[list[BaseMessage]], str]:
    """One reply callable for every MindFlow call: the judge's or the operators'."""

    def reply(messages: list[BaseMessage]) -> str:
        return judge(messages) if "MODE: judge" in _system(messages) else operator_reply(messages)

    return reply


reply = dispatch(judge_preferring("critical"))
