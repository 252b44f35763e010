"""Grounding fidelity: do an idea's `kg:` links name real graph nodes, and do its citations match papers
the method could retrieve (the topic's background)?"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# kg:<type>:<name> up to a quote, '<', ')' or a closing bracket (how ideas embed them in text or href).
KG_LINK_RE = re.compile(r"kg:([a-z_]+):([^\"'<>\]\)\n]+)", re.I)


def norm(s: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", s.lower())).strip()


def kg_links(text: str) -> list[tuple[str, str]]:
    """(type, name) of every kg: link in text, names stripped."""
    return [(t.lower(), n.strip()) for t, n in KG_LINK_RE.findall(text or "")]


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


def citation_matches(citation: str, papers: Sequence[tuple[str, str]]) -> bool:
    """A citation matches a paper when it names its id, or its normalised title contains/is contained
    in the citation's normalised text (at least four words, so 'a model' never matches)."""
    c = norm(citation)
    for pid, title in papers:
        if pid and norm(pid) and norm(pid) in c:
            return True
        t = norm(title)
        if len(t.split()) >= 4 and (t in c or (len(c.split()) >= 4 and c in t)):
            return True
    return False


def grounding_fidelity(links: Iterable[tuple[str, str]], known_nodes: set[tuple[str, str]] | set[str],
                       citations: Iterable[str], papers: Sequence[tuple[str, str]]) -> Fidelity:
    """Share of links resolving to known nodes (by (type, normalised name) or by normalised name alone
    when `known_nodes` holds plain names) and of citations matching a retrieved paper."""
    ls = list(links)
    typed = {(x[0].lower(), norm(x[1])) for x in known_nodes if not isinstance(x, str)}
    names = {norm(x) for x in known_nodes if isinstance(x, str)}
    resolved = sum(1 for t, n in ls if (t.lower(), norm(n)) in typed or norm(n) in names)
    cs = [c for c in citations if c and c.strip()]
    matched = sum(1 for c in cs if citation_matches(c, papers))
    return Fidelity(len(ls), resolved, len(cs), matched)


def pooled(fs: Iterable[Fidelity]) -> Fidelity:
    """Per-method fidelity: counts summed over the method's ideas."""
    items = list(fs)
    return Fidelity(sum(f.links for f in items), sum(f.links_resolved for f in items),
                    sum(f.citations for f in items), sum(f.citations_matched for f in items))
