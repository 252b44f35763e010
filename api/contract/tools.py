"""The researcher tools as the model sees them: name, documentation, argument schema, result type,
and the service function that answers them.

One table drives everything — the "tools" parts of the one extension mechanism (`motivgraph/plugins.py`):
the HTTP routes (`POST /tools/<name>`), `GET /tools` (OpenAI function-calling JSON), the MCP tools, the
LangChain wrappers, both ToolClients (`client.call(spec, args)`) and every agent's model-facing Toolbox.
Adding a tool = a request and a result model (contract/models.py), a service function
`fn(ctx, request) -> result` (api/services/), a `ToolSpec` row here and its line in `plugins.BUILTIN`; a
package of its own declares the row as an entry point of `motivgraph.tools` instead.

Readers go through `all_tools()` / `resolve_tool()` at call time (never a copy taken at import), so
the table is the one place a tool exists.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from motivgraph import plugins
from motivgraph.api.contract.envelope import validation_problems
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
from motivgraph.errors import ToolArgumentError


@dataclass(frozen=True)
class CorpusStandIn:
    """How the agents' `no_graph` ablation answers a graph tool with whole papers from the local corpus.

    `field` is the request field holding what to look up (a string, or a list of strings looked up one by
    one); `per_lookup` is the papers per lookup, a number or the name of the request field that gives it,
    at most `most`. With `draw`, `field` is a count instead: the papers behind that many random triples."""

    field: str
    per_lookup: int | str = 3
    most: int | None = None
    draw: bool = False


Q = TypeVar("Q", bound=BaseModel)  # a tool's request model
R = TypeVar("R", bound=BaseModel)  # a tool's result model


@dataclass(frozen=True)
class ToolSpec(Generic[Q, R]):
    """One tool. `name` is the one canonical name shown to models and used as the HTTP route;
    `service` is `"module:function"` of what answers it, `function(ctx: ToolContext, request) -> result`,
    plain (run in a worker thread: store and index calls block) or async (a path, not the function, so
    a client importing the contract loads no service code). `aliases` are other names a model may write
    for it (accepted, never shown); `arg_aliases` maps argument spellings models commonly use onto the
    request's fields; `positional` names the fields a text-protocol call may give without a keyword, in
    order; `one_or_many` names list fields a caller may give as one value (clients wrap it; the wire
    still wants a list). `responses`: HTTP answers beside 422/503 worth documenting; `idempotent` /
    `open_world`: the MCP hints (same arguments, same answer / reaches outside the graph).

    What an agent's toolbox does with the tool (agents/core/toolbox.py) is said here too, never by name:
    `agent_defaults` are arguments an agent gets unless it gives them (smaller than the API's defaults, to
    save context); `topic_field` is filled with the run's topic when left out; `seed_field` is filled with a
    seed from the run's seed and call number, so a resumed run draws the same; `stand_in` is how the
    `no_graph` ablation answers the tool from the local corpus (None: the tool does not read the graph)."""

    name: str
    description: str
    request: type[Q]
    result: type[R]
    service: str
    aliases: tuple[str, ...] = ()
    arg_aliases: tuple[tuple[str, str], ...] = ()
    positional: tuple[str, ...] = ()
    one_or_many: tuple[str, ...] = ()
    responses: tuple[tuple[int, str], ...] = ()
    idempotent: bool = True
    open_world: bool = False
    agent_defaults: tuple[tuple[str, Any], ...] = ()
    topic_field: str | None = None
    seed_field: str | None = None
    stand_in: CorpusStandIn | None = None

    def service_function(self) -> Callable[..., Any]:
        fn: Callable[..., Any] = plugins.resolve(self.service)
        return fn

    def build_request(self, args: Q | Mapping[str, Any] | None = None, kwargs: Mapping[str, Any] | None = None) -> Q:
        """The request from a request object, a dict of arguments (as a model wrote them) or keywords;
        ToolArgumentError names every problem."""
        if isinstance(args, self.request):
            if kwargs:
                raise TypeError("pass either a request object or keyword arguments, not both")
            return args
        if args is not None and not isinstance(args, Mapping):
            raise ToolArgumentError(self.name, ["arguments must be an object of named parameters"])
        data = {**(args or {}), **(kwargs or {})}
        for f in self.one_or_many:
            if isinstance(data.get(f), str):
                data[f] = [data[f]]
        try:
            return self.request.model_validate(data)
        except ValidationError as e:
            raise ToolArgumentError(self.name, validation_problems(e)) from e

    def signature(self) -> str:
        """`name(required, optional=default)` for the text protocol's tool list (the request's fields)."""
        parts = [n if f.is_required() else f"{n}={f.default!r}" for n, f in self.request.model_fields.items()]
        return f"{self.name}({', '.join(parts)})"

    def parameters(self) -> dict[str, Any]:
        return inline_schema(self.request.model_json_schema())

    def openai(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters()}}


NODE_SEARCH: ToolSpec[NodeSearchRequest, NodeSearchResult] = ToolSpec(
    "node_search",
    "Search the motivation knowledge graph by meaning. Give a short phrase about what interests you "
    "(e.g. 'LLM compression'); get back the closest problem, challenge and solution nodes with their "
    "type, key, similarity score and a one-line description. Use it first to find the names of nodes "
    "worth exploring; filter with `types` to get only problems, challenges or solutions.",
    NodeSearchRequest,
    NodeSearchResult,
    "motivgraph.api.services.node_search:node_search",
    aliases=("search_nodes", "graph_search"),
    arg_aliases=(("search_query", "query"), ("q", "query"), ("text", "query"), ("top_k", "k"), ("limit", "k"),
                 ("n", "k"), ("number", "k")),
    positional=("query", "k"),
    stand_in=CorpusStandIn("query", per_lookup="k", most=10),
)

NODE_RELATION: ToolSpec[NodeRelationRequest, NodeRelationResult] = ToolSpec(
    "node_relation",
    "Look up nodes by name or key (1 to 20 at once; case and known alternative spellings do not matter). "
    "For each node: its full description, parent and child nodes, the problems, challenges and solutions "
    "it is connected to, the problem → challenge → solution triples that pass through it, and the papers "
    "that state them. Follow interesting neighbours with further calls. Unknown names come back with "
    "'did you mean' suggestions.",
    NodeRelationRequest,
    NodeRelationResult,
    "motivgraph.api.services.node_relation:node_relation",
    aliases=("node_relations", "get_node", "relation"),
    arg_aliases=(("entity_name_list", "names"), ("entity_names", "names"), ("nodes", "names"), ("name", "names"),
                 ("node", "names"), ("keys", "names")),
    positional=("names",),
    one_or_many=("names",),
    responses=((404, "No name resolved; suggestions given."),),
    agent_defaults=(("max_triples", 8), ("max_neighbours", 10)),
    stand_in=CorpusStandIn("names", per_lookup=3),
)

RANDOM_NODES: ToolSpec[RandomNodesRequest, RandomNodesResult] = ToolSpec(
    "random_nodes",
    "Draw random nodes (mode='nodes') or whole problem → challenge → solution triples (mode='triples') "
    "from the graph as raw material for new ideas: try to carry each one over to your topic — a challenge "
    "that may also exist there, a solution that may also work there. Pass `far_from` (your topic) to draw "
    "only material unrelated to it, and `seed` to repeat a draw.",
    RandomNodesRequest,
    RandomNodesResult,
    "motivgraph.api.services.random_nodes:random_nodes",
    aliases=("get_random_nodes", "get_random_node", "random_node"),
    arg_aliases=(("number", "n"), ("k", "n"), ("count", "n")),
    positional=("n",),
    idempotent=False,  # a draw without a seed differs each time
    seed_field="seed",
    stand_in=CorpusStandIn("n", draw=True),
)

LITERATURE_SEARCH: ToolSpec[LiteratureSearchRequest, LiteratureSearchResult] = ToolSpec(
    "literature_search",
    "Search the scientific literature (Semantic Scholar, OpenAlex and arXiv as configured, in that order by "
    "default, or the local paper corpus when none of them answers) with an English query. Returns titles, "
    "abstracts, authors, year, venue and identifiers of the most relevant papers, each naming its source, "
    "and which source answered. Use it to check whether an idea already exists and to find papers to cite; "
    "rephrase the query if nothing comes back.",
    LiteratureSearchRequest,
    LiteratureSearchResult,
    "motivgraph.api.services.literature:literature_search",
    aliases=("semantic_search", "paper_search", "search_papers"),
    arg_aliases=(("search_query", "query"), ("q", "query"), ("text", "query"), ("k", "limit"), ("n", "limit"),
                 ("number", "limit"), ("top_k", "limit")),
    positional=("query", "limit"),
    open_world=True,
    # SoIQ's tool (motivgraph-soiq.txt, B.6 usage): "The API will return the titles and abstracts of the top 20
    # papers related to that query."
    agent_defaults=(("limit", 20),),
)

TRANSFER_CANDIDATES: ToolSpec[TransferRequest, TransferResult] = ToolSpec(
    "transfer_candidates",
    "Find analogical transfers for a topic, mined from the graph: a challenge close to the topic, a "
    "similar challenge met under a different problem elsewhere, and the solution used there that has not "
    "yet been linked to the first challenge — with the similarity scores behind each suggestion.",
    TransferRequest,
    TransferResult,
    "motivgraph.api.services.transfer:transfer_candidates",
    aliases=("transfers", "get_transfers"),
    arg_aliases=(("query", "topic"), ("challenge", "topic")),
    positional=("topic", "k"),
    topic_field="topic",
    stand_in=CorpusStandIn("topic", per_lookup="k"),
)

def all_tools() -> tuple[ToolSpec[Any, Any], ...]:
    """Every tool: the "tools" parts of motivgraph/plugins.py (the built-in rows above, then installed
    packages' and registered ones), read at call time so the table is the one place a tool exists."""
    return tuple(plugins.load_all("tools").values())


def tool_names() -> list[str]:
    return [t.name for t in all_tools()]


def get_tool(name: str) -> ToolSpec[Any, Any] | None:
    """The tool with the canonical `name`, or None."""
    return next((t for t in all_tools() if t.name == name), None)


def resolve_tool(name: str) -> ToolSpec[Any, Any] | None:
    """The tool a model meant by `name` (canonical or alias, any case), or None."""
    want = (name or "").strip().lower()
    return get_tool(want) or next((t for t in all_tools() if want in t.aliases), None)


def openai_tools() -> list[dict[str, Any]]:
    return [t.openai() for t in all_tools()]


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
