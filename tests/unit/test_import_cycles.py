"""No import cycle anywhere in the repo's code, inside a layer included (the layer contract in .importlinter
only keeps layers from importing upwards). The graph is the one scripts/house_report.py counts: grimp over the
installed package, the ast reading for bench/ and scripts/; an import under `if TYPE_CHECKING:` is not a cycle."""

from __future__ import annotations

from pathlib import Path

from tests.house_report_support import house_report

REPO = Path(__file__).resolve().parents[2]



def test_no_import_cycles() -> None:
    hr = house_report()
    sources = hr.read_sources(REPO)
    edges = hr.package_edges(REPO)
    assert {m.split(".")[1] for m in edges if m.count(".") >= 1} >= {"graph", "ingest", "miner", "api", "agents", "cli"}
    edges.update(hr.import_edges({p: s for p, s in sources.items() if not hr.module_name(p).startswith("motivgraph")}))
    cycles = hr.strongly_connected(edges)
    assert cycles == [], "import cycles (move the shared piece to where both sides can import it):\n" + "\n".join(
        "  " + ", ".join(cycle) for cycle in cycles)
