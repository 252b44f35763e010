"""Corpus walking: files, folders (recursive) and glob patterns → the PDF files to ingest."""

from __future__ import annotations

import glob
import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

_GLOB_CHARS = set("*?[")


@dataclass
class WalkResult:
    pdfs: list[Path] = field(default_factory=list)
    non_pdf_skipped: int = 0
    missing: list[str] = field(default_factory=list)


def _is_pdf_name(p: Path) -> bool:
    return p.suffix.lower() == ".pdf"


def walk(paths: Iterable[str | Path]) -> WalkResult:
    """Expand paths into PDF files (sorted, each once). Non-PDF files are counted, not returned;
    a path that matches nothing is listed in `missing`."""
    res = WalkResult()
    seen: set[Path] = set()

    def add(p: Path) -> None:
        if not p.is_file():
            return
        if not _is_pdf_name(p):
            res.non_pdf_skipped += 1
            return
        rp = p.resolve()
        if rp not in seen:
            seen.add(rp)
            res.pdfs.append(rp)

    for raw in paths:
        s = str(raw)
        if any(c in _GLOB_CHARS for c in s):
            matches = sorted(glob.glob(s, recursive=True))
            if not matches:
                res.missing.append(s)
            for m in matches:
                mp = Path(m)
                if mp.is_dir():
                    for f in sorted(mp.rglob("*")):
                        add(f)
                else:
                    add(mp)
            continue
        p = Path(s).expanduser()
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                add(f)
        elif p.is_file():
            add(p)
        else:
            res.missing.append(s)
    res.pdfs.sort()
    return res


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()
