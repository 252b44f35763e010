"""Low-level layout extraction with pypdfium2: text lines with position, font size and weight.

pdfium's text page gives characters in content-stream order with a box and a font per char;
we group them into lines (pdfium marks line ends with generated CR/LF, and a jump in baseline
also ends a line) and keep per-line geometry so the parser can find columns, the title,
headings and the references.
"""

from __future__ import annotations

import ctypes
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


def _code_units(tp: pdfium.PdfTextPage, n: int) -> list[int] | None:
    """The page's UTF-16 code units, one per pdfium char index (characters outside the BMP take two
    indexes: pdfium counts UTF-16 units). None when the bulk text does not line up with the chars."""
    bulk = tp.get_text_range()
    if len(bulk) == n:
        return [ord(ch) for ch in bulk]
    raw = bulk.encode("utf-16-le", "surrogatepass")
    units = memoryview(raw).cast("H").tolist()
    return units if len(units) == n else None


def page_lines(page: pdfium.PdfPage, page_no: int, repairs: list[Repairs] | None = None) -> list[Line]:
    """Text lines of one page in content-stream order. Text is repaired with the shared hygiene
    function (surrogate halves rejoined, controls dropped); counts are added to `repairs`."""
    width, height = page.get_size()
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

        buf: list[str] = []
        sizes: dict[float, int] = {}
        bx0 = by0 = 1e9
        bx1 = by1 = -1e9
        first_idx = -1
        last_idx = -1
        last_base: float | None = None
        last_x1: float | None = None
        size = 0.0
        new_word = True

        def flush() -> None:
            nonlocal buf, sizes, bx0, by0, bx1, by1, first_idx
            text = "".join(buf).strip()
            if text and first_idx >= 0:
                if _NEEDS_REPAIR.search(text):
                    text, rep = repair_text(text)
                    if repairs is not None:
                        repairs.append(rep)
                dom = max(sizes.items(), key=lambda kv: kv[1])[0] if sizes else 0.0
                # the font in the middle of the line: a run-in label ("Methods.") or a footnote
                # marker at the start does not decide the line's typeface
                font = _font_name(raw, (first_idx + last_idx) // 2)
                lines.append(
                    Line(page_no, bx0, by0, bx1, by1, dom, _is_bold_name(font),
                         " ".join(text.split()), font, width, height, chars=sum(sizes.values()))
                )
            buf, sizes, first_idx = [], {}, -1
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
            elif cp == 0xAD:  # a soft hyphen: a break opportunity, printed only at a line end
                nxt = units[i + 1] if units is not None and i + 1 < n else 10
                ch = "-" if nxt in (10, 13) else ""
            else:
                ch = chr(cp) if cp else " "  # an unmapped glyph separates words
            if not ch:
                # a soft hyphen inside a line prints nothing but takes its width: no word gap there
                if get_box(raw, i, rect_ref):
                    last_x1 = rect.right
                continue
            if ch.isspace():
                if buf:
                    buf.append(" ")
                new_word = True
                continue
            if not get_box(raw, i, rect_ref):
                continue
            base = rect.bottom
            x0 = rect.left
            x1 = rect.right
            if last_base is not None and buf and (
                (
                    abs(base - last_base) > max(2.0, (rect.top - base) * 0.6)
                    # a superscript or subscript overlaps the line it sits on: same line (a drop cap,
                    # several times taller, is not)
                    and (
                        min(rect.top, by1) - max(base, by0) < 0.5 * min(rect.top - base, by1 - by0)
                        or min(rect.top - base, by1 - by0) < 0.4 * max(rect.top - base, by1 - by0)
                    )
                )
                or x0 < last_x1 - 50  # type: ignore[operator]
                or x0 - last_x1 > 40
            ):
                flush()
                new_word = True
            if new_word:
                # the font size is read once per word: a size change inside a word is rare, and this
                # call was a third of the per-character cost
                size = _effective_size(raw, i, matrix)
                new_word = False
            if buf and last_x1 is not None and x0 - last_x1 > 0.25 * (size if size > 4.0 else 4.0) and buf[-1] != " ":
                buf.append(" ")  # word gap without an explicit space char
                size = _effective_size(raw, i, matrix)
            if first_idx < 0:
                first_idx = i
            last_idx = i
            buf.append(ch)
            sizes[size] = sizes.get(size, 0) + 1
            if x0 < bx0:
                bx0 = x0
            if base < by0:
                by0 = base
            if x1 > bx1:
                bx1 = x1
            if rect.top > by1:
                by1 = rect.top
            last_base = base
            last_x1 = x1
        flush()
        return lines
    finally:
        tp.close()
