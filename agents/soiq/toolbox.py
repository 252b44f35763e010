"""The researcher's tools as the SoIQ agents see them: lenient argument parsing, execution through
one ToolClient, compact text results, ablations, and the record of what the session has seen
(node keys and papers, used later by the grounding check).

`execute` never raises: an unknown tool, bad arguments or a failing backend come back as an error
text the model reads and can correct.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from motivgraph.errors import MotivGraphError, NodeNotFound

log = logging.getLogger(__name__)

ABLATIONS = ("no_mentor", "no_graph", "no_lit_details")


def parse_ablations(value: str | list[str] | None) -> set[str]:
    """'no_mentor,no_graph' -> {'no_mentor', 'no_graph'}; ValueError naming the valid switches."""
    if not value:
        return set()
    items = value.split(",") if isinstance(value, str) else list(value)
    out = {i.strip().lower().replace("-", "_") for i in items if i and i.strip()}
    bad = sorted(out - set(ABLATIONS))
    if bad:
        raise ValueError(f"unknown ablation {', '.join(bad)}; valid: {', '.join(ABLATIONS)}")
    return out


# ----------------------------------------------------------------------------- argument models
# What a model may write: the canonical names plus the spellings the seed's prompts and common
# models use (search_query, entity_name_list, number, ...).


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class NodeSearchArgs(_Args):
    query: str = Field(
        min_length=1, max_length=500, validation_alias=AliasChoices("query", "search_query", "q", "text"),
        description="What to look for in the graph, in words.",
    )
    k: int = Field(10, ge=1, le=30, validation_alias=AliasChoices("k", "top_k", "limit", "n", "number"),
                   description="How many nodes to return (1..30).")


class NodeRelationArgs(_Args):
    names: list[str] = Field(
        min_length=1, max_length=10,
        validation_alias=AliasChoices("names", "entity_name_list", "entity_names", "nodes", "name", "node", "keys"),
        description="Exact node names (or keys) as returned by node_search, 1..10.",
    )

    @field_validator("names", mode="before")
    @classmethod
    def _listify(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v


class RandomNodesArgs(_Args):
    n: int = Field(10, ge=1, le=30, validation_alias=AliasChoices("n", "number", "k", "count"),
                   description="How many random nodes to draw (1..30).")
    mode: str = Field("nodes", pattern="^(nodes|triples)$",
                      description="'nodes' for single nodes, 'triples' for whole problem-challenge-solution paths.")


class LiteratureArgs(_Args):
    query: str = Field(
        min_length=1, max_length=500, validation_alias=AliasChoices("query", "search_query", "q", "text"),
        description="Search query in English.",
    )
    limit: int = Field(8, ge=1, le=20, validation_alias=AliasChoices("limit", "k", "n", "number", "top_k"),
                       description="How many papers (1..20).")


class TransferArgs(_Args):
    topic: str | None = Field(None, max_length=500, validation_alias=AliasChoices("topic", "query", "challenge"),
                              description="Topic or target challenge; defaults to the session topic.")
    k: int = Field(5, ge=1, le=10, description="How many transfer candidates (1..10).")


@dataclass(frozen=True)
class ToolSpec:
    name: str
    args: type[_Args]
    description: str
    aliases: tuple[str, ...] = ()
    positional: tuple[str, ...] = ()

    def openai_schema(self) -> dict[str, Any]:
        schema = self.args.model_json_schema(by_alias=False)
        props = {k: {kk: vv for kk, vv in v.items() if kk != "title"} for k, v in schema.get("properties", {}).items()}
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {"type": "object", "properties": props, "required": schema.get("required", [])},
            },
        }

    def signature(self) -> str:
        fields = self.args.model_fields
        parts = []
        for name, f in fields.items():
            parts.append(name if f.is_required() else f"{name}={f.default!r}")
        return f"{self.name}({', '.join(parts)})"


TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec("node_search", NodeSearchArgs,
             "Search the motivation graph by meaning: returns problem, challenge and solution nodes "
             "(type, exact name, one-line description) close to the query.",
             ("search_nodes", "graph_search"), ("query", "k")),
    ToolSpec("node_relation", NodeRelationArgs,
             "Open nodes by exact name: description, parent/child nodes, connected problems, challenges "
             "and solutions, the problem→challenge→solution triples through them and their source papers.",
             ("node_relations", "get_node", "relation"), ("names",)),
    ToolSpec("get_random_nodes", RandomNodesArgs,
             "Draw random nodes (or whole triples) from anywhere in the graph, as raw material for "
             "transferring ideas from other fields to the topic.",
             ("random_nodes", "get_random_node"), ("n",)),
    ToolSpec("literature_search", LiteratureArgs,
             "Search the literature: papers with title, authors, year and abstract. Cite them as "
             "(Surname et al., year).",
             ("semantic_search", "paper_search", "search_papers"), ("query", "limit")),
    ToolSpec("transfer_candidates", TransferArgs,
             "Analogies mined from the graph: a challenge near the topic, a similar challenge under a "
             "different problem, and that challenge's solution not yet linked to the topic.",
             ("transfers", "get_transfers"), ("topic", "k")),
)
_BY_NAME: dict[str, ToolSpec] = {}
for _s in TOOL_SPECS:
    _BY_NAME[_s.name] = _s
    for _a in _s.aliases:
        _BY_NAME[_a] = _s


def resolve_tool(name: str) -> ToolSpec | None:
    return _BY_NAME.get((name or "").strip().lower())


@dataclass
class ToolOutcome:
    name: str
    args: dict[str, Any]
    text: str
    ok: bool
    data: Any = None


@dataclass
class SeenRecord:
    """What the session's tools returned: used by the grounding check."""

    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> {type, name}
    papers: list[dict[str, Any]] = field(default_factory=list)  # {title, authors, year}

    def add_paper(self, title: str, authors: list[str], year: int | None) -> None:
        if any(p["title"] == title and p["year"] == year for p in self.papers):
            return
        self.papers.append({"title": title, "authors": list(authors), "year": year})

    def to_dict(self) -> dict[str, Any]:
        return {"nodes": self.nodes, "papers": self.papers}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> SeenRecord:
        d = d or {}
        return cls(nodes=dict(d.get("nodes", {})), papers=list(d.get("papers", [])))


def _short(text: str, n: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _authors(authors: list[str]) -> str:
    if not authors:
        return "unknown authors"
    return authors[0] + (" et al." if len(authors) > 1 else "")


class Toolbox:
    """The five researcher tools over a ToolClient, with ablations and a seen-record.

    `client` is an `agents.tools` ToolClient (in-process or HTTP); its methods take the request
    models of `agents.tools.models` and return the matching result models.
    """

    def __init__(
        self,
        client: Any,
        *,
        topic: str,
        ablations: set[str] | None = None,
        seed: int = 13,
        render_chars: int = 6000,
        seen: SeenRecord | None = None,
    ) -> None:
        self.client = client
        self.topic = topic
        self.ablations = set(ablations or ())
        self.seed = seed
        self.render_chars = render_chars
        self.seen = seen or SeenRecord()
        self.calls = 0
        self.by_tool: dict[str, int] = {}
        self._handlers: dict[str, Callable[[Any], Awaitable[tuple[str, Any]]]] = {
            "node_search": self._node_search,
            "node_relation": self._node_relation,
            "get_random_nodes": self._random_nodes,
            "literature_search": self._literature,
            "transfer_candidates": self._transfers,
        }

    # ------------------------------------------------------------------ model-facing descriptions
    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return TOOL_SPECS

    def openai_tools(self) -> list[dict[str, Any]]:
        return [s.openai_schema() for s in TOOL_SPECS]

    def text_tool_list(self) -> str:
        return "\n".join(f"- {s.signature()}: {s.description}" for s in TOOL_SPECS)

    # ------------------------------------------------------------------ execution
    async def execute(
        self, name: str, args: dict[str, Any] | None = None, positional: list[Any] | None = None
    ) -> ToolOutcome:
        spec = resolve_tool(name)
        args = dict(args or {})
        if spec is None:
            known = ", ".join(s.name for s in TOOL_SPECS)
            return ToolOutcome(name, args, f"ERROR: unknown tool {name!r}. Available tools: {known}.", False)
        for i, value in enumerate(positional or []):
            if i >= len(spec.positional):
                msg = f"ERROR: too many positional arguments; use {spec.signature()}"
                return ToolOutcome(spec.name, args, msg, False)
            args.setdefault(spec.positional[i], value)
        try:
            parsed = spec.args.model_validate(args)
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(x) for x in err['loc']) or 'arguments'}: {err['msg']}" for err in e.errors()
            )
            msg = f"ERROR: bad arguments for {spec.name}: {problems}. Use {spec.signature()}."
            return ToolOutcome(spec.name, args, msg, False)
        self.calls += 1
        self.by_tool[spec.name] = self.by_tool.get(spec.name, 0) + 1
        try:
            text, data = await self._handlers[spec.name](parsed)
        except ValidationError as e:
            msg = "; ".join(err["msg"] for err in e.errors())
            msg = f"ERROR: {spec.name} rejected the arguments: {msg}"
            return ToolOutcome(spec.name, parsed.model_dump(), msg, False)
        except NodeNotFound as e:
            names = [u.query for u in getattr(e, "unresolved", None) or []] or [e.ref]
            hint = f" Close nodes: {', '.join(e.suggestions)}." if e.suggestions else ""
            msg = f"No node named {', '.join(repr(n) for n in names)}.{hint} Use exact names from node_search."
            return ToolOutcome(spec.name, parsed.model_dump(), msg, False)
        except MotivGraphError as e:
            log.info("tool %s failed: %s", spec.name, e)
            return ToolOutcome(spec.name, parsed.model_dump(), f"ERROR: {spec.name} failed: {e}", False)
        except Exception as e:  # a tool failure must reach the model as text, not end the session
            log.exception("tool %s crashed", spec.name)
            msg = f"ERROR: {spec.name} failed ({type(e).__name__})."
            return ToolOutcome(spec.name, parsed.model_dump(), msg, False)
        if len(text) > self.render_chars:
            text = text[: self.render_chars] + "\n… [result cut to fit the context]"
        return ToolOutcome(spec.name, parsed.model_dump(), text, True, data)

    def _next_seed(self) -> int:
        # Deterministic per session and call number, so a resumed session draws the same nodes.
        return (self.seed * 1_000_003 + self.calls) % (2**31)

    # ------------------------------------------------------------------ graph tools
    def _note_node(self, n: Any) -> None:
        self.seen.nodes[n.key] = {"type": n.type, "name": n.name}

    async def _node_search(self, a: NodeSearchArgs) -> tuple[str, Any]:
        if "no_graph" in self.ablations:
            return await self._papers_for(a.query, a.k, "node_search")
        from motivgraph.api.contract.models import NodeSearchRequest

        res = await self.client.node_search(NodeSearchRequest(query=a.query, k=a.k))
        if not res.hits:
            return f"node_search({a.query!r}): no nodes found; try other words.", res.model_dump()
        lines = [f"node_search({a.query!r}) — {len(res.hits)} nodes:"]
        for h in res.hits:
            self._note_node(h)
            lines.append(f"- [{h.type}] {h.name} (score {h.score:.2f}): {_short(h.description, 160)}")
        return "\n".join(lines), res.model_dump()

    async def _node_relation(self, a: NodeRelationArgs) -> tuple[str, Any]:
        if "no_graph" in self.ablations:
            texts, datas = [], []
            for name in a.names:
                t, d = await self._papers_for(name, 3, "node_relation")
                texts.append(t)
                datas.append(d)
            return "\n\n".join(texts), datas
        from motivgraph.api.contract.models import NodeRelationRequest

        res = await self.client.node_relation(NodeRelationRequest(names=a.names, max_triples=8, max_neighbours=10))
        out: list[str] = []
        for rel in res.nodes:
            n = rel.node
            self._note_node(n)
            block = [f"[{n.type}] {n.name} (level {n.level}): {_short(n.description, 400)}"]
            for label, items in (
                ("parents", rel.parents), ("children", rel.children), ("problems", rel.problems),
                ("challenges", rel.challenges), ("solutions", rel.solutions),
            ):
                for it in items:
                    self._note_node(it)
                if items:
                    block.append(f"  {label}: " + "; ".join(it.name for it in items))
            for t in rel.triples:
                for it in (t.problem, t.challenge, t.solution):
                    self._note_node(it)
                block.append(f"  triple: {t.problem.name} → {t.challenge.name} → {t.solution.name}")
            if rel.papers:
                block.append("  papers: " + "; ".join(f"{p.title} ({p.year or 'n.d.'})" for p in rel.papers[:5]))
            out.append("\n".join(block))
        for u in res.unresolved:
            hint = f" Did you mean: {', '.join(u.suggestions)}?" if u.suggestions else ""
            out.append(f"No node named {u.query!r}.{hint}")
        return "node_relation:\n" + "\n\n".join(out), res.model_dump()

    async def _random_nodes(self, a: RandomNodesArgs) -> tuple[str, Any]:
        from motivgraph.api.contract.models import RandomNodesRequest

        seed = self._next_seed()
        if "no_graph" in self.ablations:
            # Paper-level stand-in: the papers behind random triples, not the triples themselves.
            res = await self.client.random_nodes(RandomNodesRequest(n=a.n, mode="triples", seed=seed))
            rng = random.Random(seed)
            queries = [f"{t.problem.name} {t.solution.name}" for t in res.triples]
            rng.shuffle(queries)
            texts, seen_titles = [], set()
            for q in queries[: a.n]:
                t, d = await self._papers_for(q, 1, None, skip=seen_titles)
                if d:
                    texts.append(t)
            body = "\n".join(texts) or "no papers available"
            return f"get_random_nodes: {len(texts)} random papers from the corpus:\n{body}", None
        res = await self.client.random_nodes(RandomNodesRequest(n=a.n, mode=a.mode, seed=seed))
        lines = [f"get_random_nodes — {len(res.nodes) + len(res.triples)} random {a.mode}:"]
        for n in res.nodes:
            self._note_node(n)
            lines.append(f"- [{n.type}] {n.name}: {_short(n.description, 160)}")
        for t in res.triples:
            for it in (t.problem, t.challenge, t.solution):
                self._note_node(it)
            lines.append(
                f"- [problem] {t.problem.name} → [challenge] {t.challenge.name} → [solution] {t.solution.name}"
            )
        if res.note:
            lines.append(f"({res.note})")
        return "\n".join(lines), res.model_dump()

    async def _transfers(self, a: TransferArgs) -> tuple[str, Any]:
        topic = a.topic or self.topic
        if "no_graph" in self.ablations:
            return await self._papers_for(topic, a.k, "transfer_candidates")
        from motivgraph.api.contract.models import TransferRequest

        res = await self.client.transfer_candidates(TransferRequest(topic=topic, k=a.k))
        if not res.candidates:
            return f"transfer_candidates({topic!r}): none found.", res.model_dump()
        lines = [f"transfer_candidates({topic!r}):"]
        for c in res.candidates:
            for it in (c.target_challenge, c.source_challenge, c.solution, *c.source_problems, *c.target_problems):
                self._note_node(it)
            src = ", ".join(p.name for p in c.source_problems) or "another problem"
            lines.append(
                f"- target challenge: {c.target_challenge.name} | similar challenge in {src}: "
                f"{c.source_challenge.name} | its solution: {c.solution.name} (score {c.score:.2f})"
            )
        return "\n".join(lines), res.model_dump()

    # ------------------------------------------------------------------ literature
    async def _search_papers(self, query: str, limit: int, source: str = "auto") -> Any:
        from motivgraph.api.contract.models import LiteratureSearchRequest

        return await self.client.literature_search(LiteratureSearchRequest(query=query, limit=limit, source=source))

    async def _literature(self, a: LiteratureArgs) -> tuple[str, Any]:
        res = await self._search_papers(a.query, a.limit)
        if not res.papers:
            return f"literature_search({a.query!r}): no papers found; rephrase the query.", res.model_dump()
        lines = [f"literature_search({a.query!r}) — {len(res.papers)} papers:"]
        for p in res.papers:
            if "no_lit_details" in self.ablations:
                # Titles only: nothing to cite by author/year, as in the seed's ablation.
                lines.append(f"- {p.title}")
                continue
            self.seen.add_paper(p.title, p.authors, p.year)
            lines.append(f"- {p.title} — {_authors(p.authors)}, {p.year or 'n.d.'}. {_short(p.abstract, 350)}")
        data = res.model_dump()
        if "no_lit_details" in self.ablations:
            data = {"query": res.query, "papers": [{"title": p.title} for p in res.papers]}
        return "\n".join(lines), data

    async def _papers_for(self, query: str, k: int, tool: str | None, skip: set[str] | None = None) -> tuple[str, Any]:
        """The no_graph stand-in: whole papers (title + abstract) from the local corpus."""
        res = await self._search_papers(query, k, source="local")
        papers = [p for p in res.papers if not skip or p.title not in skip]
        if skip is not None:
            skip.update(p.title for p in papers)
        if not papers:
            return (f"{tool}({query!r}): no documents found." if tool else ""), []
        lines = [f"{tool}({query!r}) — {len(papers)} documents:"] if tool else []
        for p in papers:
            lines.append(f"- {p.title} ({p.year or 'n.d.'}): {_short(p.abstract, 900)}")
        return "\n".join(lines), [p.model_dump() for p in papers]


def args_json(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False, sort_keys=True)
