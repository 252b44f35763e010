"""The evidence verifier: find each quote an extractor gave in the paper's parsed text.

A quote is the paper's own sentence (or a few) that states one element of a triple. The verifier
decides whether it is really there and where: section, page and character offsets into
`Paper.full_text()`. What it must survive is what PDFs do to text, on either side (the paper's parse
or the extractor's copy):

- line-end hyphenation ("exam- ple", "exam-\\nple" vs "example"), ligatures (ﬁ ﬂ ﬀ ﬃ), full-width and
  other compatibility forms, accents dropped or kept, curly vs straight quotes, dash kinds, any
  whitespace — all vanish in the *letter stream*: the text NFKD-decomposed, combining marks dropped,
  casefolded, and reduced to its letters and digits, with a map back to the original offsets;
- a sentence that runs across a page or column break, where a running head, a footnote or a caption
  got between its halves, or citations the extractor left out — the *tolerant* stage aligns the
  quote's words with a window of the paper's words and accepts when nearly all of them are there, in
  order, in one passage.

What it must reject: a paraphrase (words swapped for synonyms, clauses reordered), an invented
sentence, a sentence from another paper. None of these is a run of the paper's words, so their word
coverage stays well under the threshold (measured on the planted set, see `COVERAGE_THRESHOLD`).

Defined outcomes (each has a test in tests/unit/miner/test_miner_evidence.py):
- a quote that occurs more than once: the first occurrence inside a section whose role is the one the
  extractor named (introduction, abstract, method), else the first occurrence in the paper;
- a quote of fewer than MIN_QUOTE_WORDS words: unverified, "too short to locate" (three words
  occur in many places, and locate nothing a reviewer could check);
- a quote longer than MAX_QUOTE_CHARS: unverified, kept cut, "longer than a quote";
- a quote longer than its section (it runs on into the next one): located in the whole text; the
  section recorded is the one holding its first character;
- a paper with no text (no text layer: the parser already refuses it; an empty record): every quote
  unverified, "the paper has no text to check against";
- abstract-only records: located in the abstract, page None (the record has no pages);
- markup (HTML tags, LaTeX commands, Markdown emphasis) is stripped before matching; a quote in
  another script than the paper's (a translation) is unverified with that reason.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from motivgraph.choices import NODE_TYPES
from motivgraph.graph.models import Evidence, Quote
from motivgraph.limits import MAX_QUOTE_CHARS, MAX_QUOTES_PER_ELEMENT
from motivgraph.miner.schemas import RejectedTriple

if TYPE_CHECKING:
    from collections.abc import Sequence

    from motivgraph.ingest.models import PageMarks, Paper, TextSpan
    from motivgraph.miner.schemas import ExtractedTriple, ExtractionResult

MIN_QUOTE_WORDS = 5
"""Fewer words than this locate nothing a reviewer could check ("the proposed method" is everywhere)."""

COVERAGE_THRESHOLD = 0.85
"""Share of a quote's words that must be found, in order, in one passage of the paper. Measured on the
planted set (bench/bench_evidence.py, tests/integration/miner/test_evidence_planted.py: true quotes
damaged the way PDFs damage text, and paraphrases, invented sentences and other papers' sentences, all
built from the shared corpus at test time): PDF-damaged true quotes score >= 0.9 (a page break with a
running head between the halves, dropped citations), real paraphrases (synonyms and reordered
clauses) score <= 0.8. 0.85 sits between the two; the measured rates are in docs/evidence.md."""

WINDOW_SLACK = 60
"""Extra paper words a passage may hold beyond the quote's own (a running head, a footnote, a caption
or citations between the halves of a sentence)."""

REASON_NOT_FOUND = "not found in the paper"
REASON_TOO_SHORT = "too short to locate ({n} words; a quote needs at least {min} words)"
REASON_TOO_LONG = "longer than a quote ({n} characters; at most {max})"
REASON_NO_TEXT = "the paper has no text to check against"
REASON_PARTIAL = "only {pct}% of its words are in one passage of the paper (a paraphrase or an altered quote)"
REASON_OTHER_SCRIPT = "written in another script than the paper (a translation is not a quote)"
REASON_EMPTY = "empty once markup is removed"

_HYPHENS = "-\u00ad\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"
# the text in pieces: runs of ASCII letters and digits (folded in one step), runs of whitespace, and any other
# character alone (a non-ASCII one is folded on its own: ligatures, accents, full-width forms)
_PIECES = re.compile(r"(?P<ascii>[A-Za-z0-9]+)|(?P<space>\s+)|(?P<punct>[\x00-\x7f])|(?P<other>.)", re.S)
_MARKUP = re.compile(
    r"<[^<>]{1,200}>"  # HTML/XML tags
    r"|\\(?:textbf|textit|emph|texttt|textsc|mathrm|mathbf|mathit|text|cite[tp]?|ref|eqref|url)\b\*?"  # LaTeX
    r"|\\[a-zA-Z]+\*?(?=\s|\{|$)"  # other LaTeX commands
    r"|&(?:amp|lt|gt|quot|apos|nbsp|#\d{1,6});"  # HTML entities
)
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'", "&nbsp;": " "}


def strip_markup(text: str) -> str:
    """The quote without HTML tags, LaTeX commands and entities (Markdown emphasis, braces and other
    punctuation do not reach the letter stream anyway)."""
    return " ".join(_MARKUP.sub(lambda m: _ENTITIES.get(m.group(0), " "), text).split())


def _fold(ch: str) -> str:
    """One character as the letter stream sees it: compatibility-decomposed (ligatures, full-width),
    accents dropped, casefolded; only letters and digits survive."""
    if ch.isascii():
        return ch.lower() if ch.isalnum() else ""
    out = []
    for c in unicodedata.normalize("NFKD", ch):
        if unicodedata.combining(c):
            continue
        for f in c.casefold():
            if f.isalnum():
                out.append(f)
    return "".join(out)


@dataclass
class _Stream:
    """A text as letters and digits only (`norm`), with the original offset of each (`omap`), and as
    words (`words`, their start in `norm` in `wstart`). Words break at whitespace and punctuation, not at
    hyphens: "state-of-the-art", "state-of-theart" (a parser's de-hyphenation) and "exam- ple" are one
    word each, the same on both sides."""

    norm: str
    omap: list[int]
    words: list[str]
    wstart: list[int]

    @classmethod
    def of(cls, text: str) -> _Stream:
        norm: list[str] = []  # chunks
        omap: list[int] = []
        words: list[str] = []
        wstart: list[int] = []
        cur: list[str] = []
        n = 0  # letters so far
        joinable = True  # only hyphens (and spaces after one) since the last letter: no word break
        seen_hyphen = False
        for m in _PIECES.finditer(text):
            piece = m.group()
            if m.lastgroup == "ascii":
                folded = piece.lower()
                positions: range | list[int] = range(m.start(), m.end())
            elif m.lastgroup == "other":
                folded = _fold(piece)
                positions = [m.start()] * len(folded)
            else:
                folded = ""
            if folded:
                if cur and not joinable:
                    words.append("".join(cur))
                    cur = []
                if not cur:
                    wstart.append(n)
                norm.append(folded)
                omap.extend(positions)
                cur.append(folded)
                n += len(folded)
                joinable, seen_hyphen = True, False
            elif piece[0] in _HYPHENS:
                seen_hyphen = True
            elif piece[0].isspace() and seen_hyphen:
                pass  # "exam- ple": the hyphen and the line break between the halves of one word
            else:
                joinable = False
        if cur:
            words.append("".join(cur))
        omap.append(len(text))  # one past the end
        return cls("".join(norm), omap, words, wstart)


def _latin_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 1.0
    return sum(1 for c in letters if "LATIN" in unicodedata.name(c, "")) / len(letters)


@dataclass
class PaperText:
    """One paper's text prepared for locating quotes (build once per paper, verify many quotes). The letter
    stream, the script share and the word-pair index are built on first use: a quote found as it stands
    (the offline extractor's, most of a careful model's) needs none of them."""

    text: str
    spans: list[TextSpan]
    pages: PageMarks
    roles: dict[int, str]  # section index -> role
    _stream: _Stream | None = field(default=None, repr=False)
    _latin: float | None = field(default=None, repr=False)
    _bigrams: dict[tuple[str, str], list[int]] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, paper: Paper) -> PaperText:
        return cls(text=paper.full_text(), spans=paper.text_spans(), pages=paper.page_starts(),
                   roles={k: s.role for k, s in enumerate(paper.sections)})

    @property
    def stream(self) -> _Stream:
        if self._stream is None:
            self._stream = _Stream.of(self.text)
        return self._stream

    @property
    def latin(self) -> float:
        if self._latin is None:
            self._latin = _latin_share(self.text[:20000])
        return self._latin

    @property
    def bigrams(self) -> dict[tuple[str, str], list[int]]:
        if self._bigrams is None:
            idx: dict[tuple[str, str], list[int]] = {}
            w = self.stream.words
            for k in range(len(w) - 1):
                idx.setdefault((w[k], w[k + 1]), []).append(k)
            self._bigrams = idx
        return self._bigrams

    def span_at(self, offset: int) -> TextSpan | None:
        for sp in self.spans:
            if sp.start <= offset < sp.end:
                return sp
        return None

    def role_of(self, sp: TextSpan) -> str:
        return sp.label if sp.section is None else self.roles.get(sp.section, "other")

    def located(self, text: str, start: int, end: int) -> Quote:
        from motivgraph.ingest.models import Paper  # local: the miner's models import no parser at load time

        sp = self.span_at(start)
        return Quote(text=text, verified=True, section=(sp.label[:200] if sp else None),
                     page=Paper.page_in(self.pages, start), start=start, end=end)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_QUOTE_CHARS else text[: MAX_QUOTE_CHARS - 1].rstrip() + "…"


def _unverified(text: str, reason: str) -> Quote:
    return Quote(text=_cut(text) or "?", verified=False, reason=reason[:300])


def _verbatim(pt: PaperText, quote: str, prefer: str | None) -> tuple[int, int] | None:
    """(start, end) of the quote as it stands in the paper's text — the same choice among repeats as
    `_exact` — or None (then the letter stream decides)."""
    first: tuple[int, int] | None = None
    at = pt.text.find(quote)
    while at >= 0:
        loc = (at, at + len(quote))
        if first is None:
            first = loc
        if prefer is None:
            return first
        sp = pt.span_at(at)
        if sp is not None and pt.role_of(sp) == prefer:
            return loc
        at = pt.text.find(quote, at + 1)
    return first


def _exact(pt: PaperText, q: _Stream, prefer: str | None) -> tuple[int, int] | None:
    """Original (start, end) of the quote's letter stream in the paper's: the first occurrence in a
    section of the preferred role, else the first occurrence."""
    hay, needle = pt.stream.norm, q.norm
    first: tuple[int, int] | None = None
    at = hay.find(needle)
    while at >= 0:
        loc = (pt.stream.omap[at], pt.stream.omap[at + len(needle) - 1] + 1)
        if first is None:
            first = loc
        if prefer is None:
            return first
        sp = pt.span_at(loc[0])
        if sp is not None and pt.role_of(sp) == prefer:
            return loc
        at = hay.find(needle, at + 1)
    return first


def _tolerant(pt: PaperText, q: _Stream) -> tuple[float, tuple[int, int] | None]:
    """Best word coverage of the quote by one passage of the paper, and that passage's original span.
    Candidate passages are where the quote's word pairs occur (voting on the passage start)."""
    qw = q.words
    n = len(qw)
    votes: Counter[int] = Counter()
    for j in range(n - 1):
        for p in pt.bigrams.get((qw[j], qw[j + 1]), ()):
            votes[max(0, p - j) // 4] += 1
    best, where = 0.0, None
    pw = pt.stream.words
    for bucket, _ in votes.most_common(3):
        lo = max(0, bucket * 4 - 8)
        hi = min(len(pw), bucket * 4 + n + WINDOW_SLACK)
        window = pw[lo:hi]
        blocks = [b for b in difflib.SequenceMatcher(None, qw, window, autojunk=False).get_matching_blocks() if b.size]
        if not blocks:
            continue
        cov = sum(b.size for b in blocks) / n
        if cov > best:
            first, last = blocks[0], blocks[-1]
            a = lo + first.b
            z = lo + last.b + last.size - 1
            start = pt.stream.omap[pt.stream.wstart[a]]
            zend = pt.stream.wstart[z] + len(pw[z]) - 1
            best, where = cov, (start, pt.stream.omap[zend] + 1)
    return best, where


def verify_quote(pt: PaperText, text: str, prefer_role: str | None = None) -> Quote:
    """One quote checked against one paper (see the module doc for every outcome)."""
    raw = " ".join(str(text).split())
    if len(raw) > MAX_QUOTE_CHARS:
        return _unverified(raw, REASON_TOO_LONG.format(n=len(raw), max=MAX_QUOTE_CHARS))
    if len(raw.split()) >= MIN_QUOTE_WORDS and (loc := _verbatim(pt, raw, prefer_role)) is not None:
        return pt.located(raw, *loc)  # as it stands: no normalising needed
    clean = strip_markup(raw)
    q = _Stream.of(clean)
    if not q.norm:
        return _unverified(raw, REASON_EMPTY)
    if not pt.stream.norm:
        return _unverified(raw, REASON_NO_TEXT)
    if pt.latin > 0.5 and _latin_share(clean) < 0.5:
        return _unverified(raw, REASON_OTHER_SCRIPT)
    if len(q.words) < MIN_QUOTE_WORDS:
        return _unverified(raw, REASON_TOO_SHORT.format(n=len(q.words), min=MIN_QUOTE_WORDS))
    loc = _exact(pt, q, prefer_role)
    if loc is not None:
        return pt.located(raw, *loc)
    cov, where = _tolerant(pt, q)
    if where is not None and cov >= COVERAGE_THRESHOLD:
        return pt.located(raw, *where)
    if cov >= 0.5:
        return _unverified(raw, REASON_PARTIAL.format(pct=int(cov * 100)))
    return _unverified(raw, REASON_NOT_FOUND)


def coverage(pt: PaperText, text: str) -> float:
    """The best word coverage of a quote in the paper (1.0 for an exact letter-stream match): what the
    threshold is measured on."""
    q = _Stream.of(strip_markup(" ".join(text.split())))
    if not q.norm or not pt.stream.norm:
        return 0.0
    if pt.stream.norm.find(q.norm) >= 0:
        return 1.0
    return _tolerant(pt, q)[0]


_SECTION_ROLE = {"introduction": "introduction", "abstract": "abstract", "method": "method"}


def verify_quotes(pt: PaperText, quotes: Sequence[str], prefer_role: str | None = None) -> list[Quote]:
    """The first MAX_QUOTES_PER_ELEMENT distinct non-empty quotes of one element, each checked."""
    seen: set[str] = set()
    out: list[Quote] = []
    for text in quotes:
        t = " ".join(str(text).split())
        if not t or t in seen:
            continue
        seen.add(t)
        out.append(verify_quote(pt, t, prefer_role))
        if len(out) == MAX_QUOTES_PER_ELEMENT:
            break
    return out


def triple_evidence(pt: PaperText, triple: ExtractedTriple) -> Evidence:
    """The checked quotes of each element of one extracted triple."""
    prefer = _SECTION_ROLE.get((triple.section or "").strip().lower())
    return Evidence(
        problem=verify_quotes(pt, triple.problem.quotes, prefer),
        challenge=verify_quotes(pt, triple.challenge.quotes, prefer),
        solution=verify_quotes(pt, triple.solution.quotes, prefer),
    )




def unverified_elements(ev: Evidence) -> list[str]:
    """The elements of a triple with no located quote, with why (for the ingest report)."""
    out = []
    for e in NODE_TYPES:
        if ev.verified(e):
            continue
        qs = ev.of(e)
        why = qs[0].reason if qs else "the extractor gave no quote"
        out.append(f"{e}: {why}")
    return out


@dataclass
class QuoteTally:
    """Quotes given and located, per paper and in total (the verified-quote rate)."""

    given: int = 0
    located: int = 0

    def add(self, ev: Evidence) -> None:
        for e in NODE_TYPES:
            qs = ev.of(e)
            # an element the extractor gave no quote for counts as one quote not located
            self.given += max(1, len(qs))
            self.located += sum(q.verified for q in qs)

    @property
    def rate(self) -> float | None:
        return self.located / self.given if self.given else None


def verify_result(paper: Paper, result: ExtractionResult) -> list[Evidence]:
    """The checked quotes of each triple of one extraction (CPU-bound: run it in a thread)."""
    if not result.triples:
        return []
    pt = PaperText.of(paper)
    return [triple_evidence(pt, t) for t in result.triples]


def apply_policy(result: ExtractionResult, policy: str) -> ExtractionResult:

    """The extraction as it is stored: under `reject`, the triples with an unverified element move to
    `rejected`, each with its reasons; under `keep`, unchanged (the evidence marks them)."""
    if policy != "reject" or len(result.evidence) != len(result.triples):
        return result
    kept, evidence, rejected = [], [], list(result.rejected)
    for t, ev in zip(result.triples, result.evidence, strict=True):
        if ev.fully_verified:
            kept.append(t)
            evidence.append(ev)
        else:
            rejected.append(RejectedTriple(triple=t, violations=[f"unverified evidence: {why}"
                                                                 for why in unverified_elements(ev)]))
    if len(kept) == len(result.triples):
        return result
    out = result.model_copy(update={"triples": kept, "evidence": evidence, "rejected": rejected})
    if not kept:
        out.reason = (f"all {len(result.triples)} triples rejected for unverified evidence "
                      f"(MOTIVGRAPH_MINER_UNVERIFIED=reject): {rejected[-1].violations[0]}")
    return out
