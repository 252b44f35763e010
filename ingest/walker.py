"""Corpus walking: files, folders (recursive) and glob patterns → the input files to ingest.

Nothing is skipped silently: files of other kinds are counted; FIFOs, sockets, devices, dangling
links and folders met again through a symbolic link (a loop) are listed in `skipped` with the reason;
folders that cannot be listed are listed in
`unreadable` (the pipeline records them as failures). Names are never decoded strictly, so a file
name that is not valid UTF-8 is walked like any other (see `motivgraph.fsutil.path_to_text`).
"""

from __future__ import annotations

import errno
import glob
import hashlib
import logging
import os
import stat
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from motivgraph.fsutil import path_to_text

log = logging.getLogger(__name__)

_GLOB_CHARS = set("*?[")
DEFAULT_SUFFIXES: tuple[str, ...] = (".pdf",)


@dataclass
class WalkResult:
    pdfs: list[Path] = field(default_factory=list)  # the input files (PDFs, or any suffix asked for)
    non_pdf_skipped: int = 0  # regular files of other kinds
    missing: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path text, why): FIFOs, dangling links, ...
    unreadable: list[tuple[Path, str]] = field(default_factory=list)  # folders that could not be listed

    @property
    def files(self) -> list[Path]:
        return self.pdfs


def _special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device file"
    return "not a regular file"


def _reason(e: OSError) -> str:
    return f"{e.strerror or type(e).__name__}".lower() if isinstance(e, OSError) else str(e)


def walk(paths: Iterable[str | Path], suffixes: Collection[str] = DEFAULT_SUFFIXES) -> WalkResult:
    """Expand paths into input files (sorted, each once), by file-name suffix (case-insensitive).
    A path that matches nothing is listed in `missing`."""
    res = WalkResult()
    seen: set[Path] = set()
    wanted = tuple(s.lower() for s in suffixes)

    def add(p: Path, *, explicit: bool = False) -> None:
        try:
            st = p.stat()
        except FileNotFoundError:
            if p.is_symlink():
                res.skipped.append((path_to_text(p), f"dangling symbolic link (to {path_to_text(os.readlink(p))})"))
            elif explicit:
                res.missing.append(str(p))
            return
        except OSError as e:
            if e.errno == errno.ELOOP:  # a link that leads back to itself: nothing to read, not a failure
                res.skipped.append((path_to_text(p), "symbolic link loop"))
            elif p.name.lower().endswith(wanted):
                res.unreadable.append((p, f"cannot stat: {_reason(e)}"))
            return
        if stat.S_ISDIR(st.st_mode):
            return
        if not stat.S_ISREG(st.st_mode):  # reading a FIFO would block forever: list it, never open it
            res.skipped.append((path_to_text(p), _special_kind(st.st_mode)))
            return
        if not p.name.lower().endswith(wanted):
            res.non_pdf_skipped += 1
            return
        rp = p.resolve()
        if rp not in seen:
            seen.add(rp)
            res.pdfs.append(rp)

    def add_tree(root: Path) -> None:
        visited: dict[tuple[int, int], str] = {}  # folder identity -> the path it was first walked under

        def onerror(e: OSError) -> None:
            where = Path(e.filename) if e.filename else root
            if e.errno == errno.ELOOP:
                res.skipped.append((path_to_text(where), "symbolic link loop"))
                return
            res.unreadable.append((where.resolve() if where.is_absolute() else where, f"cannot list: {_reason(e)}"))

        for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
            try:
                st = os.stat(dirpath)
                ident = (st.st_dev, st.st_ino)
            except OSError:
                ident = None
            if ident is not None:
                if ident in visited:  # a symlink loop (or a second link to one folder): each folder is walked once
                    dirnames[:] = []
                    first = visited[ident]
                    why = ("directory symbolic link loop (leads back to " if Path(first) in Path(dirpath).parents
                           else "folder already walked as ")
                    res.skipped.append((path_to_text(dirpath), f"{why}{path_to_text(first)}"
                                        f"{')' if why.endswith('to ') else ''}; not walked again"))
                    continue
                visited[ident] = dirpath
            dirnames.sort()
            here = Path(dirpath)
            for name in sorted(filenames):  # dangling links and special files arrive here too
                add(here / name)

    for raw in paths:
        s = str(raw)
        if any(c in _GLOB_CHARS for c in s):
            matches = sorted(glob.glob(s, recursive=True))
            if not matches:
                res.missing.append(s)
            for m in matches:
                mp = Path(m)
                if mp.is_dir():
                    add_tree(mp)
                else:
                    add(mp)
            continue
        p = Path(s).expanduser()
        if p.is_dir():
            add_tree(p)
        elif p.exists() or p.is_symlink():
            add(p, explicit=True)
        else:
            res.missing.append(s)
    res.pdfs.sort()
    res.skipped.sort()
    res.unreadable.sort()
    return res


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()
