"""Package layout: the layer folders sit at the top of the repo but install under one namespace.

`graph/` installs as `motivgraph.graph`, `api/` as `motivgraph.api`, and so on, so the distribution never
claims a generic top-level name (`agents`, `api`, `graph`) that another package may own. Metadata and
dependencies live in pyproject.toml; only the folder mapping is computed here, so a new sub-package is
picked up without editing a list.
"""

from setuptools import find_packages, setup

LAYER_FOLDERS = ("graph", "ingest", "miner", "api", "agents")

package_dir = {"motivgraph": "motivgraph"}
packages = ["motivgraph", *(f"motivgraph.{p}" for p in find_packages("motivgraph"))]
for folder in LAYER_FOLDERS:
    package_dir[f"motivgraph.{folder}"] = folder
    packages += [f"motivgraph.{folder}", *(f"motivgraph.{folder}.{p}" for p in find_packages(folder))]

setup(
    package_dir=package_dir,
    packages=packages,
    # the C source of the PDF parser's char loops is compiled on the user's machine (ingest/pdf_native.py)
    package_data={"motivgraph.api": ["static/*"], "motivgraph.ingest": ["native/*.c"],
                  "motivgraph.graph": ["neo4j_pom/pom.xml"]},
)
