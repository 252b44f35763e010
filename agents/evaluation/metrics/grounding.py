"""Grounding fidelity: the shares of an idea's `kg:` links that resolve to graph nodes and of its citations that
match a retrieved paper, from the check each method ran when it wrote the idea (agents/core/grounding.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Fidelity:
    links: int
    links_resolved: int
    citations: int
    citations_matched: int

    @property
    def link_share(self) -> float:
        return self.links_resolved / self.links if self.links else math.nan

    @property
    def citation_share(self) -> float:
        return self.citations_matched / self.citations if self.citations else math.nan

    def as_dict(self) -> dict[str, float | int]:
        return {"links": self.links, "links_resolved": self.links_resolved, "link_share": self.link_share,
                "citations": self.citations, "citations_matched": self.citations_matched,
                "citation_share": self.citation_share}
