"""Parsed-paper cache: one JSON file per PDF and parser, keyed by the PDF's sha256, under the data dir.

A re-run (after a crash, or to re-extract) reads the Paper from here instead of parsing again. An entry is
filed under the *tag* of the parse (`ingest.parsers.cache_tag`: the parser that made it and a fingerprint of
its code and page limit), and an ingest reads only the tags its parser choice accepts: after an
upgrade of the parser, or with another `--parser`, a document is parsed again rather than served an old
parse. Re-extraction (`miner.reextract`) reads whichever parse of the document is newest: it re-runs the
miner on the text the graph was built from.

Layout: `<root>/<sha[:2]>/<sha>.<tag>.json`; an entry of the layout before tags (`<sha>.json`) is read by
re-extraction only. Writes are atomic (motivgraph.fsutil.atomic_write) so a kill mid-write leaves no half file.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from pydantic import ValidationError

from motivgraph.fsutil import atomic_write
from motivgraph.ingest.models import Paper

log = logging.getLogger(__name__)

_TAG = re.compile(r"[a-z0-9][a-z0-9.-]{0,63}")


class ParsedCache:
    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> ParsedCache:
        return cls(data_dir / "ingest" / "parsed")

    def _dir(self, sha256: str) -> Path:
        return self.root / sha256[:2]

    def _path(self, sha256: str, tag: str) -> Path:
        if not _TAG.fullmatch(tag):
            raise ValueError(f"a cache tag is lower-case letters, digits, '.' and '-' (got {tag!r})")
        return self._dir(sha256) / f"{sha256}.{tag}.json"

    def _entries(self, sha256: str) -> list[Path]:
        """Every parse of the document, newest first (the untagged entry of the old layout included)."""
        found = [*self._dir(sha256).glob(f"{sha256}.*.json"), self._dir(sha256) / f"{sha256}.json"]
        dated = []
        for p in found:
            try:
                dated.append((p.stat().st_mtime_ns, p))
            except FileNotFoundError:
                continue
        return [p for _, p in sorted(dated, reverse=True)]

    @staticmethod
    def _read(p: Path) -> Paper | None:
        try:
            return Paper.model_validate_json(p.read_bytes())
        except FileNotFoundError:
            return None
        except (ValidationError, ValueError, OSError) as e:
            log.warning("ignoring unreadable cache entry %s: %s", p, e)
            return None

    def get(self, sha256: str, tags: tuple[str, ...] | None = None) -> Paper | None:
        """The first parse of `tags` there is; with no tags, the newest parse by any parser."""
        if tags is not None:
            for tag in tags:
                paper = self._read(self._path(sha256, tag))
                if paper is not None:
                    return paper
            return None
        for p in self._entries(sha256):
            paper = self._read(p)
            if paper is not None:
                return paper
        return None

    def put(self, paper: Paper, tag: str) -> None:
        if not paper.sha256:
            raise ValueError("only papers with a sha256 are cached")
        atomic_write(self._path(paper.sha256, tag), paper.model_dump_json().encode())

    def has(self, sha256: str, tags: tuple[str, ...]) -> bool:
        """Whether a parse of `tags` is here (without reading it)."""
        return any(self._path(sha256, t).is_file() for t in tags)

    def __contains__(self, sha256: str) -> bool:
        """Whether any parser's parse of the document is here."""
        return bool(self._entries(sha256))
