"""The tools as every ideation agent sees them, generated from the one tool table
(`motivgraph.api.contract.tools.all_tools()`): canonical names shown, aliases and common argument
spellings accepted, results rendered by the one renderer (`agents.tools.render`), plus the record
of what a run has seen (node keys and papers) that the grounding check uses.

`execute` never raises: an unknown tool, bad arguments or a failing backend come back as an error
text the model reads and can correct.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from motivgraph.agents.tools.render import DEFAULT_EVIDENCE_CAP, render
from motivgraph.api.contract.models import (
    LiteraturePaper,
    LiteratureSearchRequest,
    LiteratureSearchResult,
    RandomNodesRequest,
)
from motivgraph.api.contract.tools import LITERATURE_SEARCH, RANDOM_NODES, ToolSpec, all_tools, resolve_tool
from motivgraph.errors import MotivGraphError, NodeNotFound, ToolArgumentError

log = logging.getLogger(__name__)

TOOL_ABLATIONS = ("no_graph", "no_lit_details")


@dataclass
class ToolOutcome:
    name: str
    args: dict[str, Any]
    text: str
    ok: bool
    data: Any = None


@dataclass
class SeenRecord:
    """What a run's tools returned: node keys and papers, for the grounding check."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> {type, name}
    papers: list[dict[str, Any]] = field(default_factory=list)  # {title, authors, year, paper_id, doi}

    def add_paper(self, title: str, authors: list[str], year: int | None, paper_id: str | None = None,
                  doi: str | None = None) -> None:
        if any(p["title"] == title and p["year"] == year for p in self.papers):
            return
        self.papers.append({"title": title, "authors": list(authors), "year": year, "paper_id": paper_id,
                            "doi": doi})

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": self.nodes, "papers": self.papers}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> SeenRecord:
        d = d or {}
        return cls(nodes=dict(d.get("nodes", {})), papers=list(d.get("papers", [])))


def _short(text: str, n: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _walk(obj: Any) -> Iterable[Any]:
    """Every pydantic model inside a result, depth first."""
    if isinstance(obj, BaseModel):
        yield obj
        for name in type(obj).model_fields:
            yield from _walk(getattr(obj, name))
    elif isinstance(obj, list | tuple):
        for x in obj:
            yield from _walk(x)


class Toolbox:
    """The tools over a ToolClient (in-process or HTTP), with tool ablations and a seen-record.

    `names` restricts the tools offered (canonical names); `ablations` ⊆ TOOL_ABLATIONS:
    no_graph answers graph tools with whole papers from the local corpus, no_lit_details shows
    literature results as titles only.
    """

    def __init__(
        self,
        client: Any,
        *,
        topic: str,
        ablations: Iterable[str] | None = None,
        seed: int = 13,
        token_cap: int = 1500,
        evidence_cap: int = DEFAULT_EVIDENCE_CAP,
        seen: SeenRecord | None = None,
        names: Iterable[str] | None = None,
    ) -> None:
        self.client = client
        self.topic = topic
        self.ablations = set(ablations or ()) & set(TOOL_ABLATIONS)
        self.seed = seed
        self.token_cap = token_cap
        self.evidence_cap = evidence_cap
        self.seen = seen or SeenRecord()
        self.calls = 0
        self.by_tool: dict[str, int] = {}
        wanted = None if names is None else {n for n in names}
        self._specs = tuple(s for s in all_tools() if wanted is None or s.name in wanted)

    # ------------------------------------------------------------------ model-facing descriptions
    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return self._specs

    def openai_tools(self) -> list[dict[str, Any]]:
        return [s.openai() for s in self._specs]

    def text_tool_list(self) -> str:
        return "\n".join(f"- {s.signature()}: {s.description}" for s in self._specs)

    def _resolve(self, name: str) -> ToolSpec | None:
        spec = resolve_tool(name)
        return spec if spec in self._specs else None

    # ------------------------------------------------------------------ execution
    def _normalise(self, spec: ToolSpec, args: dict[str, Any], positional: list[Any]) -> dict[str, Any] | str:
        """Canonical argument names, positional values placed, the agent's defaults filled (the topic, the
        ToolSpec's agent_defaults); or an error text. `ToolSpec.build_request` does the rest."""
        out: dict[str, Any] = {}
        renames = dict(spec.arg_aliases)
        for k, v in args.items():
            canon = k if k in spec.request.model_fields else renames.get(k, k)
            if canon in out:
                return f"ERROR: argument {canon!r} given twice (as {k!r}); use {spec.signature()}"
            out[canon] = v
        for i, value in enumerate(positional):
            if i >= len(spec.positional):
                return f"ERROR: too many positional arguments; use {spec.signature()}"
            out.setdefault(spec.positional[i], value)
        if spec.topic_field and not out.get(spec.topic_field):
            out[spec.topic_field] = self.topic
        for k, v in spec.agent_defaults:
            out.setdefault(k, v)
        return out

    async def execute(
        self, name: str, args: dict[str, Any] | None = None, positional: list[Any] | None = None
    ) -> ToolOutcome:
        spec = self._resolve(name)
        args = dict(args or {})
        if spec is None:
            known = ", ".join(s.name for s in self._specs)
            return ToolOutcome(name, args, f"ERROR: unknown tool {name!r}. Available tools: {known}.", False)
        norm = self._normalise(spec, args, list(positional or []))
        if isinstance(norm, str):
            return ToolOutcome(spec.name, args, norm, False)
        try:
            req = spec.build_request(norm)
        except ToolArgumentError as e:
            msg = f"ERROR: bad arguments for {spec.name}: {'; '.join(e.problems)}. Use {spec.signature()}."
            return ToolOutcome(spec.name, norm, msg, False)
        self.calls += 1
        self.by_tool[spec.name] = self.by_tool.get(spec.name, 0) + 1
        shown = req.model_dump(exclude_defaults=True)
        try:
            text, data = await self._run(spec, req)
        except (ToolArgumentError, ValidationError) as e:
            return ToolOutcome(spec.name, shown, f"ERROR: {spec.name} rejected the arguments: {e}", False)
        except NodeNotFound as e:
            names = [u.query if hasattr(u, "query") else str(u.get("query"))
                     for u in getattr(e, "unresolved", None) or []] or [e.ref]
            hint = f" Close nodes: {', '.join(e.suggestions)}." if e.suggestions else ""
            msg = f"No node named {', '.join(repr(n) for n in names)}.{hint} Use exact names from node_search."
            return ToolOutcome(spec.name, shown, msg, False)
        except MotivGraphError as e:
            log.info("tool %s failed: %s", spec.name, e)
            return ToolOutcome(spec.name, shown, f"ERROR: {spec.name} failed: {e}", False)
        except Exception as e:  # a tool failure must reach the model as text, not end the run
            log.exception("tool %s crashed", spec.name)
            return ToolOutcome(spec.name, shown, f"ERROR: {spec.name} failed ({type(e).__name__}).", False)
        return ToolOutcome(spec.name, shown, text, True, data)

    def _next_seed(self) -> int:
        # Deterministic per run and call number, so a resumed run draws the same nodes.
        return (self.seed * 1_000_003 + self.calls) % (2**31)

    async def _run(self, spec: ToolSpec, req: BaseModel) -> tuple[str, Any]:
        if "no_graph" in self.ablations and spec.stand_in is not None:
            return await self._no_graph(spec, req)
        if spec.seed_field and getattr(req, spec.seed_field, None) is None:
            req = req.model_copy(update={spec.seed_field: self._next_seed()})
        result = await self.client.call(spec, req)
        self._note(result)
        if isinstance(result, LiteratureSearchResult) and "no_lit_details" in self.ablations:
            # Titles only: nothing to cite by author/year (the seed's ablation).
            titles = [p.title for p in result.papers]
            text = f"{spec.name}({result.query!r}): {len(titles)} papers\n" + "\n".join(f"- {t}" for t in titles)
            return text, {"query": result.query, "papers": [{"title": t} for t in titles]}
        return render(result, self.token_cap, evidence_cap=self.evidence_cap), result.model_dump(mode="json")

    def _note(self, result: BaseModel) -> None:
        for m in _walk(result):
            if isinstance(m, LiteraturePaper):
                if "no_lit_details" not in self.ablations:
                    self.seen.add_paper(m.title, m.authors, m.year, m.paper_id, m.doi)
            elif all(hasattr(m, a) for a in ("key", "type", "name")) and isinstance(m.key, str):
                self.seen.nodes[m.key] = {"type": m.type, "name": m.name}

    # ------------------------------------------------------------------ the no_graph stand-in
    async def _papers_for(self, query: str, k: int, tool: str | None, skip: set[str] | None = None) -> tuple[str, Any]:
        """Whole papers (title + abstract) from the local corpus instead of graph nodes."""
        res = await self.client.call(LITERATURE_SEARCH, LiteratureSearchRequest(query=query, limit=k, source="local"))
        papers = [p for p in res.papers if not skip or p.title not in skip]
        if skip is not None:
            skip.update(p.title for p in papers)
        if not papers:
            return (f"{tool}({query!r}): no documents found." if tool else ""), []
        lines = [f"{tool}({query!r}) — {len(papers)} documents:"] if tool else []
        lines.extend(f"- {p.title} ({p.year or 'n.d.'}): {_short(p.abstract, 900)}" for p in papers)
        return "\n".join(lines), [p.model_dump(mode="json") for p in papers]

    async def _no_graph(self, spec: ToolSpec, req: Any) -> tuple[str, Any]:
        stand_in = spec.stand_in
        assert stand_in is not None
        if stand_in.draw:
            return await self._random_papers(spec, int(getattr(req, stand_in.field)))
        k = stand_in.per_lookup if isinstance(stand_in.per_lookup, int) else int(getattr(req, stand_in.per_lookup))
        k = min(k, stand_in.most) if stand_in.most else k
        value = getattr(req, stand_in.field)
        if isinstance(value, str):
            return await self._papers_for(value, k, spec.name)
        parts: list[str] = []
        datas: list[Any] = []
        for one in value:
            t, d = await self._papers_for(str(one), k, spec.name)
            parts.append(t)
            datas.append(d)
        return "\n\n".join(parts), datas

    async def _random_papers(self, spec: ToolSpec, n: int) -> tuple[str, Any]:
        """The papers behind `n` random triples, not the triples themselves."""
        seed = self._next_seed()
        res = await self.client.call(RANDOM_NODES, RandomNodesRequest(n=n, mode="triples", seed=seed))
        rng = random.Random(seed)
        queries = [f"{t.problem.name} {t.solution.name}" for t in res.triples]
        rng.shuffle(queries)
        texts: list[str] = []
        seen_titles: set[str] = set()
        for q in queries[:n]:
            t, d = await self._papers_for(q, 1, None, skip=seen_titles)
            if d:
                texts.append(t)
        body = "\n".join(texts) or "no papers available"
        return f"{spec.name}: {len(texts)} random papers from the corpus:\n{body}", None
