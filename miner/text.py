"""What the extractor reads of a paper, chosen and trimmed by rule.

Input is the title, the abstract and the Introduction; the method section is added when the
Introduction is thin (fewer than `thin_intro_words` words, or missing), because B.3 names solutions
from the method when the Introduction only hints at them.

Trimming to the token budget is deterministic and keeps what the naming rules need:
1. the title is always kept; the abstract is capped at a quarter of the budget (whole sentences);
2. Introduction paragraphs are ranked — the first paragraph (it states the task), paragraphs with
   challenge or contribution cues (they state the difficulty and the solution), the last paragraph
   (it often lists contributions), then the rest in order — and taken in that rank until the budget
   is spent, then printed in their original order; a paragraph that does not fit whole is cut at a
   sentence boundary;
3. the method section, when used, gets what is left, from its start (the overview comes first).

Tokens are estimated at four characters each (close to BPE tokenizers on English prose; no
tokenizer files are needed offline).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from motivgraph.ingest.models import Paper
    from motivgraph.settings import MinerSettings

CHARS_PER_TOKEN = 4

_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[\"“])")
_PARA_SPLIT = re.compile(r"\n\s*\n")

CHALLENGE_CUES = re.compile(
    r"\b(however|but|although|despite"
    r"|remains? (a |an )?(open |major |key |significant )?(challeng|difficult|problem|unclear)"
    r"|challeng\w*|difficult\w*|suffers? from|limited by|limitations?|fail(s|ed)? to|struggle\w*|bottleneck"
    r"|drawbacks?|lack(s|ing)? (of )?|unable to|intractable|prohibitive\w*|expensive|costly|hard to"
    r"|not scale|does not|do not|cannot|problematic|open (problem|question)|shortcoming\w*|insufficient)\b",
    re.I,
)
CONTRIBUTION_CUES = re.compile(
    r"\b(we (propose|introduce|present|develop|design|describe|show|demonstrate|address|tackle|investigate|study"
    r"|formulate|devise|extend|explore|apply|use|employ|leverage|provide|report|build|train|evaluate|define)"
    r"|this (paper|work|article|study) (proposes|introduces|presents|develops|describes|addresses|investigates|shows)"
    r"|in this (paper|work|article|study)"
    r"|our (contributions?|approach|method|model|framework|system|algorithm|key idea)"
    r"|contributions? (of this|are)|the main idea|key idea)\b",
    re.I,
)
NON_RESEARCH_CUES = re.compile(
    r"\b(this article has been (withdrawn|retracted)|retraction notice|erratum|corrigendum|table of contents"
    r"|call for papers|instructions (to|for) authors|author guidelines)\b",
    re.I,
)


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def words(text: str) -> int:
    return len(text.split())


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph (rule-based; good enough for prose, keeps 'e.g.' mostly intact)."""
    text = " ".join(text.split())
    if not text:
        return []
    out: list[str] = []
    for part in _SENT_SPLIT.split(text):
        # Re-join splits after common abbreviations the regex cannot know about.
        if out and re.search(r"\b(e\.g|i\.e|et al|cf|vs|Fig|Eq|Sec|resp|approx)\.$", out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return [s.strip() for s in out if s.strip()]


def split_paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in _PARA_SPLIT.split(text) if p.strip()]


def cut_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of whole sentences within max_tokens (at least a word-bounded cut)."""
    if estimate_tokens(text) <= max_tokens:
        return text
    limit = max_tokens * CHARS_PER_TOKEN
    kept: list[str] = []
    used = 0
    for s in split_sentences(text):
        if used + len(s) + 1 > limit:
            break
        kept.append(s)
        used += len(s) + 1
    if kept:
        return " ".join(kept)
    return text[:limit].rsplit(" ", 1)[0]


def _rank_paragraphs(paras: list[str]) -> list[int]:
    """Indices of paragraphs in the order they are worth keeping (see module doc)."""
    n = len(paras)
    if n == 0:
        return []
    first = [0]
    cued = sorted(
        (i for i in range(1, n) if CHALLENGE_CUES.search(paras[i]) or CONTRIBUTION_CUES.search(paras[i])),
        key=lambda i: (-(len(CHALLENGE_CUES.findall(paras[i])) + 2 * len(CONTRIBUTION_CUES.findall(paras[i]))), i),
    )
    last = [n - 1] if n > 1 else []
    order: list[int] = []
    for i in [*first, *cued, *last, *range(n)]:
        if i not in order:
            order.append(i)
    return order


def fit_paragraphs(text: str, max_tokens: int) -> tuple[str, bool]:
    """Select paragraphs by rank within max_tokens, printed in original order. Returns (text, trimmed)."""
    if estimate_tokens(text) <= max_tokens:
        return text.strip(), False
    paras = split_paragraphs(text)
    chosen: dict[int, str] = {}
    left = max_tokens
    for i in _rank_paragraphs(paras):
        cost = estimate_tokens(paras[i]) + 1
        if cost <= left:
            chosen[i] = paras[i]
            left -= cost
        elif left > 40:
            chosen[i] = cut_to_tokens(paras[i], left - 1)
            left = 0
        if left <= 40:
            break
    return "\n\n".join(chosen[i] for i in sorted(chosen) if chosen[i]), True


@dataclass
class ExtractionInput:
    """The paper text the extractor sees, and how it was chosen."""

    paper_id: str
    title: str
    abstract: str
    introduction: str
    method: str = ""
    sections_used: list[str] = field(default_factory=list)
    trimmed: bool = False
    source_words: int = 0
    unusable_reason: str | None = None

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.render())

    def render(self) -> str:
        parts = [f"TITLE: {self.title or '(untitled)'}"]
        if self.abstract:
            parts.append(f"ABSTRACT:\n{self.abstract}")
        if self.introduction:
            parts.append(f"INTRODUCTION:\n{self.introduction}")
        if self.method:
            parts.append(f"METHOD (excerpt):\n{self.method}")
        return "\n\n".join(parts)

    def full_text(self) -> str:
        """Everything the extractor saw, for validation checks against the paper's own words."""
        return "\n".join([self.title, self.abstract, self.introduction, self.method])


def _introduction_of(paper: Paper) -> tuple[str, str]:
    """(role used, text): the Introduction, else the first section that is not references-like."""
    intro = paper.section("introduction")
    if intro.strip():
        return "introduction", intro
    for s in paper.sections:
        if s.role in ("other", "related_work") and words(s.text) >= 60:
            return "introduction", s.text  # untitled opening section stands in for the Introduction
    return "", ""


def select_input(paper: Paper, cfg: MinerSettings) -> ExtractionInput:
    """Choose and trim the extractor input for one paper (pure function of the paper and settings)."""
    budget = cfg.input_token_budget
    title = " ".join(paper.title.split())
    abstract_full = " ".join(paper.abstract.split())
    intro_role, intro_full = _introduction_of(paper)
    method_full = paper.section("method")
    source_words = words(title) + words(abstract_full) + words(intro_full)

    inp = ExtractionInput(paper_id=paper.paper_id, title=title, abstract="", introduction="", source_words=source_words)
    head_text = " ".join([title, abstract_full, intro_full[:4000]])
    if paper.not_a_paper:
        inp.unusable_reason = paper.not_a_paper  # the parser's verdict, with its reason
        return inp
    if NON_RESEARCH_CUES.search(head_text):
        inp.unusable_reason = "not a research paper (withdrawal/erratum/notice text)"
        return inp
    if source_words < cfg.min_input_words:
        inp.unusable_reason = (
            f"text too short: {source_words} words of title, abstract and Introduction "
            f"(needs {cfg.min_input_words}; MOTIVGRAPH_MINER_MIN_INPUT_WORDS)"
        )
        return inp

    left = budget - estimate_tokens(title) - 20
    abstract = cut_to_tokens(abstract_full, max(50, budget // 4))
    trimmed = abstract != abstract_full
    left -= estimate_tokens(abstract)
    use_method = bool(method_full.strip()) and words(intro_full) < cfg.thin_intro_words
    # A thin Introduction leaves room for the method; keep 40% of what is left for it.
    intro_cap = max(0, int(left * 0.6)) if use_method else max(0, left)
    intro, cut = fit_paragraphs(intro_full, intro_cap)
    trimmed = trimmed or cut
    left -= estimate_tokens(intro)
    method = ""
    if use_method and left > 60:
        method, cut = fit_paragraphs(method_full, left)
        # The method is read from its start: rank-based selection suits the Introduction only.
        if cut:
            method = cut_to_tokens(" ".join(split_paragraphs(method_full)), left)
        trimmed = trimmed or cut

    inp.abstract = abstract
    inp.introduction = intro
    inp.method = method
    inp.trimmed = trimmed
    inp.sections_used = [s for s, t in (("abstract", abstract), (intro_role, intro), ("method", method)) if s and t]
    return inp
