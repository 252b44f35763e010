"""The C loops over pdfium's per-character calls (`native/pdfchars.c`), built once with the system's C
compiler and loaded with ctypes.

The offline parser asks pdfium for a box, a matrix or a font size one character at a time; through ctypes
each call costs ~0.4 us. The library builds a page's lines by the rules of the parser's per-character pass
(`mg_page_lines`, used by `pdf_layout._lines_native`), making those calls in C on the same library
(pypdfium2's), and loops the few per-char calls the parser still makes from Python (font names, the codes of a
page whose bulk text does not line up). The parser's output does not depend on whether it is there: without a
C compiler the parser keeps its pure-Python array pass (`pdf_layout._lines_in_bulk`), slower and otherwise
identical.

The library is built at setup (`python -m motivgraph.ingest.pdf_native`, run by scripts/setup.sh) or at
first use, into `<python prefix>/share/motivgraph/native` (`~/.cache/motivgraph/native` when that is not
writable), under a name that carries a hash of the source, the platform and the compiler flags, so an edited
source or another interpreter never loads a stale build.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import logging
import os
import platform
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

log = logging.getLogger(__name__)

SOURCE = Path(__file__).with_name("native") / "pdfchars.c"
BUILD_TIMEOUT_S = 120
# no fused multiply-add: the line builder's arithmetic must round as Python's does (the same lines either way)
CFLAGS = ("-O2", "-shared", "-fPIC", "-ffp-contract=off")


def _build_dirs() -> list[Path]:
    return [Path(sys.prefix) / "share" / "motivgraph" / "native", Path.home() / ".cache" / "motivgraph" / "native"]


def library_name() -> str:
    """The built file's name: the source, the platform and the flags hashed in (a changed source is a new file)."""
    built_for = f"{sys.platform}-{platform.machine()}-{' '.join(CFLAGS)}"
    digest = hashlib.sha1(SOURCE.read_bytes() + built_for.encode()).hexdigest()[:12]
    return f"pdfchars-{digest}{'.dll' if sys.platform == 'win32' else '.so'}"


def compiler() -> list[str] | None:
    """The C compiler command: $CC, the one Python was built with, or cc / gcc / clang on PATH."""
    for cmd in (os.environ.get("CC"), sysconfig.get_config_var("CC"), "cc", "gcc", "clang"):
        if not cmd:
            continue
        argv = shlex.split(str(cmd))
        if argv and shutil.which(argv[0]):
            return argv
    return None


def build(dest_dir: Path | None = None) -> Path:
    """Compile the library into `dest_dir` (default: the first writable build directory) and return its
    path; RuntimeError naming the cause when there is no compiler or the build fails."""
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler found ($CC, cc, gcc or clang); the parser uses its pure-Python path")
    dirs = [dest_dir] if dest_dir is not None else _build_dirs()
    errors: list[str] = []
    for d in dirs:
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            errors.append(f"{d}: {e}")
            continue
        out = d / library_name()
        tmp = d / f".{out.name}.{os.getpid()}.tmp"
        cmd = [*cc, *CFLAGS, "-o", str(tmp), str(SOURCE), "-lm"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as e:
            errors.append(f"{shlex.join(cmd)}: {e}")
            continue
        if done.returncode != 0 or not tmp.is_file():
            tmp.unlink(missing_ok=True)
            errors.append(f"{shlex.join(cmd)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
            continue
        os.replace(tmp, out)  # atomic: a parallel build or reader sees the old file or the whole new one
        return out
    raise RuntimeError("could not build the pdfium char loops: " + "; ".join(errors))


def _load(path: Path) -> ctypes.CDLL:
    lib = ctypes.CDLL(str(path))
    p, i64 = ctypes.c_void_p, ctypes.c_int64
    for name, args in (("mg_uint_range", [p, p, i64, p]), ("mg_font_info_at", [p, p, p, i64, p, i64, p, p])):
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, None
    lib.mg_reading_turn.argtypes, lib.mg_reading_turn.restype = [p, p, p, i64], ctypes.c_int
    i = ctypes.c_int
    lib.mg_page_lines.argtypes = [p, p, p, p, p, p, i64, i, p, i, p, p, p, p, p]
    lib.mg_page_lines.restype = i64
    return lib


@functools.lru_cache(maxsize=1)
def library() -> ctypes.CDLL | None:
    """The loaded library, built first when no build of this source exists; None (the pure-Python path)
    when it cannot be built or loaded -- said once in the log."""
    name = library_name()
    for d in _build_dirs():
        if (d / name).is_file():
            try:
                return _load(d / name)
            except OSError as e:
                log.info("could not load %s (%s); rebuilding it", d / name, e)
    try:
        return _load(build())
    except (RuntimeError, OSError) as e:
        log.info("pdf parser: C char loops unavailable (%s); using the pure-Python path", e)
        return None


def main() -> None:
    path = build()
    _load(path)
    print(f"built {path}")


if __name__ == "__main__":
    main()
