"""The ideation platform every method builds on (see /docs or the README "Ideation methods").

- `Method`, `MethodConfig`, `CostPlan`   — the protocol a method implements (agents.core.method)
- `register`, `get_method`, `method_names` — the registry (agents.core.registry)
- `RunContext`, `RunSpec`                — what `Method.run(ctx)` receives (agents.core.context)
- `IdeaRecord`, `Grounding`, `Provenance` — the one idea record (agents.core.idea)
- `TopicBackground`                      — the topic background, from the graph or a file
- `Toolbox`, `ChatAgent`                 — tools over the one tool table; the chat/tool loop
- `run_method`, `dry_run`, `create_run`  — running a method in a run directory (agents.core.runner)
"""

from motivgraph.agents.core.background import BackgroundPaper, TopicBackground
from motivgraph.agents.core.checkpoint import CheckpointVersionError
from motivgraph.agents.core.context import RunContext, RunSpec
from motivgraph.agents.core.idea import CitationRef, Grounding, IdeaRecord, KgLink, Provenance, ResolvedPaper
from motivgraph.agents.core.llm import PlatformLLMClient, RoleLLM
from motivgraph.agents.core.loop import ChatAgent
from motivgraph.agents.core.method import CostPlan, Method, MethodConfig, NoState
from motivgraph.agents.core.registry import get_method, method_names, register, unregister
from motivgraph.agents.core.runner import RunOutcome, create_run, dry_run, run_method
from motivgraph.agents.core.toolbox import SeenRecord, Toolbox, ToolOutcome

__all__ = [
    "BackgroundPaper", "ChatAgent", "CheckpointVersionError", "CitationRef", "CostPlan", "Grounding", "IdeaRecord",
    "KgLink", "Method", "MethodConfig", "NoState", "PlatformLLMClient", "Provenance", "ResolvedPaper", "RoleLLM",
    "RunContext", "RunOutcome", "RunSpec", "SeenRecord", "ToolOutcome", "Toolbox", "TopicBackground", "create_run",
    "dry_run",
    "get_method", "method_names", "register", "run_method", "unregister",
]
