"""File-system helpers every layer shares: the one atomic write, and file paths as storable text.

Atomic write: the data goes to a temporary file beside the target, is flushed and fsynced, then
renamed over the target, so a reader (or a kill -9 mid-write) sees the old file or the new one,
never half of one.

Paths as text: on POSIX a file name is bytes; Python hands undecodable bytes to us as lone
surrogates (surrogateescape), which SQLite, JSON encoders and the graph's client refuse. Stored
and shown paths therefore use one reversible escaped form: valid UTF-8 text where each byte that
is not UTF-8 reads `\\xNN` and a literal backslash reads `\\\\`. A name that is plain UTF-8 without
backslashes is unchanged, so almost every path looks exactly like itself.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

_ESCAPE_RE = re.compile(r"\\(\\|x[0-9a-fA-F]{2})")


def path_to_text(path: str | os.PathLike[str] | bytes) -> str:
    """The storable, printable form of a path (see module doc); `path_from_text` reverses it."""
    raw = path if isinstance(path, bytes) else os.fsencode(path)
    out: list[str] = []
    text = raw.decode("utf-8", "surrogateescape")
    for ch in text:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif 0xDC80 <= code <= 0xDCFF:  # an undecodable byte carried by surrogateescape
            out.append(f"\\x{code - 0xDC00:02x}")
        else:
            out.append(ch)
    return "".join(out)


_CONTROL_NAMES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """`text` (a path in its `path_to_text` form, a name) for one line of terminal output: control characters
    (a newline or a carriage return in a file name would split or overwrite the line; an escape sequence would
    restyle the terminal) shown as `\\n`, `\\r`, `\\t` or `\\xNN` / `\\uNNNN`. For display only; the stored
    and JSON forms keep the name as it is."""

    def esc(m: re.Match[str]) -> str:
        ch = m.group(0)
        return _CONTROL_NAMES.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")

    return _CONTROL_RE.sub(esc, text)


def path_from_text(text: str) -> str:
    """The OS path (a str, undecodable bytes as surrogateescape) of a `path_to_text` form."""

    def unescape(m: re.Match[str]) -> str:
        tok = m.group(1)
        return "\\" if tok == "\\" else chr(0xDC00 + int(tok[1:], 16))

    raw = _ESCAPE_RE.sub(unescape, text).encode("utf-8", "surrogateescape")
    return os.fsdecode(raw)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", *, encoding: str = "utf-8") -> Iterator[IO[Any]]:
    """`with atomic_open(p) as fh: fh.write(...)` — the target appears (complete) only when the block
    ends without an exception; on an exception the temporary file is removed and the target is untouched."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes whole files: mode 'w' or 'wb', not {mode!r}")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        fh: IO[Any] = os.fdopen(fd, "wb") if mode == "wb" else os.fdopen(fd, "w", encoding=encoding, newline="")
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write(path: str | os.PathLike[str], data: str | bytes, *, encoding: str = "utf-8") -> None:
    """Replace `path` with `data` atomically (see module doc)."""
    if isinstance(data, bytes):
        with atomic_open(path, "wb") as fb:
            fb.write(data)
    else:
        with atomic_open(path, "w", encoding=encoding) as ft:
            ft.write(data)
