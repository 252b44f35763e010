"""The researcher tools as an MCP server (Model Context Protocol), generated from the one tool table.

Every tool of `api.contract.tools.all_tools()` becomes an MCP tool with the same name, description and
JSON schema as `GET /tools`, answered by `ToolService.call` like the HTTP routes. Nodes and
papers are resource templates (`motivgraph://node/{key}`, `motivgraph://paper/{paper_id}`).

Two transports: stdio (`motivgraph mcp`, for Claude Desktop / Cursor) and streamable HTTP at `/mcp`
on `motivgraph serve` (stateless JSON responses, so any worker can answer any request).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route

from motivgraph import __version__
from motivgraph.api.contract.envelope import validation_problems
from motivgraph.api.contract.tools import all_tools, get_tool, inline_schema, resolve_tool, tool_names
from motivgraph.api.services.browse import get_node, get_paper
from motivgraph.api.services.scrub import scrub_paths
from motivgraph.errors import MotivGraphError, NodeNotFound, PaperNotFound, ToolArgumentError

if TYPE_CHECKING:
    from fastapi import FastAPI

    from motivgraph.api.services import ToolService
    from motivgraph.api.services.context import ToolContext

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
NODE_URI = "motivgraph://node/{key}"
PAPER_URI = "motivgraph://paper/{paper_id}"
_NODE_PREFIX = NODE_URI.split("{", 1)[0]
_PAPER_PREFIX = PAPER_URI.split("{", 1)[0]
# JSON-RPC codes: -32602 invalid params (unknown tool, bad resource URI), MCP's -32002 resource not found
INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002

INSTRUCTIONS = (
    "MotivGraph: a problem → challenge → solution knowledge graph mined from research papers. Start with "
    "node_search to find nodes by meaning, follow them with node_relation, draw raw material with random_nodes, "
    "find analogies with transfer_candidates and check novelty with literature_search. Read a node or a paper "
    "directly as a resource: motivgraph://node/<key>, motivgraph://paper/<paper_id>."
)


def tool_definitions() -> list[types.Tool]:
    """One MCP tool per row of the tool table; all are read-only (they never change the graph)."""
    return [
        types.Tool(
            name=spec.name, description=spec.description, input_schema=spec.parameters(),
            output_schema=inline_schema(spec.result.model_json_schema()),
            annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=spec.idempotent,
                                              open_world_hint=spec.open_world),
        )
        for spec in all_tools()
    ]


def _json(model: BaseModel) -> str:
    return json.dumps(model.model_dump(mode="json"), ensure_ascii=False)


def _error_result(message: str) -> types.CallToolResult:
    # A tool error goes back as a result with is_error (not a protocol error), so the model reads it and can retry.
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def _message(e: MotivGraphError) -> str:
    return scrub_paths(str(e))  # NodeNotFound's message already carries its did-you-mean suggestions


async def call_tool(service: ToolService, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    """Validate `arguments` against the tool's request model and run it; the result as text and structured."""
    spec = resolve_tool(name)
    if spec is None:
        raise MCPError(INVALID_PARAMS, f"Unknown tool {name!r}; tools are {', '.join(tool_names())}")
    try:
        request = spec.request.model_validate(arguments or {})
    except ValidationError as e:
        return _error_result(str(ToolArgumentError(spec.name, validation_problems(e))))
    try:
        result = await service.call(spec, request)  # blocking calls run in a worker thread
    except MotivGraphError as e:
        return _error_result(_message(e))
    except Exception:
        log.exception("MCP tool %s failed", spec.name)
        return _error_result(f"{spec.name} failed with an internal error; see the server log")
    return types.CallToolResult(content=[types.TextContent(text=_json(result))],
                                structured_content=result.model_dump(mode="json"))


def resource_templates() -> list[types.ResourceTemplate]:
    return [
        types.ResourceTemplate(
            name="node", uri_template=NODE_URI, mime_type="application/json",
            description="A node ('problem:…', 'challenge:…' or 'solution:…', or its name) with its description, "
                        "parents, children, neighbours, triples, papers and the quotes of the papers that state it.",
        ),
        types.ResourceTemplate(
            name="paper", uri_template=PAPER_URI, mime_type="application/json",
            description="A paper (doi:…, arxiv:…, sha256:…) with title, authors, year and the triples it states.",
        ),
    ]


async def read_resource(service: ToolService, uri: str) -> types.ReadResourceResult:
    fetch: Callable[[ToolContext, str], BaseModel]
    if uri.startswith(_NODE_PREFIX):
        ident, fetch = unquote(uri[len(_NODE_PREFIX):]), get_node
    elif uri.startswith(_PAPER_PREFIX):
        ident, fetch = unquote(uri[len(_PAPER_PREFIX):]), get_paper
    else:
        raise MCPError(INVALID_PARAMS, f"Unknown resource {uri!r}; use {NODE_URI} or {PAPER_URI}")
    if not ident.strip():
        raise MCPError(INVALID_PARAMS, f"Resource {uri!r} names no node or paper")
    try:
        view = await anyio.to_thread.run_sync(fetch, service.ctx, ident)
    except (NodeNotFound, PaperNotFound) as e:
        raise MCPError(RESOURCE_NOT_FOUND, _message(e), {"uri": uri}) from None
    except MotivGraphError as e:
        raise MCPError(INVALID_PARAMS if isinstance(e, ValueError) else -32603, _message(e)) from None
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=_json(view))])


def _input_schema(name: str) -> dict[str, Any] | None:
    spec = get_tool(name)
    return spec.parameters() if spec is not None else None


def build_server(service: ToolService) -> Server[Any]:
    """An MCP server over `service` (the caller owns and closes the service)."""
    tools = tool_definitions()
    templates = resource_templates()

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await call_tool(service, params.name, params.arguments)

    async def on_list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def on_list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])  # the graph is reached through the templates

    async def on_read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return await read_resource(service, str(params.uri))

    return Server(
        "motivgraph", version=__version__, title="MotivGraph", instructions=INSTRUCTIONS,
        get_tool_input_schema=_input_schema,
        on_list_tools=on_list_tools, on_call_tool=on_call_tool, on_list_resources=on_list_resources,
        on_list_resource_templates=on_list_templates, on_read_resource=on_read_resource,
    )


async def run_stdio(service: ToolService) -> None:
    """Serve MCP over this process's stdin/stdout until the client closes them."""

    server = build_server(service)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def mount_mcp(app: FastAPI, service: ToolService | None = None, path: str = MCP_PATH) -> None:
    """Add streamable-HTTP MCP at `path` to `app` (stateless, JSON responses). The app's own middleware
    (trusted hosts, API key, body limit, access log) applies to it like to every other route."""

    server = build_server(service if service is not None else app.state.service)

    def new_manager() -> StreamableHTTPSessionManager:
        # Host checks are the app's TrustedHostMiddleware (MOTIVGRAPH_API_ALLOWED_HOSTS), not a second list here.
        return StreamableHTTPSessionManager(
            server, stateless=True, json_response=True,
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False))

    # A session manager runs once; an app's lifespan may run several times in one process (test clients,
    # fuzzers), so each lifespan gets a fresh manager and the route always speaks to the current one.
    current = {"manager": new_manager()}

    class CurrentManagerApp:  # an ASGI app object (a plain function would be taken for a request handler)
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            if scope["method"] != "POST":
                # Stateless: no session to hold a server-to-client event stream (GET) or to end (DELETE). The SDK
                # would answer a GET with an event stream that never sends anything and never ends; the MCP spec
                # allows a 405 instead, and clients then go on with POST alone.
                raise StarletteHTTPException(405, f"{path} takes MCP JSON-RPC messages by POST only (stateless "
                                                  "server: no event stream to GET, no session to DELETE)",
                                             headers={"Allow": "POST"})
            await StreamableHTTPASGIApp(current["manager"])(scope, receive, send)

    app.router.routes.append(Route(path, endpoint=CurrentManagerApp(), methods=["GET", "POST", "DELETE"]))
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        current["manager"] = new_manager()
        async with current["manager"].run(), inner(a) as state:
            yield state

    app.router.lifespan_context = lifespan
