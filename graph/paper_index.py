"""FAISS index over the ingested papers (title + abstract), for the offline literature search.

Same on-disk generations, locking and staleness rules as `graph.vector_index.NodeIndex`, under
`<data_dir>/index/papers/`. A paper's text rarely changes after ingest, so the graph version this
index records is simply the number of Paper nodes; `add()` advances it by the papers it really
adds, so the index is "ok" exactly when it covers as many papers as the graph holds.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import BaseModel

from motivgraph.graph.grouped_index import GroupedIndex
from motivgraph.graph.models import PaperRecord

log = logging.getLogger(__name__)

GROUP = "paper"


class PaperHit(BaseModel):
    paper_id: str
    title: str
    year: int | None = None
    score: float


def paper_text(title: str, abstract: str) -> str:
    title, abstract = " ".join(title.split()), " ".join(abstract.split())
    if title and abstract:
        return f"{title}. {abstract}"
    return title or abstract


class PaperIndex(GroupedIndex):
    """Title + abstract of every Paper node (a paper with neither is indexed by its id)."""

    GROUPS = (GROUP,)
    SUBDIR = "papers"
    WHAT = "paper index"

    def graph_version(self) -> int:
        return int(self.store.stats().nodes.get("Paper", 0))

    def _group_totals(self) -> dict[str, int]:
        return {GROUP: self.graph_version()}

    def _iter_items(self, group: str) -> Iterator[tuple[str, str, int, str]]:
        for p in self.store.iter_papers():
            yield p.paper_id, p.title, int(p.year or 0), paper_text(p.title, p.abstract) or p.paper_id

    def add(self, papers: Sequence[PaperRecord]) -> int:
        """Embed and add (or replace, by paper_id) papers; returns how many were embedded."""
        items = []
        seen: set[str] = set()
        for p in papers:
            if p.paper_id not in seen:
                seen.add(p.paper_id)
                text = paper_text(p.title, p.abstract) or p.paper_id
                items.append((GROUP, p.paper_id, p.title, int(p.year or 0), text))

        def new_version(stamp: dict[str, Any]) -> int:
            # called under the writer lock with the latest generation loaded, before the add
            grp = self._groups.get(GROUP)
            fresh = sum(1 for it in items if grp is None or it[1] not in grp.pos)
            return int(stamp.get("graph_version") or 0) + fresh

        return self._add_items(items, new_version)

    def remove(self, paper_ids: Sequence[str]) -> int:
        """Delete papers (removed from the graph) from the index; the recorded paper count falls by
        the papers really removed, so an index that covered every paper still does."""
        wanted = list(dict.fromkeys(paper_ids))

        def new_version(stamp: dict[str, Any]) -> int:
            grp = self._groups.get(GROUP)
            gone = sum(1 for p in wanted if grp is not None and p in grp.pos)
            return max(0, int(stamp.get("graph_version") or 0) - gone)

        return self._remove_items(wanted, new_version)

    def catch_up(self) -> int:
        """Bring the index up to the graph after an ingest: build it when missing or unreadable,
        else embed only the papers it lacks. Returns how many papers were embedded."""
        st = self.status()
        if st.state in ("missing", "corrupt"):
            return int(sum(self.rebuild().counts.values()))
        if st.state == "ok":
            return 0
        grp = self._groups.get(GROUP)
        have = set(grp.pos) if grp is not None else set()
        return self.add([p for p in self.store.iter_papers() if p.paper_id not in have])

    def search(self, text: str, k: int = 10, min_score: float | None = None, *, check: bool = True) -> list[PaperHit]:
        """Top-k papers by cosine similarity of `text` to their title + abstract."""
        q = self.embedder.embed([text])
        live, results = self._query(q, k, [GROUP], min_score, check)
        grp = live[GROUP] if live else None
        return [
            PaperHit(paper_id=grp.ids[r], title=grp.labels[r], year=grp.levels[r] or None, score=s)
            for s, _, r in results[0]
        ] if grp is not None else []
