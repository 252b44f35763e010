"""The flow's structure (flow.py's 'Graph or chain'): a sampled flow's graph is the path through its
layers in order (within a layer by descending probability for the greedy flow), and executing it
hands one working set from each operator to the next in exactly that order."""

from __future__ import annotations

import itertools
import re

import numpy as np
from mindflow_support import DIM, direct_ask, topics

from motivgraph.agents.mindflow import scripted
from motivgraph.agents.mindflow.config import FlowConfig
from motivgraph.agents.mindflow.controller import Controller
from motivgraph.agents.mindflow.executor import llm_executor
from motivgraph.agents.mindflow.operators import resolve_operators

# threshold 0.7: most layers take two or three operators, so within-layer order and hand-off are exercised
CFG = FlowConfig(hidden=8, init_scale=1.0, threshold=0.7)


def _controller(seed: int) -> Controller:
    cfg = CFG
    ctrl = Controller(resolve_operators(cfg), DIM, cfg, seed=seed)
    rng = np.random.default_rng(seed)
    ctrl.params["W"] = rng.normal(0, 1.5, ctrl.params["W"].shape)  # a topic-dependent, non-uniform policy
    return ctrl


def test_a_flow_is_the_path_through_its_layers_in_execution_order() -> None:
    multi = 0
    for seed in range(5):
        ctrl = _controller(seed)
        emb = topics(1, seed)[0].embedding
        assert emb is not None
        for plan in (ctrl.greedy(emb), ctrl.sample(emb, np.random.default_rng(seed))):
            nodes = [f"L{li + 1}.{p + 1}:{op}" for li, la in enumerate(plan.layers) for p, op in enumerate(la.ops)]
            edges = plan.edges()
            assert len(nodes) == plan.n_ops and len(edges) == plan.n_ops - 1
            assert edges == list(itertools.pairwise(nodes))  # a path: each node once, in order
            outs = [a for a, _ in edges]
            ins = [b for _, b in edges]
            assert len(set(outs)) == len(outs) and len(set(ins)) == len(ins)  # no branch, no merge
            multi += sum(len(la.ops) > 1 for la in plan.layers)
        for la in ctrl.greedy(emb).layers:  # the inference flow runs each layer by descending probability
            assert list(la.probs) == sorted(la.probs, reverse=True)
    assert multi  # some layer chose more than one operator


async def test_execution_hands_one_working_set_along_the_path() -> None:
    run = llm_executor(direct_ask(scripted.operator_reply), CFG)
    multi = 0
    for seed in range(4):
        topic = topics(1, seed)[0]
        assert topic.embedding is not None
        plan = _controller(seed).sample(topic.embedding, np.random.default_rng(seed))
        res = await run(topic, plan)
        steps = [s for s in res.trace.steps if s.layer > 0]
        assert [s.op for s in steps] == plan.ops
        multi += sum(len(la.ops) > 1 for la in plan.layers)
        assert [(s.layer, s.position) for s in steps] == [(li + 1, p + 1) for li, la in enumerate(plan.layers)
                                                          for p in range(len(la.ops))]
        for before, after in itertools.pairwise(steps):
            assert after.candidates_in == before.candidates_out  # the next operator reads what the last one left
        # the final idea carries the tags of the operators that shaped it, in the flow's order
        tags = re.findall(r"\[op:([a-z_]+)\]", res.idea["method"])
        it = iter([*plan.ops, "convergent"])
        assert tags and all(any(t == o for o in it) for t in tags)
    assert multi  # some layer ran more than one operator
