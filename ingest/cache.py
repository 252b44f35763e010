"""Parsed-paper cache: one JSON file per PDF, keyed by the PDF's sha256, under the data dir.

A re-run (after a crash, or to re-extract) reads the Paper from here instead of parsing again.
Writes are atomic (motivgraph.fsutil.atomic_write) so a kill mid-write leaves no half file behind.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import ValidationError

from motivgraph.fsutil import atomic_write
from motivgraph.ingest.models import Paper

log = logging.getLogger(__name__)


class ParsedCache:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, sha256: str) -> Path:
        return self.root / sha256[:2] / f"{sha256}.json"

    def get(self, sha256: str) -> Paper | None:
        p = self._path(sha256)
        try:
            return Paper.model_validate_json(p.read_bytes())
        except FileNotFoundError:
            return None
        except (ValidationError, ValueError, OSError) as e:
            log.warning("ignoring unreadable cache entry %s: %s", p, e)
            return None

    def put(self, paper: Paper) -> None:
        if not paper.sha256:
            raise ValueError("only papers with a sha256 are cached")
        atomic_write(self._path(paper.sha256), paper.model_dump_json().encode())

    def __contains__(self, sha256: str) -> bool:
        return self._path(sha256).exists()
