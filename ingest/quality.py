"""Parse-quality scores used by the corpus tests and the parse benchmarks: which fields of a parsed paper match a
hand-checked truth record (title, the Introduction and where it stops, and the others of FIELDS)."""

from __future__ import annotations

import re

from motivgraph.ingest.models import Paper


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
