"""Lay out the installed namespace as folders, for static tools that walk the file system.

The repo keeps the layer folders (graph/, api/, …) at the top while they install as `motivgraph.<layer>`
(setup.py). import-linter and mypy read packages from disk, so they are pointed at a tree of symlinks
with the installed shape: build/namespace/motivgraph/{<kernel files>, graph -> ../../../graph, …}.
Prints the tree's root, for PYTHONPATH / MYPYPATH.
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# the layer folders setup.py maps, from their one declaration
LAYER_FOLDERS: tuple[str, ...] = tuple(
    tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["motivgraph"]["layer-folders"])


def build(root: Path = REPO / "build" / "namespace") -> Path:
    pkg = root / "motivgraph"
    if root.exists():
        shutil.rmtree(root)
    pkg.mkdir(parents=True)
    for entry in (REPO / "motivgraph").iterdir():
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry)
    for folder in LAYER_FOLDERS:
        (pkg / folder).symlink_to(REPO / folder, target_is_directory=True)
    return root


if __name__ == "__main__":
    print(build())
