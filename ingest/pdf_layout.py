"""Low-level layout extraction with pypdfium2: text lines with position, font size and weight.

pdfium's text page gives characters in content-stream order with a box and a font per char;
we group them into lines (pdfium marks line ends with generated CR/LF, and a jump in baseline
also ends a line) and keep per-line geometry so the parser can find columns, the title,
headings and the references.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c


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


_BOLD_HINTS = ("bold", "cmbx", "medi", "black", "heavy", "semibold", "-bd", "demi", "bx1", "bx0")


def _is_bold_name(name: str) -> bool:
    # TeX bold fonts (CMBX, NimbusRomNo9L-Medi, Times-Bold, *-Semibold ...)
    n = name.lower()
    return any(k in n for k in _BOLD_HINTS)


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


def page_lines(page: pdfium.PdfPage, page_no: int) -> list[Line]:
    """Text lines of one page in content-stream order."""
    width, height = page.get_size()
    tp = page.get_textpage()
    try:
        raw = tp.raw
        n = pdfium_c.FPDFText_CountChars(raw)
        lines: list[Line] = []
        buf: list[str] = []
        sizes: dict[float, int] = {}
        box = [1e9, 1e9, -1e9, -1e9]
        first_idx = -1
        last_base: float | None = None
        last_x1: float | None = None
        rect = pdfium_c.FS_RECTF()
        rect_ref = ctypes.byref(rect)
        matrix = pdfium_c.FS_MATRIX()
        get_box = pdfium_c.FPDFText_GetLooseCharBox
        # one call for the page's text; per-char calls only when it does not line up with the chars
        bulk = tp.get_text_range()
        use_bulk = len(bulk) == n

        def flush() -> None:
            nonlocal buf, sizes, box, first_idx
            text = "".join(buf).strip()
            if text and first_idx >= 0:
                size = max(sizes.items(), key=lambda kv: kv[1])[0] if sizes else 0.0
                font = _font_name(raw, first_idx)
                lines.append(
                    Line(page_no, box[0], box[1], box[2], box[3], size, _is_bold_name(font), " ".join(text.split()),
                         font, width, height, chars=sum(sizes.values()))
                )
            buf, sizes, box, first_idx = [], {}, [1e9, 1e9, -1e9, -1e9], -1

        for i in range(n):
            cp = ord(bulk[i]) if use_bulk else pdfium_c.FPDFText_GetUnicode(raw, i)
            if cp in (10, 13):
                flush()
                last_base = None
                continue
            ch = chr(cp) if cp else ""
            if cp == 0xFFFE or cp == 2:  # soft hyphen markers pdfium reports at line ends
                ch = "-"
            if ch.isspace() or not ch:
                if buf:
                    buf.append(" ")
                continue
            if not get_box(raw, i, rect_ref):
                continue
            base = rect.bottom
            x0, x1 = rect.left, rect.right
            if last_base is not None and buf and (
                abs(base - last_base) > max(2.0, (rect.top - rect.bottom) * 0.6)
                or (last_x1 is not None and x0 < last_x1 - 50)
                or (last_x1 is not None and x0 - last_x1 > 40)
            ):
                flush()
            size = _effective_size(raw, i, matrix)
            if buf and last_x1 is not None and x0 - last_x1 > 0.25 * max(size, 4.0) and buf[-1] != " ":
                buf.append(" ")  # word gap without an explicit space char
            if first_idx < 0:
                first_idx = i
            buf.append(ch)
            sizes[size] = sizes.get(size, 0) + 1
            box[0] = min(box[0], x0)
            box[1] = min(box[1], rect.bottom)
            box[2] = max(box[2], x1)
            box[3] = max(box[3], rect.top)
            last_base = base
            last_x1 = x1
        flush()
        return lines
    finally:
        tp.close()
