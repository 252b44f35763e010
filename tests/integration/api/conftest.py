"""Fixtures for the API tests: a small real graph (embedded FalkorDB, real MiniLM, real FAISS), built once
per test module, and clients on it: in-process HTTP through httpx.ASGITransport.

The graph holds known answers: "LLM compression" ↔ the quantization solution; an alias; a parent;
and an analogical-transfer case — sensor-network routing (target) vs. vehicle routing solved by ant
colony optimisation (a similar challenge under a different problem) with a same-problem decoy.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from motivgraph.graph.models import Evidence, NodeIn, PaperRecord, ParentIn, Quote, TripleIn
from motivgraph.settings import GraphSettings, Settings
from tests.reprocess_support import drop_graph

QUANT = "solution:model quantization for large language models"
C_WSN = "challenge:energy efficient multi hop routing in large sensor networks"
C_MOBILE = "challenge:energy efficient routing with mobile sinks in sensor networks"
C_ACO = "challenge:finding short paths through large dynamic networks"
S_ACO = "solution:ant colony optimization with pheromone trails"
S_STATIC = "solution:static shortest path routing tables"
S_SINK = "solution:sink mobility prediction"
P_WSN = "problem:data collection in wireless sensor networks"
P_VRP = "problem:vehicle routing for delivery fleets"
PARENT_ROUTING = "challenge:routing in large networks"

PAPERS = [
    PaperRecord(paper_id="doi:10.1000/llmq", title="Low-bit quantization of large language models",
                abstract="We compress large language models to 4-bit weights with little loss in accuracy.",
                year=2024, venue="ICLR", authors=["Ada Lovelace", "Alan Turing"]),
    PaperRecord(paper_id="arxiv:2401.00001", title="Faster decoding and distillation for language models",
                abstract="Draft models and distilled students reduce the cost of serving language models.",
                year=2023, venue="NeurIPS", authors=["Grace Hopper"]),
    PaperRecord(paper_id="doi:10.1000/wsn", title="Energy-aware routing for wireless sensor networks",
                abstract="Routing protocols that extend the battery life of large sensor deployments.",
                year=2019, venue="INFOCOM", authors=["Claude Shannon"]),
    PaperRecord(paper_id="doi:10.1000/aco", title="Ant colony optimization for vehicle routing",
                abstract="Pheromone-based search finds short delivery routes in changing road networks.",
                year=2015, venue="EJOR", authors=["Marco Dorigo"]),
    PaperRecord(paper_id="doi:10.1000/prot", title="Attention for protein structure prediction",
                abstract="Pairwise attention captures long-range residue contacts in protein folding.",
                year=2021, venue="Nature", authors=["Rosalind Franklin"]),
    PaperRecord(paper_id="doi:10.1000/mol", title="Self-supervised graph networks for molecules",
                abstract="Pretraining on unlabelled molecules improves property prediction.",
                year=2022, venue="ICML", authors=["Dorothy Hodgkin"]),
    PaperRecord(paper_id="doi:10.1000/fed", title="Personalised federated learning",
                abstract="Clients with different data distributions train a shared model privately.",
                year=2020, venue="MLSys", authors=["Barbara Liskov"]),
]


def _t(paper: str, i: int, p: tuple[str, str], c: tuple[str, str], s: tuple[str, str], **kw: Any) -> TripleIn:
    return TripleIn(paper_id=paper, index=i, problem=NodeIn(name=p[0], description=p[1]),
                    challenge=NodeIn(name=c[0], description=c[1]), solution=NodeIn(name=s[0], description=s[1]),
                    section="introduction", **kw)


# Evidence (#39): the ant colony triple is quoted and located on every element; the quantization triple has a
# located quote for its solution and one the miner could not find for its challenge; the rest have none.
ACO_QUOTES = Evidence(
    problem=[Quote(text="Delivery companies must plan the routes of large vehicle fleets every day.", verified=True,
                   section="Introduction", page=1, start=120, end=193)],
    challenge=[Quote(text="Short routes must be found again whenever link costs change in a large network.",
                     verified=True, section="Introduction", page=2, start=1510, end=1590)],
    solution=[Quote(text="Artificial ants deposit pheromone on short paths, and evaporation forgets stale ones.",
                    verified=True, section="Method", page=3, start=4020, end=4105)],
)
LLMQ_QUOTES = Evidence(
    challenge=[Quote(text="Weights in half precision no longer fit one accelerator.", verified=False,
                     reason="not found in the paper")],
    solution=[Quote(text="We store each weight in four bits with a scale per group of 128 weights.", verified=True,
                    section="Method", page=4, start=9000, end=9072)],
)

P_LLM = ("Efficient inference of large language models",
         "Serving large language models within limited memory and compute budgets.")
C_MEM = ("Memory footprint of billion-parameter weights",
         "Storing LLM weights in 16-bit floating point exceeds the memory of a single accelerator.")
WSN = ("Data collection in wireless sensor networks",
       "Gathering readings from many battery-powered sensor nodes to a base station.")
TRIPLES = [
    _t("doi:10.1000/llmq", 0, P_LLM, C_MEM,
       ("Model quantization for large language models",
        "Compress LLM weights to 4-bit integers with per-group scales so that large models run on small hardware."),
       evidence=LLMQ_QUOTES),
    _t("arxiv:2401.00001", 0, P_LLM,
       ("Slow autoregressive decoding", "Generating tokens one at a time leaves accelerators idle and adds latency."),
       ("Speculative decoding with a draft model", "A small model proposes tokens that the large model verifies.")),
    _t("arxiv:2401.00001", 1, P_LLM, C_MEM,
       ("Knowledge distillation into smaller students", "Train a small student network to mimic a large teacher.")),
    _t("doi:10.1000/wsn", 0, WSN,
       ("Energy-efficient multi-hop routing in large sensor networks",
        "Finding routes that deliver sensor readings over many hops while spending little battery energy."),
       ("Static shortest-path routing tables", "Precomputed minimum-hop routes stored at every sensor node.")),
    _t("doi:10.1000/wsn", 1, WSN,
       ("Energy-efficient routing with mobile sinks in sensor networks",
        "Routes to a moving base station must be rebuilt often, which costs sensor battery energy."),
       ("Sink mobility prediction", "Predict where the mobile sink will be and route readings ahead of time.")),
    _t("doi:10.1000/aco", 0,
       ("Vehicle routing for delivery fleets", "Planning the routes of a fleet of delivery vehicles."),
       ("Finding short paths through large dynamic networks",
        "Short routes must be discovered and adapted quickly as link costs change in large networks."),
       ("Ant colony optimization with pheromone trails",
        "Simulated ants lay pheromone on good paths, reinforcing short routes and letting stale ones evaporate."),
       evidence=ACO_QUOTES),
    _t("doi:10.1000/prot", 0,
       ("Protein structure prediction", "Predicting the 3D structure of a protein from its amino-acid sequence."),
       ("Modelling long-range residue interactions", "Residues far apart in sequence touch in the folded protein."),
       ("Attention over residue pairs", "Pairwise attention layers update a representation of every residue pair.")),
    _t("doi:10.1000/mol", 0,
       ("Molecular property prediction", "Predicting properties such as toxicity or solubility of molecules."),
       ("Scarce labelled molecular data", "Wet-lab measurements are expensive, so few molecules carry labels."),
       ("Self-supervised pretraining on unlabelled molecules",
        "Pretrain a graph neural network by masking atoms and bonds of unlabelled molecules.")),
    _t("doi:10.1000/fed", 0,
       ("Privacy-preserving collaborative training", "Training one model on data that stays on many devices."),
       ("Non-IID client data", "Each client holds data from a different distribution, which slows convergence."),
       ("Personalised federated averaging", "Average a shared model while keeping client-specific layers local.")),
    # the same quantization node under another spelling: recorded as an alias
    TripleIn(paper_id="arxiv:2401.00001", index=2, problem=NodeIn(name=P_LLM[0]), challenge=NodeIn(name=C_MEM[0]),
             solution=NodeIn(name="LLM weight quantization", key=QUANT), section="related_work"),
]
PARENTS = [
    ParentIn(type="challenge", level=1,
             parent=NodeIn(name="Routing in large networks", description="Finding good routes in big networks."),
             children=[C_WSN, C_ACO]),
]


def build_graph(settings: Settings, embedder: Any, papers: Sequence[PaperRecord] = PAPERS,
                triples: Sequence[TripleIn] = TRIPLES, parents: Sequence[ParentIn] = PARENTS) -> None:
    """Write a graph (by default the test graph) into the store `settings` points at and build both indexes."""
    from motivgraph.graph import open_store
    from motivgraph.graph.paper_index import PaperIndex
    from motivgraph.graph.vector_index import NodeIndex

    store = open_store(settings)
    try:
        store.upsert_papers(list(papers))
        store.upsert_triples(list(triples))
        store.add_parents(list(parents))
        NodeIndex.open(settings, store, embedder).rebuild()
        PaperIndex.open(settings, store, embedder).rebuild()
    finally:
        store.close()


@contextmanager
def graph_service(settings: Settings, embedder: Any, papers: Sequence[PaperRecord], triples: Sequence[TripleIn],
                  parents: Sequence[ParentIn] = ()) -> Iterator[Any]:
    """A ToolService over a graph of the test's own (built with indexes), dropped afterwards."""
    from motivgraph.api.services import ToolService

    build_graph(settings, embedder, papers, triples, parents)
    svc = ToolService(settings)
    try:
        yield svc
    finally:
        svc.close()
        drop_graph(settings)


def make_settings(root: Path, server_url: str, **api: Any) -> Settings:
    s = Settings(data_dir=root / "data", graph=GraphSettings(), _env_file=None)  # type: ignore[call-arg]
    s.graph.falkordb_url = server_url
    s.graph.name = f"api_{uuid.uuid4().hex[:10]}"
    for k, v in api.items():
        setattr(s.api, k, v)
    return s


@pytest.fixture(scope="module")
def api_settings(tmp_path_factory: pytest.TempPathFactory, falkordb_server: Any, embedder: Any) -> Iterator[Settings]:
    """Settings pointing at a fresh graph holding the test graph, with indexes built."""
    s = make_settings(tmp_path_factory.mktemp("api"), falkordb_server.url)
    build_graph(s, embedder)
    yield s
    drop_graph(s)


@pytest.fixture(scope="module")
def service(api_settings: Settings) -> Iterator[Any]:
    from motivgraph.api.services import ToolService

    svc = ToolService(api_settings)
    yield svc
    svc.close()


def asgi_client(app: Any, **kw: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost", **kw)


@pytest_asyncio.fixture
async def client(service: Any) -> AsyncIterator[httpx.AsyncClient]:
    from motivgraph.api.app import create_app

    async with asgi_client(create_app(service)) as c:
        yield c
