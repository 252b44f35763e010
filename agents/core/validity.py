"""The one validity gate every method's ideas pass before they count as accepted.

A model can answer with something that parses and still is no idea: the template's own slot names
("IdeaText", "Title of the idea."), a stock phrase ("A new research idea"), a field label ("Problem"), a
placeholder ("TBD", "<your idea here>", "[topic]"), an empty or copied field, or an idea about something
else than the topic. The runner passes every accepted idea of every method through `check_idea`; an idea
that fails is recorded as `rejected` with `IdeaRecord.rejection` naming every reason, so the run's
shortfall and the evaluation's counts are honest. Set-level's card gate (agents/setlevel/schema.py) uses
the same field checks.

Off-topic is measured, not guessed: the cosine similarity of the idea's title + motivation + method to the
topic under the configured sentence embedder (all-MiniLM-L6-v2 by default), below
`agents.offtopic_threshold`. How the default was chosen is written beside the setting and measured by
`bench/bench_offtopic.py` on the topics of eval/topics.jsonl.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from motivgraph.agents.core.idea import IdeaRecord

log = logging.getLogger(__name__)

# Placeholders and template slots: filler words, "insert X here", <slot>/{slot}/[slot] names, only punctuation.
PLACEHOLDER_RE = re.compile(
    r"(lorem ipsum|\btbd\b|\btodo\b|\bplaceholder\b|\bn/a\b|\binsert\b[^.]{0,40}\bhere\b|"
    r"\byour\b[^.]{0,40}\bhere\b|<[a-z_ ]{1,40}>|\{[a-z_ ]{1,40}\}|\[[a-z_ ]{1,30}\](?!\()|^[\W_]*$|\bxxx+\b)", re.I)

# The words an idea template's labels and stock phrases are made of. A field whose words are all among
# them says nothing of its own ("Title of the idea.", "A new research idea", "Problem", "IdeaText").
LABEL_WORDS = frozenset({
    "title", "name", "problem", "problems", "gap", "core", "claim", "method", "methods", "methodology",
    "inspiration", "idea", "ideas", "card", "field", "text", "here", "the", "a", "an", "of", "and", "or", "this",
    "that", "your", "our", "my", "sources", "source", "document", "documents", "n", "opportunity", "pattern",
    "paradigm", "label", "motivation", "experiment", "experiments", "plan", "expected", "outcome", "effect",
    "risk", "risks", "factors", "limitations", "abstract", "related", "work", "novelty", "new", "novel",
    "research", "proposed", "proposal", "approach", "description", "summary", "short", "string", "value",
    "example", "for", "to", "in", "on", "is", "be", "goes", "write", "describe", "one", "sentence", "sentences",
    "paragraph", "details", "detail", "etc", "topic", "given", "about", "what", "how", "why", "it", "its",
    "some", "study", "solution", "challenge", "key", "main", "lorem", "ipsum",
})

# Words that number a template's slots ("Idea 2", "Research Idea No. 3", "Proposed Method B", "Option iii").
# A field made only of label words and such a mark is a numbered placeholder: the digit or letter names the
# slot, it says nothing of the idea, so it must not count as the field's content.
NUMBERING_WORDS = frozenset({"no", "number", "num", "option", "options", "candidate", "variant", "version",
                             "draft", "step", "part", "item"})
_ORDINALS = frozenset({"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
                       "tenth", "last", "final", "next", "another", "other"})
_NUMBER_MARK_RE = re.compile(r"^(?:\d+(?:st|nd|rd|th)?|[a-z]|[ivx]{1,5})$")

_WORD_RE = re.compile(r"[a-z0-9]+")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Fields the gate reads, and the ones whose content must be real prose (at least one of them).
TEXT_FIELDS = ("title", "motivation", "method", "abstract", "experiments", "expected_outcome", "risks",
               "related_work")
BODY_FIELDS = ("motivation", "method", "abstract")


def words(text: str) -> list[str]:
    """Lower-case words, camelCase split ("IdeaText" is two words)."""
    return _WORD_RE.findall(_CAMEL_RE.sub(" ", text or "").lower())


def content_words(text: str) -> list[str]:
    """The words of `text` that are not template-label vocabulary."""
    return [w for w in words(text) if w not in LABEL_WORDS]


def is_numbered_placeholder(text: str) -> bool:
    """True for a slot name with a number or letter: every word is a template label, a numbering word or a
    numbering mark (a digit, a single letter, a roman numeral, an ordinal), and at least one such mark is
    there. A leading "A" is the article, not a mark ("A new research idea" is a label echo instead)."""
    ws = words(text)
    marks = [i for i, w in enumerate(ws)
             if (_NUMBER_MARK_RE.match(w) or w in _ORDINALS) and not (i == 0 and w == "a")]
    if not marks:
        return False
    return all(w in LABEL_WORDS or w in NUMBERING_WORDS or i in marks for i, w in enumerate(ws))


def field_problem(name: str, raw: str, *, min_words: int) -> str | None:
    """Why one non-empty field is not real text (None: it is). `min_words` content words are required."""
    raw = (raw or "").strip()
    if not raw:
        return f"{name} is empty"
    if PLACEHOLDER_RE.search(raw):
        return f"{name} is a placeholder or template slot ({raw[:60]!r})"
    if is_numbered_placeholder(raw):
        return f"{name} is a numbered placeholder ({raw[:60]!r}): a template slot name, not the idea's own words"
    cw = content_words(raw)
    if not cw:
        return f"{name} only echoes field labels ({raw[:60]!r})"
    if len(cw) < min_words:
        return f"{name} is too short ({len(cw)} content word(s); at least {min_words} needed)"
    return None


def copied_fields(fields: dict[str, str], names: Sequence[str]) -> list[str]:
    """'<b> repeats <a> word for word' for every field whose content words equal an earlier field's."""
    out: list[str] = []
    seen: dict[str, str] = {}
    for n in names:
        body = " ".join(content_words(fields.get(n) or ""))
        if not body:
            continue
        if body in seen:
            out.append(f"{n} repeats {seen[body]} word for word")
        else:
            seen[body] = n
    return out


Similarity = Callable[[str, str], float]


@dataclass(frozen=True)
class GateConfig:
    min_body_words: int = 5          # content words a motivation/method/abstract needs to count as prose
    offtopic_threshold: float = 0.0  # cosine to the topic below which an idea is off-topic; 0 = no check


def check_idea(idea: IdeaRecord, *, topic: str, cfg: GateConfig = GateConfig(),
               similarity: Similarity | None = None) -> list[str]:
    """Every reason `idea` is not a valid idea on `topic` (empty: it is valid)."""
    f = {n: str(getattr(idea, n) or "") for n in TEXT_FIELDS}
    reasons: list[str] = []
    title = f["title"].strip()
    if not title or title == "(untitled)":
        reasons.append("title is empty")
    else:
        p = field_problem("title", title, min_words=1)
        if p:
            reasons.append(p)
    bodies = [n for n in BODY_FIELDS if f[n].strip()]
    if not bodies:
        reasons.append("motivation, method and abstract are all empty")
    for n in TEXT_FIELDS[1:]:
        if not f[n].strip():
            continue
        p = field_problem(n, f[n], min_words=1)
        if p:
            reasons.append(p)
    # a terse field is fine ("A two-stage method."), as long as one of them says what the idea is
    if bodies and all(field_problem(n, f[n], min_words=cfg.min_body_words) for n in bodies):
        reasons.append(f"no field holds the idea in prose (motivation, method and abstract each have fewer than "
                       f"{cfg.min_body_words} content words)")
    reasons += copied_fields(f, ("title", *BODY_FIELDS))
    topic_words = " ".join(content_words(topic))
    if topic_words:  # a title may name the topic; a body that only restates it says nothing
        for n in BODY_FIELDS:
            if " ".join(content_words(f[n])) == topic_words:
                reasons.append(f"{n} only repeats the topic")
    if not reasons and similarity is not None and cfg.offtopic_threshold > 0:
        gist = "\n".join(x for x in (f["title"], f["motivation"], f["method"] or f["abstract"]) if x.strip())
        sim = similarity(topic, gist)
        if sim < cfg.offtopic_threshold:
            reasons.append(f"off-topic: similarity to the topic {sim:.2f} < {cfg.offtopic_threshold:.2f}")
    return reasons


def rejection_text(reasons: Sequence[str]) -> str:
    return "invalid_idea: " + "; ".join(reasons)


def gate(ideas: Sequence[IdeaRecord], *, topic: str, cfg: GateConfig = GateConfig(),
         similarity: Similarity | None = None) -> list[IdeaRecord]:
    """The ideas with every accepted-but-invalid one turned `rejected`, its reasons in `rejection`. Rejected and
    candidate ideas pass through as they are (a method's own rejection keeps its reason)."""
    out: list[IdeaRecord] = []
    for idea in ideas:
        if idea.status != "accepted":
            out.append(idea)
            continue
        reasons = check_idea(idea, topic=topic, cfg=cfg, similarity=similarity)
        out.append(idea.model_copy(update={"status": "rejected", "rejection": rejection_text(reasons)})
                   if reasons else idea)
    return out


def embedder_similarity(embedder: object) -> Similarity:
    """Cosine similarity under an `Embedder` (unit vectors: the inner product)."""
    def sim(a: str, b: str) -> float:
        v = embedder.embed([a, b])  # type: ignore[attr-defined]
        return float(v[0] @ v[1])
    return sim
