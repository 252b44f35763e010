"""MindFlow on a real graph (embedded FalkorDB + FAISS + MiniLM): the analogical operator calls
transfer_candidates, node_search and random_nodes(far_from=topic) and the material reaches its
prompt; `train --from-graph N` draws problem nodes as topics. Scripted models answer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from motivgraph.agents.core.toolbox import Toolbox
from motivgraph.agents.mindflow import scripted
from motivgraph.agents.mindflow.cli import _train
from motivgraph.agents.mindflow.config import FlowConfig, TrainConfig
from motivgraph.agents.mindflow.executor import execute_flow
from motivgraph.agents.mindflow.flow import FlowPlan
from motivgraph.agents.mindflow.llmcall import model_ask
from motivgraph.agents.mindflow.operators import OpEnv
from motivgraph.agents.tools.inprocess import InProcessToolClient
from motivgraph.llm import ScriptedChatModel, reset_scripted_models
from tests.integration.api.conftest import build_graph, make_settings


def test_analogical_calls_graph_tools_and_from_graph_training(tmp_path: Path, falkordb_server: Any,
                                                               embedder: Any) -> None:
    settings = make_settings(tmp_path, falkordb_server.url)
    build_graph(settings, embedder)
    model = ScriptedChatModel(default=scripted.reply)
    topic = "reducing memory of large language models"

    async def analogical() -> Any:
        tools = InProcessToolClient(settings)
        try:
            env = OpEnv(topic, "", "", FlowConfig(), model_ask(model), Toolbox(tools, topic=topic))
            return await execute_flow(FlowPlan.fixed([["analogical"], ["critical"]]), env, FlowConfig())
        finally:
            await tools.aclose()

    res = asyncio.run(analogical())
    first = res.trace.steps[0]
    assert first.op == "analogical" and first.tools == ["transfer_candidates", "node_search", "random_nodes"]
    prompt = " ".join(str(m.content) for m in model.calls[0])
    assert "GRAPH MATERIAL FOR ANALOGIES:" in prompt and "none available" not in prompt
    assert "quantization" in prompt.lower() or "memory" in prompt.lower()  # graph nodes near the topic

    script = tmp_path / "s.json"
    script.write_text(json.dumps({"default": {"call": "motivgraph.agents.mindflow.scripted:reply"}}))
    reset_scripted_models()
    settings.llm.model = f"scripted:{script}"
    settings.llm.cache = False
    settings.llm.requests_per_minute = 1_000_000
    out = tmp_path / "ctrl"
    text = asyncio.run(_train(settings, FlowConfig(layers=2), TrainConfig(steps=1, group=2, val_every=0), [], out,
                              None, False, from_graph=3))
    assert "stopped: completed after 1 steps" in text
    log = [json.loads(x) for x in (out / "train_log.jsonl").read_text().splitlines()]
    step = next(r for r in log if r["type"] == "step")
    assert step["topics"][0]["topic"].startswith("problem:")  # a graph node's key
