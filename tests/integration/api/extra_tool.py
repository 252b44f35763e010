"""A tool that is not in the product: a request model, a result model and a service function, exactly what
a new tool brings. test_tool_table_extension.py adds a row for it to the table and nothing else."""

from __future__ import annotations

from pydantic import BaseModel, Field

from motivgraph.api.services.context import ToolContext


class NearestNamesRequest(BaseModel):
    text: str = Field(min_length=1, max_length=200, description="A phrase to match against node names.")
    k: int = Field(3, ge=1, le=5, description="Most names returned (1..5).")


class NearestNamesResult(BaseModel):
    text: str
    names: list[str] = Field(description="Names of the nodes closest in meaning to the text.")


def nearest_names(ctx: ToolContext, req: NearestNamesRequest) -> NearestNamesResult:
    """The real index and embedder behind the service context (no stand-in)."""
    return NearestNamesResult(text=req.text, names=ctx.suggestions(req.text, req.k))
