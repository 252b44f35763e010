"""`motivgraph mcp`: the researcher tools as an MCP server over stdio (Claude Desktop, Cursor, LangGraph)."""

from __future__ import annotations

import typer

from motivgraph.terminal import cli_errors, load_settings


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)


@cli_errors
def mcp() -> None:
    """Serve the researcher tools, node and paper resources over MCP on stdin/stdout.

    Configure an MCP client with the command `motivgraph mcp` (and MOTIVGRAPH_* variables in its env).
    Over HTTP the same server is at /mcp on `motivgraph serve`."""
    import anyio  # local: light CLI path

    from motivgraph.api.mcp import run_stdio  # local: light CLI path
    from motivgraph.api.services import ToolService  # local: light CLI path

    service = ToolService(load_settings())
    try:
        anyio.run(run_stdio, service)
    finally:
        service.close()
