"""Compact text renderings of tool results for an LLM context, within a token cap.

Each renderer emits lines most-important-first (the best hits, the node itself before its
neighbours) and stops adding lines when the next one would pass the cap, ending with a note of
what was left out — so a model always sees a whole, honest, bounded answer. Token counts use
`motivgraph.llm.tokens.count_tokens` (offline). The default cap is `settings.api.render_token_cap`.

A node's evidence (the quotes of the papers that state it) follows the node line, within its own budget
per node (`settings.api.evidence_token_budget`), so an agent sees what the paper says before it builds
on a node, and quotes never crowd out the neighbours and triples.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from motivgraph.api.contract.models import (
    LiteratureSearchResult,
    NodeBrief,
    NodeRelationResult,
    NodeSearchResult,
    QuoteOut,
    RandomNodesResult,
    TransferResult,
    TripleOut,
)
from motivgraph.llm.tokens import count_tokens

DEFAULT_CAP = 1500
DEFAULT_EVIDENCE_CAP = 300


def _count(text: str) -> int:
    return count_tokens(text)


def _short(text: str, n: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _fit(lines: Iterable[str], cap: int, what: str = "lines") -> str:
    out: list[str] = []
    used = 0
    items = list(lines)
    for i, line in enumerate(items):
        cost = _count(line) + 1
        if used + cost > cap and out:
            out.append(f"… ({len(items) - i} more {what} cut to fit {cap} tokens)")
            break
        out.append(line)
        used += cost
    return "\n".join(out)


def _node(n: NodeBrief) -> str:
    return f"[{n.type}{'' if not n.level else f', parent L{n.level}'}] {n.name}"


def _triple(t: TripleOut) -> str:
    return f"{t.problem.name} → {t.challenge.name} → {t.solution.name}"


def render_node_search(r: NodeSearchResult, cap: int = DEFAULT_CAP) -> str:
    if not r.hits:
        return f"node_search({r.query!r}): no nodes found; try other words."
    head = f"node_search({r.query!r}): {len(r.hits)} nodes, most similar first"
    if r.index_stale:
        head += " (index is stale: recent nodes may be missing)"
    return _fit([head, *(f"- {_node(h)} ({h.score:.2f}): {_short(h.description, 160)}" for h in r.hits)],
                cap, "nodes")


def _quote(q: QuoteOut) -> str:
    where = ", ".join(x for x in (f"p. {q.page}" if q.page else "", q.section or "") if x)
    src = f"{q.title or q.paper_id}{f' ({q.year})' if q.year else ''}{f', {where}' if where else ''}"
    mark = "" if q.verified else " [unverified]"
    return f"  quote: “{q.text}” — {src}{mark}"


def evidence_lines(quotes: list[QuoteOut], budget: int) -> list[str]:
    """Quote lines (verified first, as the tools order them) while they fit `budget` tokens; a note of how
    many were left out. A node with no verified quote says so: an agent should not treat it as stated."""
    if budget <= 0:
        return []
    out: list[str] = []
    used = 0
    shown = 0
    for q in quotes:
        line = _quote(q)
        cost = _count(line) + 1
        if used + cost > budget:
            if not out:  # one quote is always worth seeing: the first, cut to about the budget
                out.append(_short(line, max(60, budget * 3)))
                shown = 1
            break
        out.append(line)
        used += cost
        shown += 1
    if shown < len(quotes):
        out.append(f"  … ({len(quotes) - shown} more quotes cut to fit {budget} tokens)")
    if quotes and not any(q.verified for q in quotes):
        out.append("  (no quote of this node was located in its paper: treat it as unverified)")
    elif not quotes:
        out.append("  (no quoted evidence stored for this node)")
    return out


def render_node_relation(r: NodeRelationResult, cap: int = DEFAULT_CAP,
                         evidence_cap: int = DEFAULT_EVIDENCE_CAP) -> str:
    lines: list[str] = []
    for rel in r.nodes:
        lines.append(f"{_node(rel.node)}: {_short(rel.node.description, 400)}")
        lines.extend(evidence_lines(rel.evidence, evidence_cap))
        if rel.aliases:
            lines.append("  also called: " + "; ".join(rel.aliases[:5]))
        for label, items in (("parents", rel.parents), ("children", rel.children), ("problems", rel.problems),
                             ("challenges", rel.challenges), ("solutions", rel.solutions)):
            if items:
                lines.append(f"  {label}: " + "; ".join(i.name for i in items))
        lines.extend(f"  triple: {_triple(t)}" for t in rel.triples)
        if rel.papers:
            lines.append("  papers: " + "; ".join(f"{p.title or p.paper_id} ({p.year or 'n.d.'})" for p in rel.papers))
    for u in r.unresolved:
        hint = f" Did you mean: {', '.join(u.suggestions)}?" if u.suggestions else ""
        lines.append(f"No node named {u.query!r}.{hint}")
    return _fit(lines, cap)


def render_random_nodes(r: RandomNodesResult, cap: int = DEFAULT_CAP) -> str:
    lines = [f"random {r.mode} (seed {r.seed}):"]
    for n in r.nodes:
        sim = f" (similarity to topic {n.similarity:.2f})" if n.similarity is not None else ""
        lines.append(f"- {_node(n)}{sim}: {_short(n.description, 160)}")
    lines.extend(f"- {_triple(t)}" for t in r.triples)
    if r.note:
        lines.append(f"({r.note})")
    return _fit(lines, cap, "items")


def render_literature(r: LiteratureSearchResult, cap: int = DEFAULT_CAP) -> str:
    if not r.papers:
        why = f" ({r.fallback_reason})" if r.fallback_reason else ""
        return f"literature_search({r.query!r}): no papers found{why}; rephrase the query."
    src = {"semantic_scholar": "Semantic Scholar", "openalex": "OpenAlex", "arxiv": "arXiv",
           "local": "the local corpus"}.get(r.source, r.source)
    lines = [f"literature_search({r.query!r}): {len(r.papers)} papers from {src}"]
    for p in r.papers:
        who = (p.authors[0] + (" et al." if len(p.authors) > 1 else "")) if p.authors else "unknown authors"
        lines.append(f"- {p.title} — {who}, {p.year or 'n.d.'}{f', {p.venue}' if p.venue else ''}. "
                     f"{_short(p.abstract, 350)}")
    return _fit(lines, cap, "papers")


def render_transfers(r: TransferResult, cap: int = DEFAULT_CAP) -> str:
    if not r.candidates:
        return f"transfer_candidates({r.topic!r}): none found."
    lines = [f"transfer_candidates({r.topic!r}): {len(r.candidates)} analogies, best first"]
    for c in r.candidates:
        src = ", ".join(p.name for p in c.source_problems) or "another problem"
        lines.append(f"- your challenge {c.target_challenge.name!r} (topic sim {c.topic_similarity:.2f}) resembles "
                     f"{c.source_challenge.name!r} in {src} (sim {c.challenge_similarity:.2f}), solved there by "
                     f"{c.solution.name!r}")
    return _fit(lines, cap, "candidates")


_RENDERERS: dict[type[BaseModel], Callable[[Any, int], str]] = {
    NodeSearchResult: render_node_search,
    NodeRelationResult: render_node_relation,
    RandomNodesResult: render_random_nodes,
    LiteratureSearchResult: render_literature,
    TransferResult: render_transfers,
}


def render_generic(r: BaseModel, cap: int = DEFAULT_CAP) -> str:
    """A result type without its own renderer (a newly added tool): its fields as compact JSON lines,
    so adding a tool needs no renderer until a better one is worth writing."""

    lines = [f"{type(r).__name__}:"]
    for name, value in r.model_dump(mode="json", exclude_none=True).items():
        items = value if isinstance(value, list) else [value]
        lines += [f"- {name}: {json.dumps(v, ensure_ascii=False)[:400]}" for v in items]
    return _fit(lines, cap)


def render(result: BaseModel, cap: int = DEFAULT_CAP, *, evidence_cap: int = DEFAULT_EVIDENCE_CAP) -> str:
    """Text for any tool result, at most about `cap` tokens; quotes of each node within `evidence_cap`."""
    if isinstance(result, NodeRelationResult):
        return render_node_relation(result, cap, evidence_cap)
    fn = _RENDERERS.get(type(result), render_generic)
    return fn(result, cap)
