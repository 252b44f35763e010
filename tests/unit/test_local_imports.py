"""Every function-local import in the package says why it is local, with `# local: <reason>` on its lines
(an optional extra, a light CLI path, a cycle that cannot be broken, ...): an import with no reason belongs
at the top of its module. Counted by scripts/house_report.py; bench/ and scripts/ are not checked."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def _house_report() -> ModuleType:
    spec = importlib.util.spec_from_file_location("house_report", REPO / "scripts" / "house_report.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_local_import_gives_its_reason() -> None:
    hr = _house_report()
    package = {p: s for p, s in hr.read_sources(REPO).items() if hr.module_name(p).startswith("motivgraph")}
    unmarked = [f"{p}:{n}" for p, n, marked in hr.local_imports(package) if not marked]
    assert unmarked == [], f"{len(unmarked)} function-local imports without `# local: <reason>`:\n" + "\n".join(
        unmarked)
