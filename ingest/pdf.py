"""Offline PDF parser: pypdfium2 text + layout heuristics → Paper (no server, no AGPL code).

Heuristics, in order:
- body font size/font = the most common (by characters) on the first pages;
- running headers/footers (top/bottom band of a page, page numbers) are dropped;
- each page's lines are ordered by column: one or two columns are detected from line boxes;
- title = the largest-font line block in the upper part of page 1 (a drop cap or a stamp is
  not a title);
- headings = numbered lines (1, 1.1, I., A.) in a heading font whose numbers follow in sequence,
  known section names on their own line, and short lines set clearly larger or bold;
- the abstract is the text after an 'Abstract' marker, the references what follows 'References'.
"""

from __future__ import annotations

import functools
import logging
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pypdfium2 as pdfium

from motivgraph.errors import ParseError
from motivgraph.ingest.identity import stable_paper_id
from motivgraph.ingest.models import (
    NOT_A_PAPER,
    PageMarks,
    Paper,
    Section,
    assign_roles,
    classify_heading,
    shift_pages,
)
from motivgraph.ingest.pdf_filters import (
    PageRows,
    fix_text,
    is_formula,
    is_stamp,
    merge_split_lines,
    shares_row,
    toc_lines,
)
from motivgraph.ingest.pdf_identity import MetaValue, PdfIds, find_ids, read_metadata
from motivgraph.ingest.pdf_layout import Line, page_lines
from motivgraph.ingest.references import parse_reference_lines
from motivgraph.text_hygiene import Repairs

log = logging.getLogger(__name__)

_NUM_HEAD = re.compile(
    r"^(?P<num>(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?)|(?:[IVX]{1,5}\.?)|(?:[A-H]\.(?:\d{1,2}\.?)?))\s+(?P<title>\S.{0,110})$"
)
_KNOWN_HEADS = {
    "abstract", "introduction", "related work", "related works", "background", "prior work", "previous work",
    "conclusion", "conclusions", "concluding remarks", "discussion", "discussions", "conclusions and future work",
    "conclusion and future work", "future work", "references", "bibliography", "acknowledgments",
    "acknowledgements", "acknowledgment", "acknowledgement", "experiments", "experimental results", "results",
    "evaluation", "methods", "method", "methodology", "approach", "appendix", "summary", "literature cited",
    "related literature", "motivation", "overview", "preliminaries", "problem statement", "problem definition",
    "materials and methods", "experimental setup", "experiments and results", "results and discussion",
    "limitations", "ethics statement", "keywords", "index terms",
}
_STRONG_HEADS = {
    "abstract", "introduction", "references", "bibliography", "related work", "conclusion", "conclusions",
    "acknowledgments", "acknowledgements", "acknowledgment", "acknowledgement", "literature cited",
}
_NOT_HEAD = re.compile(
    r"^(fig\.?|figure|table|algorithm|definition|theorem|lemma|corollary|proposition|example|proof|remark|"
    r"claim|step|eq\.|equation|author keywords|acm classification|categories and subject|general terms|"
    r"keywords)\b",
    re.I,
)
# Front matter is often not in English (a German, French or Spanish journal; a thesis chapter): the labels that
# mark the abstract, the Introduction and the reference list in the languages papers are commonly written in.
_ABSTRACT_LABELS = frozenset({
    "abstract", "zusammenfassung", "kurzfassung", "résumé", "resumé", "resumen", "resumo", "riassunto", "sommario",
    "samenvatting", "sammanfattning", "sammendrag", "tiivistelmä", "streszczenie", "abstrakt", "özet", "аннотация",
    "抄録", "摘要",
})
_INTRO_LABELS = frozenset({
    "introduction", "einleitung", "einführung", "introducción", "introdução", "introduzione", "inleiding",
    "inledning", "innledning", "johdanto", "wprowadzenie", "úvod", "giriş", "введение",
})
_REF_HEADS = {
    "references", "bibliography", "literature cited", "reference", "literatur", "literaturverzeichnis",
    "références", "références bibliographiques", "bibliographie", "referencias", "bibliografía", "referências",
    "bibliografia", "riferimenti bibliografici", "literatuur", "referenser", "litteratur", "kirjallisuus",
    "literatura", "kaynaklar", "список литературы",
}
_KNOWN_HEADS |= _ABSTRACT_LABELS | _INTRO_LABELS | _REF_HEADS
_STRONG_HEADS |= _ABSTRACT_LABELS | _INTRO_LABELS | _REF_HEADS
_LABEL_ALT = "|".join(sorted((re.escape(x) for x in _ABSTRACT_LABELS), key=len, reverse=True))
_INTRO_ALT = "|".join(sorted((re.escape(x) for x in _INTRO_LABELS), key=len, reverse=True))
_STOP_TITLE = re.compile(
    r"(arxiv|proceedings|journal|conference|copyright|©|vol\.|volume|issn|doi|preprint|workshop|"
    r"submitted|accepted|published|pages?\s+\d|https?://|www\.)",
    re.I,
)
_AFFIL = re.compile(
    r"(@|universit|institut|department|dept\.|laborator|\blab\b|inc\.|corporation|research|school|college|"
    r"center|centre|faculty|usa\b|u\.s\.a|germany|china|japan|france|canada|\d{3,}"
    # an address: a comma, then a US state or Canadian province code in capitals ("Murray Hill, NJ"; any of them,
    # not only the three of one corpus), or a street line with its number ("One Harbour Way", "12 Rue Cuvier")
    r"|,\s*(?-i:A[BKLRZ]|BC|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ABDEINOST]|N[BCDEHJLMSTUVY]|O[HKNR]|P[AEQR]|"
    r"QC|RI|S[CDK]|T[NX]|UT|V[AIT]|W[AIVY]|YT)(?:\b|\s)"
    r"|(?:\b\d{1,5}|\b(?:one|two|three|four|five|six|seven|eight|nine|ten))\s+(?:[A-Z][\w'.-]*\s+){1,3}"
    r"(?:way|road|rd\.|street|st\.|avenue|ave\.|boulevard|blvd\.?|drive|lane|parkway|place|plaza|square|court)\b"
    r"|\b(?:rue|calle|avenida|via|strasse|straße)\s+[A-Z])",
    re.I,
)
# Words of departments, disciplines and organisations, never of a person's name: an affiliation line such as
# "Computer Science" has no address or institution word for _AFFIL to catch, yet is capitalised like a name.
_ORG_WORDS = frozenset({
    "science", "sciences", "engineering", "computer", "computing", "informatics", "mathematics", "mathematical",
    "statistics", "physics", "chemistry", "biology", "medicine", "medical", "technology", "technologies", "academy",
    "hospital", "labs", "group", "systems", "ltd", "gmbh", "llc", "foundation", "ministry", "campus", "studies",
    "program", "programme", "division", "unit", "intelligence", "analytics", "electrical", "mechanical",
    "electronics", "robotics", "applied",
})
_NUM_PREFIX = re.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.?|[A-H]\.)\s+")
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10,
          "XI": 11, "XII": 12, "XIII": 13, "XIV": 14, "XV": 15}


@dataclass
class _Head:
    idx: int  # index into ordered lines
    heading: str
    number: str | None
    top: int | None  # top-level section number, when numbered
    generic: bool = False  # found by font alone (no number, not a known section name)
    lines: int = 1  # lines the heading occupies


_HEAD_END = re.compile(r"[\s:.]+$")
# patterns used once per line, compiled once
_BODY_START = re.compile(rf"^((?:{_LABEL_ALT})\b|(1\.?|I\.)\s+(?:{_INTRO_ALT})\b|(?:{_INTRO_ALT})$)", re.I)
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(r"[\d\s\-–—|/ivxlc]{1,12}|page \d+( of \d+)?", re.I)
_FAMILY_END = re.compile(r"[-,]")
_SENTENCE_BREAK = re.compile(r"[.:]\s")
_BRACKETS = re.compile(r"[()=<>{}\[\]|]")
_RUN_IN_ABSTRACT = re.compile(rf"^(?:{_LABEL_ALT})\s*[—\-–.:]", re.I)
_RUN_IN_ABSTRACT_CAPS = re.compile(r"^ABSTRACT\s+[A-Z]")
_RUN_IN_ABSTRACT_WORD = re.compile(r"^Abstract\s+[A-Z][a-z]*\s")  # "Abstract We show ...": before any heading
_RUN_IN_WORD = re.compile(rf"^(?:{_LABEL_ALT})\s*[—\-–.:]?\s*", re.I)


def _norm_head(text: str) -> str:
    t = _HEAD_END.sub("", text.strip()).lower()
    return " ".join(t.split())


def _mode(values: list[tuple[float, int]]) -> float:
    c: Counter[float] = Counter()
    for v, w in values:
        c[v] += w
    return c.most_common(1)[0][0] if c else 10.0


def _column_boundary(lines: list[Line], w: float) -> tuple[float, float]:
    """(left edge of the first column, x where the second column starts): the two most used left
    edges of long lines that lie far enough apart; the page middle when there is no such pair
    (landscape and wide-margin layouts put the columns well off the middle)."""
    edges = Counter(round(ln.x0 / 4) * 4 for ln in lines if 0.2 * w < ln.width < 0.6 * w)
    common = [(x, c) for x, c in edges.most_common(6) if c >= 5]
    best: tuple[int, float, float] | None = None
    for i, (a, ca) in enumerate(common):
        for b, cb in common[i + 1 :]:
            lo, hi = min(a, b), max(a, b)
            if hi - lo > 0.25 * w and (best is None or min(ca, cb) > best[0]):
                best = (min(ca, cb), lo - 2, hi - 2)
    return (best[1], best[2]) if best else (0.0, w / 2)


def _order_page(lines: list[Line]) -> list[Line]:
    """Reading order for one page: full-width lines above the columns, left column, right column,
    full-width lines below."""
    if not lines:
        return lines
    w = lines[0].page_width or max(ln.x1 for ln in lines)
    left_edge, boundary = _column_boundary(lines, w)
    for ln in lines:
        if ln.x1 < left_edge - 4:
            ln.col = 3  # a margin column (figures, notes) left of the text columns
        elif ln.x1 <= boundary + 0.015 * w:
            ln.col = 1
        elif ln.x0 >= boundary - 0.015 * w:
            ln.col = 2
        else:
            ln.col = 0
    left = [ln for ln in lines if ln.col == 1 and ln.width > 0.22 * w]
    right = [ln for ln in lines if ln.col == 2 and ln.width > 0.22 * w]
    if len(left) < 5 or len(right) < 5:
        for ln in lines:
            ln.col = 0
        wide = [ln for ln in lines if ln.width > 0.5 * w] or lines
        _mark_centered(lines, min(ln.x0 for ln in wide), max(ln.x1 for ln in wide))
        return sorted(lines, key=lambda ln: (-round((ln.y0 + ln.y1) / 2), ln.x0))
    # a line that starts right of where every left-column line ends belongs to the right column, and one that ends
    # before the right column starts to the left: an entry of a hanging-indent reference list starts left of its
    # own continuation lines, which set the column's usual edge ("[11] M. Tran, ..." at 312 pt, the rest at 332 pt)
    left_end, right_start = max(ln.x1 for ln in left), min(ln.x0 for ln in right)
    for ln in lines:
        if ln.col == 0 and ln.x0 >= left_end - 2:
            ln.col = 2
        elif ln.col == 0 and ln.x1 <= right_start + 2:
            ln.col = 1
    _mark_centered([ln for ln in lines if ln.col == 1], min(ln.x0 for ln in left), max(ln.x1 for ln in left))
    _mark_centered([ln for ln in lines if ln.col == 2], min(ln.x0 for ln in right), max(ln.x1 for ln in right))
    col_top = max(ln.y1 for ln in left + right)
    # author/affiliation blocks set side by side look like column lines; the body columns start
    # at the "Abstract" (or first section) heading when one sits in a column
    for ln in lines:
        if ln.col and _BODY_START.match(ln.text.strip()):
            col_top = min(col_top, ln.y1 + 1)
            break
    col_bottom = min(ln.y0 for ln in left + right)

    def key(ln: Line) -> tuple[int, int, float, float]:
        yc = (ln.y0 + ln.y1) / 2
        if yc > col_top + 1:
            # title/author block above the body columns (authors may sit side by side)
            return (0, 0, -round(yc), ln.x0)
        if ln.col == 3:
            return (3, 3, -yc, ln.x0)
        if ln.col == 0:
            if yc >= col_top - 1:
                return (0, 0, -yc, ln.x0)
            if yc <= col_bottom + 1:
                return (2, 0, -yc, ln.x0)
            # a full-width figure/table/caption inside the columns: read it with the left column
            return (1, 1, -yc, ln.x0)
        return (1, ln.col, -round(yc), ln.x0)

    return sorted(lines, key=key)


def _mark_centered(lines: list[Line], left: float, right: float) -> None:
    center = (left + right) / 2
    for ln in lines:
        ln.centered = ln.width < 0.7 * (right - left) and abs((ln.x0 + ln.x1) / 2 - center) < 6 and ln.x0 > left + 8


def _repeated_texts(lines: list[Line]) -> set[str]:
    """Texts (digits blanked) that recur near the top/bottom of three or more pages: running heads."""
    seen: dict[str, set[int]] = {}
    for ln in lines:
        h = ln.page_height or 792.0
        if ln.y0 > 0.85 * h or ln.y1 < 0.15 * h:
            key = _DIGITS.sub("#", ln.text.lower())
            seen.setdefault(key, set()).add(ln.page)
    return {k for k, pages in seen.items() if len(pages) >= 3}


def _strip_furniture(lines: list[Line], body_size: float, repeated: set[str] | None = None) -> list[Line]:
    """Drop running headers/footers and page numbers."""
    out = []
    repeated = repeated or set()
    on_page: dict[int, list[Line]] = {}
    position: dict[int, int] = {}  # id(line) -> its index in its page's list
    for ln in lines:
        page = on_page.setdefault(ln.page, [])
        position[id(ln)] = len(page)
        page.append(ln)
    rows: dict[int, PageRows] = {}

    def ends_a_row(ln: Line) -> bool:
        if ln.page not in rows:
            rows[ln.page] = PageRows(on_page[ln.page])
        return rows[ln.page].ends_a_row(position[id(ln)])

    for ln in lines:
        h = ln.page_height or 792.0
        # page 1 carries the title near its top, and running heads often repeat the title
        band = (ln.y0 > 0.85 * h or ln.y1 < 0.15 * h) if ln.page > 0 else ln.y1 < 0.15 * h
        if band and _DIGITS.sub("#", ln.text.lower()) in repeated:
            continue
        in_band = ln.y0 > 0.935 * h or ln.y1 < 0.065 * h
        t = ln.text.strip()
        if (
            ln.size < 1.8 * body_size
            and _PAGE_NUMBER.fullmatch(t)
            # a page number, unless it ends a text line inside the page (a contents entry's)
            and (in_band or not ends_a_row(ln))
        ):
            continue
        if in_band and len(t.split()) <= 15 and ln.size <= body_size + 0.5:
            continue
        if ln.width < 1.0 and len(t) <= 2:
            continue
        out.append(ln)
    return out


def _para_break(prev: Line, ln: Line) -> bool:
    """A paragraph starts at `ln`: a sentence ended on `prev`, and `ln` sits lower than a line space below it or
    is indented, in the same column of the same page."""
    gap = prev.y0 - ln.y1
    return (
        prev.page == ln.page and prev.col == ln.col and (gap > 0.9 * max(ln.size, 6) or ln.x0 > prev.x0 + 6)
        and len(prev.text) > 0
        and prev.text[-1] in ".:!?"
    )


def _join(lines: list[Line]) -> str:
    """Lines → text with de-hyphenation and paragraph breaks (vertical gap or indent)."""
    return _join_pages(lines)[0]


def _join_pages(lines: list[Line]) -> tuple[str, PageMarks]:
    """`_join`, and where each page begins in the text: (offset, 1-based page) pairs (Section.pages), so a
    quote located in the text has a page (miner/evidence.py)."""
    parts: list[str] = []
    marks: PageMarks = []
    at = 0  # length of "".join(parts)
    prev: Line | None = None
    for ln in lines:
        t = ln.text
        if prev is None:
            sep = ""
        elif _para_break(prev, ln):
            sep = "\n\n"
        elif parts and parts[-1].endswith("-") and t[:1].islower():
            parts[-1] = parts[-1][:-1]
            at -= 1
            sep = ""
        else:
            sep = " "
        if not marks or marks[-1][1] != ln.page + 1:
            marks.append((at + len(sep), ln.page + 1))
        parts.append(sep + t)
        at += len(sep) + len(t)
        prev = ln
    text = "".join(parts)
    lead = len(text) - len(text.lstrip())
    text = text.strip()
    return text, [(max(0, o - lead), p) for o, p in marks if o - lead < len(text)] if text else []


def _is_heading_font(ln: Line, body_size: float) -> bool:
    return ln.size >= body_size + 0.8 or ln.bold


def _find_headings(lines: list[Line], body_size: float, body_font: str) -> list[_Head]:
    heads: list[_Head] = []
    last_top = 0
    roman_mode = False
    toc = toc_lines(lines)
    last_letter = ""
    body_family = _family(body_font)
    for i, ln in enumerate(lines):
        t = ln.text.strip()
        if i in toc or ("contents" in t.lower() and _norm_head(t) in ("contents", "table of contents")):
            continue
        # "Abstract—We ...", "Abstract. We ...", "ABSTRACT We ..." run-in marker
        run_in = _RUN_IN_ABSTRACT.match(t) or _RUN_IN_ABSTRACT_CAPS.match(t) or (
            not heads and _RUN_IN_ABSTRACT_WORD.match(t))
        if run_in and ln.page <= 1 and not any(_norm_head(h.heading) == "abstract" for h in heads):
            heads.append(_Head(i, "Abstract", None, None))
            # the body's numbering starts after the abstract: numbered lines above it were the author block's
            # ("1 Center for Data Systems, Urbana, IL"), and must not make "1 Introduction" look out of sequence
            last_top, roman_mode, last_letter = 0, False, ""
            continue
        caps = t.isupper() and sum(ch.isalpha() for ch in t) >= 4
        if len(t) < 3 or len(t) > 120 or ln.size < body_size - (2.6 if caps else 1.2):
            continue
        # a caption, a formula or a table cell is no heading: checked only for a line that would be one
        # (most lines are not), right before it is taken
        words = t.split()
        heading_font = _is_heading_font(ln, body_size) or (caps and len(words) <= 8) or ln.centered
        m = _NUM_HEAD.match(t)
        if m:
            num = m.group("num").rstrip(".")
            title = m.group("title").strip()
            title_norm = _norm_head(title)
            plausible = (
                title[:1].isupper()
                and len(title.split()) <= 12
                and not title.endswith((",", ";"))
                and sum(ch.isdigit() for ch in title) <= 3
                and sum(ch.isalpha() for ch in title) >= 3
                and not re.search(r"[=<>{}\[\]]", title)
                # an affiliation numbered by its footnote mark: "2 Mountain West Research Institute, Boulder, CO"
                and not ("," in title and _affiliation_line(title))
            )
            strong = title_norm in _STRONG_HEADS or title_norm in _KNOWN_HEADS
            if plausible and (heading_font or (strong and len(words) <= 5)):
                parts = num.split(".")
                top: int | None
                if parts[0].isdigit():
                    top = int(parts[0])
                    sub = len(parts) > 1
                    if (top == last_top + 1 and not sub) or (top == last_top and sub) or (
                        not heads and top in (1, 2) and not sub
                    ) or (strong and top > last_top):
                        if _not_a_heading(lines, i, t):
                            continue
                        last_top = top
                        heads.append(_Head(i, title, num, top))
                        continue
                elif parts[0] in _ROMAN:
                    top = _ROMAN[parts[0]]
                    if (top == last_top + 1) or (strong and top > last_top):
                        if _not_a_heading(lines, i, t):
                            continue
                        roman_mode = True
                        last_top = top
                        heads.append(_Head(i, title, num, top))
                        continue
                elif re.fullmatch(r"[A-H]", parts[0]) and heading_font and (
                    roman_mode
                    or title_norm in _KNOWN_HEADS
                    # lettered top-level sections (A., B., C. in sequence) in papers without numbers
                    or (last_top == 0 and parts[0] == (chr(ord(last_letter) + 1) if last_letter else "A"))
                ):
                    if _not_a_heading(lines, i, t):
                        continue
                    if not roman_mode and last_top == 0:
                        last_letter = parts[0]
                    heads.append(_Head(i, title, num, None))
                    continue
        # a known section name alone on its line (in a heading font, or another typeface than the body's)
        if len(words) <= 6 and (norm := _norm_head(t)) in _KNOWN_HEADS and not t[:1].islower() and (
            heading_font or norm in _STRONG_HEADS or t.isupper()
            or (_family(ln.font) != body_family and ln.size >= body_size - 0.6)
        ):
            if _not_a_heading(lines, i, t):
                continue
            # "Zusammenfassung", "Resumen": the abstract, whatever language labels it
            heads.append(_Head(i, "Abstract" if norm in _ABSTRACT_LABELS else t.rstrip(".:"), None, None))
            continue
        # other short lines in a clearly larger or bold font that are not the body font
        if (
            (ln.size >= body_size + 1.5 or (ln.bold and ln.font != body_font and ln.size >= body_size - 0.2))
            and 1 <= len(words) <= 8
            and t[:1].isupper()
            and not t.endswith((".", ",", ";", ":"))
            and not _SENTENCE_BREAK.search(t)
            and sum(ch.isalpha() for ch in t) >= 4
            # not in the title/author block: page 1 needs a real section heading first
            and (ln.page > 0 or any(_norm_head(h.heading) != "abstract" for h in heads))
            and i > 0
            and not _NUM_HEAD.match(t)
            and not _BRACKETS.search(t)
            and sum(ch.isalpha() or ch.isspace() for ch in t) >= 0.85 * len(t)
            and not _not_a_heading(lines, i, t)
        ):
            heads.append(_Head(i, t, None, None, generic=True))
    return _prune_generic(heads, lines)


def _not_a_heading(lines: list[Line], i: int, t: str) -> bool:
    """A figure/table caption or a theorem label, a formula, or a cell of a table row."""
    return bool(_NOT_HEAD.match(t)) or is_formula(_NUM_PREFIX.sub("", t)) or shares_row(lines, i)


@functools.lru_cache(maxsize=1024)
def _family(font: str) -> str:
    name = font.split("+", 1)[-1]  # subset prefix "ABCDEE+"
    return _FAMILY_END.split(name, maxsplit=1)[0].lower()


def _prune_generic(heads: list[_Head], lines: list[Line]) -> list[_Head]:
    """Font-only headings: keep those set like the paper's real (numbered or named) headings, or
    like a bold run-in subsection head; drop runs of three or more consecutive lines (figure or
    table content); join a run of two in the same style (a heading set on two lines)."""
    styles = {
        (_family(lines[h.idx].font), round(lines[h.idx].size)) for h in heads if not h.generic
    }
    if styles:
        body_like = min(size for _, size in styles)
        heads = [
            h for h in heads
            if not h.generic
            or (_family(lines[h.idx].font), round(lines[h.idx].size)) in styles
            or (lines[h.idx].bold and round(lines[h.idx].size) <= body_like)
        ]
    out: list[_Head] = []
    k = 0
    while k < len(heads):
        h = heads[k]
        if not h.generic:
            out.append(h)
            k += 1
            continue
        run = [h]
        while (
            k + len(run) < len(heads)
            and heads[k + len(run)].generic
            and heads[k + len(run)].idx == run[-1].idx + 1
        ):
            run.append(heads[k + len(run)])
        if len(run) == 1:
            out.append(h)
        elif len(run) == 2 and abs(lines[run[0].idx].size - lines[run[1].idx].size) < 0.6:
            out.append(_Head(h.idx, f"{h.heading} {run[1].heading}", None, None, generic=True, lines=2))
        k += len(run)
    return out


# front matter that sits between the abstract and the body: keywords, dates, licences, correspondence
_FRONT = re.compile(
    r"^(key\s?words|index terms|subjects|received|accepted|published|copyright|©|correspond|e-?mail|"
    r"citation|academic editor|open access|this article is|abbreviations)\b",
    re.I,
)
_MATH_FONT = re.compile(r"^(cmmi|cmsy|cmex|msbm|msam|symbol|mtsy|mtex|eufm|rsfs|stixmath|cambriamath|.*math)")
_LICENCE = re.compile(
    r"(creative commons|licen[cs]e|copyright|©|all rights reserved|open access|distributed under)", re.I
)


def _is_front_line(lines: list[Line], j: int) -> bool:
    """Line j opens a front-matter entry (keywords, dates, licence, correspondence): it starts with one of their
    labels, capitalised as a label is — an abstract line that wraps to begin with "accepted by" or "published in"
    is still the abstract."""
    t = lines[j].text.strip()
    return _FRONT.match(t) is not None and not t[:1].islower()


def _abstract_stop(ordered: list[Line], a: int, b: int, body_font: str, body_size: float) -> int:
    """Where an abstract that starts at line `a` ends (at most `b`, the next heading). An abstract set
    in its own typeface (a boxed or bold abstract) ends at the first line in the body typeface after
    it, or at a keywords/licence line; one set like the body runs to the next heading."""
    faces: Counter[str] = Counter()
    for ln in ordered[a : min(b, a + 12)]:
        faces[ln.font] += ln.chars
    if not faces:
        return b
    own_face = faces.most_common(1)[0][0] != body_font
    for j in range(a + 1, b):
        ln = ordered[j]
        if _is_front_line(ordered, j):
            return j
        if own_face and ln.font == body_font and abs(ln.size - body_size) < 0.6 and len(ln.text) > 25:
            return j
    return b


def _is_math_font(font: str) -> bool:
    return bool(_MATH_FONT.search(font.split("+", 1)[-1].lower()))


def _affiliation_line(t: str) -> bool:
    """An address or affiliation line: an institution word in mostly capitalised words ("Soil Research Center,
    University of Lund") or an e-mail — not a sentence that mentions research or a year."""
    if "@" in t:
        return True
    if not _AFFIL.search(t):
        return False
    words = [w for w in re.findall(r"[^\W\d_]+", t) if len(w) > 3]
    return not words or sum(w[0].isupper() for w in words) >= 0.5 * len(words)


def _prose_block(
    ordered: list[Line], a: int, b: int, body_size: float, body_font: str = ""
) -> tuple[int, int] | None:
    """(start, end) of the first block of running prose in ordered[a:b] on the first two pages:
    three or more lines in one typeface and size, close together, made of sentences, not an author
    list, an affiliation or a licence. Used as the abstract when the paper has no 'Abstract' marker.
    Affiliation lines that lead the block are left out; a block set like the body (its font and size) ends at
    its first paragraph break, since nothing else tells such an abstract from the untitled body after it."""
    j = a
    b = min(b, len(ordered))
    while j < b:
        ln = ordered[j]
        if ln.page > 1:
            return None
        k = j + 1
        while (
            k < b
            and abs(ordered[k].size - ln.size) < 0.3
            and (ordered[k].col == ordered[k - 1].col or 0 in (ordered[k].col, ordered[k - 1].col))
            and (_family(ordered[k].font) == _family(ordered[k - 1].font) or _is_math_font(ordered[k].font)
                 or _is_math_font(ordered[k - 1].font))
            and ordered[k].page == ln.page
            and 0 <= ordered[k - 1].y0 - ordered[k].y1 < 1.5 * max(ln.size, 6)
        ):
            k += 1
        block = ordered[j:k]
        text = " ".join(x.text for x in block)
        widest = max(x.width for x in block)
        long_lines = sum(x.width > 0.75 * widest for x in block)
        if (
            len(block) >= 3
            and long_lines >= 0.6 * len(block)
            and len(text) >= 250
            and ln.size >= body_size - 2.1
            and len(re.findall(r"[a-z]{2,}[.!?](?:\s|$)", text)) >= 2
            and not _LICENCE.search(text)
            and sum(_affiliation_line(x.text) for x in block) < 0.3 * len(block)
        ):
            while j + 1 < k and _affiliation_line(ordered[j].text):
                j += 1
            if ln.font == body_font and abs(ln.size - body_size) < 0.6:
                k = _paragraph_end(ordered, j, k)
            return j, k
        j = k
    return None


class _Title(NamedTuple):
    text: str
    first: int  # index of the first title line in page 1's ordered lines (-1: none)
    last: int  # index of the last title line
    set_apart: bool  # set larger than the body text (not the fallback "first bold or first line")


# a figure/table caption ("Table 1: ...", "Fig. 3.") or a numbered section heading ("5.1 Hyper Parameter ...")
# is what a page from inside a paper shows in large or bold type, never a paper's title
_CAPTION = re.compile(r"^(?i:fig\.?|figure|tab\.?|table|algorithm|listing)\s*(?:\d+|[IVX]+)[a-z]?(?:[.:|—–-]|\s|$)")
_SECTION_NUMBER = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.)\s+[A-Z]")
# a title line set on from the line above may hold what alone marks a banner ("... Workshop on ...") or a section
# name ("... : An Overview"), but never an address, a DOI or a licence
_NOT_TITLE_TAIL = re.compile(r"(https?://|www\.|\bdoi\b|©|@|\bissn\b|arxiv:)", re.I)


def _title_block(page0: list[Line], body_size: float, next_page: list[Line] | None = None) -> _Title:
    """The title from page 1's ordered lines: the block of consecutive
    lines in one typeface and size, in the upper part of the page, set in the largest size there;
    among blocks of that size the one with the most letters (a "Research Article" banner or a
    one-word journal logo in the same size is not the title) — unless page 1 is a cover sheet (a
    report series, a repository cover): then the block that page 2 repeats near its top is the
    paper's title. Formula lines, DOI/journal lines, section names, numbered headings and captions do not
    start a title; a line set on directly below a title line in its size and weight continues it whatever
    its words (a two-line title whose second line names a workshop)."""
    if not page0:
        return _Title("", -1, -1, False)
    h = page0[0].page_height or 792.0

    def candidate(ln: Line) -> bool:
        t = ln.text
        return (
            ln.y0 > 0.35 * h
            and sum(ch.isalpha() for ch in t) >= 4
            and not _STOP_TITLE.search(t)
            and _norm_head(_NUM_PREFIX.sub("", t)) not in _KNOWN_HEADS
            and not is_formula(t)
            and not _CAPTION.match(t.strip())
            and not _SECTION_NUMBER.match(t.strip())
        )

    cands = [(i, ln) for i, ln in enumerate(page0) if candidate(ln)]

    def running_above(ln: Line) -> int:
        return sum(x.chars for x in page0 if x.y0 > ln.y1 and abs(x.size - body_size) < 0.6 and x.page == ln.page)

    # a figure's axis label or a heading set below running text is no title, however large: the title is looked
    # for among the lines with no running text above them (when there are any)
    cands = [(i, ln) for i, ln in cands if running_above(ln) < 200] or cands
    if not cands:
        return _Title("", -1, -1, False)
    best_size = max(ln.size for _, ln in cands)
    if best_size < body_size + 0.5:
        # no larger font: the first bold line set at least as large as the text (a class's small bold banner above
        # the title, "Typeset using ...", is no title) with the bold lines set on below it; else the first line
        bold = [(i, ln) for i, ln in cands if ln.bold and ln.size >= body_size - 0.5]
        if not bold:
            i, ln = cands[0]
            return _Title(ln.text, i, i, False)
        i = j = bold[0][0]
        while j + 1 < len(page0) and (nxt := page0[j + 1]).bold and _sets_on(page0[j], nxt) \
                and sum(ch.isalpha() for ch in nxt.text) >= 2 and not _NOT_TITLE_TAIL.search(nxt.text):
            j += 1
        text = re.sub(r"(\w)- (\w)", r"\1-\2", " ".join(" ".join(page0[k].text for k in range(i, j + 1)).split()))
        return _Title(text, i, j, False)
    blocks: list[list[int]] = []
    for i, ln in cands:
        if ln.size < best_size - 0.6:
            continue
        if blocks:
            last = page0[blocks[-1][-1]]
            follows = blocks[-1][-1] == i - 1 or all(not candidate(x) and x.size < best_size - 0.6
                                                       for x in page0[blocks[-1][-1] + 1 : i])
            if follows and _sets_on(last, ln):
                blocks[-1].append(i)
                continue
        blocks.append([i])
    for bl in blocks:
        # lines that could not start a title but continue one set directly above them
        while bl[-1] + 1 < len(page0) and (nxt := page0[bl[-1] + 1]).y0 > 0.35 * h and _sets_on(page0[bl[-1]], nxt) \
                and sum(ch.isalpha() for ch in nxt.text) >= 2 and not _NOT_TITLE_TAIL.search(nxt.text) \
                and not _CAPTION.match(nxt.text.strip()) and not is_formula(nxt.text):
            bl.append(bl[-1] + 1)
    top_next = _letters(" ".join(ln.text for ln in (next_page or [])[:12]))

    def rank(bl: list[int]) -> tuple[bool, int]:
        text = _letters(" ".join(page0[i].text for i in bl))
        return len(text) >= 12 and text in top_next, len(text)

    best = max(blocks, key=rank)
    title = " ".join(" ".join(page0[i].text for i in best).split())
    title = re.sub(r"(\w)- (\w)", r"\1-\2", title)
    return _Title(title, best[0], best[-1], True)


def _sets_on(last: Line, ln: Line) -> bool:
    """`ln` continues the title line `last`: same weight and size, the next line down (or the same row)."""
    return (
        last.bold == ln.bold
        and abs(last.size - ln.size) <= 0.6
        and (last.y0 - ln.y1 < 1.6 * ln.size or abs(last.y0 - ln.y0) < 2)
    )




def _not_a_paper(
    tb: _Title, page0: list[Line], heads: list[_Head], body_size: float, authors: list[str], n_pages: int = 1
) -> str | None:
    """Why this document is not a research paper (None: it is one). A paper opens with a title block — a
    title set apart in larger type at the top of page 1, not inside running text, with its authors' names
    under it — or shows an abstract or an Introduction (or a section numbered 1) where its body starts. A page
    from inside a paper, a brief or a form has none of these: its largest type is a section heading, a
    caption, a figure label or a journal's running banner, with running text under it."""
    if any(_norm_head(h.heading) == "abstract" for h in heads):
        return None
    body = [h for h in heads if _norm_head(h.heading) not in ("keywords", "index terms")]
    if any(classify_heading(h.heading) == "introduction" or _norm_head(h.heading) in _INTRO_LABELS for h in body) or (
        body and body[0].top == 1
    ):
        return None
    # Judging "not a paper" drops the title, the abstract and every triple, so it is kept for what cannot be one: a
    # document of several pages with body sections and a reference list is a paper whatever its first page looks
    # like (a cover, a figure whose labels are the largest type, front matter in a language without known labels).
    sections = [h for h in body if _norm_head(h.heading) not in _REF_HEADS]
    if n_pages >= 2 and len(sections) >= 2 and len(sections) < len(body):
        return None
    if tb.first >= 0 and tb.set_apart and not tb.text[:1].islower():
        top = page0[tb.first]
        # running text above the title: the "title" is a heading inside a page of body text
        above = sum(ln.chars for ln in page0
                    if ln.y0 > top.y1 and abs(ln.size - body_size) < 0.6 and ln.page == top.page)
        if above < 200 and authors:
            return None
        where = "sits below running text" if above >= 200 else "has no author names under it"
        why = f"the largest type, {tb.text[:60]!r}, {where}"
    elif tb.first >= 0:
        why = f"nothing is set larger than the body text; the first line is {tb.text[:60]!r}"
    else:
        why = "page 1 has no line that could be a title"
    return f"{NOT_A_PAPER} ({why})"


def _beside_label(ordered: list[Line], i: int, floor: int) -> list[Line]:
    """Lines read before the margin label at i ("Abstract" set in the left margin, level with its text's
    second line) that belong to the text beside it: right of the label, on its page, reaching down to it."""
    label = ordered[i]
    j = i
    while (
        j - 1 > floor
        and (ln := ordered[j - 1]).page == label.page
        and ln.x0 > label.x1 + 4
        and ln.y0 > label.y0
        and ln.y0 - label.y1 < 1.5 * max(label.size, 6)
        # an e-mail or address of the author block set level with the label is not the abstract's
        and not _affiliation_line(ln.text)
    ):
        j -= 1
    return ordered[j:i]


def _paragraph_end(ordered: list[Line], a: int, b: int) -> int:
    """The first paragraph break in ordered[a:b] (a line after a finished sentence, set lower or indented), else b."""
    for j in range(a + 1, b):
        if _para_break(ordered[j - 1], ordered[j]):
            return j
    return b


def _letters(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalpha())


def _authors(page0: list[Line], after: int, stop: int, body_size: float) -> list[str]:
    names: list[str] = []
    name_size: float | None = None  # the size the first names are set in
    for k, ln in enumerate(page0[after + 1 : min(stop, after + 40)]):
        t = ln.text
        # past the first five lines only lines in the names' own size: a grid of authors (ACM, IEEE) sets each
        # name above its affiliation and e-mail, so the second row of names comes ten lines down
        if k >= 5 and (name_size is None or abs(ln.size - name_size) > 0.3):
            continue
        if _AFFIL.search(t) or _norm_head(t) in _KNOWN_HEADS or len(t) > 150:
            continue
        before = len(names)
        t = re.sub(r"[\d*†‡§¶,]+(?=\s|$)", ",", t)
        for part in re.split(r",|\b(?i:and)\b|&|;|\s{3,}", t):
            p = " ".join(part.split()).strip(" .")
            toks = p.split()
            if 2 <= len(toks) <= 4 and all(tok[:1].isupper() for tok in toks) and not any(
                ch.isdigit() for ch in p
            ) and not any(tok.lower() in _ORG_WORDS for tok in toks) and p not in names and (
                # further down, a name is set like the first ones (all in capitals or not): "Google Inc" and
                # "Mountain View" under names in capitals are an address
                k < 5 or not names or p.isupper() == names[0].isupper()
            ):
                names.append(p)
        if name_size is None and len(names) > before:
            name_size = ln.size
        if len(names) >= 12:
            break
    # affiliation marks set as superscript letters run into the name ("Benedikt Hubera" for Huber^a): when the
    # affiliation lines open with those letters ("aSchool of ...", "b Research ...") and every name ends in one
    # of them, the letter is the mark, not the name's
    marks = {m.group(1) for ln in page0[after + 1 : min(stop, after + 14)]
             if (m := re.match(r"([a-z])\s?[A-Z]", ln.text.strip()))}
    if marks and (len(names) >= 2 or marks == {"a"}) and all(
        n[-1] in marks and n[-2:-1].islower() and len(n.split()[-1]) > 2 for n in names
    ):
        names = [n[:-1] for n in names]
    return names


def _own_ids(lines: list[Line], page0_text: str, meta: list[MetaValue]) -> PdfIds:
    """The paper's DOI and arXiv id (ingest.pdf_identity) from all of page 1 — every line, header and footer
    included, and the stamp set up the margin, which pdfium's page text holds and the lines leave out —,
    the header/footer lines of the next three pages, and the metadata."""
    lines0 = [ln for ln in lines if ln.page == 0]
    bands = " ".join(
        ln.text for ln in lines
        if 1 <= ln.page <= 3 and (ln.y1 < 0.12 * (ln.page_height or 792.0) or ln.y0 > 0.88 * (ln.page_height or 792.0))
    )
    return find_ids(page0_text, lines0, bands, meta)


def parse_pdf(
    path: str | Path,
    *,
    max_pages: int = 60,
    sha256: str | None = None,
    source_path: str | None = None,
) -> Paper:
    """Parse one PDF into a Paper with the offline heuristics. Raises ParseError with a reason."""

    p = Path(path)
    try:
        doc = pdfium.PdfDocument(str(p))
    except pdfium.PdfiumError as e:
        msg = str(e)
        if "password" in msg.lower():
            raise ParseError("encrypted PDF (password required); decrypt it first (e.g. qpdf --decrypt)") from e
        if p.exists() and p.stat().st_size == 0:
            raise ParseError("empty file (0 bytes)") from e
        raise ParseError(f"not a readable PDF ({msg}); the file may be truncated or not a PDF") from e
    try:
        n_pages = len(doc)
        if n_pages == 0:
            raise ParseError("PDF has no pages")
        lines: list[Line] = []
        repairs: list[Repairs] = []
        page0_text: list[str] = []
        for pn in range(min(n_pages, max_pages)):
            page = doc[pn]
            try:
                lines.extend(page_lines(page, pn, repairs, texts=page0_text if pn == 0 else None))
            finally:
                page.close()
        meta = read_metadata(doc, p)
    finally:
        doc.close()
    ids = _own_ids(lines, "\n".join(page0_text), meta)

    total_chars = sum(ln.chars for ln in lines)
    if total_chars < 200 * min(n_pages, 2) / 2:
        raise ParseError(
            f"no text layer ({total_chars} characters in {min(n_pages, max_pages)} pages): a scanned PDF; "
            "run OCR first (e.g. ocrmypdf) or use GROBID"
        )
    lines = [ln for ln in lines if not is_stamp(ln)]
    for ln in lines:
        ln.text = fix_text(ln.text)
    body_size = _mode([(ln.size, ln.chars) for ln in lines])
    body_font = Counter({ln.font: 0 for ln in lines})
    for ln in lines:
        body_font[ln.font] += ln.chars
    body_font_name = body_font.most_common(1)[0][0]
    for ln in lines:
        if ln.font == body_font_name:
            ln.bold = False

    pages: dict[int, list[Line]] = {}
    for ln in lines:
        pages.setdefault(ln.page, []).append(ln)
    ordered: list[Line] = []
    page0: list[Line] = []
    page1: list[Line] = []
    repeated = _repeated_texts(lines)
    # the front page is the first with text on it: a blank first page (or one holding only a page number or a
    # printer's mark) is skipped, and the title and abstract are looked for on the page after it
    first_pn = next((pn for pn in sorted(pages) if sum(ln.chars for ln in pages[pn]) >= 80), min(pages, default=0))
    for pn in sorted(pages):
        if pn < first_pn:
            continue
        pl = merge_split_lines(_order_page(_strip_furniture(pages[pn], body_size, repeated)), body_size)
        if pn == first_pn:
            page0 = pl
        elif not page1:
            page1 = pl
        ordered.extend(pl)

    # the title is set above the abstract and the Introduction: a figure in the body, whose axis labels may be the
    # largest type on the page, is never the title
    body_start = next((i for i, ln in enumerate(page0) if i > 0 and (
        _BODY_START.match(ln.text.strip()) or _RUN_IN_ABSTRACT.match(ln.text.strip()))), len(page0))
    tb = _title_block(page0[:body_start], body_size, page1)
    title, title_end = tb.text, tb.last
    # the title set again later (on the paper's own first page after a cover sheet) is not a section
    heads = [h for h in _find_headings(ordered, body_size, body_font_name)
             if h.idx > title_end and not (title and _letters(h.heading) == _letters(title))]
    abs_k = next((k for k, h in enumerate(heads) if _norm_head(h.heading) == "abstract"), None)
    if abs_k:
        # lines above the abstract are title, authors and affiliations, whatever their font
        heads = heads[abs_k:]

    # the reference list first: a list printed with no heading after the last section (or set across both columns
    # below it) was read into that section's text; the lines its entries were read from are no section's. (A list
    # under its own heading is no section's text already, and its entries are not second-guessed here.)
    in_list: set[int] = set()
    ref_start = next((h.idx + h.lines for h in heads if _norm_head(h.heading) in _REF_HEADS), None)
    references = parse_reference_lines(
        ordered,
        ref_start,
        # a numbered or appendix heading ends the list (a bold unnumbered line inside it is an entry)
        stops={h.idx for h in heads if h.number is not None or re.match(r"^(appendix|[A-H]\b)", h.heading, re.I)},
        used=in_list if ref_start is None else None,
    )

    # text lines in the body font range (drop footnotes, captions, table cells set small)
    def body_text(a: int, b: int) -> str:
        return _join([ln for j, ln in enumerate(ordered[a:b], a) if ln.size >= body_size - 1.2 and j not in in_list])

    def body_pages(a: int, b: int) -> tuple[str, PageMarks]:
        return _join_pages([ln for j, ln in enumerate(ordered[a:b], a)
                            if ln.size >= body_size - 1.2 and j not in in_list])

    abstract = ""
    abstract_pages: PageMarks = []  # where pages begin in the abstract (Paper.abstract_pages)
    abstract_end = -1  # index of the first line after the abstract
    sections: list[Section] = []
    ref_text = ""
    first_idx = heads[0].idx if heads else len(ordered)
    for k, h in enumerate(heads):
        end = heads[k + 1].idx if k + 1 < len(heads) else len(ordered)
        norm = _norm_head(h.heading)
        if norm in _REF_HEADS:
            ref_text = _join(ordered[h.idx + h.lines : end])
            # references run on to the end unless an appendix heading follows
            continue
        if norm == "abstract":
            t = ordered[h.idx].text
            run_in = _RUN_IN_WORD.sub("", t)
            stop = _abstract_stop(ordered, h.idx + h.lines, end, body_font_name, body_size)
            if k + 1 == len(heads) or _norm_head(heads[k + 1].heading) in _REF_HEADS:
                # no section heading follows: the body runs on untitled, the abstract is its first paragraph
                stop = _paragraph_end(ordered, h.idx, stop)
            lead = _beside_label(ordered, h.idx, title_end)
            # an abstract is often set smaller than the body (8 pt under 10 pt text): its lines are measured against
            # its own size, not the body's, or all but the label's line would be dropped as footnotes
            floor = min(body_size, ordered[min(h.idx + h.lines, stop - 1)].size if stop > h.idx + h.lines else
                        ordered[h.idx].size, ordered[h.idx].size) - 1.2
            text, apages = _join_pages([ln for ln in lead + ordered[h.idx + h.lines : stop] if ln.size >= floor])
            prefix = (run_in + " ") if run_in != t and run_in else ""
            if prefix.endswith("- ") and text[:1].islower():
                prefix = prefix[:-2]  # "make them up-" / "gradeable": a word broken at the label line's end
            abstract, abstract_pages = prefix + text, shift_pages(apages, len(prefix))
            if prefix:
                abstract_pages[:1] = [(0, ordered[h.idx].page + 1)]
            abstract_end = stop
            continue
        if norm in ("keywords", "index terms"):
            continue
        if ref_text and h.number is None and not re.match(r"^(appendix|[A-H]\b)", h.heading, re.I):
            # inside the reference list: a bold line there is an entry, not a section
            ref_text += "\n" + ordered[h.idx].text + " " + _join(ordered[h.idx + 1 : end])
            continue
        text, marks = body_pages(h.idx + h.lines, end)
        sections.append(Section(heading=h.heading, number=h.number, text=text, pages=marks))
    body_heads = [h for h in heads if _norm_head(h.heading) not in ("abstract", "keywords", "index terms")]
    next_head = body_heads[0].idx if body_heads else len(ordered)
    authors = _authors(page0, title_end, first_idx, body_size)
    not_paper = _not_a_paper(tb, page0, heads, body_size, authors, n_pages)
    if not_paper:
        # a page from inside a paper, a brief, a form: what looked like its title and abstract is a heading, a
        # caption or body text — kept as body, under no title
        title, title_end, abstract, authors = "", -1, "", []
    elif not abstract:
        # no marker: the first block of prose between the author block and the first heading
        block = _prose_block(ordered, title_end + 1, next_head, body_size, body_font_name)
        if block:
            abstract, abstract_pages = body_pages(*block)
            abstract_end = block[1]
    intro_like = bool(body_heads) and classify_heading(body_heads[0].heading) in ("introduction", "related_work")
    if not_paper or (not intro_like and (abstract_end >= 0 or not body_heads)):
        # the body opens untitled (journal styles, papers without headings): the text between the abstract (or
        # the title) and the first heading
        start = abstract_end if abstract_end >= 0 else title_end + 1
        pre = [ln for j, ln in enumerate(ordered[start:next_head], start)
               if ln.size >= body_size - 1.2 and not _is_front_line(ordered, j) and j not in in_list]
        pre_text, pre_pages = _join_pages(pre)
        if len(pre_text) > 300 or (pre_text and not sections and abstract_end < 0):
            sections.insert(0, Section(heading="", number=None, text=pre_text, pages=pre_pages))
    assign_roles(sections)

    doi, arxiv = ids.doi, ids.arxiv_id
    year = None
    small_text = " ".join(ln.text for ln in page0 if ln.size <= body_size + 0.1)[:4000]
    ym = re.findall(r"\b(19[6-9]\d|20[0-4]\d)\b", small_text)
    if ym:
        year = max(int(y) for y in ym[:10])
    return Paper(
        paper_id=stable_paper_id(doi, arxiv, sha256) if (doi or arxiv or sha256) else f"title:{title[:200]}",
        title=title,
        authors=authors,
        abstract=abstract,
        title_page=page0[0].page + 1 if title and page0 else None,  # the front page (after a blank one)
        abstract_pages=abstract_pages if abstract else [],
        year=year,
        doi=doi,
        arxiv_id=arxiv,
        sections=sections,
        # the list after the first References heading (ingest.references finds where it ends)
        references=references,
        page_count=n_pages,
        parser="pdf",
        sha256=sha256,
        source_path=source_path or str(p),
        text_repairs=sum(repairs, Repairs()).as_dict(),
        notes=([f"only the first {max_pages} of {n_pages} pages were read (setting MOTIVGRAPH_INGEST_MAX_PAGES)"]
               if n_pages > max_pages else []) + ([NOT_A_PAPER] if not_paper else []),
        not_a_paper=not_paper,
    )
