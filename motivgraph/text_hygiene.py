"""One text-hygiene policy for every boundary that receives outside text.

Two entry points, because the two kinds of boundary want opposite things:

* `repair_text` — for text we cannot send back (PDF/paper text, TEI, extracted strings): fix what can be fixed,
  drop what cannot, and *count* every repair so a report can say what happened. UTF-16 surrogate halves that
  arrive as two code points (pdfium hands out UTF-16 units) are rejoined into the real astral character.
* `check_text` — for text a caller can correct (API requests, `graph import` lines): never
  repair, raise `TextHygieneError` naming the first offending character and its position. Silently stripping
  a NUL or replacing a bad byte there could merge two distinct keys.

What counts as a defect: surrogates (paired or lone), NUL, C0 controls other than tab/LF/CR, DEL and C1
controls, the BMP noncharacters (U+FDD0..U+FDEF, U+FFFE, U+FFFF), and invalid UTF-8 bytes.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields

from motivgraph.errors import TextHygieneError

REPLACEMENT = "\ufffd"

# The BMP noncharacters. The astral ones (U+1FFFE ...) are left alone: Unicode allows noncharacters in
# interchange, they encode fine, and only U+FFFE (a byte-swapped BOM) and U+FFFF (an "end" sentinel) do harm.
_NONCHARS = "\ufdd0-\ufdef\ufffe\uffff"
_CONTROLS = "\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
# Fast path: one search tells whether a string needs any work at all (the common case is clean text).
_BAD = re.compile(f"[\x00{_CONTROLS}\ud800-\udfff{_NONCHARS}]")
_REPAIR = re.compile(
    "(?P<pair>[\ud800-\udbff][\udc00-\udfff])"
    "|(?P<escaped>[\udc80-\udcff]+)"  # placeholder: only used for bytes input (see repair_text)
    "|(?P<lone>[\ud800-\udfff])"
    "|(?P<nul>\x00)"
    f"|(?P<control>[{_CONTROLS}])"
    f"|(?P<nonchar>[{_NONCHARS}])"
)
# Controls that Python (and readers) treat as whitespace become a space, so words they separate stay apart.
_SPACE_LIKE = frozenset("\x0b\x0c\x1c\x1d\x1e\x1f\x85")


@dataclass(frozen=True)
class Repairs:
    """How many characters of each kind `repair_text` fixed. Adds up with `+` across documents."""

    surrogate_pairs_joined: int = 0
    lone_surrogates: int = 0
    nuls: int = 0
    controls: int = 0
    noncharacters: int = 0
    invalid_utf8: int = 0

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))

    def __bool__(self) -> bool:
        return self.total > 0

    def __add__(self, other: Repairs) -> Repairs:
        return Repairs(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def as_dict(self) -> dict[str, int]:
        """Non-zero counts only, for reports and JSON."""
        return {k: v for k, v in asdict(self).items() if v}


NO_REPAIRS = Repairs()


def repair_text(text: str | bytes) -> tuple[str, Repairs]:
    """Repair outside text; returns (clean text, counts of each repair).

    Surrogate pairs are joined; lone surrogates and each run of invalid UTF-8 bytes become U+FFFD (so a reader
    sees that something was lost there); NUL, controls and noncharacters are removed (whitespace-like controls
    become a space). Tab, LF and CR are kept.
    """
    invalid_bytes = 0
    if isinstance(text, (bytes, bytearray)):
        data = bytes(text)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            # surrogateescape maps each invalid byte to U+DC80..U+DCFF; valid UTF-8 never yields a surrogate,
            # so every surrogate in the result is an escaped byte.
            text = data.decode("utf-8", errors="surrogateescape")
            invalid_bytes = sum(1 for ch in text if "\udc80" <= ch <= "\udcff")
    if _BAD.search(text) is None:
        return text, NO_REPAIRS

    counts = {"pair": 0, "lone": 0, "nul": 0, "control": 0, "nonchar": 0}
    from_bytes = invalid_bytes > 0

    def fix(m: re.Match[str]) -> str:
        kind = m.lastgroup or ""
        s = m.group()
        if kind == "escaped":
            if from_bytes:
                return REPLACEMENT
            counts["lone"] += len(s)
            return REPLACEMENT * len(s)
        counts[kind] += 1
        if kind == "pair":
            return chr(0x10000 + ((ord(s[0]) - 0xD800) << 10) + (ord(s[1]) - 0xDC00))
        if kind == "lone":
            return REPLACEMENT
        if kind == "control" and s in _SPACE_LIKE:
            return " "
        return ""

    out = _REPAIR.sub(fix, text)
    return out, Repairs(
        surrogate_pairs_joined=counts["pair"], lone_surrogates=counts["lone"], nuls=counts["nul"],
        controls=counts["control"], noncharacters=counts["nonchar"], invalid_utf8=invalid_bytes,
    )




def _describe(ch: str) -> str:
    cp = ord(ch)
    if cp == 0:
        return "NUL character (U+0000)"
    if 0xD800 <= cp <= 0xDFFF:
        return f"lone surrogate U+{cp:04X} (not valid Unicode text)"
    if cp < 0x20 or 0x7F <= cp <= 0x9F:
        return f"control character U+{cp:04X}"
    return f"Unicode noncharacter U+{cp:04X}"


def find_problem(text: str) -> tuple[int, str] | None:
    """(0-based index, description) of the first character `check_text` would reject, or None if clean."""
    m = _BAD.search(text)
    return None if m is None else (m.start(), _describe(m.group()))


def check_text(text: str, *, field: str | None = None, max_chars: int | None = None) -> str:
    """Return `text` unchanged if it is clean; else raise `TextHygieneError` (position is 1-based)."""
    problem = find_problem(text)
    if problem is not None:
        raise TextHygieneError(problem[1], problem[0] + 1, field=field)
    if max_chars is not None and len(text) > max_chars:
        raise TextHygieneError(f"longer than {max_chars} characters ({len(text)})", max_chars + 1, field=field)
    return text


# JSON-Schema `pattern`s saying what `check_text` accepts, for API specs (clients and fuzzers then know the rule).
# Escapes read alike by Python and ECMA regexes. Surrogates are not listed: a JSON string cannot carry a lone
# one as a character (a `\\ud835` escape still reaches `check_text` and is rejected there), and regex engines
# that validate patterns (Rust's) refuse a surrogate range.
_SCHEMA_EXCLUDED = "\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\ufdd0-\\ufdef\\ufffe\\uffff"
TEXT_PATTERN = f"^[^{_SCHEMA_EXCLUDED}]*$"
"""Any text `check_text` accepts except lone surrogates (may be empty or blank)."""
# Python's whitespace (str.split) spelled out: `\\s` means ASCII-only or Unicode depending on the engine.
_SCHEMA_SPACE = "\\t\\n\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
NONBLANK_TEXT_PATTERN = f"^[^{_SCHEMA_EXCLUDED}]*[^{_SCHEMA_SPACE}{_SCHEMA_EXCLUDED}][^{_SCHEMA_EXCLUDED}]*$"
"""Like TEXT_PATTERN, with at least one non-whitespace character."""
