"""What a SoIQ session costs in LLM calls and tokens: `python -m motivgraph.agents.soiq.cost`.

Runs complete sessions with the default settings (3 ideas, 5 mentor rounds, 12 exploration tool
calls, 4 per round, 24k-token context budget) where every agent is the scripted model and token
counts are the LLM layer's offline estimates (MiniLM WordPiece, within ~10-15 % of cl100k).
Reply lengths follow what the prompts ask for (an idea of ~1,100 words, mentor questions of ~150
words); tool results are rendered by the real Toolbox from typed results sized like the real
tools' (10 nodes per search, 20 papers with abstracts per literature search, SoIQ's top 20). Two scenarios:

- full: the researcher uses its whole exploration budget, answers every round with 2 tool calls,
  the mentor asks all 5 rounds and the round limit forces the decision (upper bound);
- early: 8 exploration calls, 1 tool call per round, the mentor accepts after 3 rounds.

No network, no graph needed: the ToolClient is an in-memory one returning typed results.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage

from motivgraph.agents.core import PlatformLLMClient, RunSpec, create_run, run_method
from motivgraph.agents.tools.base import ToolClient
from motivgraph.api.contract.models import (
    LiteraturePaper,
    LiteratureSearchResult,
    NodeBrief,
    NodeRelation,
    NodeRelationResult,
    NodeSearchResult,
    RandomNode,
    RandomNodesResult,
    ScoredNode,
    TransferResult,
    TripleOut,
)
from motivgraph.choices import NODE_TYPES
from motivgraph.errors import MotivGraphError
from motivgraph.llm import ScriptedChatModel
from motivgraph.llm.tokens import tokenizer_name
from motivgraph.llm.usage import cost_usd
from motivgraph.settings import LLMSettings, Settings

_WORDS = [
    "graph", "network", "challenge", "method", "data", "model", "learning", "node", "signal", "robust", "sparse",
    "noise", "transfer", "attention", "structure", "label", "sample", "training", "objective", "bias", "evaluation",
    "benchmark", "metric",
]


def words(n: int, seed: int) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(_WORDS) for _ in range(n))


class SizedToolClient(ToolClient):
    """In-memory ToolClient whose results have the sizes of real tool results (one sized fake per tool;
    a tool without one answers with an error, which the model reads like any tool error)."""

    def __init__(self) -> None:
        self.n = 0

    async def _invoke(self, spec: Any, req: Any) -> Any:
        fake = getattr(self, spec.name, None)
        if fake is None:
            raise MotivGraphError(f"the cost estimate has no sized stand-in for {spec.name}")
        return await fake(req)

    def _node(self, t: str, i: int) -> dict[str, Any]:
        self.n += 1
        return {"key": f"{t}:{t} {i}", "type": t, "name": f"{t} {words(5, i)}", "description": words(30, i + 7)}

    async def node_search(self, req: Any) -> NodeSearchResult:
        types = NODE_TYPES
        return NodeSearchResult(query=req.query, hits=[ScoredNode(**self._node(types[i % 3], i), score=0.8)
                                                       for i in range(req.k)])

    async def node_relation(self, req: Any) -> NodeRelationResult:
        out = []
        for j, name in enumerate(req.names):
            node = NodeBrief(**self._node("challenge", j))
            nb = [NodeBrief(**self._node("solution", 100 + j * 10 + k)) for k in range(4)]
            pr = [NodeBrief(**self._node("problem", 200 + j * 10 + k)) for k in range(2)]
            triples = [TripleOut(problem=pr[k % 2], challenge=node, solution=nb[k]) for k in range(4)]
            out.append(NodeRelation(query=name, node=node, problems=pr, solutions=nb, triples=triples,
                                    parents=[NodeBrief(**self._node("challenge", 300 + j))]))
        return NodeRelationResult(nodes=out)

    async def random_nodes(self, req: Any) -> RandomNodesResult:
        types = NODE_TYPES
        return RandomNodesResult(mode="nodes", seed=req.seed or 0,
                                 nodes=[RandomNode(**self._node(types[i % 3], 500 + i)) for i in range(req.n)])

    async def literature_search(self, req: Any) -> LiteratureSearchResult:
        papers = [LiteraturePaper(title=words(10, 700 + i), authors=[f"Author{i} Smith", "B Lee"], year=2020 + i % 5,
                                  abstract=words(150, 800 + i)) for i in range(req.limit)]
        return LiteratureSearchResult(query=req.query, source="local", papers=papers)

    async def transfer_candidates(self, req: Any) -> TransferResult:
        return TransferResult(topic=req.topic, candidates=[])

    async def aclose(self) -> None:
        return None


def _idea(seed: int) -> str:
    idea = {"Name": f"idea_{seed}", "Title": words(12, seed), "Motivation": words(200, seed + 1),
            "Related Work": words(200, seed + 2), "Abstract": words(200, seed + 3), "Method": words(250, seed + 4),
            "Experiments plan": words(200, seed + 5), "Risk Factors and Limitations": words(100, seed + 6)}
    return words(80, seed) + "\nIDEA JSON:\n```json\n" + json.dumps(idea) + "\n```"


def _call(name: str, args: dict[str, Any], seed: int) -> AIMessage:
    call = {"name": name, "args": args, "id": None, "type": "tool_call"}
    return AIMessage(content=words(60, seed), tool_calls=[call])


def script(ideas: int, explore_calls: int, rounds: int, calls_per_round: int, accept_after: int | None) -> list:
    """Replies in call order for a session (researcher and mentor share one scripted model)."""
    tools: list[tuple[str, dict[str, Any]]] = [
        ("node_search", {"query": "q"}), ("node_relation", {"names": ["a", "b"]}),
        ("literature_search", {"query": "q"}), ("random_nodes", {"n": 10})]
    out: list[Any] = []
    for i in range(ideas):
        s = 1000 * (i + 1)
        out += [_call(*tools[k % len(tools)], seed=s + k) for k in range(explore_calls)]
        out.append(_idea(s))
        asked = rounds if accept_after is None else accept_after
        for r in range(asked):
            out.append("Aspect: Rationality. " + words(150, s + 100 + r))
            out += [_call(*tools[(r + k) % len(tools)], seed=s + 200 + r * 10 + k) for k in range(calls_per_round)]
            out.append(words(150, s + 300 + r) + "\n" + _idea(s + 400 + r))
        out.append(words(80, s + 500) + " <ACCEPT>")
    return out


async def measure(name: str, **kw: Any) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), _env_file=None)
        settings.llm.cache = False
        ideas = settings.agents.ideas
        replies = script(ideas, **kw)
        model = ScriptedChatModel(replies)
        llm = PlatformLLMClient(settings, model=model)
        spec = RunSpec(method="soiq", topic="robust graph learning under label noise", config={"ideas": ideas})
        run = create_run(settings.runs_dir, spec)
        result = await run_method(settings, run, llm=llm, tool_client=SizedToolClient())
        events = list(run.events())
        trims = sum(1 for e in events if e["type"] == "context_trimmed")
        largest = max((e["input_tokens"] for e in events if e["type"] == "usage"), default=0)
        llm.close()
    u = result.usage
    return {"scenario": name, "ideas": ideas, "researcher": u.get("soiq.researcher"), "mentor": u.get("soiq.mentor"),
            "total": u["total"], "context_trims": trims, "largest_prompt": largest,
            "accepted": sum(1 for i in result.ideas if i.status == "accepted"), "unused_replies": model.remaining}


def main() -> None:
    prices = LLMSettings().prices
    rows = [
        asyncio.run(measure("full", explore_calls=12, rounds=5, calls_per_round=2, accept_after=None)),
        asyncio.run(measure("early", explore_calls=8, rounds=5, calls_per_round=1, accept_after=3)),
    ]
    print(f"token counter: {tokenizer_name()}; default settings (ideas=3, rounds=5, 12/4 tool calls, 24k budget)")
    print(f"{'scenario':8} {'role':10} {'calls':>6} {'in tok':>9} {'out tok':>8}")
    for r in rows:
        for role in ("researcher", "mentor", "total"):
            u = r[role] or {}
            print(f"{r['scenario']:8} {role:10} {u.get('calls', 0):6d} {u.get('input_tokens', 0):9d} "
                  f"{u.get('output_tokens', 0):8d}")
        t = r["total"]
        costs = ", ".join(f"{m} ${cost_usd(m, prices, t['input_tokens'], t['output_tokens']):.3f}"
                          for m in ("deepseek-chat", "gpt-4o-mini", "gpt-4o"))
        print(f"{r['scenario']:8} per idea: {t['calls'] / r['ideas']:.1f} calls, "
              f"{t['input_tokens'] / r['ideas']:.0f} in / {t['output_tokens'] / r['ideas']:.0f} out tokens; "
              f"largest prompt {r['largest_prompt']} tokens; context trims: {r['context_trims']}; "
              f"accepted {r['accepted']}/{r['ideas']}")
        print(f"{r['scenario']:8} session cost: {costs}")


if __name__ == "__main__":
    main()
