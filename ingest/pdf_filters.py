"""Line classes the offline parser must not mistake for headings or titles, and line repairs done
before headings are looked for.

- table-of-contents entries: a heading-like line with its page number at the right (on the same line
  after dot leaders or spaces, or as a separate number on the same baseline), in a run;
- table rows: a line that shares its baseline with other text in the same column (a heading stands
  alone on its line);
- equations and formula fragments: maths symbols, '=' or mostly one-letter tokens;
- vertical margin stamps (arXiv identifiers printed up the side of page 1);
- drop caps: a large initial set apart from the rest of its word ("I" + "N this paper").
"""

from __future__ import annotations

import re

import numpy as np

from motivgraph.ingest.pdf_layout import Line

_SECTION_NUM = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.?|[A-H]\.)$")
_PAGE_NUM = re.compile(r"^(?:\d{1,4}|[ivxlc]{1,6})$")
_TOC_INLINE = re.compile(r"^(?=.*[A-Za-z]{3}).{3,120}?(?:\s*\.(?:\s?\.){2,}\s*|\s+)(?:\d{1,4}|[ivxlc]{1,6})$")
_MATH = re.compile(r"[=<>≤≥≈≠∑∏∫∂∇∞±×÷√∈∉⊂⊆∪∩→←↔⇒⇔∀∃∧∨¬^_{}|\\]|[\u2200-\u22ff\u27c0-\u27ef\u2980-\u2aff]")
_GREEK = re.compile(r"[\u0370-\u03ff\U0001d400-\U0001d7ff]")
_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st"})
_HAS_LIGATURE = re.compile("[\ufb00-\ufb06]")
_MARKS = re.compile(r"[∗*†‡§¶⋆]+")
_WORDS = re.compile(r"[^\W\d_]+")
_STAMP = re.compile(r"^arxiv:\s?\S+\s+\[[a-z\-.]+\]", re.I)


def fix_text(text: str) -> str:
    """Typographic ligatures as letters (pdfium passes U+FB01 'ﬁ' through when the font maps it)."""
    # looked for first: most lines have none, and the search costs under a third of the translation
    return text.translate(_LIGATURES) if _HAS_LIGATURE.search(text) else text


def is_formula(text: str) -> bool:
    """Equations, formula fragments and symbol soup: not a heading, not a title."""
    t = _MARKS.sub("", text).strip()  # footnote marks on a title or an author are not maths
    if not t:
        return False
    if _MATH.search(t):
        return True
    letters = sum(map(str.isalpha, t))
    if letters < 0.6 * len(t.replace(" ", "")):
        return True
    toks = _WORDS.findall(t)
    single = sum(len(tok) == 1 for tok in toks)
    if toks and single >= 3 and single >= 0.4 * len(toks):
        return True
    return len(_GREEK.findall(t)) >= 2


ROW_OVERLAP = 0.6  # share of the shorter line's height two lines on one baseline overlap by, at least


def same_row(a: Line, b: Line) -> bool:
    """Two lines on one baseline (their vertical extents mostly overlap)."""
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    return overlap > ROW_OVERLAP * min(a.y1 - a.y0, b.y1 - b.y0)


class PageRows:
    """One page's line boxes as arrays: `same_row` against every line of the page at once, for a pass that
    asks it of many lines (the furniture pass, of every page-number-like line)."""

    def __init__(self, page: list[Line]) -> None:
        self.lines = page
        self.x1 = np.array([o.x1 for o in page])
        self.y0 = np.array([o.y0 for o in page])
        self.y1 = np.array([o.y1 for o in page])

    def ends_a_row(self, k: int) -> bool:
        """Whether a line of the page other than line k ends left of it on its baseline."""

        ln = self.lines[k]
        overlap = np.minimum(self.y1, ln.y1) - np.maximum(self.y0, ln.y0)
        hit = (self.x1 < ln.x0) & (overlap > ROW_OVERLAP * np.minimum(self.y1 - self.y0, ln.y1 - ln.y0))
        hit[k] = False
        return bool(hit.any())


_ROMAN_CHARS = frozenset("ivxlc")


def _ends_in_page_number(t: str) -> bool:
    """Whether `t` ends in a number set apart by a space or a dot leader -- what _TOC_INLINE needs, checked
    without the regex: the trailing run of digits (or of roman numeral letters) right after a space or a dot."""
    if not t:
        return False
    in_run = str.isdigit if t[-1].isdigit() else _ROMAN_CHARS.__contains__
    if not in_run(t[-1]):
        return False
    start = len(t) - 1
    while start > 0 and in_run(t[start - 1]):
        start -= 1
    return start > 0 and (t[start - 1].isspace() or t[start - 1] == ".")


def toc_lines(lines: list[Line]) -> set[int]:
    """Indexes (into `lines`, reading order) of table-of-contents entries: a heading-like line whose
    page number sits at its right — in the same line after leaders/spaces, or as a separate number on
    the same baseline — when at least three such lines occur within a dozen lines of each other."""
    marks: list[int] = []
    page_num = [bool(_PAGE_NUM.match(ln.text.strip())) for ln in lines]
    # the lines within 3 of a page-number line: only they can have their number set apart (few on most pages)
    near_number = {i for j, number in enumerate(page_num) if number for i in range(j - 3, j + 4)}
    for i, ln in enumerate(lines):
        t = ln.text.strip()
        if page_num[i]:
            continue
        # the inline form ends in a page number (checked first: the pattern is slow on long lines)
        entry = _ends_in_page_number(t) and bool(_TOC_INLINE.match(t)) and not is_formula(
            re.sub(r"[\d.\s]+$", "", t))
        if not entry and i in near_number:
            # the page number was set apart (far right): a separate line on the same baseline
            for j in range(max(0, i - 3), min(len(lines), i + 4)):
                o = lines[j]
                if page_num[j] and j != i and o.page == ln.page and o.x0 > ln.x1 + 10 and same_row(
                    ln, o
                ):
                    entry = True
                    break
        if entry:
            marks.append(i)
    out: set[int] = set()
    for k, i in enumerate(marks):
        near = [j for j in marks[max(0, k - 2) : k + 3] if abs(j - i) <= 12 and lines[j].page == lines[i].page]
        if len(near) >= 3:
            out.add(i)
    return out


def shares_row(lines: list[Line], i: int) -> bool:
    """The line has other text set like it (same size and weight, not a section number) beside it on
    its baseline in the same column: a table row or a run of labels, not a heading."""
    ln = lines[i]
    for j in range(max(0, i - 6), min(len(lines), i + 7)):
        o = lines[j]
        if j == i or o.page != ln.page or o.col != ln.col or not same_row(ln, o):
            continue
        if abs(o.size - ln.size) >= 0.6 or o.bold != ln.bold:
            continue  # a margin note or a caption beside it, not a cell of the same table row
        if _SECTION_NUM.match(o.text.strip()) and o.x1 <= ln.x0 + 2:
            continue  # "1" set apart from "Introduction"
        if _PAGE_NUM.match(o.text.strip()) and o.x0 > ln.x1:
            continue  # a TOC page number (handled by toc_lines)
        return True
    return False


def is_stamp(ln: Line) -> bool:
    """A vertical margin stamp (arXiv id up the side of page 1), or text set vertically."""
    t = ln.text.strip()
    if _STAMP.match(t):
        return True
    return len(t) <= 2 and (ln.y1 - ln.y0) > 3 * max(ln.x1 - ln.x0, 1.0) and ln.size < 30


def merge_split_lines(lines: list[Line], body_size: float) -> list[Line]:
    """Rejoin what the page layout split: a drop cap with the rest of its word, and a section number
    set apart from its heading text on the same baseline ("1" ... "Introduction")."""
    out: list[Line] = []
    skip: set[int] = set()
    for i, ln in enumerate(lines):
        if i in skip:
            continue
        t = ln.text.strip()
        if len(t) <= 2 and t.isalpha() and t[:1].isupper() and ln.size >= 1.8 * body_size:
            # the paragraph's first line: the topmost line right beside the cap, within its height
            # (reading order may have put it before or after the cap)
            beside = [
                o for o in lines[max(0, i - 6) : i + 6]
                if o is not ln and o.page == ln.page and (ln.x0 + ln.x1) / 2 <= o.x0 < ln.x1 + 3 * body_size
                and ln.y0 < o.y1 <= ln.y1 + body_size
            ]
            if beside:
                o = max(beside, key=lambda x: x.y1)
                o.text = t + o.text
                o.x0 = min(o.x0, ln.x0)
            else:
                out.append(ln)
            continue
        if _SECTION_NUM.match(t) and i + 1 < len(lines):
            o = lines[i + 1]
            if o.page == ln.page and same_row(ln, o) and 0 <= o.x0 - ln.x1 < 80 and o.text[:1].isalpha():
                o.text = f"{t} {o.text}"
                o.x0 = ln.x0
                continue
        out.append(ln)
    return out
