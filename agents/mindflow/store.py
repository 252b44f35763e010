"""Where trained controllers live, and which one `ideate --method mindflow` picks.

A controller is only meaningful for the ideator model whose flows it was rewarded for and the
embedding model its topic features come from, so the store is keyed by both:

    <data_dir>/mindflow/controllers/<ideator model>--<embedding model>-<hash>/<entry>/controller.npz

`mindflow train` writes an entry there unless `--out` is given (the entry's name is a content key
of the topics and the training settings, so running the same command again resumes its
checkpoint). Picking, in order: the controller the run names (`--controller` / config), else the
newest entry for the configured ideator and embedding models, else the untrained prior -- and the
run says which. Entries for other models are never picked; the caller names them so the user can
train for this model or pass one explicitly.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STORE_DIR = ("mindflow", "controllers")
CONTROLLER_FILE = "controller.npz"


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_.")[:48] or "x"


def store_root(data_dir: Path) -> Path:
    return Path(data_dir).expanduser().joinpath(*STORE_DIR)


def model_key(ideator_model: str, embedding_model: str) -> str:
    """Readable folder name for a (model, embedding) pair; the hash keeps two models whose slugs
    collide (paths of scripted models, long names cut to 48 characters) apart."""
    digest = hashlib.sha1(f"{ideator_model}\n{embedding_model}".encode()).hexdigest()[:8]
    return f"{_slug(ideator_model)}--{_slug(embedding_model)}-{digest}"


def content_key(*parts: Any) -> str:
    """A stable short hash of JSON-able parts (topic ids, settings): the same inputs, the same entry."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def entry_dir(data_dir: Path, ideator_model: str, embedding_model: str, name: str) -> Path:
    return store_root(data_dir) / model_key(ideator_model, embedding_model) / _slug(name)


@dataclass(frozen=True)
class Found:
    """What the lookup decided: a controller path (None: the prior) and the line that says why."""

    path: Path | None
    note: str
    others: tuple[Path, ...] = ()  # entries trained for other models (never picked)


def _entries(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return [p for p in folder.glob(f"*/{CONTROLLER_FILE}") if p.is_file()]


def find(data_dir: Path, ideator_model: str, embedding_model: str) -> Found:
    """The newest stored controller for this ideator and embedding model, else Found(None, ...)
    naming any controllers stored for other models (so the user sees why none was taken)."""
    root = store_root(data_dir)
    mine = _entries(root / model_key(ideator_model, embedding_model))
    if mine:
        newest = max(mine, key=lambda p: (p.stat().st_mtime_ns, str(p)))
        return Found(newest, f"stored controller for {ideator_model} / {embedding_model}: {newest.parent}")
    others = tuple(sorted(p for d in (root.iterdir() if root.is_dir() else []) if d.is_dir()
                          for p in _entries(d)))
    note = f"no trained controller stored for {ideator_model} / {embedding_model} under {root}"
    if others:
        note += (f"; {len(others)} stored for other models are not used (e.g. {others[0].parent}: pass it with "
                 "--controller to use it anyway)")
    return Found(None, note, others)


# A stored controller's id: "<model key>:<entry>" (both folder names under the store root). It is what an HTTP or MCP
# caller names: never a server path, so no request can probe the server's files (issue 41).
_SEGMENT = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}"
ID_PATTERN = f"^{_SEGMENT}:{_SEGMENT}$"
_ID = re.compile(ID_PATTERN)


def is_controller_id(value: str) -> bool:
    # a segment holds no "/" and starts with neither "." nor "-": never "..", never an option, never a path
    return bool(_ID.fullmatch(value))  # fullmatch: "$" alone would let a trailing newline through


def controller_id(path: Path) -> str:
    """The id of the stored controller at `path` (its controller.npz or its entry folder)."""
    entry = path.parent if path.name == CONTROLLER_FILE else path
    return f"{entry.parent.name}:{entry.name}"


def stored(data_dir: Path) -> list[tuple[str, Path]]:
    """Every stored controller as (id, controller.npz), oldest first."""
    root = store_root(data_dir)
    found = [p for d in (root.iterdir() if root.is_dir() else []) if d.is_dir() for p in _entries(d)]
    found.sort(key=lambda p: (p.stat().st_mtime_ns, str(p)))
    return [(controller_id(p), p) for p in found]


def resolve(data_dir: Path, cid: str) -> Path | None:
    """The controller.npz a stored id names, or None when there is none (an id is never a path: its two parts are
    folder names checked by the pattern, so it cannot leave the store)."""
    if not is_controller_id(cid):
        return None
    key, entry = cid.split(":", 1)
    p = store_root(data_dir) / key / entry / CONTROLLER_FILE
    return p if p.is_file() else None
