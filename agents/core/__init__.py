"""The ideation platform every method builds on (see /docs or docs/ideation.md, "Ideation methods").

- `Method`, `MethodConfig`, `CostPlan`   — the protocol a method implements (agents.core.method)
- `register`, `get_method`, `method_names` — the registry (agents.core.registry)
- `RunContext`, `RunSpec`                — what `Method.run(ctx)` receives (agents.core.context)
- `IdeaRecord`, `Grounding`, `Provenance` — the one idea record (agents.core.idea)
- `TopicBackground`                      — the topic background, from the graph or a file
- `Toolbox`, `ChatAgent`                 — tools over the one tool table; the chat/tool loop
- `run_method`, `dry_run`, `create_run`  — running a method in a run directory (agents.core.runner)
"""

# Names load on first use (PEP 562): `motivgraph --help` and the CLI's registry lookups import this package,
# and an eager import of every submodule would pull the whole LLM stack (langchain) into each process start.
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from motivgraph import plugins

if TYPE_CHECKING:
    from motivgraph.agents.core.background import BackgroundPaper, TopicBackground
    from motivgraph.agents.core.context import RunContext, RunSpec
    from motivgraph.agents.core.idea import CitationRef, Grounding, IdeaRecord, KgLink, Provenance, ResolvedPaper
    from motivgraph.agents.core.llm import PlatformLLMClient, RoleLLM
    from motivgraph.agents.core.loop import ChatAgent
    from motivgraph.agents.core.method import CostPlan, Method, MethodConfig, NoState
    from motivgraph.agents.core.registry import get_method, method_names, register, unregister
    from motivgraph.agents.core.runner import RunOutcome, create_run, dry_run, run_method
    from motivgraph.agents.core.toolbox import SeenRecord, Toolbox, ToolOutcome

_WHERE = {
    "BackgroundPaper": "motivgraph.agents.core.background",
    "TopicBackground": "motivgraph.agents.core.background",
    "RunContext": "motivgraph.agents.core.context",
    "RunSpec": "motivgraph.agents.core.context",
    "CitationRef": "motivgraph.agents.core.idea",
    "Grounding": "motivgraph.agents.core.idea",
    "IdeaRecord": "motivgraph.agents.core.idea",
    "KgLink": "motivgraph.agents.core.idea",
    "Provenance": "motivgraph.agents.core.idea",
    "ResolvedPaper": "motivgraph.agents.core.idea",
    "PlatformLLMClient": "motivgraph.agents.core.llm",
    "RoleLLM": "motivgraph.agents.core.llm",
    "ChatAgent": "motivgraph.agents.core.loop",
    "CostPlan": "motivgraph.agents.core.method",
    "Method": "motivgraph.agents.core.method",
    "MethodConfig": "motivgraph.agents.core.method",
    "NoState": "motivgraph.agents.core.method",
    "get_method": "motivgraph.agents.core.registry",
    "method_names": "motivgraph.agents.core.registry",
    "register": "motivgraph.agents.core.registry",
    "unregister": "motivgraph.agents.core.registry",
    "RunOutcome": "motivgraph.agents.core.runner",
    "create_run": "motivgraph.agents.core.runner",
    "dry_run": "motivgraph.agents.core.runner",
    "run_method": "motivgraph.agents.core.runner",
    "SeenRecord": "motivgraph.agents.core.toolbox",
    "Toolbox": "motivgraph.agents.core.toolbox",
    "ToolOutcome": "motivgraph.agents.core.toolbox",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = plugins.resolve(f"{_WHERE[name]}:{name}")
    globals()[name] = value  # later lookups skip this hook
    return value

__all__ = [
    "BackgroundPaper", "ChatAgent", "CitationRef", "CostPlan", "Grounding", "IdeaRecord",
    "KgLink", "Method", "MethodConfig", "NoState", "PlatformLLMClient", "Provenance", "ResolvedPaper", "RoleLLM",
    "RunContext", "RunOutcome", "RunSpec", "SeenRecord", "ToolOutcome", "Toolbox", "TopicBackground", "create_run",
    "dry_run",
    "get_method", "method_names", "register", "run_method", "unregister",
]
