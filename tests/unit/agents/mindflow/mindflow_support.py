"""Shared pieces of the MindFlow tests: fixed small topic embeddings, a cheap scripted executor
(the real operators and executor, answered by the scripted operator replies without going through
a chat model), and a trainer factory whose judge is a ScriptedChatModel."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.messages import BaseMessage

from motivgraph.agents.mindflow import scripted
from motivgraph.agents.mindflow.config import FlowConfig, TrainConfig
from motivgraph.agents.mindflow.controller import Controller
from motivgraph.agents.mindflow.executor import llm_executor
from motivgraph.agents.mindflow.llmcall import CallUsage, model_ask
from motivgraph.agents.mindflow.operators import resolve_operators
from motivgraph.agents.mindflow.topics import Topic
from motivgraph.agents.mindflow.tournament import LLMJudge
from motivgraph.agents.mindflow.train import Trainer
from motivgraph.llm import ScriptedChatModel

DIM = 16


def topics(n: int = 10, seed: int = 100) -> list[Topic]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        v = rng.normal(size=DIM)
        out.append(Topic(f"t{i:02d}", f"synthetic topic {i}", [{"title": f"Paper {i}", "abstract": "text"}],
                         v / np.linalg.norm(v)))
    return out


def direct_ask(reply: Any) -> Any:
    """The scripted operator replies, parsed by the operators' own schemas, ~4 chars per token."""

    async def ask(messages: list[Any], schema: Any, sample: int | None = None) -> tuple[Any, CallUsage]:
        text = reply(messages)
        t_in = sum(len(str(m.content)) for m in messages) // 4
        return schema.model_validate_json(text), CallUsage(1, t_in, len(text) // 4, 0.0)

    return ask


def trainer(tmp: Path, judge: Any, *, seed: int = 0, steps: int = 60, flow: FlowConfig | None = None,
            n_topics: int = 10, **train: Any) -> tuple[Trainer, ScriptedChatModel]:
    flow = flow or FlowConfig()
    ctrl = Controller(resolve_operators(flow), DIM, flow)
    judge_model = ScriptedChatModel(default=judge, report_usage=False)
    jask = model_ask(judge_model)
    cfg = TrainConfig(**{"steps": steps, "seed": seed, "val_every": 0, **train})
    tr = Trainer(ctrl, cfg, topics(n_topics), llm_executor(direct_ask(scripted.operator_reply), flow),
                 lambda t: LLMJudge(jask, t.text), tmp)
    return tr, judge_model


def judge_preferring_cheap() -> Callable[[list[BaseMessage]], str]:
    """A scripted judge voting for the proposal shaped by fewer operators (ties to the one shown first)."""

    def judge(messages: list[BaseMessage]) -> str:
        a, b = scripted._proposals(scripted._last(messages))
        return scripted._verdict(len(scripted._TAG.findall(a)) <= len(scripted._TAG.findall(b)))

    return judge
