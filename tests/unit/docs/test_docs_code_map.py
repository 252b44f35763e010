"""Every code map (a table headed `| folder | holds |`, in README.md or docs/) names folders that exist, and in
each row files and folders inside that folder and classes, constants and functions defined there: the map of
the territory is checked against it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.unit.docs.test_docs_links import REPO, pages


def code_map_rows(text: str) -> list[tuple[str, str]]:
    rows, in_map = [], False
    for line in text.splitlines():
        if re.match(r"^\|\s*folder\s*\|\s*holds\s*\|", line):
            in_map = True
        elif in_map and line.startswith("|") and not re.match(r"^\|[-|\s]+\|$", line):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows.append((cells[0], " | ".join(cells[1:])))
        elif not line.startswith("|"):
            in_map = False
    return rows


def defined_in(folder: Path, name: str) -> bool:
    pattern = re.compile(rf"^\s*(?:class|def|async def)\s+{name}\b|^{name}\s*(?::[^=]*)?=", re.M)
    return any(pattern.search(py.read_text(encoding="utf-8")) for py in folder.rglob("*.py"))


def bad_code_map(path: Path) -> list[str]:
    bad = []
    for first, holds in code_map_rows(path.read_text(encoding="utf-8")):
        m = re.fullmatch(r"`([\w./-]+)`", first)
        if not m or not (REPO / m.group(1)).is_dir():
            bad.append(f"{path.relative_to(REPO)}: code-map folder {first} does not exist")
            continue
        folder = REPO / m.group(1)
        for token in re.findall(r"`([^`]+)`", holds):
            if re.fullmatch(r"[\w.-]+\.\w+|[\w-]+/", token):  # a file or folder inside the row's folder
                name = token.rstrip("/")
                if not any(p.name == name for p in folder.rglob(name)):
                    bad.append(f"{path.relative_to(REPO)}: {token} is not in {m.group(1)}")
            elif re.fullmatch(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*|[A-Z][A-Z0-9_]+|[a-z_][a-z0-9_]*\(\)", token):
                name = token.rstrip("()")  # a class, constant or function the row says the folder holds
                if not defined_in(folder, name):
                    bad.append(f"{path.relative_to(REPO)}: {token} is not defined in {m.group(1)}")
    return bad


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_code_map_entries_exist(page: Path) -> None:
    assert not bad_code_map(page)


def test_the_code_map_check_finds_misplaced_entries() -> None:
    text = (
        "| folder | holds |\n|---|---|\n"
        "| `graph/` | `GraphStore` (`base.py`), `Runtime`, `queries.py`, `backends/` |\n"
        "| `motivgraph/` | `Runtime` (lazily opened services), `settings.py`, `no_such.py` |\n"
        "| `nowhere/` | x |\n\nafter the table | `x` |\n"
    )
    probe = REPO / "docs" / "_code_map_probe.md"
    probe.write_text(text, encoding="utf-8")
    try:
        bad = bad_code_map(probe)
    finally:
        probe.unlink()
    assert len(bad) == 3, bad
    assert "Runtime is not defined in motivgraph/" in bad[0] and "no_such.py" in bad[1] and "nowhere/" in bad[2]
