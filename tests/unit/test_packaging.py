"""The distribution installs one namespace: only `motivgraph*` top-level packages, and it works installed.

Builds the real wheel from the repo (setuptools, no build isolation so nothing is fetched), checks its
top-level names, installs it with --no-deps into a scratch target and runs `motivgraph --help` from there
in a process whose working directory is outside the repo (so the checkout's folders cannot stand in).
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAYERS = ("graph", "ingest", "miner", "api", "agents")


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(the wheel, the build's verbose output)."""
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation",
                        "-w", str(out), str(REPO)], check=True, cwd=out, timeout=600, capture_output=True, text=True)
    (whl,) = out.glob("motivgraph-*.whl")
    return whl, r.stdout + r.stderr


@pytest.fixture(scope="module")
def wheel(build: tuple[Path, str]) -> Path:
    return build[0]


def test_build_prints_no_package_discovery_warnings(build: tuple[Path, str]) -> None:
    """setup.py declares every folder it ships (data-only ones too): setuptools' per-folder warnings
    ("… is absent from the `packages` configuration", "importable") used to fill setup's output."""
    noisy = [ln.strip() for ln in build[1].splitlines()
             if "absent from the `packages` configuration" in ln or "check.warn(importable)" in ln]
    assert not noisy, "\n".join(noisy)


def test_wheel_holds_only_the_motivgraph_namespace(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert tops == {"motivgraph"}, f"top-level entries besides motivgraph: {sorted(tops - {'motivgraph'})}"
    for layer in LAYERS:
        assert f"motivgraph/{layer}/__init__.py" in names, f"layer {layer} missing from the wheel"
    assert "motivgraph/api/static/explorer.html" in names, "package data (explorer page) missing"
    assert not any(n.startswith(("tests/", "bench/")) for n in names)


def test_installed_wheel_runs_the_cli(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                    str(wheel)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    code = ("import motivgraph.graph, motivgraph.agents, sys; "
            "assert motivgraph.graph.__file__.startswith(sys.argv[1]), motivgraph.graph.__file__; "
            "sys.argv = ['motivgraph', '--help']; from motivgraph.cli import main; main()")
    r = subprocess.run([sys.executable, "-c", code, str(target)], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Usage" in r.stdout and "ingest" in r.stdout
