"""LangChain tools over a ToolClient: each tool's description is the documentation the model
reads (the tool table, api/contract/tools.py), its argument schema the request model, and its output the compact
rendering (agents.tools.render) within the token cap. Errors come back as text for the model to
act on (an unknown name with suggestions, a broken limit), never as an exception that ends a run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.tools import StructuredTool

from motivgraph.agents.tools.render import DEFAULT_CAP, render
from motivgraph.api.contract.tools import all_tools
from motivgraph.errors import MotivGraphError

if TYPE_CHECKING:
    from langchain_core.tools import StructuredTool

    from motivgraph.agents.tools.base import ToolClient


def langchain_tools(client: ToolClient, *, token_cap: int = DEFAULT_CAP,
                    names: list[str] | None = None) -> list[StructuredTool]:
    out = []
    for spec in all_tools():
        if names is not None and spec.name not in names:
            continue

        async def run(_spec: Any = spec, **kwargs: Any) -> str:
            try:
                result = await client.call(_spec, kwargs)
            except MotivGraphError as e:
                return f"ERROR from {_spec.name}: {e}"
            return render(result, token_cap)

        def run_sync(**kwargs: Any) -> str:
            raise NotImplementedError("these tools are async: call them with ainvoke()")

        out.append(StructuredTool.from_function(
            func=run_sync, coroutine=run, name=spec.name, description=spec.description,
            args_schema=spec.request,
        ))
    return out
