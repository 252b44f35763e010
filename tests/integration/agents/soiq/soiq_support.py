"""Shared pieces of the SoIQ tests: a small real graph in the embedded store, the in-process
ToolClient on it, an LLMClient on a scripted model, and builders for scripted replies."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage

from motivgraph.graph.models import Evidence, NodeIn, PaperRecord, Quote, TripleIn

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


def _quoted(text: str) -> list[Quote]:
    # every node of this graph is stated in its paper's words (#39: a kg: link grounds only on a located quote)
    return [Quote(text=text, verified=True, section="Introduction", page=1, start=0, end=len(text))]


def _t(pid: str, i: int, p: tuple[str, str], c: tuple[str, str], s: tuple[str, str]) -> TripleIn:
    return TripleIn(paper_id=pid, index=i, problem=NodeIn(name=p[0], description=p[1]),
                    challenge=NodeIn(name=c[0], description=c[1]), solution=NodeIn(name=s[0], description=s[1]),
                    evidence=Evidence(problem=_quoted(p[1]), challenge=_quoted(c[1]), solution=_quoted(s[1])))


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


def llm_platform(settings: Any, model: Any) -> Any:
    from motivgraph.agents.core import PlatformLLMClient

    settings.llm.cache = False
    return PlatformLLMClient(settings, model=model)


def legacy(rec: Any) -> dict[str, Any]:
    """An idea record in the shape SoIQ's results had before the platform (what the scripted tests
    assert on): the idea JSON, decision, rounds, aspects, history and the counted grounding report."""
    from motivgraph.agents.soiq.method import SoiqExtra

    x = rec.extra_as(SoiqExtra)
    return {"index": x.index, "idea": x.idea_json, "decision": x.decision, "rounds": x.rounds, "aspects": x.aspects,
            "history": x.history, "grounding": x.grounding_report, "grounding_attempts": x.grounding_attempts,
            "flagged": bool(x.grounding_report.get("flagged")), "record": rec}


@dataclass
class SessionResult:
    run_id: str
    status: str
    ideas: list[dict[str, Any]]  # accepted, legacy shape
    rejected: int
    usage: dict[str, Any]  # keyed by short role (researcher, mentor) and total
    records: list[Any]  # every IdeaRecord (accepted and rejected)


class SoiqSession:
    """A SoIQ run through the platform (create_run + run_method), driven like the old SoiqSession."""

    def __init__(self, settings: Any, client: Any, model: Any, *, run: Any = None, emit: Any = None,
                 **cfg: Any) -> None:
        from motivgraph.agents.core import RunSpec, create_run

        self.settings, self.client, self.model = settings, client, model
        topic = cfg.pop("topic", "oversmoothing in deep graph neural networks")
        cfg.setdefault("ideas", 1)  # the old SessionConfig's default, which the scripts are written for
        self.run_dir = run or create_run(settings.runs_dir, RunSpec(method="soiq", topic=topic, config=cfg))
        self.events: list[dict[str, Any]] = []
        self._emit = emit
        self.tool_mode: str | None = None

    def _listen(self, ev: dict[str, Any]) -> None:
        self.events.append(ev)
        if ev.get("type") == "soiq":
            self.tool_mode = ev.get("tool_mode")
        if self._emit is not None:
            self._emit(ev)

    async def run(self, budget_usd: float | None = None) -> SessionResult:
        from motivgraph.agents.core import run_method

        llm = llm_platform(self.settings, self.model)
        try:
            out = await run_method(self.settings, self.run_dir, llm=llm, tool_client=self.client,
                                   listener=self._listen, budget_usd=budget_usd)
        finally:
            llm.close()
        usage = {k.rsplit(".", 1)[-1]: v for k, v in out.usage.items()}
        accepted = [legacy(r) for r in out.ideas if r.status == "accepted"]
        # rejected = attempts not accepted (an attempt without a valid idea counts: it has no record)
        rejected = sum(1 for e in self.run_dir.events() if e.get("type") == "idea_done" and e["decision"] != "ACCEPT")
        return SessionResult(out.run_id, out.status, accepted, rejected, usage, out.ideas)
