"""Prompts of the six IDEAgent roles and the four baselines (our own wording).

Every prompt starts with a role header line ("ROLE: ...") so transcripts and scripted test models
can tell the roles apart, and every judge sees ideas in the same rendering (`render_idea`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from motivgraph.agents.ideagent.archive import Archive, Draft, Family
from motivgraph.agents.ideagent.signature import Signature

IDEA_FIELDS: tuple[tuple[str, str], ...] = (
    ("title", "Title"),
    ("problem", "Problem"),
    ("motivation", "Motivation"),
    ("method", "Method"),
    ("novelty", "What is new"),
    ("experiment_plan", "Experiment plan"),
    ("expected_effect", "Expected measurable effect"),
    ("risks", "Risks and limitations"),
)

SOUNDNESS_LENSES = (
    "internal logic: does each step follow from the previous one?",
    "assumptions: are the key assumptions plausible and stated?",
    "mathematics and statistics: are the quantities well defined and the claimed effects attainable?",
    "causal chain: does the intervention plausibly cause the claimed effect, or is something else at work?",
    "evaluation: would the proposed experiment actually distinguish success from failure?",
)


def render_idea(idea: dict[str, Any]) -> str:
    """The idea as labelled paragraphs (what every judge reads)."""
    out = [f"{label}: {str(idea.get(key, '')).strip()}" for key, label in IDEA_FIELDS if str(idea.get(key, "")).strip()]
    return "\n".join(out) or "(empty idea)"


def _sig_lines(items: Iterable[tuple[str, Signature]], chars: int) -> str:
    rows = [f"[{key}]\n{sig.compact(chars)}" for key, sig in items]
    return "\n".join(rows) if rows else "(none)"


def _families(families: list[Family]) -> str:
    rows = []
    for f in families:
        ex = "; ".join(f.examples[:2])
        rows.append(f"[{f.id}] {f.pattern} ({len(f.members)} rejected; e.g. {ex})" if ex else f"[{f.id}] {f.pattern}")
    return "\n".join(rows) if rows else "(none)"


def archive_block(archive: Archive, chars: int, *, exclude_lineage: str | None = None) -> str:
    """The four stores as the ideator and diversity judge see them."""
    active = [(lin, d.signature) for lin, d in sorted(archive.active.items()) if lin != exclude_lineage]
    history = [(d.id, d.signature) for d in archive.history if d.lineage != exclude_lineage]
    queue = [(d.id, d.signature) for d in archive.repair_queue if d.lineage != exclude_lineage]
    return (
        f"ACTIVE IDEAS (accepted; ids are lineages):\n{_sig_lines(active, chars)}\n\n"
        f"HISTORY (superseded versions; never new again):\n{_sig_lines(history, chars)}\n\n"
        f"REPAIR QUEUE:\n{_sig_lines(queue, chars)}\n\n"
        f"REJECTION FAMILIES (failure patterns to avoid):\n{_families(archive.families)}"
    )


# -- ideator --------------------------------------------------------------------------------

IDEATOR_SYSTEM = (
    "ROLE: ideator.\nYou propose research ideas for the topic and background below, one at a time. A good idea "
    "attacks a concrete problem with a mechanism that is not an obvious extension, a plain combination of known "
    "parts or an ablation; it states its assumptions and an effect that an experiment can measure. "
    "Use the tools when you need facts from the knowledge graph or the literature; cite what you use."
)


def ideator_system(topic: str, background: str, tools_note: str = "") -> str:
    return f"{IDEATOR_SYSTEM}\n\nTOPIC: {topic}\n\nBACKGROUND:\n{background or '(none given)'}" + (
        f"\n\n{tools_note}" if tools_note else "")


def seed_prompt(draft_label: str, archive: Archive, chars: int, pivot: str | None) -> str:
    parts = [
        f"Draft {draft_label}: write ONE new research idea.",
        "It must differ in problem or mechanism from every active idea, every superseded idea and every idea in the "
        "repair queue listed below, and must not repeat any rejection family's failure pattern.",
        archive_block(archive, chars),
    ]
    if pivot:
        parts.append(f"CHANGE DIRECTION: {pivot} Choose a different mechanism or a different problem than that "
                     "lineage did; do not rephrase it.")
    parts.append("Write the idea with the fields: title, problem, motivation, method, novelty, experiment_plan, "
                 "expected_effect, risks.")
    return "\n\n".join(parts)


REPAIR_RETRY = ("This is a second attempt: the reply to the first one was unusable. Answer with the complete idea "
                "in exactly the requested fields.")


def revision_prompt(draft_label: str, mode: str, parent: Draft, directive: str) -> str:
    what = ("It just missed the acceptance gate; fix what the critic names so it passes, keeping its core "
            "mechanism." if mode == "repair" else
            "It was accepted; improve it where the critic says while keeping, or sharpening, what makes it "
            "non-obvious. Do not swap its mechanism for a safer, more ordinary one.")
    return (
        f"Draft {draft_label}: revise the idea below ({mode}). {what}\n\nCURRENT IDEA:\n{render_idea(parent.idea)}\n\n"
        f"CRITIC DIRECTIVE:\n{directive}\n\nWrite the complete revised idea with the fields: title, problem, "
        "motivation, method, novelty, experiment_plan, expected_effect, risks."
    )


# -- stenographer and judges -----------------------------------------------------------------

STENOGRAPHER = (
    "ROLE: stenographer.\nCompress the research idea into its signature: the problem it attacks, its central "
    "mechanism, the novel addition over the background literature, its key assumptions and the expected "
    "measurable effect. One or two plain sentences per field; no praise, no hedging."
)

QUALITY = (
    "ROLE: quality judge.\nGrade the research idea against the background on three 0-100 scales.\n"
    "non_obviousness: would an expert in the area have proposed it as the next step? Routine extensions, direct "
    "combinations of known parts and ablations score below 50; a mechanism that surprises yet holds up scores "
    "above 80.\nclarity: is the causal chain from intervention to effect explicit enough to implement?\n"
    "feasibility: can it be carried out with realistic data, compute and time?\nBe strict and give a short "
    "rationale naming the weakest point."
)


# One prompt for every panelist: the M judgments are independent samples of it (each call sends its own
# seed), not M differently-worded prompts -- the seed's panel draws M rollouts to average out one
# rollout's bias, and identical prompts keep the samples exchangeable.
SOUNDNESS = (
    "ROLE: soundness panelist.\nJudge whether the research idea is logically and mathematically sound. Check "
    + " ".join(f"({i}) {lens}" for i, lens in enumerate(SOUNDNESS_LENSES, 1))
    + "\nScore 0-9: 0-3 a flaw that breaks the idea, 4-5 serious gaps, 6-7 sound with minor gaps, 8-9 rigorous. "
    "Give a short rationale naming the weakest point."
)


DIVERSITY = (
    "ROLE: diversity judge.\nCompare the CANDIDATE signature with the archives. A near-duplicate shares the "
    "problem and the core mechanism without a substantive new contribution; list near-duplicates by their "
    "bracketed ids: active_duplicates (ids from ACTIVE IDEAS), history_duplicates (ids from HISTORY), "
    "family_matches (ids of REJECTION FAMILIES whose failure pattern the candidate repeats). Then give diversity "
    "0-100: how much the candidate adds to the set as a whole (a stitching-together of existing ideas scores low "
    "even when it duplicates none). Judge substance, not wording."
)

FAMILY = (
    "ROLE: diversity judge (rejection families).\nA draft was rejected. Decide whether its failure pattern is the "
    "same as one of the known REJECTION FAMILIES (answer that family's id) or a new one (answer family: null). "
    "In both cases state the failure pattern in one general sentence that would warn off similar ideas."
)

CRITIC = (
    "ROLE: critic.\nRead the judges' findings on the idea and write ONE targeted improvement directive for the "
    "ideator: name the bottleneck and say concretely what to change. Aim at fixing this idea, not at replacing it "
    "with a different one."
)

PAIRWISE = (
    "ROLE: quality judge (blind comparison).\nTwo versions of a research idea are shown as A and B. Which is less "
    "obvious to an expert — further from routine extensions and plain combinations? Answer winner A or B and a "
    "one-sentence rationale. Order carries no meaning."
)


def idea_message(idea: dict[str, Any], background: str) -> str:
    return f"BACKGROUND:\n{background or '(none given)'}\n\nIDEA:\n{render_idea(idea)}"


def diversity_message(candidate: Signature, archive: Archive, chars: int, exclude_lineage: str | None) -> str:
    return f"CANDIDATE:\n{candidate.compact(chars)}\n\n{archive_block(archive, chars, exclude_lineage=exclude_lineage)}"


def family_message(d: Draft, reason: str, families: list[Family], chars: int) -> str:
    return (f"REJECTED DRAFT:\n{d.signature.compact(chars)}\n\nWHY IT WAS REJECTED: {reason}\n\n"
            f"REJECTION FAMILIES:\n{_families(families)}")


def critic_message(d: Draft, mode: str, problems: list[str], background: str) -> str:
    s = d.scores
    assert s is not None
    worst = sorted(zip(s.soundness.judgments, s.soundness.rationales, strict=False))[:2]
    panel = "\n".join(f"- {j}/9: {r}" for j, r in worst) or "- (none)"
    goal = "pass the acceptance gate" if mode == "repair" else "reach the soft targets"
    return (
        f"MODE: {mode} (goal: {goal})\nPROBLEMS: {'; '.join(problems) or 'none'}\n"
        f"SCORES: N {s.non_obviousness:.0f}, S {s.S:.0f}, C {s.clarity:.0f}, F {s.feasibility:.0f}, "
        f"D {s.diversity:.0f}\nQUALITY JUDGE: {s.quality_rationale or '-'}\nLOWEST SOUNDNESS JUDGMENTS:\n{panel}\n\n"
        f"{idea_message(d.idea, background)}"
    )


def pairwise_message(a: dict[str, Any], b: dict[str, Any]) -> str:
    return f"IDEA A:\n{render_idea(a)}\n\nIDEA B:\n{render_idea(b)}"


# -- baselines ------------------------------------------------------------------------------

FIELDS_NOTE = ("Write each idea with the fields: title, problem, motivation, method, novelty, experiment_plan, "
               "expected_effect, risks.")


def stateless_prompt(k: int, n: int) -> str:
    return f"Sample {k} of {n}: write ONE research idea for the topic. {FIELDS_NOTE}"


def one_shot_prompt(n: int) -> str:
    return (f"Write {n} distinct research ideas for the topic in one answer, as a list under 'ideas'. Make them "
            f"differ from each other in problem or mechanism. {FIELDS_NOTE}")


def memory_prompt(k: int, n: int, memory: list[tuple[str, Signature]], chars: int, seed: Draft | None = None) -> str:
    parts = [f"Idea {k} of {n}: write ONE new research idea, different in problem or mechanism from every idea "
             f"already written:\n{_sig_lines(memory, chars)}"]
    if seed is not None:
        parts.append(f"Grow it from this seed idea (keep what is promising, take it somewhere new):\n"
                     f"{render_idea(seed.idea)}")
    parts.append(FIELDS_NOTE)
    return "\n\n".join(parts)


NOVA_SELECT = (
    "ROLE: selection judge.\nFrom the numbered research ideas, pick the {k} most promising seeds for further "
    "ideas (novel, sound, with room to grow). Answer their ids."
)
NOVA_DIVERSE = (
    "ROLE: selection judge.\nFrom the numbered research ideas, pick the {n} that together form the most diverse "
    "set (different problems and mechanisms), preferring stronger ideas among near-duplicates. Answer their ids."
)


def numbered(drafts: list[Draft], chars: int) -> str:
    return "\n".join(f"[{d.id}] {d.title}\n{d.signature.compact(chars)}" for d in drafts)
