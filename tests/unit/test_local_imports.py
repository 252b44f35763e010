"""Every function-local import in the package, bench/ and scripts/ says why it is local, with `# local: <reason>`
on its lines (an optional extra, a light CLI path or bench --help, a cycle that cannot be broken, a script run
before the repo is on sys.path, ...): an import with no reason belongs at the top of its module. Counted by
scripts/house_report.py."""

from __future__ import annotations

from pathlib import Path

from tests.house_report_support import house_report

REPO = Path(__file__).resolve().parents[2]



def _unmarked(package: bool) -> list[str]:
    hr = house_report()
    sources = {p: s for p, s in hr.read_sources(REPO).items() if hr.module_name(p).startswith("motivgraph") == package}
    return [f"{p}:{n}" for p, n, marked in hr.local_imports(sources) if not marked]


def test_every_local_import_gives_its_reason() -> None:
    unmarked = _unmarked(package=True)
    assert unmarked == [], f"{len(unmarked)} function-local imports without `# local: <reason>`:\n" + "\n".join(
        unmarked)


def test_every_local_import_in_bench_and_scripts_gives_its_reason() -> None:
    unmarked = _unmarked(package=False)
    assert unmarked == [], f"{len(unmarked)} function-local imports without `# local: <reason>`:\n" + "\n".join(
        unmarked)
