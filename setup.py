"""Package layout: the layer folders sit at the top of the repo but install under one namespace.

`graph/` installs as `motivgraph.graph`, `api/` as `motivgraph.api`, and so on, so the distribution never
claims a generic top-level name (`agents`, `api`, `graph`) that another package may own. Metadata and
dependencies live in pyproject.toml; only the folder mapping is computed here, so a new sub-package is
picked up without editing a list.
"""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

# the one list of layer folders (pyproject.toml [tool.motivgraph]); the CLI is a folder of its own too
LAYER_FOLDERS = tuple(tomllib.loads((Path(__file__).parent / "pyproject.toml").read_text())["tool"]["motivgraph"][
    "layer-folders"])

package_dir = {"motivgraph": "motivgraph"}
packages = ["motivgraph", *(f"motivgraph.{p}" for p in find_packages("motivgraph"))]
for folder in LAYER_FOLDERS:
    package_dir[f"motivgraph.{folder}"] = folder
    packages += [f"motivgraph.{folder}", *(f"motivgraph.{folder}.{p}" for p in find_packages(folder))]

# Data-only folders (no __init__.py) ship as packages of their own: setuptools warns, file by file, about
# any folder it installs as data of the parent package, which buried setup's output in warnings.
DATA_FOLDERS = {
    "motivgraph.api.static": ["*"],
    "motivgraph.ingest.native": ["*.c"],  # the PDF parser's char loops, compiled on the user's machine
    "motivgraph.graph.neo4j_pom": ["pom.xml"],
}
packages += list(DATA_FOLDERS)

setup(package_dir=package_dir, packages=packages, package_data=DATA_FOLDERS)
