"""Grounding check of an idea: every `kg:<type>:<name>` link must resolve to a node of that
type in the graph that a paper states in words the miner found in it (at least one verified quote),
and every (Surname et al., year) citation must match a paper that a
literature_search returned in this run (or a background paper).

Links are accepted in three spellings: markdown `[text](kg:type:name)` (what our prompt asks for),
HTML `<a href="kg:type:name">` (the seed's), and bare `kg:type:name_without_spaces`.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

from motivgraph.agents.core.idea import CitationRef, Grounding, KgLink, ResolvedPaper
from motivgraph.api.contract.models import NodeRelationRequest, QuoteOut
from motivgraph.api.contract.tools import NODE_RELATION
from motivgraph.choices import NODE_TYPES
from motivgraph.errors import MotivGraphError, NodeNotFound
from motivgraph.graph.identity import node_key, normalize_name

log = logging.getLogger(__name__)

_TYPE_ALIASES = {"problem": "problem", "challenge": "challenge", "solution": "solution", "method": "solution",
                 "task": "problem"}
_MD_LINK = re.compile(r"\]\(\s*<?kg:([A-Za-z]+):((?:[^()\n]|\([^()\n]*\))+?)>?\s*\)")
_HREF_LINK = re.compile(r"""href\s*=\s*["']kg:([A-Za-z]+):([^"'\n]+)["']""")
_BARE_LINK = re.compile(r"""(?<![\w("'/:])kg:([A-Za-z]+):([^\s,;()\[\]"'<>]+)""")
_PAREN = re.compile(r"\(([^()]{3,300}?)\)")
_CITE = re.compile(
    r"^(?:e\.g\.,?\s*|see\s+|cf\.\s*)?(?P<author>[^\W\d_][^,;()]*?)"
    r"(?P<etal>\s+et\s+al\.?|\s+(?:and|&)\s+[^\W\d_][^,;()]*?)?,?\s+(?P<year>(?:19|20)\d{2})[a-z]?$",
    re.UNICODE,
)


@dataclass
class Link:
    type: str
    name: str
    raw: str
    quotes: list[QuoteOut] = field(default_factory=list)

    @property
    def key(self) -> str | None:
        try:
            return node_key(self.type, self.name)
        except ValueError:
            return None


@dataclass
class Citation:
    author: str
    year: int
    raw: str


@dataclass
class GroundingReport:
    links_total: int = 0
    links_resolved: int = 0
    unresolved_links: list[dict[str, Any]] = field(default_factory=list)
    citations_total: int = 0
    citations_resolved: int = 0
    unresolved_citations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        return bool(self.unresolved_links or self.unresolved_citations)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["flagged"] = self.flagged
        return d

    def problems_text(self) -> str:
        lines = []
        for u in self.unresolved_links:
            hint = f" (close nodes: {', '.join(u['suggestions'])})" if u.get("suggestions") else ""
            lines.append(f"- link kg:{u['type']}:{u['name']} — {u['reason']}{hint}")
        for c in self.unresolved_citations:
            lines.append(f"- citation ({c['raw']}) — {c['reason']}")
        return "\n".join(lines)


def extract_links(text: str) -> list[Link]:
    out: list[Link] = []
    seen: set[tuple[str, str]] = set()
    for rx in (_MD_LINK, _HREF_LINK, _BARE_LINK):
        for m in rx.finditer(text or ""):
            t = m.group(1).lower()
            name = m.group(2).strip()
            if rx is _BARE_LINK:
                name = name.rstrip(".").replace("_", " ")
            t = _TYPE_ALIASES.get(t, t)
            ident = (t, name.lower())
            if ident in seen or not name:
                continue
            seen.add(ident)
            out.append(Link(t, name, m.group(0)))
    return out


def extract_citations(text: str) -> list[Citation]:
    out: list[Citation] = []
    seen: set[tuple[str, int]] = set()
    # Links are not citations even when their names hold a year in parentheses.
    cleaned = _HREF_LINK.sub(" ", _MD_LINK.sub("] ", text or ""))
    for m in _PAREN.finditer(cleaned):
        for part in m.group(1).split(";"):
            cm = _CITE.match(part.strip())
            if not cm:
                continue
            author = cm.group("author").strip()
            if len(author.split()) > 4:  # prose in parentheses that happens to end with a year
                continue
            year = int(cm.group("year"))
            ident = (_fold(author), year)
            if ident in seen:
                continue
            seen.add(ident)
            out.append(Citation(author, year, part.strip()))
    return out


def _fold(s: str) -> str:
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s if not unicodedata.combining(c)).casefold().strip()


def _surname(author: str) -> str:
    author = author.strip()
    if "," in author:  # "Vaswani, Ashish"
        return _fold(author.split(",")[0])
    parts = author.split()
    return _fold(parts[-1]) if parts else ""


def find_cited_paper(c: Citation, papers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The retrieved paper a citation names (same year, surname among its first three authors)."""
    cited = _surname(c.author) if " " in c.author.strip() else _fold(c.author)
    for p in papers:
        if p.get("year") != c.year:
            continue
        surnames = [_surname(a) for a in (p.get("authors") or [])[:3]]
        if cited in surnames or (surnames and cited == surnames[0].split("-")[-1]):
            return p
    return None


def match_citation(c: Citation, papers: list[dict[str, Any]]) -> bool:
    return find_cited_paper(c, papers) is not None


# Quotes asked per linked node: the grounding needs one verified quote (the store returns verified ones
# first), the report cites up to this many.
LINK_QUOTES = 3
NO_EVIDENCE = "node has no verified evidence"


async def resolve_links(links: list[Link], client: Any) -> tuple[list[Link], list[dict[str, Any]]]:
    """(resolved, unresolved-with-reason) — resolved against the graph through the ToolClient. A link is
    resolved only when its node exists with that type *and* a paper states it in a quote the miner
    located in the paper's text: a node the extractor may have invented grounds nothing (reason
    NO_EVIDENCE). Resolved links carry the node's quotes (verified first) for the report."""

    resolved: list[Link] = []
    unresolved: list[dict[str, Any]] = []
    pending: list[Link] = []
    for ln in links:
        if ln.type not in NODE_TYPES:
            unresolved.append({"type": ln.type, "name": ln.name, "reason": "unknown node type", "suggestions": []})
        elif ln.key is None:
            unresolved.append({"type": ln.type, "name": ln.name, "reason": "empty name", "suggestions": []})
        else:
            pending.append(ln)
    for i in range(0, len(pending), 20):
        batch = pending[i : i + 20]
        try:
            res = await client.call(NODE_RELATION, NodeRelationRequest(names=[ln.name for ln in batch], max_triples=1,
                                                                       max_neighbours=1, max_quotes=LINK_QUOTES))
        except NodeNotFound as e:
            # No name of the batch exists: the service answers 404 instead of a partial result.
            sugg_all = {_fold(u.query): list(u.suggestions) for u in getattr(e, "unresolved", None) or []}
            unresolved.extend(
                {"type": ln.type, "name": ln.name, "reason": "no such node in the graph",
                 "suggestions": sugg_all.get(_fold(ln.name), e.suggestions if len(batch) == 1 else [])[:5]}
                for ln in batch
            )
            continue
        except MotivGraphError as e:
            log.warning("grounding lookup failed: %s", e)
            unresolved.extend(
                {"type": ln.type, "name": ln.name, "reason": f"lookup failed: {e}", "suggestions": []} for ln in batch
            )
            continue
        found: dict[str, list[Any]] = {}
        for rel in res.nodes:
            found.setdefault(_fold(rel.query), []).append(rel)
        sugg = {_fold(u.query): u.suggestions for u in res.unresolved}
        for ln in batch:
            rels = found.get(_fold(ln.name), [])
            nodes = [r.node for r in rels]
            typed = [r for r in rels if r.node.type == ln.type]
            if typed:
                ln.quotes = [q for r in typed for q in r.evidence][:LINK_QUOTES]
                if any(q.verified for q in ln.quotes):
                    resolved.append(ln)
                else:
                    unresolved.append({"type": ln.type, "name": ln.name, "reason": NO_EVIDENCE,
                                       "suggestions": [],
                                       "quotes": [q.model_dump(mode="json") for q in ln.quotes]})
            elif nodes:
                other = ", ".join(sorted({n.type for n in nodes}))
                unresolved.append({"type": ln.type, "name": ln.name, "suggestions": [n.name for n in nodes],
                                   "reason": f"the node with this name is a {other}, not a {ln.type}"})
            else:
                unresolved.append({"type": ln.type, "name": ln.name, "reason": "no such node in the graph",
                                   "suggestions": sugg.get(_fold(ln.name), [])[:5]})
    return resolved, unresolved


NO_PAPER = "no paper by this author and year was returned by literature_search in this run"


async def check_idea(text: str, client: Any, seen_papers: list[dict[str, Any]]) -> GroundingReport:
    """The counted report (what SoIQ shows its researcher and records per attempt)."""
    links = extract_links(text)
    resolved, unresolved = await resolve_links(links, client)
    cites = extract_citations(text)
    bad_cites = [
        {"raw": c.raw, "author": c.author, "year": c.year, "reason": NO_PAPER}
        for c in cites
        if not match_citation(c, seen_papers)
    ]
    return GroundingReport(
        links_total=len(links),
        links_resolved=len(resolved),
        unresolved_links=unresolved,
        citations_total=len(cites),
        citations_resolved=len(cites) - len(bad_cites),
        unresolved_citations=bad_cites,
    )


async def ground(text: str, client: Any, seen_papers: list[dict[str, Any]]) -> Grounding:
    """The idea record's grounding: every link with its verdict, every citation with the paper it
    resolves to. With no client (no graph), links are listed unresolved with that reason."""
    links = extract_links(text)
    out_links: list[KgLink] = []
    if client is not None:
        resolved, unresolved = await resolve_links(links, client)
        out_links += [KgLink(type=ln.type, name=ln.name, key=ln.key, resolved=True, quotes=ln.quotes)
                      for ln in resolved]
        out_links += [KgLink(type=u["type"], name=u["name"], resolved=False, reason=u["reason"],
                             suggestions=list(u.get("suggestions") or []), quotes=list(u.get("quotes") or []))
                      for u in unresolved]
    else:
        out_links = [KgLink(type=ln.type, name=ln.name, key=ln.key, resolved=False, reason="no graph to check against")
                     for ln in links]
    cites: list[CitationRef] = []
    for c in extract_citations(text):
        p = find_cited_paper(c, seen_papers)
        paper = None if p is None else ResolvedPaper(
            title=p.get("title", ""), authors=list(p.get("authors") or []), year=p.get("year"),
            paper_id=p.get("paper_id"), doi=p.get("doi"))
        cites.append(CitationRef(raw=c.raw, author=c.author, year=c.year, paper=paper,
                                 reason=None if paper else NO_PAPER))
    return Grounding(checked=True, links=out_links, citations=cites)


__all__ = ["NO_EVIDENCE", "GroundingReport", "check_idea", "extract_citations", "extract_links", "ground",
           "normalize_name"]
