"""Reference lists: the lines after a paper's References heading, split into entries and read.

Where one entry ends and the next begins is taken from the list's own marks, tried in this order:

- labels: [1], (1), 1. or a bare 1 opening a line, in sequence — the next entry is the next number, so a
  continuation line that happens to open with a number ("2002, 35:1010-2.") starts nothing;
- layout: a hanging indent (each entry's first line at its column's left edge, the rest indented) or its
  mirror (the first line indented); which of the two, from the list's first line, which always opens an entry;
- gaps: extra vertical space between entries set flush;
- text: a line that opens with an author ("Surname, I." / "Surname II," / "SURNAME, I.") after a line that
  ends a sentence — the last resort, for a list that has no other mark.

The lines come in reading order (columns and pages already ordered by the layout parser), so an entry cut by
a column or page break is whole again; the list stops at an appendix or other heading set larger, and at the
back matter that follows a list (biographies, publisher notices). Each entry keeps its raw text, and where its
text shows them, its authors, year, title, DOI and arXiv id.
"""

from __future__ import annotations

import itertools
import re
import statistics
import unicodedata
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from motivgraph.ingest.identity import find_arxiv_ids, find_dois
from motivgraph.ingest.models import Reference
from motivgraph.ingest.pdf_layout import Line

__all__ = ["parse_reference_lines", "parse_references"]

MAX_REFERENCES = 500

# a label opening a line: [12] / (12) / 12. / 12 — the bare form only before a word, never before a number
_LABEL = re.compile(
    r"^\s*(?:\[(?P<b>\d{1,3})\]|\((?P<p>\d{1,3})\)|(?P<d>\d{1,3})\.(?=\s|$)|(?P<n>\d{1,3})(?=\s+[^\d\s]))"
)
# what ends a reference list: back matter and appendix headings, biographies, publisher notices
_END = re.compile(
    r"^\s*(?:[A-Z]?\.?\s*)?(?:appendix|appendices|supplementary|supporting information|acknowledge?ments?\b|"
    r"author contributions|competing interests|conflicts? of interest|about the authors?|author biograph|"
    r"biograph(?:y|ies)\b|cite this article|submit your (?:next )?manuscript|received:? \d|"
    r"(?-i:(?:[A-Z][\w.'’()-]+\s){1,4}(?:is|was|received)\s(?:a|an|the|currently|his|her)\s))",
    re.I,
)
_YEAR = r"(?:1[89]\d\d|20[0-3]\d)"
# a year as a reference prints its publication year: ". 2008." / ", 2008," / "(2003)" / "2008a."
_YEAR_STRICT = re.compile(rf"(?:^|(?<=[.,;:]\s)|(?<=\())\(?(?P<y>{_YEAR})[a-z]?\)?(?=[.,;:)]|\s*$)")
_YEAR_ANY = re.compile(rf"(?<![\d/\-–.:])(?P<y>{_YEAR})[a-z]?(?![\d/\-–])")
# an author opening an entry: "Surname, I." / "Surname, Firstname" / "Surname II," / "SURNAME, I."
_AUTHOR_START = re.compile(
    r"^(?:[A-Z][A-Za-z'’\-]+\s){0,2}[A-Z][A-Za-z'’\-]+(?:,\s(?:[A-Z]\.|[A-Z][a-z]+)|\s[A-Z]{1,3}[,.:])"
)
_INITIALS = re.compile(r"(?:[A-Z]\.?\s?-?){1,4}")
# a surname's lower-case particle: "van den Berg M", "de Jong, A."
_PARTICLE = re.compile(r"(?:van|von|de|der|den|di|da|du|la|le|dos|das|des|del|della|ten|ter|zu)\s")
_ET_AL = re.compile(r",?\s*\bet\.? al\.?", re.I)


@dataclass
class _Row:
    """One line of the list, with what the segmenters need to know of it."""

    text: str
    block: tuple[int, int] = (0, 0)  # (page, column): x positions compare within one block only
    x0: float = 0.0
    y0: float = 0.0
    y1: float = 0.0
    size: float = 0.0
    margin: bool = False  # in the page's top or bottom tenth, where running heads and page numbers stand
    bold: bool = False
    index: int = -1  # the line's index in the paper's lines (-1: a line of text given without layout)


def parse_references(text: str) -> list[Reference]:
    """The entries of a reference list given as text, one printed line per text line (no layout known: labels,
    then author starts decide). A text without line breaks is split at its labels only."""
    rows = [_Row(t.strip()) for t in text.replace("\r", "").split("\n") if t.strip()]
    if len(rows) == 1:
        # a list flattened onto one line: cut before each "[n] " so its labels open lines again
        rows = [_Row(t.strip()) for t in re.split(r"\s(?=\[\d{1,3}\]\s)", " " + rows[0].text) if t.strip()]
    return _read_all(_segment(rows))


def parse_reference_lines(
    lines: Sequence[Line], start: int | None, stops: Collection[int] = (), used: set[int] | None = None
) -> list[Reference]:
    """The entries of the reference list whose heading ends just before `lines[start]` (None: the paper has no
    such heading marked, and one is looked for). `lines` are the paper's lines in reading order; the list runs
    on to a line whose index is in `stops` (the headings a layout parser found after it: an appendix, a
    numbered section), an appendix or back-matter heading it finds itself, or the end. `used`, when given,
    receives the indexes of the lines the entries were read from (the parser keeps them out of the sections)."""
    if start is None:
        start = _unmarked_start(lines)
    if start is None or start >= len(lines):
        return []
    rows: list[_Row] = []
    first = lines[start]
    beside: int | None = None  # a later column of the list's first page whose body ends beside the list's top
    for i, ln, c in _list_lines(lines, start):
        if i in stops and i >= start:
            if ln.page == first.page and c > 0 and ln.col != first.col and ln.y0 > first.y1 and beside is None:
                # a list set across the columns below the body's end (REVTeX's last page): the heading and text of
                # the body's last section stand in the next column above the list's top, ahead of its entries
                beside = c
                continue
            break
        if beside is not None and ln.page == first.page and c == beside and ln.y0 > first.y0 + 2:
            continue  # that section's text, beside the list's first entries and above them
        rows.append(_Row(ln.text.strip(), (ln.page, c), ln.x0, ln.y0, ln.y1, ln.size, _in_margin(ln), ln.bold, i))
    entries = _segment(_trim_end([r for r in rows if r.text]))
    if used is not None:
        used.update(r.index for e in entries for r in e)
    return _read_all(entries)


_HEAD_WORDS = re.compile(
    r"^\s*(?:\d{1,2}\.?\s+)?(?:references|bibliography|literature cited|works cited|reference list)\s*$", re.I
)


def _unmarked_start(lines: Sequence[Line]) -> int | None:
    """Where a list starts that the heading finder did not mark: after a line that reads 'References' (or the
    like) alone, in the back half of the paper; else at a run of labels [1], [2], [3]… (or 1., 2., 3.…) in the
    back half that opens five entries at least, most of them dated (a list printed without a heading, after the
    last section)."""
    half = len(lines) // 2
    for i in range(half, len(lines) - 1):
        if _HEAD_WORDS.match(lines[i].text):
            return i + 1
    for i in range(len(lines) - 1, half, -1):
        lb = _label(lines[i].text)
        if lb is None or lb[1] != 1 or lb[0] not in ("b", "d"):
            continue
        rows = [_Row(ln.text.strip(), (ln.page, ln.col), ln.x0) for ln in lines[i : i + 200]]
        starts = _label_starts(rows)
        if starts is None or len(starts) < 5:
            continue
        # entries of a reference list print a year, most of them; a numbered list of findings does not
        entries = _cut(rows, starts)
        dated = sum(bool(_YEAR_ANY.search(_join(e))) for e in entries)
        if dated >= 0.6 * len(entries):
            return i
    return None


# -- the list's lines in reading order ---------------------------------------------------------------------------


def _columns(page: list[tuple[int, Line]], width: float) -> list[tuple[float, float]]:
    """The page's text columns as x ranges: where the page's narrow lines lie thick, split by the gutters where
    few of them pass (a stray line across a gutter does not join two columns). A column is a sixth of the page
    wide at least."""
    # a column of two or more is under half the page wide: wider lines are one-column text (a body set above
    # the list) and would bridge the gutter
    spans = [(ln.x0, ln.x1) for _, ln in page if ln.x1 - ln.x0 <= 0.45 * width]
    if len(spans) < 6:
        return []
    steps = [0] * (int(width) + 3)  # +1 where a line starts, -1 past where it ends: summed, the lines over x
    for a, b in spans:
        steps[min(max(0, int(a)), len(steps) - 1)] += 1
        steps[min(max(0, int(b) + 1), len(steps) - 1)] -= 1
    cover = list(itertools.accumulate(steps))[:-1]
    floor = 0.15 * max(cover)
    cols: list[tuple[float, float]] = []
    run: int | None = None
    for x, n in enumerate([*cover, 0]):
        if n > floor and run is None:
            run = x
        elif n <= floor and run is not None:
            if x - run >= width / 6:
                cols.append((float(run), float(x)))
            run = None
    return cols


def _page_order(page: list[tuple[int, Line]]) -> list[tuple[int, Line, int]]:
    """One page's lines in reading order, each with its column number: a page of two or more columns is read
    in bands — a line across the columns (a full-width figure, table or heading) closes the band above it —
    and each band column by column, left to right; a one-column page keeps the order it came in (column 0).
    The columns are judged here from the lines alone: in a hanging-indent list the entries' first lines stand
    left of the column's other lines, and a layout pass that takes a column's edge from its most common line
    start reads them as spanning both columns."""
    width = page[0][1].page_width or max(ln.x1 for _, ln in page)
    cols = _columns(page, width)

    # a column reaches to the middle of the gutters beside it: a line inside those bounds is the column's
    cuts = [0.0, *((cols[k][1] + cols[k + 1][0]) / 2 for k in range(len(cols) - 1)), float("inf")]

    def col(ln: Line) -> int:
        k = next((k + 1 for k in range(len(cols)) if ln.x0 >= cuts[k] and ln.x1 <= cuts[k + 1]), 0)
        if k == 0:
            # an entry's first line that starts in the gutter, right of where the column before ends (a list whose
            # few entries' first lines are too thin to widen the column: "[11] M. Tran" at 312 pt, its column's
            # lines at 332 pt) is still that column's, not a line across the columns
            k = next((k + 1 for k in range(len(cols)) if (k == 0 or ln.x0 > cols[k - 1][1]) and ln.x0 < cols[k][1]
                      and ln.x1 <= cuts[k + 1]), 0)
        return k

    marked = [(i, ln, col(ln)) for i, ln in page]
    if len(cols) < 2:
        if {ln.col for _, ln in page} >= {1, 2}:
            # the layout pass read this page in two columns where the list's second column is too short to show
            # here against the first's body text and entries (three entries at the top of the right column): keep
            # its reading order and columns, so each column's entries are told by that column's own margin
            kept, prev = [], 1
            for i, ln in page:
                prev = ln.col if ln.col in (1, 2) else prev  # a line across (a running head) stays with its block
                kept.append((i, ln, prev))
            return kept
        return [(i, ln, 0) for i, ln in page]
    out: list[tuple[int, Line, int]] = []
    band: list[tuple[int, Line, int]] = []
    for x in sorted(marked, key=lambda x: -x[1].y1):
        if x[2] == 0:
            out.extend(sorted(band, key=lambda x: (x[2], -x[1].y1)))
            out.append(x)
            band = []
        else:
            band.append(x)
    out.extend(sorted(band, key=lambda x: (x[2], -x[1].y1)))
    return out


def _list_lines(lines: Sequence[Line], start: int) -> list[tuple[int, Line, int]]:
    """The lines after the heading at lines[start - 1], page by page in reading order (each with its index in
    `lines` and its column): on the heading's page the ones below it in its column, and the next column's."""
    head = lines[start - 1] if start > 0 else None
    first_page = head.page if head else lines[start].page
    pages: dict[int, list[tuple[int, Line]]] = {}
    for i, ln in enumerate(lines):
        if ln.page >= first_page:
            pages.setdefault(ln.page, []).append((i, ln))
    out: list[tuple[int, Line, int]] = []
    for pn in sorted(pages):
        order = _page_order(pages[pn])
        if head is not None and pn == first_page:
            at = next((k for k, (i, _, _) in enumerate(order) if i == start - 1), None)
            order = [x for x in order if x[0] >= start] if at is None else order[at + 1 :]
        out.extend(order)
    return out


# -- where the list ends -----------------------------------------------------------------------------------------


def _list_size(rows: Sequence[_Row]) -> float:
    """The list's type size: the most common among its first lines (an appendix after it is often set larger)."""
    sizes = Counter(round(r.size * 2) / 2 for r in rows[:40] if r.size)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _in_margin(ln: Line) -> bool:
    h = ln.page_height or 792.0
    return ln.y0 > 0.9 * h or ln.y1 < 0.1 * h


def _trim_end(rows: list[_Row]) -> list[_Row]:
    size = _list_size(rows)
    # a running head or page number set apart in size in the page margin is no part of the list, nor its end
    rows = [r for r in rows if not (r.margin and size and abs(r.size - size) >= 1.0)]
    last = ""  # the last line set in the list's size before this one
    bold_list = sum(r.bold for r in rows) > 0.3 * len(rows)  # a list that sets its entries' first lines bold
    for i, r in enumerate(rows):
        before, last = last, (r.text if not size or abs(r.size - size) < 0.6 else last)
        if i < 1:
            continue
        # a heading or back matter opens a line of its own: never the rest of a sentence cut at the line end
        if before.rstrip()[-1:] not in ".)]0123456789":
            continue
        heading = (
            size
            and r.size >= size + 1.2
            and len(r.text.split()) <= 12
            and re.search(r"[A-Za-z]{3}", r.text)
            and not _YEAR_ANY.search(r.text)
        )
        # a short bold line numbered as a section ("A. Proofs", "7 Appendix") in a list set in roman
        sh = _SECTION_HEAD.match(r.text) if r.bold and not bold_list and len(r.text.split()) <= 6 else None
        numbered = sh is not None and not re.search(r"\d", r.text[sh.end() :])  # "J. Neurophysiol. 84" is none
        if heading or numbered or _END.match(r.text):
            return rows[:i]
    return rows


_SECTION_HEAD = re.compile(r"^(?:[A-Z]|\d{1,2}|[IVX]{1,4})(?:\.\d{1,2})*\.?\s+[A-Z][a-z]")


# -- where entries start ---------------------------------------------------------------------------------------


def _segment(rows: list[_Row]) -> list[list[_Row]]:
    if not rows:
        return []
    for starts in (_label_starts(rows), _indent_starts(rows), _gap_starts(rows), _text_starts(rows)):
        if starts is not None:
            return _cut(rows, starts)
    return [rows]


def _cut(rows: list[_Row], starts: list[int]) -> list[list[_Row]]:
    bounds = sorted(set(starts) | {0})
    entries = [rows[a:b] for a, b in zip(bounds, [*bounds[1:], len(rows)], strict=True)]
    if len(entries) > 2:
        # the last entry has no next one to end it: as long as the longest other entry at most
        longest = max(len(e) for e in entries[:-1])
        entries[-1] = entries[-1][: longest + 1]
    return entries


def _label(text: str) -> tuple[str, int] | None:
    m = _LABEL.match(text)
    if not m:
        return None
    kind = next(k for k in ("b", "p", "d", "n") if m.group(k))
    return kind, int(m.group(kind))


def _label_starts(rows: list[_Row]) -> list[int] | None:
    """Rows that open an entry by a label following the previous one's number; None when the list is not
    numbered (fewer than three labels in sequence, or they cover less than a fifth of the lines)."""
    first = next((i for i, r in enumerate(rows[:5]) if (lb := _label(r.text)) and lb[1] in (0, 1)), None)
    if first is None:
        return None
    kind, expected = _label(rows[first].text) or ("", 0)
    edge: dict[tuple[int, int], float] = {}
    for r in rows:
        edge[r.block] = min(edge.get(r.block, r.x0), r.x0)
    starts = [first]
    for i in range(first + 1, len(rows)):
        lb = _label(rows[i].text)
        if lb is None or lb[0] != kind:
            continue
        # one number may be skipped (an entry whose first line the layout pass lost) where the label stands
        # where the others do, before a capital
        skipped = (
            lb[1] == expected + 2
            and (kind in ("b", "p") or re.match(r"\S+\s+[A-Z]", rows[i].text))
            and rows[i].x0 - edge[rows[i].block] <= max(1.5, 0.6 * rows[i].size)  # labels may be set flush right
        )
        if lb[1] == expected + 1 or skipped:
            starts.append(i)
            expected = lb[1]
    # two bracketed labels make a list ([1] [2] are no enumeration of prose); numbers alone need three
    if len(starts) < (2 if kind in ("b", "p") else 3) or len(starts) * 10 < len(rows):  # ≤ 10 lines an entry
        return None
    return starts


def _margin(rows: list[_Row]) -> float:
    """A block's left edge: where its leftmost line of words starts (a stray mark of a few characters further
    left is no edge; a lone line is, as where a column holds one entry's first line and its indented rest)."""
    worded = [r.x0 for r in rows if len(r.text) >= 4]
    return min(worded or [r.x0 for r in rows])


def _indent_starts(rows: list[_Row]) -> list[int] | None:
    """Rows that open an entry by its indent: flush in a hanging-indent list, indented in a first-line-indent
    one (the kind the list's first row shows). None when the lines show no indent at all (all flush)."""
    if not any(r.size for r in rows):
        return None
    margins: dict[tuple[int, int], float] = {}
    offsets: list[float] = []
    for b in {r.block for r in rows}:
        xs = [r.x0 for r in rows if r.block == b]
        margins[b] = _margin([r for r in rows if r.block == b])
        if max(xs) - margins[b] > 2.0:
            offsets.append(min(x for x in xs if x - margins[b] > 2.0) - margins[b])
    if offsets:
        # a block of continuation lines only (the end of an entry carried over to a new page) sits one indent
        # right of where other blocks start their entries: its own left edge is no margin
        indent = statistics.median(offsets)
        for b, m in list(margins.items()):
            if all(abs(r.x0 - m) <= 1.0 for r in rows if r.block == b):
                near = [o for ob, o in margins.items() if ob != b and abs(m - indent - o) <= 1.5]
                if near:
                    margins[b] = near[0]
    indented = [r.x0 - margins[r.block] > max(2.0, 0.25 * (r.size or 8.0)) for r in rows]
    n_in = sum(indented)
    if n_in < max(2, 0.15 * len(rows)) or n_in == len(rows):
        return None  # no indent, or a few stray lines (a running head, a displaced label) that make none
    opener = indented[0]
    starts = [i for i, ind in enumerate(indented) if ind == opener]
    if len(starts) < 2:
        return None
    return starts


def _gap_starts(rows: list[_Row]) -> list[int] | None:
    """Rows set after extra vertical space (lists set flush with space between entries), and author starts;
    None when the spacing is even."""
    gaps: list[tuple[int, float]] = []
    for i in range(1, len(rows)):
        a, b = rows[i - 1], rows[i]
        if a.block == b.block and a.y0 > b.y1 - 0.5 and a.size:
            gaps.append((i, a.y0 - b.y1))
    if len(gaps) < 4:
        return None
    usual = statistics.median(g for _, g in gaps)
    size = statistics.median(r.size for r in rows if r.size)
    wide = [i for i, g in gaps if g > usual + max(1.0, 0.15 * size)]
    if len(wide) < 2 or len(wide) > 0.6 * len(gaps):
        return None
    # where the space is missing (a new column or page, a typesetting slip) an author start after a line that
    # ends a sentence opens an entry
    return [0, *wide, *(_text_starts(rows) or [])]


def _text_starts(rows: list[_Row]) -> list[int] | None:
    starts = [0] + [
        i for i in range(1, len(rows)) if rows[i - 1].text.rstrip()[-1:] in ".)" and _AUTHOR_START.match(rows[i].text)
    ]
    return starts if len(starts) >= 2 else None


# -- what an entry says ------------------------------------------------------------------------------------------


# TeX-era PDFs set an accent as a character of its own before (or after) its letter: "Taul´e", "Hajiˇc"
_SPACING_ACCENTS = {
    "´": "\u0301",
    "`": "\u0300",
    "¨": "\u0308",
    "ˆ": "\u0302",
    "ˇ": "\u030c",
    "˜": "\u0303",
    "˚": "\u030a",
    "¸": "\u0327",
}
_ACCENT_BEFORE = re.compile(rf"([{''.join(_SPACING_ACCENTS)}])\s?([A-Za-zı])")


def _accents(text: str) -> str:
    if not any(a in text for a in _SPACING_ACCENTS):
        return text
    fixed = _ACCENT_BEFORE.sub(lambda m: m.group(2).replace("ı", "i") + _SPACING_ACCENTS[m.group(1)], text)
    return unicodedata.normalize("NFC", fixed)


def _join(rows: Sequence[_Row]) -> str:
    out = ""
    for r in rows:
        t = r.text.strip()
        if out.endswith("-") and len(out) > 1 and out[-2].isalpha():
            # a word hyphenated at the line end ("neigh-" "bor"), or a compound cut at its hyphen ("Plain-" "Text")
            out = (out[:-1] if t[:1].islower() else out) + t
        else:
            out = f"{out} {t}" if out else t
    return _accents(" ".join(out.split()))


def _read_all(entries: list[list[_Row]]) -> list[Reference]:
    refs: list[Reference] = []
    for e in entries:
        raw = _join(e)
        # the label: [12] / (12) / 12. / 12 , or a key such as [Brin, 1998] or [BFG07]
        raw = re.sub(r"^\s*(?:\[[^\]]{1,60}\]|\(\d{1,3}\)|\d{1,3}\.(?=\s)|\d{1,3}(?=\s))\s*", "", raw)
        if len(raw) < 15 or not re.search(r"[A-Za-z]{3}", raw):
            continue  # a stray mark or page number, no entry
        refs.append(read_reference(raw, "\n".join(r.text for r in e)))
        if len(refs) >= MAX_REFERENCES:
            break
    return refs


def _year(raw: str, head_end: int) -> tuple[int | None, re.Match[str] | None]:
    """The publication year and where it stands: one right after the authors (". 2008." / "(2003)") first,
    else the last year-like number that is no page, range or identifier."""
    for m in _YEAR_STRICT.finditer(raw):
        if m.start() <= head_end + 3:
            return int(m.group("y")), m
        break
    plain = re.sub(r"(https?://|doi:?\s*|10\.\d{4,9}/)\S+", lambda x: " " * len(x.group(0)), raw, flags=re.I)
    strict = [m for m in _YEAR_STRICT.finditer(plain)]
    if strict:
        return int(strict[0].group("y")), None
    found = list(_YEAR_ANY.finditer(plain))
    return (int(found[-1].group("y")), None) if found else (None, None)


# a list of "Surname, I. I." authors, whose last initial's full stop is also the list's end
_SURNAME_INITIALS = re.compile(
    r"^(?:(?:[,;]\s*)?(?:and\s+|AND\s+|&\s*)?[A-Z][\w'’\-]+(?:\s[A-Z][\w'’\-]+)?,\s(?:[A-Z]\.\s?-?){1,4})+"
)


# a quoted title: “...,” or "..."
_QUOTED_TITLE = re.compile(r"[“\"]([^”\"]{8,400}?)[,.]?[”\"]")
# Vancouver names closed by a full stop: "Farooq M, Bramley H, Palta J. Title"
_VANCOUVER = re.compile(r"^(?:(?:[A-Z][\w'’-]+\s){1,3}[A-Z]{1,3}(?:,\s|\.(?=\s)))+")


def _author_block(raw: str) -> int:
    """Where the author list ends: before a year printed right after it, a colon (Vancouver style), after the
    last initial of a "Surname, I." list, or at the first full stop that does not close an initial."""
    ym = _YEAR_STRICT.search(raw)
    si = _SURNAME_INITIALS.match(raw)
    stop = re.search(r"(?<!\b[A-Z])(?<!\bet al)\.\s+(?=\S)|:\s", raw)
    cut = stop.start() if stop else len(raw)
    if si and si.end() < cut and re.match(r"\s*[A-Z(\d“\"]", raw[si.end() :]):
        cut = si.end()
    vm = _VANCOUVER.match(raw)
    # two names or more, and no surname after the last initials ("Daniel M. Bikel. 2004." is one given-names-first
    # author, "Palta J. Heat stress ..." a Vancouver list closed before its title)
    if (
        vm
        and vm.group(0).endswith(".")
        and ", " in vm.group(0)
        and not re.match(r"\s*[A-Z][\w'’-]+[.,]", raw[vm.end() :])
        and vm.end() - 1 < cut
    ):
        cut = vm.end() - 1
    if ym and ym.start() <= cut + 2:
        cut = ym.start()
    return cut


def _split_authors(head: str) -> tuple[list[str], str | None]:
    """The names in an author list, and the part that ended it when it ran on into the title (else None)."""
    head = _ET_AL.sub("", head).strip(" ,.;(")
    parts = re.split(r"[;,]\s*(?:and\s+|AND\s+|&\s*)?|\s+(?:and|AND|&)\s+", head)
    authors: list[str] = []
    for a in parts:
        a = a.strip(" .")
        if not a:
            continue
        if re.fullmatch(r"(?i)eds?|editors?|\(eds?\)", a):
            continue  # "C. Fellbaum, ed."
        if authors and re.fullmatch(r"Jr|Sr|II|III|IV", a):
            authors[-1] = f"{authors[-1]} {a}"  # "Daume, H., III"
        elif authors and _INITIALS.fullmatch(a) and "," not in authors[-1] and len(authors[-1].split()) == 1:
            authors[-1] = f"{authors[-1]}, {a}"  # "Downey, D." is one author
        elif authors and _INITIALS.fullmatch(a) and authors[-1].endswith(a):
            continue
        elif 1 <= len(a.split()) <= 4 and (not a[0].islower() or _PARTICLE.match(a)):
            authors.append(a)
        else:
            return authors[:50], a  # a title run on after the names ("A. Name, B. Name, A title, Venue 3 (2012)")
    return authors[:50], None


def read_reference(raw: str, printed: str = "") -> Reference:
    """One entry's text read into a Reference: authors (the list before the year, colon or first sentence
    end), year, title (the sentence after the authors and year), DOI and arXiv id where printed. `printed`, the
    entry's lines as set (one per line), lets a DOI cut at a line end be read whole."""
    quoted = _QUOTED_TITLE.search(raw)
    if quoted and raw[: quoted.start()].rstrip().endswith(",") and quoted.start() < 0.6 * len(raw):
        # "A. Name, B. Name, “The title,” in Venue, 1994" (IEEE)
        authors, _ = _split_authors(raw[: quoted.start()])
        year, _ = _year(raw, quoted.start())
        title = quoted.group(1)
    else:
        cut = _author_block(raw)
        year, ym = _year(raw, cut)
        authors, run_on = _split_authors(raw[:cut])
        if run_on:
            # the names ran on into the title: it goes to the next comma or full stop ("..., Title, Venue 3 (2012)")
            rest = raw[raw.find(run_on) :]
            tm = re.match(r"(.+?)(?:,\s|\.\s|\.?$)", rest)
        else:
            rest = re.sub(r"^[\s.,:;)]+", "", raw[ym.end() :] if ym else raw[cut:])
            tm = re.match(r"(.+?[?!]|.+?)(?:\.\s|,\s(?:in|In)[:\s]|\.?$)", rest)
        title = tm.group(1) if tm else rest
    title = title.strip(" .,“”\"'")
    # a DOI cut at a line end is whole again in the entry's printed lines (`printed`, one per line)
    doi = next((d.doi for d in find_dois(printed or raw)), None) if re.search(r"10\.\d{4,9}/", raw) else None
    arxiv = next((a.arxiv_id for a in find_arxiv_ids(raw)), None) if re.search("arxiv", raw, re.I) else None
    return Reference(raw=raw[:2000], title=title[:400], authors=authors, year=year, doi=doi, arxiv_id=arxiv)
