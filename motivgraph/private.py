"""Private by default: what MotivGraph writes (graph store, ledger, caches, transcripts) is readable by its
owner only — directories 700, files 600 — whatever umask the user's shell has.

A graph built from unpublished papers, LLM transcripts and API keys in caches are not for other local users.
Entry points call `set_private_umask()` once at process start; code that creates the data dir calls
`private_dir()` so an existing directory made before this rule is tightened too.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

PRIVATE_UMASK = 0o077
"""Files 600, directories 700."""


def set_private_umask() -> int:
    """Make every file and directory this process (and its children) creates owner-only; returns the old mask."""
    return os.umask(PRIVATE_UMASK)


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents, each 700) or tighten it to 700 if we own it and it is open to others.

    A directory owned by someone else is left alone: changing it would fail anyway, and it is theirs to decide.
    """
    missing = []
    p = path
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        d.mkdir(mode=0o700, exist_ok=True)
        os.chmod(d, 0o700)  # mkdir's mode is filtered by the umask; chmod is not
    tighten(path)
    return path


def tighten(path: Path, mode: int = 0o700) -> None:
    """chmod `path` to `mode` when we own it and it grants anything to group/others (never loosens)."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode) or st.st_uid != os.getuid() or not st.st_mode & 0o077:
        return
    os.chmod(path, stat.S_IMODE(st.st_mode) & mode)
    log.info("tightened %s to %o (private by default)", path, stat.S_IMODE(st.st_mode) & mode)
