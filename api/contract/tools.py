"""The researcher tools as the model sees them: name, documentation, argument schema, result type.

One table drives `GET /tools` (OpenAI function-calling JSON), the LangChain wrappers and the
HTTP routes' summaries, so the description a model reads is the same everywhere.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from motivgraph.api.contract.models import (
    LiteratureSearchRequest,
    LiteratureSearchResult,
    NodeRelationRequest,
    NodeRelationResult,
    NodeSearchRequest,
    NodeSearchResult,
    RandomNodesRequest,
    RandomNodesResult,
    TransferRequest,
    TransferResult,
)


@dataclass(frozen=True)
class ToolSpec:
    """One tool. `name` is the one canonical name shown to models and used as the HTTP route;
    `aliases` are other names a model may write for it (accepted, never shown); `arg_aliases` maps
    argument spellings models commonly use onto the request's fields; `positional` names the fields
    a text-protocol call may give without a keyword, in order."""

    name: str
    description: str
    request: type[BaseModel]
    result: type[BaseModel]
    aliases: tuple[str, ...] = ()
    arg_aliases: tuple[tuple[str, str], ...] = ()
    positional: tuple[str, ...] = ()

    def signature(self) -> str:
        """`name(required, optional=default)` for the text protocol's tool list (the request's fields)."""
        parts = [n if f.is_required() else f"{n}={f.default!r}" for n, f in self.request.model_fields.items()]
        return f"{self.name}({', '.join(parts)})"

    def parameters(self) -> dict[str, Any]:
        return inline_schema(self.request.model_json_schema())

    def openai(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters()}}


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "node_search",
        "Search the motivation knowledge graph by meaning. Give a short phrase about what interests you "
        "(e.g. 'LLM compression'); get back the closest problem, challenge and solution nodes with their "
        "type, key, similarity score and a one-line description. Use it first to find the names of nodes "
        "worth exploring; filter with `types` to get only problems, challenges or solutions.",
        NodeSearchRequest,
        NodeSearchResult,
        aliases=("search_nodes", "graph_search"),
        arg_aliases=(("search_query", "query"), ("q", "query"), ("text", "query"), ("top_k", "k"), ("limit", "k"),
                     ("n", "k"), ("number", "k")),
        positional=("query", "k"),
    ),
    ToolSpec(
        "node_relation",
        "Look up nodes by name or key (1 to 20 at once; case and known alternative spellings do not matter). "
        "For each node: its full description, parent and child nodes, the problems, challenges and solutions "
        "it is connected to, the problem → challenge → solution triples that pass through it, and the papers "
        "that state them. Follow interesting neighbours with further calls. Unknown names come back with "
        "'did you mean' suggestions.",
        NodeRelationRequest,
        NodeRelationResult,
        aliases=("node_relations", "get_node", "relation"),
        arg_aliases=(("entity_name_list", "names"), ("entity_names", "names"), ("nodes", "names"), ("name", "names"),
                     ("node", "names"), ("keys", "names")),
        positional=("names",),
    ),
    ToolSpec(
        "random_nodes",
        "Draw random nodes (mode='nodes') or whole problem → challenge → solution triples (mode='triples') "
        "from the graph as raw material for new ideas: try to carry each one over to your topic — a challenge "
        "that may also exist there, a solution that may also work there. Pass `far_from` (your topic) to draw "
        "only material unrelated to it, and `seed` to repeat a draw.",
        RandomNodesRequest,
        RandomNodesResult,
        aliases=("get_random_nodes", "get_random_node", "random_node"),
        arg_aliases=(("number", "n"), ("k", "n"), ("count", "n")),
        positional=("n",),
    ),
    ToolSpec(
        "literature_search",
        "Search the scientific literature (Semantic Scholar, or the local paper corpus when it is unavailable) "
        "with an English query. Returns titles, abstracts, authors, year, venue and identifiers of the most "
        "relevant papers, and which source answered. Use it to check whether an idea already exists and to "
        "find papers to cite; rephrase the query if nothing comes back.",
        LiteratureSearchRequest,
        LiteratureSearchResult,
        aliases=("semantic_search", "paper_search", "search_papers"),
        arg_aliases=(("search_query", "query"), ("q", "query"), ("text", "query"), ("k", "limit"), ("n", "limit"),
                     ("number", "limit"), ("top_k", "limit")),
        positional=("query", "limit"),
    ),
    ToolSpec(
        "transfer_candidates",
        "Find analogical transfers for a topic, mined from the graph: a challenge close to the topic, a "
        "similar challenge met under a different problem elsewhere, and the solution used there that has not "
        "yet been linked to the first challenge — with the similarity scores behind each suggestion.",
        TransferRequest,
        TransferResult,
        aliases=("transfers", "get_transfers"),
        arg_aliases=(("query", "topic"), ("challenge", "topic")),
        positional=("topic", "k"),
    ),
)

BY_NAME: dict[str, ToolSpec] = {t.name: t for t in TOOLS}
# Canonical names and every alias, lower-case: what a model may write.
BY_ANY_NAME: dict[str, ToolSpec] = {**{a: t for t in TOOLS for a in t.aliases}, **BY_NAME}


def resolve_tool(name: str) -> ToolSpec | None:
    """The tool a model meant by `name` (canonical or alias, any case), or None."""
    return BY_ANY_NAME.get((name or "").strip().lower())


def openai_tools() -> list[dict[str, Any]]:
    return [t.openai() for t in TOOLS]


def inline_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Resolve local $refs and drop titles: function-calling schemas should be self-contained."""
    schema = copy.deepcopy(schema)
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                merged = {**defs[ref.split("/")[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
                return walk(merged)
            return {k: walk(v) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)
