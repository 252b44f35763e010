"""Any system's ideas under the same protocol: `motivgraph eval --ideas-from FILE`.

The file is JSONL, one idea per line:

    {"method": "my-system", "topic_id": "cs.AI-001", "idea": "Free text of the idea ..."}
    {"method": "my-system", "topic_id": "cs.AI-001", "idea": {"title": "...", "motivation": "...",
     "method": "...", "experiments": "..."}}

`method` names the system (it becomes a method column of the report), `topic_id` one of the evaluation's
topics, `idea` either the idea's text or its structured fields (those of an idea record: title, motivation,
method, experiments, expected_outcome, risks, abstract, related_work; a title is required, plus at least
one other field). Free text becomes the abstract, titled by its first sentence (cut at 15 words) unless a
`title` key sits beside it on the line.

A bad line (not JSON, a missing or unknown field, an unknown topic) is reported by its line number and
left out; the other lines are evaluated. The ideas are then scored exactly as generated ones (the same
judges, orders, gates and metrics), after the checks a generated idea's inputs get, applied to what an
outside system wrote since we never saw its inputs:
  - target leak: an idea that names one of its topic's target papers (id, DOI, arXiv id or title) is
    rejected with the reason (kept, with a warning in the notes, under --allow-target-leak);
  - cutoff: an idea citing an arXiv id from after its topic's cutoff is rejected with the reason.
Rejected ideas count as a shortfall, like a method's rejected ideas. The first `--ideas` accepted ideas of
each (system, topic) are evaluated, in file order.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from motivgraph.agents.core.idea import IdeaRecord, Provenance
from motivgraph.agents.evaluation.cutoff import arxiv_span, topic_cutoff
from motivgraph.agents.evaluation.topics import EvalTopic, _norm_title, identities, norm_id
from motivgraph.errors import IdeasFileError

FIELDS = ("title", "motivation", "method", "experiments", "expected_outcome", "risks", "abstract", "related_work")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,59}$")
_ARXIV_IN_TEXT = re.compile(r"(?<![\w.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\w])")
_DOI_IN_TEXT = re.compile(r"10\.\d{4,9}/[^\s\"'<>),;]+")


@dataclass
class IdeasFile:
    """What --ideas-from read: ideas per system and topic (fields), and every bad line with its reason."""

    path: str
    ideas: dict[str, dict[str, list[dict[str, str]]]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(len(v) for t in self.ideas.values() for v in t.values())


def _fields(idea: Any, title: Any) -> dict[str, str]:
    if isinstance(idea, str):
        text = idea.strip()
        if not text:
            raise ValueError("'idea' is empty")
        head = title if isinstance(title, str) and title.strip() else re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
        words = head.split()
        return {"title": " ".join(words[:15]) + (" ..." if len(words) > 15 else ""), "abstract": text}
    if isinstance(idea, dict):
        unknown = sorted(set(idea) - set(FIELDS))
        if unknown:
            raise ValueError(f"unknown idea field(s) {', '.join(unknown)}; the fields are {', '.join(FIELDS)}")
        bad = sorted(k for k, v in idea.items() if not isinstance(v, str))
        if bad:
            raise ValueError(f"idea field(s) {', '.join(bad)} must be text")
        out = {k: v.strip() for k, v in idea.items() if v.strip()}
        if not out.get("title"):
            raise ValueError("the idea has no 'title'")
        if len(out) < 2:
            raise ValueError("the idea has a title only; give at least one more field (e.g. motivation, method)")
        return out
    raise ValueError("'idea' must be the idea's text or an object of its fields")


def read_ideas_file(path: str | Path, topic_ids: set[str],
                    generated: frozenset[str] | set[str] = frozenset()) -> IdeasFile:
    """Parse the file (see module doc). `topic_ids`: the evaluation's topics; `generated`: the methods the
    evaluation generates (an imported system may not take one of their names)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise IdeasFileError(f"--ideas-from {p}: no such file")
    out = IdeasFile(str(p))
    with p.open(encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                out.errors.append(f"line {n}: not JSON ({e.msg})")
                continue
            try:
                if not isinstance(rec, dict):
                    raise ValueError("a line must be a JSON object {method, topic_id, idea}")
                missing = [k for k in ("method", "topic_id", "idea") if k not in rec]
                if missing:
                    raise ValueError(f"missing {', '.join(missing)} (a line is {{method, topic_id, idea}})")
                extra = sorted(set(rec) - {"method", "topic_id", "idea", "title"})
                if extra:
                    raise ValueError(f"unknown key(s) {', '.join(extra)}; a line is {{method, topic_id, idea}} "
                                     "(structured fields go inside 'idea')")
                method, topic_id = rec["method"], rec["topic_id"]
                if not isinstance(method, str) or not _NAME.match(method):
                    raise ValueError(f"method {method!r} must be a name of letters, digits and _.+- (60 at most)")
                if method in generated:
                    raise ValueError(f"method {method!r} is also generated by this evaluation; name the imported "
                                     "system differently")
                if not isinstance(topic_id, str) or topic_id not in topic_ids:
                    known = ", ".join(sorted(topic_ids)[:8]) + (" ..." if len(topic_ids) > 8 else "")
                    raise ValueError(f"unknown topic_id {topic_id!r}; the evaluation's topics are {known}")
                fields = _fields(rec["idea"], rec.get("title"))
            except ValueError as e:
                out.errors.append(f"line {n}: {e}")
                continue
            out.ideas.setdefault(method, {}).setdefault(topic_id, []).append(fields)
    if not out.ideas:
        raise IdeasFileError(f"--ideas-from {p}: no usable idea" + (f" ({'; '.join(out.errors[:5])})"
                                                                  if out.errors else " (the file is empty)"))
    return out


def leak_reasons(text: str, topic: EvalTopic, cutoff: date | None) -> tuple[list[str], list[str]]:
    """(target papers the text names, arXiv ids it cites from after the cutoff), each as a readable reason."""
    low = text.lower()
    norm_text = " " + _norm_title(text) + " "
    cited = {norm_id(m.group(1)) for m in _ARXIV_IN_TEXT.finditer(text)}
    cited |= {norm_id(m.group(0).rstrip(".")) for m in _DOI_IN_TEXT.finditer(low)}
    targets = []
    for t in topic.targets:
        hit = sorted(identities(t) & cited)
        nt = _norm_title(t.title)
        if hit:
            targets.append(f"names target paper {t.title!r} (id {hit[0]})")
        elif nt and len(nt.split()) >= 4 and f" {nt} " in norm_text:
            targets.append(f"names target paper {t.title!r} (its title)")
    later = []
    if cutoff is not None:
        for m in sorted({m.group(1) for m in _ARXIV_IN_TEXT.finditer(text)}):
            span = arxiv_span(m)
            if span is not None and span[1] > cutoff:
                later.append(f"cites arXiv {m} ({span[0]:%Y-%m}), after the topic's cutoff {cutoff.isoformat()}")
    return targets, later


def imported_records(method: str, topic: EvalTopic, ideas: list[dict[str, str]], *, source: str,
                     cutoff_override: str | None, allow_target_leak: bool) -> tuple[list[IdeaRecord], list[str]]:
    """The system's ideas on one topic as idea records (status accepted or rejected with the reason), and the
    notes a leak let through under --allow-target-leak adds."""
    cutoff, _ = topic_cutoff(topic.background, cutoff_override)
    recs, notes = [], []
    for k, f in enumerate(ideas, 1):
        rec = IdeaRecord(name=f"{method}_{k}", **f, provenance=Provenance(
            method=method, run_id=f"imported:{Path(source).name}", topic=topic.topic, topic_id=topic.topic_id),
            extra={"imported_from": source, "index": k})
        targets, later = leak_reasons(rec.text(), topic, cutoff)
        if targets and allow_target_leak:
            notes.append(f"WARNING {method} idea {k} on {topic.topic_id} {'; '.join(targets)} (kept: "
                         "--allow-target-leak)")
            targets = []
        why = [f"target_leak: {r}" for r in targets] + [f"after_cutoff: {r}" for r in later]
        if why:
            rec = rec.model_copy(update={"status": "rejected", "rejection": "; ".join(why)})
        recs.append(rec)
    return recs, notes
