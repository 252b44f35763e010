"""Reference ideas: each target paper turned into the shared idea record by one judged extraction,
cached on disk (references/<topic_id>/<n>.json) so it is asked once per evaluation directory."""

from __future__ import annotations

import json
import re
from pathlib import Path

from motivgraph.agents.evaluation.judges import ExtractedIdea, Panel, extract_prompt
from motivgraph.agents.evaluation.topics import EvalTopic, TopicPaper
from motivgraph.fsutil import atomic_write


def reference_text(idea: ExtractedIdea) -> str:
    parts = [("Title", idea.title), ("Motivation", idea.motivation), ("Method", idea.method),
             ("Experiments", idea.experiments), ("Expected outcome", idea.expected_outcome)]
    return "\n".join(f"{k}: {v}" for k, v in parts if v)


def _safe(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s)[:80]


async def extract_reference(panel: Panel, paper: TopicPaper, cache: Path) -> ExtractedIdea | None:
    """The target paper as an idea record, by the panel's FIRST judge (one extraction per paper);
    None when the judge's replies were unusable (that reference is then left out)."""
    if cache.exists():
        return ExtractedIdea.model_validate_json(cache.read_text(encoding="utf-8"))
    idea = await panel.ask_one(panel.judges[0], "extract", extract_prompt(paper.text()), ExtractedIdea,
                               {"paper": paper.paper_id or paper.title})
    if idea is None:
        return None
    cache.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(cache, json.dumps(idea.model_dump(mode="json"), ensure_ascii=False, indent=1))
    return idea


async def topic_references(panel: Panel, topic: EvalTopic, root: Path) -> list[tuple[str, str]]:
    """(reference id, reference text) for every target paper of the topic."""
    out = []
    for n, p in enumerate(topic.targets, 1):
        rid = p.paper_id or f"target{n}"
        idea = await extract_reference(panel, p, root / _safe(topic.topic_id) / f"{n:02d}-{_safe(rid)}.json")
        if idea is not None:
            out.append((rid, reference_text(idea)))
    return out
