"""The corpus test's plausibility check of one parsed paper: is the title there, is the Introduction there, and
does it stop where the next section starts (not earlier, not later)."""

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
