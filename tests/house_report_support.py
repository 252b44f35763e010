"""scripts/house_report.py loaded as a module, for the tests that hold the house to its figures (a script, not part
of the package: it is loaded from its file)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def house_report() -> ModuleType:
    spec = importlib.util.spec_from_file_location("house_report", REPO / "scripts" / "house_report.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
