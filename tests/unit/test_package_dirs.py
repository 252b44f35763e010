"""Every folder of Python modules in the installed tree is a regular package (has `__init__.py`).

setup.py finds packages with `find_packages`, which skips a folder without `__init__.py` and everything
below it: the editable install still imports such a folder (as a namespace package), the built wheel
silently lacks it (`motivgraph.agents.tools` once went missing this way and `motivgraph --help` failed
installed)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("motivgraph", "graph", "ingest", "miner", "api", "agents")  # the kernel and setup.py's layer folders


def test_every_module_folder_is_a_package() -> None:
    missing = sorted(
        str(d.relative_to(REPO))
        for top in FOLDERS
        for d in {p.parent for p in (REPO / top).rglob("*.py")}
        if "__pycache__" not in d.parts and not (d / "__init__.py").exists()
    )
    assert not missing, f"folders with modules but no __init__.py (left out of the wheel): {missing}"
