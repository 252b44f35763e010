"""Shared pieces of the SoIQ tests: a small real graph in the embedded store, the in-process
ToolClient on it, an LLMClient on a scripted model, and builders for scripted replies."""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.messages import AIMessage

from motivgraph.graph.models import NodeIn, PaperRecord, TripleIn

PAPERS = [
    PaperRecord(paper_id="p-gnn", title="Deeper Graph Networks without Oversmoothing", year=2021,
                authors=["Ana Silva", "Bo Chen"],
                abstract="We study why deep graph neural networks lose discriminative node features and "
                         "propose residual connections with initial feature injection for node classification."),
    PaperRecord(paper_id="p-ant", title="Ant Colony Routing for Wireless Sensor Networks", year=2019,
                authors=["Carla Rossi", "Dan Brown"],
                abstract="Energy-aware routing in sensor networks with pheromone-based ant colony optimisation "
                         "that balances load across nodes and extends network lifetime."),
    PaperRecord(paper_id="p-llm", title="Curriculum Data Selection for Instruction Tuning", year=2023,
                authors=["Eve Müller", "Fay Li", "Gus Park"],
                abstract="Selecting instruction data by difficulty improves sample efficiency of language model "
                         "fine-tuning; we order examples with a learned difficulty score."),
]


def _t(pid: str, i: int, p: tuple[str, str], c: tuple[str, str], s: tuple[str, str]) -> TripleIn:
    return TripleIn(paper_id=pid, index=i, problem=NodeIn(name=p[0], description=p[1]),
                    challenge=NodeIn(name=c[0], description=c[1]), solution=NodeIn(name=s[0], description=s[1]))


TRIPLES = [
    _t("p-gnn", 0, ("Node classification", "Predicting labels of nodes in a graph."),
       ("Oversmoothing in deep message passing", "Node features become indistinguishable as layers grow."),
       ("Residual connections with initial feature injection", "Add the input features back at every layer.")),
    _t("p-gnn", 1, ("Node classification", "Predicting labels of nodes in a graph."),
       ("Label scarcity in large graphs", "Few labelled nodes are available for training."),
       ("Self-training with confident pseudo labels", "Use confident predictions as extra labels.")),
    _t("p-ant", 0, ("Wireless sensor network routing", "Routing packets among battery-powered sensors."),
       ("Unbalanced energy consumption across nodes", "Some nodes drain their batteries early."),
       ("Pheromone-based ant colony optimisation", "Agents deposit pheromone on good paths.")),
    _t("p-llm", 0, ("Instruction tuning of language models", "Fine-tuning models to follow instructions."),
       ("Low sample efficiency of fine-tuning data", "Much data is redundant or too easy."),
       ("Curriculum ordering by learned difficulty", "Present examples from easy to hard.")),
]

GOOD_LINK = "[oversmoothing](kg:challenge:Oversmoothing in deep message passing)"
GOOD_LINK2 = "[ant colony optimisation](kg:solution:Pheromone-based ant colony optimisation)"
BAD_LINK = "[a made-up concept](kg:solution:Quantum pheromone transformers)"
GOOD_CITE = "(Silva et al., 2021)"


def build_graph(settings: Any, store: Any, embedder: Any) -> Any:
    """Write the small graph, build both FAISS indexes, return a Runtime sharing store and embedder."""
    from motivgraph.graph.paper_index import PaperIndex
    from motivgraph.graph.runtime import Runtime
    from motivgraph.graph.vector_index import NodeIndex

    store.upsert_papers(PAPERS)
    store.upsert_triples(TRIPLES)
    rt = Runtime(settings)
    rt.__dict__["store"] = store
    rt.__dict__["embedder"] = embedder
    NodeIndex.open(settings, store, embedder).rebuild()
    PaperIndex.open(settings, store, embedder).rebuild()
    return rt


def tool_client(rt: Any) -> Any:
    from motivgraph.agents.tools.inprocess import InProcessToolClient
    from motivgraph.api.services import ToolService

    return InProcessToolClient(ToolService(rt), owns=False)


def llm_client(settings: Any, model: Any) -> Any:
    from motivgraph.llm import LLMClient

    settings.llm.cache = False
    return LLMClient(settings, model=model)


def idea_dict(title: str = "Pheromone-guided message passing", *, links: str = GOOD_LINK, cite: str = GOOD_CITE,
              extra: str = "") -> dict[str, str]:
    return {
        "Name": re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_"),
        "Title": title,
        "Motivation": f"Deep GNNs suffer from {links}; routing ideas from {GOOD_LINK2} could keep paths distinct.",
        "Related Work": f"Residual fixes exist {cite}, but none balance information flow like ant colonies do.",
        "Abstract": "We propose pheromone-weighted message passing that reinforces informative paths. " + extra,
        "Method": "Each edge keeps a pheromone value updated from the loss; messages are weighted by it.",
        "Experiments plan": "Cora, Citeseer and ogbn-arxiv at depths 2 to 64; compare with residual GNNs.",
        "Risk Factors and Limitations": "Pheromone updates may be unstable on very dense graphs.",
    }


def idea_text(idea: dict[str, str], prefix: str = "Here is my idea.") -> str:
    return f"{prefix}\nIDEA JSON:\n```json\n{json.dumps(idea, indent=2)}\n```"


def tc(name: str, **args: Any) -> AIMessage:
    """One native tool call reply."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": None, "type": "tool_call"}])
