"""The format version of a data directory (graph store files, ledger, vector indexes, run dirs, caches).

`$MOTIVGRAPH_DATA_DIR/FORMAT.json` records the layout version the directory was written in. Every process
that opens a data dir checks it first:

* no stamp, empty or new directory → stamped with the current version;
* older → the registered migration steps run in order (each re-stamps when done), or — for a step that
  needs more than file moves — the error names the command that does it;
* newer → refused with a message saying which version wrote it: an older MotivGraph must not half-read
  (or rewrite) a layout it does not know.

Version history (one line per bump; add a `_MIGRATIONS` entry with each):
  0 — before stamping (same layout as 1).
  1 — falkordb/ (AOF+RDB), ledger.sqlite, index/, cache/, runs/ as of issue 12.
  2 — vector index generations (index/<name>/gen-*/) in index format 2: a text hash per item row and an
      append log (delta.vec + delta.log) per generation (issue 19). Migrated in place: rows get an
      empty hash (their vectors are re-embedded by the next rebuild; search is unchanged).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from motivgraph import __version__
from motivgraph.errors import DataFormatError
from motivgraph.private import private_dir

FORMAT_NAME = "motivgraph-data"
DATA_FORMAT_VERSION = 2
STAMP_NAME = "FORMAT.json"
UPGRADE_COMMAND = "motivgraph db upgrade"


@dataclass(frozen=True)
class Migration:
    """One step from `from_version` to `from_version + 1`. `run` None: the step needs `command`."""

    from_version: int
    what: str
    run: Callable[[Path], None] | None = None
    command: str | None = None


def _nothing_to_move(_: Path) -> None:
    """Version 0 had the layout of version 1, only without the stamp."""


def _index_rows_get_a_text_hash(data_dir: Path) -> None:
    """Index format 1 -> 2: every item row [id, label, level] gains a text hash; "" matches no text, so
    a rebuild re-embeds those items instead of reusing their vectors. Idempotent (a step killed
    halfway is simply run again: the stamp is rewritten last)."""
    for stamp_path in sorted((data_dir / "index").glob("*/gen-*/stamp.json")):
        try:
            stamp = json.loads(stamp_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # unreadable: the index reports itself corrupt and `motivgraph reindex` rebuilds it
        if not isinstance(stamp, dict) or stamp.get("format_version") != 1:
            continue
        for group in stamp.get("counts", {}):
            meta_path = stamp_path.parent / f"{group}.json"
            try:
                rows = json.loads(meta_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(rows, list):
                rows = [[*r, ""] if isinstance(r, list) and len(r) == 3 else r for r in rows]
                _replace(meta_path, json.dumps(rows, ensure_ascii=False))
        _replace(stamp_path, json.dumps({**stamp, "format_version": 2}, indent=2, sort_keys=True))


def _replace(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


_MIGRATIONS: dict[int, Migration] = {
    0: Migration(0, "stamp a data dir from before format versions", _nothing_to_move),
    1: Migration(1, "vector index rows get a text hash (index format 2)", _index_rows_get_a_text_hash),
}


def _read(stamp: Path) -> dict[str, Any]:
    try:
        data = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise DataFormatError(
            f"Cannot read the data dir format stamp {stamp}: {e}. Restore it from a backup, or if you know the "
            f"directory is format {DATA_FORMAT_VERSION}, write "
            f'{{"format": "{FORMAT_NAME}", "version": {DATA_FORMAT_VERSION}}} to it'
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME or not isinstance(data.get("version"), int):
        raise DataFormatError(f"{stamp} is not a MotivGraph data dir format stamp (expected format {FORMAT_NAME!r} "
                              "and an integer version)")
    return data


def _write(data_dir: Path, version: int, **extra: Any) -> None:
    body = {"format": FORMAT_NAME, "version": version, "written_by": __version__,
            "written_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), **extra}
    fd, tmp = tempfile.mkstemp(dir=data_dir, prefix=f".{STAMP_NAME}.", suffix=".tmp")  # mkstemp: mode 600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(body, fh, indent=1)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, data_dir / STAMP_NAME)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def data_dir_version(data_dir: Path) -> int | None:
    """The stamped version; 0 for an unstamped dir with content; None when there is nothing there yet."""
    stamp = data_dir / STAMP_NAME
    if stamp.exists():
        return int(_read(stamp)["version"])
    if data_dir.is_dir() and any(True for p in data_dir.iterdir() if not p.name.startswith(f".{STAMP_NAME}.")):
        return 0
    return None


def check_data_dir(data_dir: Path, *, create: bool = True, migrate: bool = True) -> int | None:
    """Make sure `data_dir` is in the current format; returns the version (None: absent and `create` False).

    `migrate` False only checks (never writes). Raises DataFormatError for a newer or un-migratable dir."""
    data_dir = Path(data_dir).expanduser()
    if not data_dir.exists() and not create:
        return None
    version = data_dir_version(data_dir)
    if version is None:
        if not migrate:
            return None
        private_dir(data_dir)
        _write(data_dir, DATA_FORMAT_VERSION)
        return DATA_FORMAT_VERSION
    if version > DATA_FORMAT_VERSION:
        written_by = _read(data_dir / STAMP_NAME).get("written_by") or "a newer version"
        raise DataFormatError(
            f"The data dir {data_dir} is in format version {version} (written by MotivGraph {written_by}), newer "
            f"than this MotivGraph {__version__} reads (version {DATA_FORMAT_VERSION}). Upgrade MotivGraph, or set "
            "MOTIVGRAPH_DATA_DIR to another directory; nothing was changed."
        )
    if version == DATA_FORMAT_VERSION:
        return version
    if not migrate:
        raise DataFormatError(
            f"The data dir {data_dir} is in format version {version}; this MotivGraph uses version "
            f"{DATA_FORMAT_VERSION}. Run `{UPGRADE_COMMAND}` to migrate it."
        )
    start = version
    while version < DATA_FORMAT_VERSION:
        step = _MIGRATIONS.get(version)
        if step is None or step.run is None:
            how = f"run `{step.command}`" if step and step.command else "export the graph with an older " \
                "MotivGraph (`motivgraph graph export`) and import it into a new data dir"
            raise DataFormatError(
                f"The data dir {data_dir} is in format version {version} and cannot be migrated to version "
                f"{DATA_FORMAT_VERSION} automatically: {how}."
            )
        step.run(data_dir)
        version += 1
        _write(data_dir, version, migrated_from=start)
    return version
