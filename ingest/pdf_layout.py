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
import functools
import math
import re
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from motivgraph.ingest import pdf_native
from motivgraph.text_hygiene import Repairs, repair_text

# surrogates, C0/C1 controls, noncharacters: the only things repair_text changes
_NEEDS_REPAIR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")


@dataclass(slots=True)
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


@functools.lru_cache(maxsize=1024)
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


def _page_text(tp: pdfium.PdfTextPage, n: int) -> tuple[str, Any] | None:
    """The page's text with one char per pdfium char index, and those chars' codes as an array; None
    when the bulk text does not line up with the chars."""

    bulk = tp.get_text_range()
    if len(bulk) == n:
        return bulk, np.frombuffer(bulk.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    units = np.frombuffer(bulk.encode("utf-16-le", "surrogatepass"), dtype=np.uint16).astype(np.int64)
    return ("".join(map(chr, units.tolist())), units) if len(units) == n else None


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


def _reading_turn(raw: pdfium_c.FPDF_TEXTPAGE, n: int, units: Any) -> int:
    """The quarter turns of the page's dominant text direction, from a sample of its characters."""

    lib = _native()
    if lib is not None:
        codes = np.ascontiguousarray(units, dtype=np.uint32)
        return int(lib.mg_reading_turn(_address(_MATRIX_OF), _address(raw), codes.ctypes.data, n))
    sample = np.arange(0, n, max(1, n // _ANGLE_SAMPLES))
    sample = sample[units[sample] > 32]
    ok, mats = _bulk_into(_MATRIX_OF, _address(raw), sample, pdfium_c.FS_MATRIX)
    q = _quarters(ok, mats)
    votes = np.bincount(q[q >= 0], minlength=5).tolist()
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


def _make_line(page_no: int, text: str, box: tuple[float, float, float, float], size: float, chars: int,
               font: str, width: float, height: float, repairs: list[Repairs] | None) -> Line:
    """A finished line: its text repaired (counts added to `repairs`) and whitespace collapsed. Its font
    is the one of the char in its middle (a run-in label ("Methods.") or a footnote marker at the start
    does not decide the line's typeface)."""
    if _NEEDS_REPAIR.search(text):
        text, rep = repair_text(text)
        if repairs is not None:
            repairs.append(rep)
    return Line(page_no, box[0], box[1], box[2], box[3], size, _is_bold_name(font), " ".join(text.split()), font,
                width, height, chars=chars)


def page_lines(page: pdfium.PdfPage, page_no: int, repairs: list[Repairs] | None = None, *,
               per_char: bool = False, texts: list[str] | None = None) -> list[Line]:
    """Text lines of one page in content-stream order. Text is repaired with the shared hygiene
    function (surrogate halves rejoined, controls dropped); counts are added to `repairs`.

    The character-by-character pass (`_lines_char_by_char`) states the rules. Where the C loops are built
    (pdf_native) the same rules run in C (`_lines_native`); without them the page's characters are read in
    bulk and grouped into lines with array operations (`_lines_in_bulk`), and the rare page that cannot
    decide that way takes the per-char pass; `per_char` forces that pass (the tests compare them).

    `texts`, when given, gets pdfium's text of the whole page appended (every character in content order),
    then the text set in other directions than the page's, which the lines leave out (a margin stamp; see
    `_side_text`)."""
    tp = page.get_textpage()
    try:
        raw = tp.raw
        n = pdfium_c.FPDFText_CountChars(raw)
        if n <= 0:
            return []
        # one call for the page's text; per-char calls only when it does not line up with the chars
        found = _page_text(tp, n)
        exact_units = found is not None
        text, units = found if found is not None else _bulk_unicode(raw, n)
        turn = _reading_turn(raw, n, units)
        if texts is not None:
            texts.append(text)
            side = _side_text(raw, units, turn, page.get_mediabox())
            if side:
                texts.append(side)
        mb = page.get_mediabox()
        if turn:
            width, height = _frame_size(mb, turn)
        else:
            width, height = page.get_size()
            if page.get_rotation() in (90, 270):  # get_size is the displayed size; boxes are unrotated
                width, height = height, width
        frame = _Frame(page_no, turn, mb, width, height)
        lines = None if per_char else _lines_fast(raw, n, text, units, exact_units, frame, repairs)
        if lines is None:
            lines = _lines_char_by_char(raw, n, units.tolist() if exact_units else None, frame, repairs)
        return lines
    finally:
        tp.close()


@dataclass(frozen=True)
class _Frame:
    """Where a page's lines are built: page number, reading turn, media box and frame size."""

    page_no: int
    turn: int
    mb: tuple[float, float, float, float]
    width: float
    height: float


def _lines_fast(raw: pdfium_c.FPDF_TEXTPAGE, n: int, page_text: str, cp: Any, exact_units: bool, frame: _Frame,
                repairs: list[Repairs] | None) -> list[Line] | None:
    """The page's lines from the C pass when it is built, else from the array pass; None: take the per-char pass."""
    lib = _native()
    if lib is not None:
        return _lines_native(lib, raw, n, cp, exact_units, frame, repairs)
    return _lines_in_bulk(raw, n, page_text, cp, exact_units, frame, repairs)


def _lines_char_by_char(raw: pdfium_c.FPDF_TEXTPAGE, n: int, units: list[int] | None, frame: _Frame,
                        repairs: list[Repairs] | None) -> list[Line]:
    """The reference pass, one character at a time; `_lines_in_bulk` and `_lines_native` give the same lines."""
    turn, mb, width, height = frame.turn, frame.mb, frame.width, frame.height
    lines: list[Line] = []
    rect = pdfium_c.FS_RECTF()
    rect_ref = ctypes.byref(rect)
    matrix = pdfium_c.FS_MATRIX()
    get_box = pdfium_c.FPDFText_GetLooseCharBox
    get_unicode = pdfium_c.FPDFText_GetUnicode
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
            dom = max(sizes.items(), key=lambda kv: kv[1])[0] if sizes else 0.0
            if dom < _MIN_SIZE and heights:
                dom = _size_from_heights(heights)
            lines.append(_make_line(frame.page_no, text, (bx0, by0, bx1, by1), dom, sum(sizes.values()),
                                    _font_name(raw, (first_idx + last_idx) // 2), width, height, repairs))
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


# --- the bulk pass --------------------------------------------------------------------------------
# pdfium answers one character per call. The calls are made through prototypes that take plain
# addresses, so `map` drives them from C over a range of char indexes and output slots (no Python
# frame per character); numpy then does the per-character arithmetic and the grouping.

_BOOL_AT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
_RECT_SIZE = ctypes.sizeof(pdfium_c.FS_RECTF)
_MATRIX_SIZE = ctypes.sizeof(pdfium_c.FS_MATRIX)


def _address(fn: Any) -> int:
    return ctypes.cast(fn, ctypes.c_void_p).value or 0


_LOOSE_BOX = _BOOL_AT(_address(pdfium_c.FPDFText_GetLooseCharBox))
_MATRIX_OF = _BOOL_AT(_address(pdfium_c.FPDFText_GetMatrix))
_FONT_SIZE_OF = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_void_p, ctypes.c_int)(
    _address(pdfium_c.FPDFText_GetFontSize))
_UNICODE_OF = ctypes.CFUNCTYPE(ctypes.c_uint, ctypes.c_void_p, ctypes.c_int)(_address(pdfium_c.FPDFText_GetUnicode))

# char classes by code, looked up in a table (codes above the BMP are ordinary chars): what
# str.isspace() says yes to (all below U+3001), the line ends, and the codes that print as something
# else than chr(code) or as nothing (see the per-char pass)
_ORDINARY, _SPACE, _SPECIAL, _LINE_END = 0, 1, 2, 3
_SPECIAL_CODES = (2, 0x0B, 0x0C, 0x0E, 0x0F, 0xAD, 0xFFFE)
_CLASS_TABLE: Any = None


def _class_table() -> Any:
    """The class of every code up to 0x10000 (the class of all codes above), as an int8 array."""

    global _CLASS_TABLE
    if _CLASS_TABLE is None:
        table = np.zeros(0x10001, dtype=np.int8)
        table[[c for c in range(0x3001) if chr(c).isspace()]] = _SPACE
        table[0] = _SPACE  # an unmapped glyph separates words
        table[list(_SPECIAL_CODES)] = _SPECIAL
        table[[10, 13]] = _LINE_END
        _CLASS_TABLE = table
    return _CLASS_TABLE


def _char_classes(cp: Any) -> Any:
    return _class_table()[np.minimum(cp, 0x10000)]


def _native() -> Any:
    """The C loops over these calls (pdf_native), or None: then `map` drives them from Python."""
    return pdf_native.library()


def _indexes(idx: Any) -> Any:
    return np.ascontiguousarray(idx, dtype=np.int32)


def _bulk_unicode(raw: pdfium_c.FPDF_TEXTPAGE, n: int) -> tuple[str, Any]:
    """The page's text and codes asked char by char (when the bulk text does not line up with the chars)."""

    handle = _address(raw)
    lib = _native()
    if lib is not None:
        out = np.zeros(n, dtype=np.uint32)
        lib.mg_uint_range(_address(_UNICODE_OF), handle, n, out.ctypes.data)
        codes = out.astype(np.int64)
        return "".join(map(chr, codes.tolist())), codes
    listed = list(map(_UNICODE_OF, repeat(handle, n), range(n)))
    return "".join(map(chr, listed)), np.array(listed, dtype=np.int64)


def _bulk_into(fn: Any, handle: int, idx: Any, struct: Any) -> tuple[Any, Any]:
    """Call `fn(textpage, i, &out[k])` for every char index idx[k]: (success flags, out array)."""

    count = len(idx)
    out = (struct * count)()
    base = ctypes.addressof(out)
    size = ctypes.sizeof(struct)
    ok = np.fromiter(map(fn, repeat(handle, count), _indexes(idx).tolist(), range(base, base + size * count, size)),
                     dtype=bool, count=count)
    return ok, np.frombuffer(out, dtype=np.float32).reshape(count, size // 4).astype(np.float64)


def _font_sizes(handle: int, idx: Any) -> Any:
    """pdfium's font size of every char idx[k]."""

    listed = _indexes(idx).tolist()
    return np.fromiter(map(_FONT_SIZE_OF, repeat(handle, len(listed)), listed), dtype=np.float64, count=len(listed))


_TIGHT_BOX = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_void_p, ctypes.c_void_p)(_address(pdfium_c.FPDFText_GetCharBox))


def _tight_boxes(handle: int, idx: Any) -> Any:
    """Glyph boxes (rows left, right, bottom, top) of the chars idx; None when pdfium has none for one."""

    count = len(idx)
    idx = _indexes(idx).tolist()
    out = (ctypes.c_double * (4 * count))()
    b = ctypes.addressof(out)
    end = b + 32 * count
    ok = np.fromiter(map(_TIGHT_BOX, repeat(handle, count), idx, range(b, end, 32), range(b + 8, end, 32),
                         range(b + 16, end, 32), range(b + 24, end, 32)), dtype=bool, count=count)
    return np.frombuffer(memoryview(out), dtype=np.float64).reshape(count, 4) if ok.all() else None


def _quarters(ok: Any, mats: Any) -> Any:
    """`_quarter` of many chars from their matrices (rows a, b, c, d, e, f; `ok`: the matrix was read)."""

    a, b = mats[:, 0], mats[:, 1]
    with np.errstate(invalid="ignore"):
        q = np.mod(np.arctan2(b, a), 2 * math.pi) / _QUARTER
        r = np.round(q)
        out = np.where(np.abs(q - r) <= _ANGLE_TOLERANCE / _QUARTER, np.mod(r, 4), 4).astype(np.int64)
    out[~ok | ((a == 0) & (b == 0))] = -1
    return out


def _effective_sizes(sizes: Any, ok: Any, mats: Any) -> Any:
    """`_effective_size` of many chars from their font sizes and matrices."""

    a, b, c, d = mats[:, 0], mats[:, 1], mats[:, 2], mats[:, 3]
    scale = np.power(np.abs(a * d - b * c), 0.5)
    scaled = (sizes < 4) & ok & (scale > 0)
    return np.round(np.where(scaled, sizes * scale, sizes) * 2) / 2


def _frame_boxes(turn: int, left: Any, bottom: Any, right: Any, top: Any,
                 mb: tuple[float, float, float, float]) -> tuple[Any, Any, Any, Any]:
    """`_to_frame` over arrays: (x0, base, x1, top) in the reading frame."""
    if not turn:
        return left, bottom, right, top
    mx0, my0, mx1, my1 = mb
    if turn == 1:
        return bottom - my0, mx1 - right, top - my0, mx1 - left
    if turn == 2:
        return mx1 - right, my1 - top, mx1 - left, my1 - bottom
    return my1 - top, left - mx0, my1 - bottom, right - mx0


def _char_origin(raw: pdfium_c.FPDF_TEXTPAGE, i: int) -> tuple[float, float]:
    x, y = ctypes.c_double(), ctypes.c_double()
    pdfium_c.FPDFText_GetCharOrigin(raw, i, ctypes.byref(x), ctypes.byref(y))
    return x.value, y.value


def _side_text(raw: pdfium_c.FPDF_TEXTPAGE, units: Any, turn: int, mb: tuple[float, float, float, float]) -> str:
    """The page's text set in other directions than its reading direction (an arXiv stamp up the margin, a
    rotated label), rebuilt from the characters' matrices and boxes: per direction, characters on one
    baseline in order along it, a space where they stand apart, one line per baseline. pdfium's own page
    text may break such a run into single letters when each is placed on its own. '' when there is none."""

    handle = _address(raw)
    idx = np.flatnonzero(np.asarray(units) > 32)
    if not len(idx):
        return ""
    ok, mats = _bulk_into(_MATRIX_OF, handle, idx, pdfium_c.FS_MATRIX)
    q = _quarters(ok, mats)
    side = (q >= 0) & (q < 4) & (q != turn)
    out: list[str] = []
    for quarter in sorted(set(q[side].tolist())):
        sel = idx[side & (q == quarter)]
        boxes = _tight_boxes(handle, sel)
        if boxes is None:
            continue
        x0, bottom, x1, top = _frame_boxes(quarter, boxes[:, 0], boxes[:, 2], boxes[:, 1], boxes[:, 3], mb)
        height = float(np.median(top - bottom)) or 1.0
        # the baseline is the chars' origin across the run (a glyph box's bottom is not: a hyphen's is high)
        origins = np.array([_char_origin(raw, int(i)) for i in sel])
        _, base, _, _ = _frame_boxes(quarter, origins[:, 0], origins[:, 1], origins[:, 0], origins[:, 1], mb)
        order = np.argsort(base, kind="stable")
        runs: list[list[int]] = []
        for k in order.tolist():
            if runs and abs(base[k] - base[runs[-1][0]]) < 0.5 * height:
                runs[-1].append(k)
            else:
                runs.append([k])
        for run in runs:
            run.sort(key=lambda k: x0[k])
            chars: list[str] = []
            for j, k in enumerate(run):
                if j and x0[k] - x1[run[j - 1]] > 0.3 * height:
                    chars.append(" ")
                chars.append(chr(int(units[sel[k]])))
            out.append("".join(chars))
    return "\n".join(out)


def _lines_in_bulk(raw: pdfium_c.FPDF_TEXTPAGE, n: int, page_text: str, cp: Any, exact_units: bool, frame: _Frame,
                   repairs: list[Repairs] | None) -> list[Line] | None:
    """The lines `_lines_char_by_char` gives, from arrays (the pass where the C one is not built, so its pdfium
    calls are driven from Python): char classes, boxes and word starts at once; the
    few places where a line may break or a word gap open (a jump in baseline or x, an x gap of more
    than 1 pt without a space char) decided one by one in order, as each depends on the previous ones
    (the line box so far, the type size last read). None, for the per-char pass, when a type size read
    inside a word turns usable or unusable (< 2 pt: a Type 3 font, whose glyphs are measured by their own
    boxes), which would change how the rest of the word is measured, or when pdfium has no glyph box."""

    handle = _address(raw)
    cls = _char_classes(cp)
    nl = cls == _LINE_END
    special = cls == _SPECIAL
    space = cls == _SPACE
    nxt = np.full(n, 10, dtype=np.int64)
    if exact_units:
        nxt[:-1] = cp[1:]
    soft = (cp == 0xAD) & (nxt != 10) & (nxt != 13)  # a soft hyphen inside a line: prints nothing
    glyph = ~nl & ~space & ~soft

    # boxes of the chars that have a say in the geometry (not of spaces and line ends)
    boxed = np.flatnonzero(glyph | soft)
    got, boxes = _bulk_into(_LOOSE_BOX, handle, boxed, pdfium_c.FS_RECTF)
    ok = np.zeros(n, dtype=bool)
    ok[boxed] = got
    fx0, fbase, fx1, ftop = (np.zeros(n) for _ in range(4))
    fx0[boxed], fbase[boxed], fx1[boxed], ftop[boxed] = _frame_boxes(
        frame.turn, boxes[:, 0], boxes[:, 3], boxes[:, 2], boxes[:, 1], frame.mb)

    # words: the first glyph with a box after a space or a line end starts one, when it reads in the
    # page's direction; a glyph in another direction is left out and the next one is asked
    cand_mask = glyph & ok
    vidx = np.flatnonzero(cand_mask)
    if not len(vidx):
        return []
    seg = np.cumsum(nl | space)[vidx]
    first = np.empty(len(vidx), dtype=bool)
    first[0] = True
    first[1:] = seg[1:] != seg[:-1]
    first_pos = np.flatnonzero(first)
    cand = vidx[first_pos]
    m_ok, mats = _bulk_into(_MATRIX_OF, handle, cand, pdfium_c.FS_MATRIX)
    q = _quarters(m_ok, mats)
    rejected = (q != frame.turn) & (q >= 0)
    accepted = cand_mask.copy()
    starts = cand[~rejected]
    start_ok, start_mats = m_ok[~rejected], mats[~rejected]
    if rejected.any():
        matrix = pdfium_c.FS_MATRIX()
        more: list[int] = []
        more_ok: list[bool] = []
        more_mats: list[list[float]] = []
        for p in first_pos[rejected].tolist():
            accepted[vidx[p]] = False
            j = p + 1
            while j < len(vidx) and seg[j] == seg[p]:
                i = int(vidx[j])
                qi = _quarter(raw, i, matrix)
                if qi != frame.turn and qi >= 0:
                    accepted[i] = False
                    j += 1
                    continue
                more_ok.append(bool(pdfium_c.FPDFText_GetMatrix(raw, i, ctypes.byref(matrix))))
                more.append(i)
                more_mats.append([matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f])
                break
        if more:
            starts = np.concatenate([starts, np.array(more, dtype=np.int64)])
            start_ok = np.concatenate([start_ok, np.array(more_ok, dtype=bool)])
            start_mats = np.concatenate([start_mats, np.array(more_mats, dtype=np.float64)])
            order = np.argsort(starts, kind="stable")
            starts, start_ok, start_mats = starts[order], start_ok[order], start_mats[order]
    font_sizes = _font_sizes(handle, starts)
    start_sizes = _effective_sizes(font_sizes, start_ok, start_mats)

    aidx = np.flatnonzero(accepted)  # the glyphs that make the lines, in stream order
    na = len(aidx)
    is_start = np.zeros(na, dtype=bool)
    start_pos = np.searchsorted(aidx, starts)
    is_start[start_pos] = True
    read = np.full(na, np.nan)  # the type size read at a glyph: word starts, line breaks, word gaps
    read[start_pos] = start_sizes
    pos = np.arange(na)
    last_start = np.maximum.accumulate(np.where(is_start, pos, -1))
    # a word in a font without a usable type size (a Type 3 bitmap font): pdfium's loose box can span
    # the page, the glyph's own box is sound; and its glyph heights stand in for the size
    small = read[last_start] < _MIN_SIZE
    if small.any():
        tight = _tight_boxes(handle, aidx[small])
        if tight is None:
            return None
        fx0, fbase, fx1, ftop = fx0.copy(), fbase.copy(), fx1.copy(), ftop.copy()
        sidx = aidx[small]
        fx0[sidx], fbase[sidx], fx1[sidx], ftop[sidx] = _frame_boxes(
            frame.turn, tight[:, 0], tight[:, 2], tight[:, 1], tight[:, 3], frame.mb)
    x0, base, x1, top = fx0[aidx], fbase[aidx], fx1[aidx], ftop[aidx]
    heights = top - base
    # the x where the previous glyph (or soft hyphen with a box) ended
    eidx = np.flatnonzero(accepted | (soft & ok))
    k = np.searchsorted(eidx, aidx)
    last_x1 = fx1[eidx[np.maximum(k - 1, 0)]]
    # a previous glyph in the same pdfium line (no CR/LF between)
    nlseg = np.cumsum(nl)[aidx]
    has_prev = np.zeros(na, dtype=bool)
    has_prev[1:] = nlseg[1:] == nlseg[:-1]
    last_base = np.empty(na)
    last_base[0] = 0.0
    last_base[1:] = base[:-1]
    seg_first = np.maximum.accumulate(np.where(has_prev, 0, pos))

    dx = x0 - last_x1
    jump = np.abs(base - last_base) > np.maximum(2.0, (top - base) * 0.6)
    x_jump = (x0 < last_x1 - 50) | (dx > 40)
    gap_cand = ~is_start & (dx > 1.0)
    brk = np.zeros(na, dtype=bool)
    gap = np.zeros(na, dtype=bool)
    matrix = pdfium_c.FS_MATRIX()
    line_start = 0
    last_read = -1
    for j in np.flatnonzero(has_prev & (jump | x_jump | gap_cand)).tolist():
        line_start = max(line_start, int(seg_first[j]))
        breaks = bool(x_jump[j])
        if not breaks and jump[j]:
            # a superscript or subscript overlaps the line it sits on: same line (a drop cap,
            # several times taller, is not)
            by0, by1 = float(base[line_start:j].min()), float(top[line_start:j].max())
            t, b_ = float(top[j]), float(base[j])
            breaks = (min(t, by1) - max(b_, by0) < 0.5 * min(t - b_, by1 - by0)
                      or min(t - b_, by1 - by0) < 0.4 * max(t - b_, by1 - by0))
        if breaks:
            brk[j] = True
            line_start = j
        elif gap_cand[j]:
            size = float(read[max(int(last_start[j]), last_read)])
            if size < _MIN_SIZE:
                line_heights = heights[line_start:j][small[line_start:j]]
                size = max(float(heights[j]), float(line_heights.max()) if len(line_heights) else 0.0) / 0.6
            if not dx[j] > 0.25 * max(size, 4.0):
                continue
            gap[j] = True
        else:
            continue
        size = _effective_size(raw, int(aidx[j]), matrix)
        if (size < _MIN_SIZE) != small[j]:
            return None  # the rest of the word would be measured by the other box: the per-char pass
        read[j] = size
        last_read = j

    size_at = read[np.maximum.accumulate(np.where(np.isfinite(read), pos, 0))]
    line_starts = np.flatnonzero(~has_prev | brk)
    line_ends = np.append(line_starts[1:], na)
    lx0 = np.minimum.reduceat(x0, line_starts)
    ly0 = np.minimum.reduceat(base, line_starts)
    lx1 = np.maximum.reduceat(x1, line_starts)
    ly1 = np.maximum.reduceat(top, line_starts)
    uniform = np.minimum.reduceat(size_at, line_starts) == np.maximum.reduceat(size_at, line_starts)
    small_glyphs = np.add.reduceat(small.astype(np.int64), line_starts)
    printed, offsets = _printed_text(page_text, cp, accepted & ~special, accepted, space, aidx[gap])
    first_char, last_char = aidx[line_starts], aidx[line_ends - 1]
    text_from, text_to = offsets[first_char].tolist(), offsets[last_char + 1].tolist()
    fonts = _font_names(raw, handle, ((first_char + last_char) // 2).tolist())
    boxes_l = np.stack([lx0, ly0, lx1, ly1], axis=1).tolist()
    uniform_l, small_l, size_l = uniform.tolist(), small_glyphs.tolist(), size_at.tolist()
    lines: list[Line] = []
    for li, (s, e) in enumerate(zip(line_starts.tolist(), line_ends.tolist(), strict=True)):
        line_text = printed[text_from[li] : text_to[li]].strip()
        if not line_text:
            continue
        if uniform_l[li]:
            dom = size_l[s]
        else:
            counts: dict[float, int] = {}
            for v in size_at[s:e].tolist():
                counts[v] = counts.get(v, 0) + 1
            dom = max(counts.items(), key=lambda kv: kv[1])[0]
        if dom < _MIN_SIZE and small_l[li]:
            dom = _size_from_heights(heights[s:e][small[s:e]].tolist())
        bx = boxes_l[li]
        lines.append(_make_line(frame.page_no, line_text, (bx[0], bx[1], bx[2], bx[3]), dom, e - s, fonts[li],
                                frame.width, frame.height, repairs))
    return lines


def _printed_text(page_text: str, cp: Any, as_is: Any, accepted: Any, space: Any, gap_chars: Any) -> tuple[str, Any]:
    """What the page's chars print, as the per-char pass builds a line's text: a glyph itself (a
    special code as its letters, a word gap without a space char as a space before it), a space char as
    " ", anything else (a line end, a left-out glyph, a soft hyphen inside a line) as nothing; and
    where each char's print starts in it (one more entry: the end). `as_is`: the glyphs that print as
    themselves; only the other chars are looked at one by one."""

    n = len(page_text)
    plain = as_is | (cp == 32)
    plain[gap_chars] = False
    odd = np.flatnonzero(~plain)
    gaps = np.zeros(n, dtype=bool)
    gaps[gap_chars] = True
    pieces: list[str] = []
    for i, acc, sp, gp, code in zip(odd.tolist(), accepted[odd].tolist(), space[odd].tolist(), gaps[odd].tolist(),
                                    cp[odd].tolist(), strict=True):
        if acc:
            if code == 0xFFFE or code == 2 or code == 0xAD:  # a soft hyphen that is a glyph ends its line
                ch = "-"
            elif 0x0B <= code <= 0x0F:
                ch = _OT1_LIGATURES[code]
            else:
                ch = page_text[i]
            pieces.append(" " + ch if gp else ch)
        else:
            pieces.append(" " if sp else "")
    lengths = np.ones(n, dtype=np.int64)
    lengths[odd] = [len(p) for p in pieces]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    parts: list[str] = []
    prev = 0
    for i, piece in zip(odd.tolist(), pieces, strict=True):
        parts.append(page_text[prev:i])
        parts.append(piece)
        prev = i + 1
    parts.append(page_text[prev:])
    return "".join(parts), offsets


_FONT_INFO = ctypes.CFUNCTYPE(ctypes.c_ulong, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong,
                              ctypes.c_void_p)(_address(pdfium_c.FPDFText_GetFontInfo))
_FONT_SLOT = 256


def _font_names(raw: pdfium_c.FPDF_TEXTPAGE, handle: int, idx: list[int]) -> list[str]:
    """`_font_name` of many chars, read in bulk into a slot each."""

    count = len(idx)
    names = ctypes.create_string_buffer(_FONT_SLOT * count)
    flags = (ctypes.c_int * max(count, 1))()
    b, fb = ctypes.addressof(names), ctypes.addressof(flags)
    lib = _native()
    if lib is not None:
        ids = _indexes(idx)
        got = np.zeros(count, dtype=np.uint64)
        lib.mg_font_info_at(_address(_FONT_INFO), handle, ids.ctypes.data, count, b, _FONT_SLOT, fb, got.ctypes.data)
        lengths = got.tolist()
    else:
        lengths = list(map(_FONT_INFO, repeat(handle, count), idx, range(b, b + _FONT_SLOT * count, _FONT_SLOT),
                           repeat(_FONT_SLOT, count), range(fb, fb + 4 * count, 4)))
    if any(n > _FONT_SLOT for n in lengths):
        return [_font_name(raw, i) for i in idx]  # a name longer than the buffer: as the per-char pass reads it
    data = names.raw
    return [data[k * _FONT_SLOT : k * _FONT_SLOT + n - 1].decode("latin-1", "replace") if n else ""
            for k, n in enumerate(lengths)]


# --- the C pass -----------------------------------------------------------------------------------
# The per-char pass's rules run in C (pdfchars.c, mg_page_lines): pdfium is called there directly, so a
# page costs no Python per character and none of the array pass's many small numpy calls. C gives each
# line's box, type size, glyph count, first and last char and the span of its text in one buffer of code
# points for the page; Python reads the font names and makes the Lines, as the other passes do.

_LINE_FIELDS = 5  # per line: x0, y0, x1, y1, size as doubles; glyphs, first, last, text start, text end as ints


def _lines_native(lib: Any, raw: pdfium_c.FPDF_TEXTPAGE, n: int, cp: Any, exact_units: bool, frame: _Frame,
                  repairs: list[Repairs] | None) -> list[Line] | None:
    """`_lines_char_by_char`'s lines, built in C; None when C could not (out of memory) or its text is not
    valid code points (then the Python passes decide, as without the C loops)."""

    handle = _address(raw)
    codes = np.ascontiguousarray(cp, dtype=np.uint32)
    text = np.empty(4 * n, dtype=np.uint32)  # a word gap and a three-letter ligature per char at most
    text_len = np.zeros(1, dtype=np.int64)
    line_f = np.empty((n, _LINE_FIELDS), dtype=np.float64)
    line_i = np.empty((n, _LINE_FIELDS), dtype=np.int64)
    mb = np.array(frame.mb, dtype=np.float64)
    count = lib.mg_page_lines(_address(_LOOSE_BOX), _address(_MATRIX_OF), _address(_FONT_SIZE_OF),
                              _address(_TIGHT_BOX), handle, codes.ctypes.data, n, int(exact_units),
                              _class_table().ctypes.data, frame.turn, mb.ctypes.data, text.ctypes.data,
                              text_len.ctypes.data, line_f.ctypes.data, line_i.ctypes.data)
    if count < 0:
        return None
    try:
        printed = text[: int(text_len[0])].tobytes().decode("utf-32-le", "surrogatepass")
    except UnicodeDecodeError:
        return None
    rows = line_i[:count].tolist()
    fonts = _font_names(raw, handle, [(first + last) // 2 for _, first, last, _, _ in rows])
    lines: list[Line] = []
    for (x0, y0, x1, y1, size), (glyphs, _, _, start, end), font in zip(line_f[:count].tolist(), rows, fonts,
                                                                         strict=True):
        line_text = printed[start:end].strip()
        if line_text:
            lines.append(_make_line(frame.page_no, line_text, (x0, y0, x1, y1), size, glyphs, font, frame.width,
                                    frame.height, repairs))
    return lines
