"""Low-level layout extraction with pypdfium2: text lines with position, font size and weight.

pdfium's text page gives characters in content-stream order with a box and a font per char;
we group them into lines (pdfium marks line ends with generated CR/LF, and a jump in baseline
also ends a line) and keep per-line geometry so the parser can find columns, the title,
headings and the references.

Rotated pages: lines are built in the frame in which the page's text reads left to right. That frame
is the dominant direction of the page's characters (their text matrices, sampled), so a page
with /Rotate 90/270 whose text is set turned to display upright, and a page typeset sideways (a
landscape table) both come out as ordinary lines; boxes are rotated into that frame and the page's
width and height swapped for quarter turns. Words set in another direction (a vertical margin stamp,
a rotated axis label, a diagonal watermark) are left out of the lines.
"""

from __future__ import annotations

import ctypes
import math
import re
from dataclasses import dataclass, field

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from motivgraph.text_hygiene import Repairs, repair_text

# surrogates, C0/C1 controls, noncharacters: the only things repair_text changes
_NEEDS_REPAIR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")


@dataclass
class Line:
    page: int
    x0: float
    y0: float  # bottom (PDF coordinates: y grows upwards)
    x1: float
    y1: float  # top
    size: float  # dominant effective font size (pt, text matrix applied)
    bold: bool
    text: str
    font: str = ""
    page_width: float = 0.0
    page_height: float = 0.0
    col: int = 0  # 0 full width / single column, 1 left, 2 right (set by the parser's column pass)
    centered: bool = False  # centred in its column (set by the parser's column pass)
    chars: int = field(default=0)

    @property
    def width(self) -> float:
        return self.x1 - self.x0


_FONT_BUF = ctypes.create_string_buffer(256)


def _font_name(tp: pdfium_c.FPDF_TEXTPAGE, i: int) -> str:
    flags = ctypes.c_int(0)
    n = pdfium_c.FPDFText_GetFontInfo(tp, i, _FONT_BUF, 256, ctypes.byref(flags))
    return _FONT_BUF.raw[: max(0, n - 1)].decode("latin-1", "replace") if n else ""


# Bold by font name: "Times-Bold", "Arial,Bold", TeX "CMBX10"/"SFBX0900", "NimbusRomNo9L-Medi" (but not
# "StoneSerif-Medium", a regular weight), "TradeGothic-Bd2", "Minion-Black", "AdvTT1234.B" (an
# Advent-3B2 bold). pdfium's font weight is not used: it is unreliable (CMR10 reports 744).
_BOLD_NAME = re.compile(
    r"(bold|black|heavy|demi|cmbx|sfbx|cmb\d|bx\d|[-,_ ]bd\d?\b|bd\d?$|[-,]medi(?!um)|\.b$|\.bi$|\.bold)"
)


def _is_bold_name(name: str) -> bool:
    return bool(_BOLD_NAME.search(name.split("+", 1)[-1].lower()))


def _effective_size(tp: pdfium_c.FPDF_TEXTPAGE, i: int, matrix: pdfium_c.FS_MATRIX) -> float:
    size = pdfium_c.FPDFText_GetFontSize(tp, i)
    # producers that scale text by the matrix set a unit font size; asking for the matrix of
    # every other char would double the cost of the char loop
    if size < 4 and pdfium_c.FPDFText_GetMatrix(tp, i, ctypes.byref(matrix)):
        # some producers set font size 1 and scale with the text matrix
        scale = abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5
        if scale > 0:
            size *= scale
    return round(size * 2) / 2


_OT1_LIGATURES = {0x0B: "ff", 0x0C: "fi", 0x0D: "fl", 0x0E: "ffi", 0x0F: "ffl"}
_MIN_SIZE = 2.0  # below this an effective font size is not a type size (Type 3 font matrices)


def _size_from_heights(heights: list[float]) -> float:
    """A line's type size from its glyph heights when the font does not tell it: the tall glyphs
    (capitals, ascenders; the top tenth of heights) are about 0.72 em."""
    hs = sorted(heights)
    tall = hs[int(0.9 * (len(hs) - 1))]
    return round(tall / 0.72 * 2) / 2


def _gap_size(size: float, height: float, heights: list[float]) -> float:
    """The type size a word gap is measured against; without one, the tallest glyph of the line so
    far stands for it (a period's ink is tiny, and its distance from the letter before is no gap)."""
    if size >= _MIN_SIZE:
        return size
    return max(height, max(heights, default=0.0)) / 0.6


def _code_units(tp: pdfium.PdfTextPage, n: int) -> list[int] | None:
    """The page's UTF-16 code units, one per pdfium char index (characters outside the BMP take two
    indexes: pdfium counts UTF-16 units). None when the bulk text does not line up with the chars."""
    bulk = tp.get_text_range()
    if len(bulk) == n:
        return [ord(ch) for ch in bulk]
    raw = bulk.encode("utf-16-le", "surrogatepass")
    units = memoryview(raw).cast("H").tolist()
    return units if len(units) == n else None


_QUARTER = math.pi / 2
_ANGLE_TOLERANCE = 0.2  # radians (about 11 degrees) from a quarter turn; beyond that: not axis-aligned
_ANGLE_SAMPLES = 64


def _quarter(raw: pdfium_c.FPDF_TEXTPAGE, i: int, matrix: pdfium_c.FS_MATRIX) -> int:
    """The direction char `i` advances in, as counter-clockwise quarter turns 0-3 of its effective
    matrix's x axis; -1 when unknown, 4 when not axis-aligned (a diagonal watermark). pdfium's own
    char angle is not used: it does not tell +y from -y text."""
    if not pdfium_c.FPDFText_GetMatrix(raw, i, ctypes.byref(matrix)):
        return -1
    if matrix.a == 0 and matrix.b == 0:
        return -1
    q = (math.atan2(matrix.b, matrix.a) % (2 * math.pi)) / _QUARTER
    r = round(q)
    return r % 4 if abs(q - r) <= _ANGLE_TOLERANCE / _QUARTER else 4


def _reading_turn(raw: pdfium_c.FPDF_TEXTPAGE, n: int, units: list[int] | None) -> int:
    """The quarter turns of the page's dominant text direction, from a sample of its characters."""
    votes = [0] * 5
    matrix = pdfium_c.FS_MATRIX()
    step = max(1, n // _ANGLE_SAMPLES)
    for i in range(0, n, step):
        cp = units[i] if units is not None else pdfium_c.FPDFText_GetUnicode(raw, i)
        if cp <= 32:
            continue
        q = _quarter(raw, i, matrix)
        if q >= 0:
            votes[q] += 1
    best = max(range(4), key=lambda q: votes[q])
    return best if votes[best] > votes[0] else 0


def _frame_size(mb: tuple[float, float, float, float], turn: int) -> tuple[float, float]:
    """Width and height of the reading frame: the media box, swapped for a quarter turn."""
    w, h = mb[2] - mb[0], mb[3] - mb[1]
    return (h, w) if turn % 2 else (w, h)


def _to_frame(turn: int, box: tuple[float, float, float, float], mb: tuple[float, float, float, float]
              ) -> tuple[float, float, float, float]:
    """A user-space box (left, bottom, right, top) in the reading frame rotated by -turn quarter turns
    (origin at the frame's bottom-left), so text in that direction runs along +x with y up."""
    left, bottom, right, top = box
    mx0, my0, mx1, my1 = mb
    if turn == 1:  # baseline along +y
        return bottom - my0, mx1 - right, top - my0, mx1 - left
    if turn == 2:  # upside down
        return mx1 - right, my1 - top, mx1 - left, my1 - bottom
    # turn == 3: baseline along -y
    return my1 - top, left - mx0, my1 - bottom, right - mx0


def page_lines(page: pdfium.PdfPage, page_no: int, repairs: list[Repairs] | None = None) -> list[Line]:
    """Text lines of one page in content-stream order. Text is repaired with the shared hygiene
    function (surrogate halves rejoined, controls dropped); counts are added to `repairs`."""
    tp = page.get_textpage()
    try:
        raw = tp.raw
        n = pdfium_c.FPDFText_CountChars(raw)
        lines: list[Line] = []
        rect = pdfium_c.FS_RECTF()
        rect_ref = ctypes.byref(rect)
        matrix = pdfium_c.FS_MATRIX()
        get_box = pdfium_c.FPDFText_GetLooseCharBox
        get_unicode = pdfium_c.FPDFText_GetUnicode
        # one call for the page's text; per-char calls only when it does not line up with the chars
        units = _code_units(tp, n)
        turn = _reading_turn(raw, n, units) if n else 0
        mb = page.get_mediabox()
        if turn:
            width, height = _frame_size(mb, turn)
        else:
            width, height = page.get_size()
            if page.get_rotation() in (90, 270):  # get_size is the displayed size; boxes are unrotated
                width, height = height, width

        buf: list[str] = []
        sizes: dict[float, int] = {}
        heights: list[float] = []  # glyph heights of a line whose font size pdfium cannot tell
        get_tight = pdfium_c.FPDFText_GetCharBox
        tl, tr, tb, tt = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        tl_ref, tr_ref, tb_ref, tt_ref = ctypes.byref(tl), ctypes.byref(tr), ctypes.byref(tb), ctypes.byref(tt)
        small = False  # the current word's font has no usable type size
        bx0 = by0 = 1e9
        bx1 = by1 = -1e9
        first_idx = -1
        last_idx = -1
        last_base: float | None = None
        last_x1: float | None = None
        size = 0.0
        new_word = True

        def flush() -> None:
            nonlocal buf, sizes, bx0, by0, bx1, by1, first_idx, heights
            text = "".join(buf).strip()
            if text and first_idx >= 0:
                if _NEEDS_REPAIR.search(text):
                    text, rep = repair_text(text)
                    if repairs is not None:
                        repairs.append(rep)
                dom = max(sizes.items(), key=lambda kv: kv[1])[0] if sizes else 0.0
                if dom < _MIN_SIZE and heights:
                    dom = _size_from_heights(heights)
                # the font in the middle of the line: a run-in label ("Methods.") or a footnote
                # marker at the start does not decide the line's typeface
                font = _font_name(raw, (first_idx + last_idx) // 2)
                lines.append(
                    Line(page_no, bx0, by0, bx1, by1, dom, _is_bold_name(font),
                         " ".join(text.split()), font, width, height, chars=sum(sizes.values()))
                )
            buf, sizes, first_idx = [], {}, -1
            heights = []
            bx0 = by0 = 1e9
            bx1 = by1 = -1e9

        for i in range(n):
            cp = units[i] if units is not None else get_unicode(raw, i)
            if cp == 10 or cp == 13:
                flush()
                last_base = None
                new_word = True
                continue
            if cp == 0xFFFE or cp == 2:  # the soft-hyphen markers pdfium reports at line ends
                ch = "-"
            elif 0x0B <= cp <= 0x0F:
                # TeX's OT1 ligature slots (ff fi fl ffi ffl) in fonts without a Unicode map; these
                # codes are never text (0x0D is a line end above and stays one)
                ch = _OT1_LIGATURES[cp]
            elif cp == 0xAD:  # a soft hyphen: a break opportunity, printed only at a line end
                nxt = units[i + 1] if units is not None and i + 1 < n else 10
                ch = "-" if nxt in (10, 13) else ""
            else:
                ch = chr(cp) if cp else " "  # an unmapped glyph separates words
            if not ch:
                # a soft hyphen inside a line prints nothing but takes its width: no word gap there
                if get_box(raw, i, rect_ref):
                    last_x1 = (_to_frame(turn, (rect.left, rect.bottom, rect.right, rect.top), mb)[2] if turn
                               else rect.right)
                continue
            if ch.isspace():
                if buf:
                    buf.append(" ")
                new_word = True
                continue
            if not get_box(raw, i, rect_ref):
                continue
            if new_word:
                # a word set in another direction than the page's text (a margin stamp, an axis label,
                # a watermark) is not part of the lines; each of its characters is checked in turn
                q = _quarter(raw, i, matrix)
                if q != turn and q >= 0:
                    continue
                # the font size is read once per word: a size change inside a word is rare, and this
                # call was a third of the per-character cost
                size = _effective_size(raw, i, matrix)
                small = size < _MIN_SIZE
                new_word = False
            if turn or small:
                box = (rect.left, rect.bottom, rect.right, rect.top)
                if small:
                    # a Type 3 font (bitmap TeX fonts of old preprints): pdfium's size is the font
                    # matrix's scale and its loose box can span the page; the glyph's own box is sound
                    get_tight(raw, i, tl_ref, tr_ref, tb_ref, tt_ref)
                    box = (tl.value, tb.value, tr.value, tt.value)
                x0, base, x1, top = _to_frame(turn, box, mb) if turn else box
            else:  # the common case, kept to plain attribute reads: this loop runs once per character
                x0 = rect.left
                base = rect.bottom
                x1 = rect.right
                top = rect.top
            if last_base is not None and last_x1 is not None and buf and (
                (
                    abs(base - last_base) > max(2.0, (top - base) * 0.6)
                    # a superscript or subscript overlaps the line it sits on: same line (a drop cap,
                    # several times taller, is not)
                    and (
                        min(top, by1) - max(base, by0) < 0.5 * min(top - base, by1 - by0)
                        or min(top - base, by1 - by0) < 0.4 * max(top - base, by1 - by0)
                    )
                )
                or x0 < last_x1 - 50
                or x0 - last_x1 > 40
            ):
                flush()
                size = _effective_size(raw, i, matrix)  # a new line: its own size
                small = size < _MIN_SIZE
            # a gap wider than a quarter of the type size is a word gap (1 pt at least: checked first)
            if buf and last_x1 is not None and x0 - last_x1 > 1.0 and buf[-1] != " " and (
                x0 - last_x1 > 0.25 * max(_gap_size(size, top - base, heights), 4.0)
            ):
                buf.append(" ")  # word gap without an explicit space char
                size = _effective_size(raw, i, matrix)
                small = size < _MIN_SIZE
            if first_idx < 0:
                first_idx = i
            last_idx = i
            buf.append(ch)
            sizes[size] = sizes.get(size, 0) + 1
            if small:
                heights.append(top - base)
            if x0 < bx0:
                bx0 = x0
            if base < by0:
                by0 = base
            if x1 > bx1:
                bx1 = x1
            if top > by1:
                by1 = top
            last_base = base
            last_x1 = x1
        flush()
        return lines
    finally:
        tp.close()
