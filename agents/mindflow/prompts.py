"""MindFlow's prompt texts: one shared frame, one instruction per thinking operator, the judge.

Every operator sees the topic, its background (papers, graph nodes), the working set of candidate
proposals as JSON, and one mode of thinking to apply. Every reply is JSON (a `Candidates` or
`Critique` object). The `MODE:` and `STAGE:` lines name the program step; scripted test models key
on them, and they make transcripts easy to read.
"""

from __future__ import annotations

import json
from typing import Any

FRAME = """You are a research scientist developing research ideas on a topic, one deliberate mode of thinking \
at a time. Other modes run before and after you on the same working set of candidate proposals, so do \
exactly what your mode asks and hand back complete proposals.

A proposal has: a title; a motivation that finds the problem (the gap in current work, why it matters and \
why now); a method that solves it (concrete enough to implement); experiments that validate it (data, \
baselines, metrics, ablations); the expected outcome; risks and limitations.

Grounding: when you build on a graph node you were shown, link it as [its name](kg:<type>:<exact name>) \
with type problem, challenge or solution; cite background papers you were shown as (Surname et al., year) \
or by title. Never invent nodes, papers or results.

MODE: {mode}
{instruction}"""

INSTRUCTIONS: dict[str, str] = {
    "generate": "Write one new, complete research proposal for the topic. If candidates exist, make yours "
                "clearly different from them. Return it as the only candidate.",
    "divergent": "Expand the search space: starting from the best candidate (or from the topic if there is "
                 "none), propose {alternatives} alternatives that differ in the problem framing or in the "
                 "solution route, not just in wording. Return the alternatives followed by the candidates you "
                 "were given, best first.",
    "convergent": "Narrow down: compare the candidates, keep their strongest elements and synthesise ONE "
                  "coherent, high-quality proposal (rank and select; merge only what fits together). Return "
                  "exactly one candidate.",
    "critical_critique": "Stress-test the best candidate: list its most serious problems (unsupported "
                         "assumptions, missing baselines, confounds, infeasible steps, overlap with known work), "
                         "each with a concrete fix.",
    "critical_revise": "Revise the candidate by applying the targeted fixes from the critique below; keep "
                       "what was not criticised. Return the revised candidate first, then the other "
                       "candidates unchanged.",
    "analogical": "Transfer structure from related problems: the graph material below shows challenges "
                  "solved elsewhere and distant nodes. Map one source problem/solution onto the topic (say "
                  "what corresponds to what) and write a proposal built on that analogy; or, if candidates "
                  "exist, rework the best one with the transferred solution route. Return it first, then "
                  "the other candidates.",
    "counterfactual": "Explore what-if variations: name the key assumptions behind the best candidate (or "
                      "behind current work on the topic), flip or perturb the one whose change opens the most "
                      "interesting direction, and write the proposal that follows. Return it first, then the "
                      "other candidates.",
    "constraint": "Generate or repair under explicit constraints: make the best candidate (or a new "
                  "proposal) satisfy every constraint below, changing the method and experiments as needed "
                  "and saying how each constraint is met. Constraints:\n{constraints}\nReturn it first, then "
                  "the other candidates.",
}

JUDGE_SYSTEM = """You are an experienced reviewer comparing two research proposals on the same topic. For \
each of six dimensions decide which proposal is better, A or B; there are no ties, and each dimension is \
judged on its own:
- problem_novelty: is the problem itself new relative to the background literature?
- significance: would solving it matter to the field?
- timeliness: is it the right problem now, given the current literature?
- technical_novelty: is the proposed method new?
- effectiveness: is the method likely to work, and would the experiments show it convincingly?
- feasibility: can it be done with realistic data, compute and time?
Ignore length and the order of presentation. MODE: judge"""


def operator_system(mode: str, instruction_key: str, **fmt: Any) -> str:
    return FRAME.format(mode=mode, instruction=INSTRUCTIONS[instruction_key].format(**fmt))


def render_working_set(ws: list[dict[str, Any]]) -> str:
    if not ws:
        return "WORKING SET: empty (no candidates yet)"
    return "WORKING SET (best first):\n" + json.dumps({"candidates": ws}, ensure_ascii=False, indent=1)


def operator_user(topic: str, background: str, graph: str, ws: list[dict[str, Any]], stage: str,
                  extra: str = "") -> str:
    parts = [f"TOPIC: {topic}"]
    if background:
        parts.append(f"BACKGROUND PAPERS:\n{background}")
    if graph:
        parts.append(f"GRAPH NODES NEAR THE TOPIC:\n{graph}")
    if extra:
        parts.append(extra)
    parts.append(render_working_set(ws))
    parts.append(f"STAGE: {stage}")
    return "\n\n".join(parts)


def _proposal_text(p: dict[str, Any]) -> str:
    keys = ("title", "motivation", "method", "experiments", "expected_outcome", "risks")
    return "\n".join(f"{k.replace('_', ' ').title()}: {p.get(k, '')}" for k in keys if p.get(k))


def judge_user(topic: str, background: str, a: dict[str, Any], b: dict[str, Any]) -> str:
    bg = f"BACKGROUND PAPERS:\n{background}\n\n" if background else ""
    return (f"TOPIC: {topic}\n\n{bg}=== PROPOSAL A ===\n{_proposal_text(a)}\n\n=== PROPOSAL B ===\n"
            f"{_proposal_text(b)}\n\nVote A or B on every dimension.")


def templates() -> dict[str, str]:
    """Every template by name (their hashes go into a run's reproducibility record)."""
    return {"frame": FRAME, "judge": JUDGE_SYSTEM, **{f"op.{k}": v for k, v in INSTRUCTIONS.items()}}
