"""Parse-quality checks used by the corpus test and the benchmark: is the title there, is the
Introduction there, and does it stop where the next section starts (not earlier, not later)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from motivgraph.ingest.models import Paper


@dataclass
class IntroQuality:
    title: bool
    intro: bool
    clean: bool
    next_heading: str | None = None
    reason: str = ""


def _norm(s: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", s.lower()).split())


def intro_quality(paper: Paper, expected_title: str | None = None, expected_next: str | None = None) -> IntroQuality:
    """Judge one parsed paper. With expectations (hand-checked title and the heading of the
    section after the Introduction) the check is exact; without, it falls back to plausibility."""
    title_ok = len(paper.title.split()) >= 2 and sum(ch.isalpha() for ch in paper.title) >= 10
    if expected_title is not None:
        title_ok = _norm(paper.title).startswith(_norm(expected_title)[:40])
    idx = next((k for k, s in enumerate(paper.sections) if s.role == "introduction"), None)
    if idx is None:
        return IntroQuality(title_ok, False, False, reason="no introduction section")
    intro = paper.section("introduction")
    k = idx
    while k + 1 < len(paper.sections) and paper.sections[k + 1].role == "introduction":
        k += 1
    nxt = paper.sections[k + 1].heading if k + 1 < len(paper.sections) else None
    reasons = []
    if len(intro) < 400:
        reasons.append(f"introduction too short ({len(intro)} chars)")
    if len(intro) > 25_000:
        reasons.append(f"introduction too long ({len(intro)} chars)")
    tail = intro.rstrip()[-1:] if intro.strip() else ""
    if tail not in ".!?:)]\"”’":
        reasons.append(f"introduction ends mid-sentence ({intro.rstrip()[-40:]!r})")
    if expected_next is not None and (nxt is None or not _norm(nxt).startswith(_norm(expected_next)[:30])):
        reasons.append(f"next section is {nxt!r}, expected {expected_next!r}")
    return IntroQuality(title_ok, True, not reasons, nxt, "; ".join(reasons))


def _alnum(s: str) -> str:
    """Letters and digits only, lower case: compares text across line breaks, hyphenation and
    drop caps ('I N this paper' == 'In this paper')."""
    return "".join(ch for ch in s.lower() if ch.isalnum())


def _strip_number(heading: str) -> str:
    return re.sub(r"^\s*(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.|[A-H]\.)\s+", "", heading).strip()


FIELDS = ("title", "first_heading", "first_words", "first_section", "abstract", "abstract_clean")


def truth_scores(paper: Paper, truth: dict[str, object]) -> dict[str, bool]:
    """Score one parsed paper against a hand-written truth entry (tests/fixtures/ingest/parse_truth.json).

    - title: same letters and digits as the printed title (case and spacing ignored);
    - first_heading: the first section's heading is the truth's (number stripped; '' for an untitled
      first section), and its number matches when the truth has one;
    - first_words: the first section's text (or, when a heading has no text of its own, that of the
      sub-section under it) starts with the truth's first words;
    - first_section: both of the above;
    - abstract: the abstract starts with the truth's first words;
    - abstract_clean: the abstract does not swallow the body (the first body words are not in it).
    """
    out = dict.fromkeys(FIELDS, False)
    out["title"] = bool(paper.title) and _alnum(paper.title) == _alnum(str(truth["title"]))
    want_head = truth.get("first_heading")
    want_num = truth.get("first_heading_number")
    if paper.sections:
        first = paper.sections[0]
        head = _strip_number(first.heading)
        head_ok = _alnum(head) == _alnum(str(want_head or ""))
        if want_num and head_ok:
            head_ok = (first.number or "").rstrip(".").upper() == str(want_num).upper()
        out["first_heading"] = head_ok
        text = first.text
        if not text.strip() and len(paper.sections) > 1:
            text = paper.sections[1].text
        words = _alnum(str(truth["first_words"]))
        out["first_words"] = _alnum(text).startswith(words)
        out["first_section"] = out["first_heading"] and out["first_words"]
    abstract = _alnum(paper.abstract)
    out["abstract"] = abstract.startswith(_alnum(str(truth["abstract_first_words"])))
    out["abstract_clean"] = bool(abstract) and _alnum(str(truth["first_words"])) not in abstract
    return out
