"""Training a controller for a set of topics with a given LLM client: what `mindflow train` and the
evaluation's train/test protocol both run (the paper trains the controller on training topics and
reports on held-out ones).

`train_controller` wires the real operators (ideator role) and the anchor-tournament judge (judge
role) of one client into a `Trainer`, embeds the topics once with the graph's embedding model and
records the ideator model in the controller file. The output directory is resumable: a killed run
continues from its last finished step when called again with the same inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from motivgraph.agents.core.llm import RoleLLM
from motivgraph.agents.core.toolbox import Toolbox
from motivgraph.agents.mindflow.config import FlowConfig, TrainConfig
from motivgraph.agents.mindflow.controller import Controller
from motivgraph.agents.mindflow.executor import llm_executor
from motivgraph.agents.mindflow.llmcall import role_ask
from motivgraph.agents.mindflow.operators import resolve_operators
from motivgraph.agents.mindflow.topics import Topic, embed_topics
from motivgraph.agents.mindflow.tournament import LLMJudge
from motivgraph.agents.mindflow.train import Trainer, TrainOutcome
from motivgraph.embeddings import get_embedder

IDEATOR_ROLE = "mindflow.ideator"
JUDGE_ROLE = "mindflow.judge"


async def train_controller(settings: Any, client: Any, fcfg: FlowConfig, tcfg: TrainConfig, items: Sequence[Topic],
                           out_dir: Path, *, tools: Any | None = None, graph: dict[str, str] | None = None,
                           on_event: Callable[[dict[str, Any]], None] | None = None,
                           embedder: Any | None = None) -> tuple[TrainOutcome, bool]:
    """Train (or resume) a controller on `items` into `out_dir`; returns (outcome, validation reuses
    the training topic). `tools`: a graph tool client for the analogical operator (None: without)."""

    if embedder is None:
        embedder = get_embedder(settings.embedding)
    graph = graph or {}
    embed_topics(items, embedder)  # once, with the graph's own model
    ideator, judge = role_ask(RoleLLM(client, IDEATOR_ROLE)), role_ask(RoleLLM(client, JUDGE_ROLE))
    boxes: dict[str, Toolbox] = {}

    def toolbox_for(topic: Topic) -> Any:
        if tools is None:
            return None
        return boxes.setdefault(topic.id, Toolbox(tools, topic=topic.text, seed=tcfg.seed))

    def executor(topic: Topic, plan: Any) -> Any:
        return llm_executor(ideator, fcfg, toolbox=toolbox_for(topic),
                            graph_text=lambda t: graph.get(t.id, ""))(topic, plan)

    ctrl = Controller(resolve_operators(fcfg), embedder.dim, fcfg, seed=tcfg.seed,
                      embedding_model=settings.embedding.model)
    trainer = Trainer(ctrl, tcfg, items, executor, lambda t: LLMJudge(judge, t.text, t.background(3, 300)),
                      out_dir, on_event=on_event, model=str(client.model_id(IDEATOR_ROLE)))
    return await trainer.run(), trainer.val_reuses_train
