"""Errors of the tool contract that both the server and every client raise the same way."""

from __future__ import annotations

from pydantic import ValidationError

from motivgraph.errors import MotivGraphError


class ToolArgumentError(MotivGraphError, ValueError):
    """Tool arguments that break a limit or have the wrong type; the message names each problem."""

    def __init__(self, tool: str, problems: list[str]) -> None:
        self.tool = tool
        self.problems = problems
        super().__init__(f"Invalid arguments for {tool}: " + "; ".join(problems))


def validation_problems(e: ValidationError) -> list[str]:
    out = []
    for err in e.errors(include_url=False):
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "arguments"
        out.append(f"{loc}: {err.get('msg', 'invalid')}")
    return out
