"""Derived artefacts of an ingest — the node index and the paper index — checked and repaired at the
end of every ingest run, including a run that had nothing left to process: a run killed after its
last document but before an index was written is completed by simply running it again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from motivgraph.errors import BackendUnavailable, MotivGraphError

if TYPE_CHECKING:
    from motivgraph.graph.runtime import Runtime

log = logging.getLogger(__name__)


@dataclass
class DerivedReport:
    done: list[str] = field(default_factory=list)  # what was repaired or brought up to date
    problems: list[str] = field(default_factory=list)  # what could not be (the graph itself is complete)


def repair_derived(rt: Runtime) -> DerivedReport:
    """Bring the node index and the paper index up to the graph. Never raises for an index problem:
    the graph is complete, only a derived artefact lags, and the report says how to fix it. An
    unreachable store is raised (BackendUnavailable): the caller reconnects and runs this again."""
    rep = DerivedReport()
    try:
        st = rt.node_index.status()
        has_nodes = sum(v for k, v in rt.store.stats().nodes.items() if k != "Paper") > 0
        if st.state in ("stale", "corrupt") or (st.state == "missing" and has_nodes):
            rt.node_index.rebuild()
            rep.done.append(f"node index rebuilt (was {st.state})")
    except BackendUnavailable:
        raise
    except MotivGraphError as e:
        rep.problems.append(f"node index not repaired ({e}); run `motivgraph reindex`")
    try:
        added = rt.paper_index.catch_up()
        if added:
            rep.done.append(f"paper index: {added} papers embedded")
    except BackendUnavailable:
        raise
    except MotivGraphError as e:
        rep.problems.append(f"paper index not updated ({e}); run `motivgraph reindex`")
    return rep
