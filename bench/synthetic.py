"""A deterministic synthetic motivation graph at the scale of the source paper's graph.

Default (scale 1.0): ~12,000 problems, 31,000 challenges, 25,500 solutions, 7,000 parent nodes,
70,000 triples from 14,000 papers. Names are 3–7 words and descriptions 20–45 words drawn from an
ML-research vocabulary, so embedding and index costs resemble real extracted nodes. The same seed
and scale always give the same graph (no global RNG state is touched). Above scale 1 (up to ~20x)
names also take a setting phrase ("... on mobile devices") so they stay distinct.

Reused by later benchmarks:

    from bench.synthetic import SyntheticGraph
    g = SyntheticGraph(scale=0.1, seed=7)
    for batch in g.triple_batches(500): store.upsert_triples(batch)
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from motivgraph.graph.identity import node_key
from motivgraph.graph.models import NodeIn, PaperRecord, ParentIn, TripleIn

FULL = {"problem": 12_000, "challenge": 31_000, "solution": 25_500, "parent": 7_000, "triple": 70_000}
TRIPLES_PER_PAPER = 5

# --- vocabulary -------------------------------------------------------------------------------
DOMAINS = [
    "clinical", "legal", "financial", "biomedical", "scientific", "multilingual", "code", "speech",
    "satellite", "robotic", "conversational", "educational", "e-commerce", "molecular", "autonomous driving",
    "medical imaging", "social media", "low-resource language", "video", "3D scene", "tabular", "time-series",
    "graph-structured", "point-cloud", "retrieval-augmented", "open-domain", "cross-lingual", "multimodal",
    "long-form", "streaming", "federated", "on-device", "edge", "genomic", "protein", "chemical", "climate",
    "traffic", "recommendation", "question answering",
]
TASKS = [
    "named entity recognition", "summarization", "question answering", "machine translation",
    "image classification", "object detection", "semantic segmentation", "relation extraction",
    "dialogue generation", "code generation", "text-to-SQL parsing", "fact verification", "reasoning",
    "retrieval", "anomaly detection", "forecasting", "link prediction", "node classification",
    "instruction following", "reward modeling", "policy learning", "pose estimation", "depth estimation",
    "speech recognition", "document understanding", "caption generation", "visual grounding",
    "molecule generation", "structure prediction", "program synthesis", "table reasoning",
    "event extraction", "sentiment analysis", "topic modeling", "entity linking", "math word problems",
    "knowledge editing", "hallucination detection", "data-to-text generation", "tracking",
]
PROBLEM_FRAMES = [
    "{dom} {task}", "robust {dom} {task}", "few-shot {dom} {task}", "efficient {dom} {task}",
    "zero-shot {task} for {dom} data", "interpretable {dom} {task}", "continual {dom} {task}",
    "fair {dom} {task}", "privacy-preserving {dom} {task}", "scalable {task} over {dom} corpora",
    "unsupervised {dom} {task}", "long-context {dom} {task}", "weakly supervised {dom} {task}",
    "calibrated {dom} {task}", "compositional {task} in {dom} settings", "real-time {dom} {task}",
]
QUALITIES = [
    "severe", "compounding", "hidden", "systematic", "long-tailed", "quadratic", "noisy", "sparse", "unstable",
    "spurious", "catastrophic", "combinatorial", "unobserved", "adversarial", "ambiguous", "redundant",
    "inconsistent", "delayed", "biased", "high-variance", "non-stationary", "heterogeneous", "missing",
    "costly", "brittle", "opaque", "imbalanced", "drifting", "entangled", "conflicting",
]
PHENOMENA = [
    "label scarcity", "distribution shift", "attention cost", "exposure bias", "reward hacking",
    "annotation noise", "feature collapse", "gradient interference", "memorization", "domain gap",
    "error propagation", "mode collapse", "shortcut learning", "overconfidence", "forgetting of old tasks",
    "context fragmentation", "vocabulary mismatch", "temporal misalignment", "class imbalance",
    "search space explosion", "credit assignment", "calibration error", "data leakage", "sample inefficiency",
    "compute overhead", "latency constraints", "hallucinated content", "evaluation mismatch",
    "modality gap", "over-smoothing", "positional extrapolation", "tokenization artifacts",
]
PLACES = [
    "in the encoder", "across domains", "during fine-tuning", "at inference time", "in long sequences",
    "under low supervision", "in the training data", "between modalities", "across languages",
    "in the reward signal", "in the decoder", "over many tasks", "in sparse graphs", "at deployment",
    "for rare classes", "in multi-hop chains", "in retrieved passages", "under privacy limits",
    "in the attention maps", "across clients", "in the replay buffer", "during pretraining",
    "in generated text", "between annotators", "in the latent space", "in small models", "at scale",
    "in the evaluation protocol", "in user feedback", "across time steps", "in the tokenizer",
    "in noisy sensors", "on unseen tasks", "in structured outputs", "within long documents", "in code bases",
]
METHOD_ADJ = [
    "contrastive", "hierarchical", "sparse", "adaptive", "curriculum-based", "uncertainty-aware",
    "retrieval-augmented", "graph-based", "prototype-guided", "self-supervised", "distillation-based",
    "mixture-of-experts", "diffusion-based", "energy-based", "causal", "meta-learned", "prompt-based",
    "memory-augmented", "multi-scale", "bayesian", "low-rank", "quantized", "reinforcement-learned",
    "symbolic-neural", "optimal-transport", "variational", "kernelized", "attention-guided",
]
METHOD_NOUN = [
    "pretraining", "regularization", "data augmentation", "decoding", "alignment", "reranking",
    "adapter tuning", "pseudo-labeling", "routing", "tokenization", "memory replay", "sampling",
    "reward shaping", "calibration", "pruning", "caching", "planning", "verification", "denoising",
    "clustering", "ensembling", "active learning", "knowledge distillation", "feature disentanglement",
]
METHOD_TAIL = [
    "with a learned critic", "over a frozen backbone", "with synthetic supervision", "at the token level",
    "using external knowledge", "with dynamic thresholds", "via teacher-student training",
    "across layers", "with consistency constraints", "using weak labels", "with a retrieval memory",
    "under a compute budget", "with graph propagation", "via iterative refinement", "with mutual information",
    "with learned gating", "over multiple views", "with a small proxy model", "using counterfactual examples",
    "with hard negative mining", "through progressive growing", "with span-level supervision",
    "using self-consistency", "with differentiable search", "under label noise", "with temporal smoothing",
    "with cross-attention fusion", "using program execution feedback", "with sparse updates",
    "using pairwise preferences", "with entropy regularization", "through lightweight adapters",
    "with nearest-neighbour memory", "via bilevel optimization", "with structured pruning",
    "using multilingual anchors", "with contrastive decoding", "through tool use",
    "with causal interventions", "using physics priors", "with calibrated abstention",
]
VERBS = ["reduces", "limits", "mitigates", "exposes", "amplifies", "avoids", "bounds", "explains", "tracks"]
CLAUSES = [
    "models trained on standard benchmarks degrade sharply",
    "the annotation budget is a small fraction of what supervised training needs",
    "errors made early are carried into every later step",
    "existing methods assume the test data follow the training distribution",
    "the memory footprint grows faster than the input length",
    "evaluation metrics fail to reflect what practitioners care about",
    "labels are produced by heuristics that disagree with experts",
    "the search space grows exponentially with the number of components",
    "rare cases dominate the cost of mistakes in deployment",
    "signals from different modalities arrive at different rates",
    "the optimisation objective rewards superficial patterns",
    "fine-tuning on new data overwrites what was learned before",
    "current systems cannot explain why they produce an output",
    "latency requirements rule out large models on the device",
    "the model must combine facts from several sources",
]


# Settings appended to names only when a scale asks for more names than the base product holds
# (scale > 1, e.g. the 10x bench): below that the candidate lists, and so every graph, are unchanged.
VARIANTS = [
    "in low-resource settings", "at web scale", "under strict latency budgets", "with limited labels",
    "for small research labs", "on mobile devices", "in regulated industries", "with streaming inputs",
    "across institutions", "with human oversight", "for long-horizon tasks", "with noisy supervision",
    "under distribution drift", "in safety-critical use", "for multilingual users", "with partial observability",
    "on commodity GPUs", "with open-weight models", "in interactive systems", "under adversarial pressure",
    "for scientific discovery", "with sparse feedback", "in production pipelines", "with tight memory limits",
]


def _widen(base: list[str], n: int) -> list[str]:
    """The base candidates, plus each one followed by a VARIANTS setting when n exceeds them."""
    if n <= len(base):
        return base
    return base + sorted(f"{b} {v}" for b, v in itertools.product(base, VARIANTS))


def _unique_names(rng: random.Random, n: int, make: list[str]) -> list[str]:
    """n distinct names sampled (without replacement) from the product of the candidate list."""
    make = _widen(make, n)
    if n > len(make):
        raise ValueError(f"vocabulary too small: {n} names wanted, {len(make)} possible")
    return rng.sample(make, n)


@dataclass
class SyntheticGraph:
    scale: float = 1.0
    seed: int = 13

    def count(self, what: str) -> int:
        return max(1, round(FULL[what] * self.scale))

    # -- names and descriptions ------------------------------------------------------------------
    @cached_property
    def _names(self) -> dict[str, list[str]]:
        rng = random.Random(self.seed)
        problems = sorted(
            {f.format(dom=d, task=t) for f, d, t in itertools.product(PROBLEM_FRAMES, DOMAINS, TASKS)}
        )
        challenges = sorted(f"{q} {p} {w}" for q, p, w in itertools.product(QUALITIES, PHENOMENA, PLACES))
        solutions = sorted(f"{a} {m} {t}" for a, m, t in itertools.product(METHOD_ADJ, METHOD_NOUN, METHOD_TAIL))
        out = {
            "problem": _unique_names(rng, self.count("problem"), problems),
            "challenge": _unique_names(rng, self.count("challenge"), challenges),
            "solution": _unique_names(rng, self.count("solution"), solutions),
        }
        for t in out:
            out[t] = [n[0].upper() + n[1:] for n in out[t]]
        return out

    def _description(self, rng: random.Random, node_type: str, name: str) -> str:
        c1, c2 = rng.sample(CLAUSES, 2)
        lead = {
            "problem": f"The task of {name.lower()}, where {c1}",
            "challenge": f"A difficulty in which {name.lower()} arises because {c1}",
            "solution": f"An approach based on {name.lower()} that {rng.choice(VERBS)} {rng.choice(PHENOMENA)}",
        }[node_type]
        tail = f"; this matters because {c2}." if rng.random() < 0.7 else "."
        return lead + tail

    @cached_property
    def nodes(self) -> dict[str, list[NodeIn]]:
        rng = random.Random(self.seed + 1)
        return {
            t: [NodeIn(name=n, description=self._description(rng, t, n)) for n in names]
            for t, names in self._names.items()
        }

    # -- papers and triples ----------------------------------------------------------------------
    @cached_property
    def papers(self) -> list[PaperRecord]:
        rng = random.Random(self.seed + 2)
        n = max(1, self.count("triple") // TRIPLES_PER_PAPER)
        probs = self._names["problem"]
        out = []
        for i in range(n):
            p = rng.choice(probs)
            out.append(
                PaperRecord(
                    paper_id=f"synth:{i:06d}",
                    title=f"{rng.choice(METHOD_ADJ).capitalize()} {rng.choice(METHOD_NOUN)} for {p.lower()}",
                    abstract=f"We study {p.lower()}. {rng.choice(CLAUSES).capitalize()}, and "
                    f"{rng.choice(CLAUSES)}. We propose {rng.choice(METHOD_ADJ)} {rng.choice(METHOD_NOUN)} "
                    f"{rng.choice(METHOD_TAIL)} and show gains on {rng.randint(2, 7)} benchmarks.",
                    year=2018 + rng.randint(0, 7),
                    venue=rng.choice(["ICLR", "NeurIPS", "ICML", "ACL", "EMNLP", "CVPR"]),
                    authors=[f"Author {rng.randint(1, 5000)}" for _ in range(rng.randint(1, 6))],
                )
            )
        return out

    @cached_property
    def triples(self) -> list[TripleIn]:
        """Every node appears in at least one triple; the rest are drawn with a mild popularity skew."""
        rng = random.Random(self.seed + 3)
        n = self.count("triple")
        picks: dict[str, list[int]] = {}
        for t, nodes in self.nodes.items():
            first = list(range(len(nodes)))
            rng.shuffle(first)
            # popular nodes recur (Zipf-like): square a uniform to skew towards low indexes
            rest = [int(len(nodes) * rng.random() ** 2) for _ in range(max(0, n - len(first)))]
            seq = (first + rest)[:n]
            rng.shuffle(seq)
            picks[t] = seq
        papers = self.papers
        out = []
        for i in range(n):
            paper = papers[i // TRIPLES_PER_PAPER % len(papers)]
            out.append(
                TripleIn(
                    paper_id=paper.paper_id,
                    index=i % TRIPLES_PER_PAPER,
                    problem=self.nodes["problem"][picks["problem"][i]],
                    challenge=self.nodes["challenge"][picks["challenge"][i]],
                    solution=self.nodes["solution"][picks["solution"][i]],
                    section=rng.choice(["abstract", "introduction", "method", "conclusion"]),
                    extractor="llm",
                )
            )
        return out

    def triple_batches(self, size: int) -> Iterator[list[TripleIn]]:
        ts = self.triples
        for i in range(0, len(ts), size):
            yield ts[i : i + size]

    # -- parents ---------------------------------------------------------------------------------
    @cached_property
    def parents(self) -> list[ParentIn]:
        """~30% problem / 70% challenge parents; about 10% of them are level 2 over level-1 parents."""
        rng = random.Random(self.seed + 4)
        total = self.count("parent")
        out: list[ParentIn] = []
        for t, share in (("problem", 0.3), ("challenge", 0.7)):
            n = max(1, round(total * share))
            n2 = max(1, n // 10) if n >= 10 else 0
            n1 = n - n2
            names = {node_key(t, c.name): c.name for c in self.nodes[t]}
            children = list(names)
            rng.shuffle(children)
            topic = TASKS if t == "problem" else PHENOMENA
            level1: list[str] = []
            pos = 0
            for j in range(n1):
                k = rng.randint(2, 6)
                kids = [children[(pos + x) % len(children)] for x in range(k)]
                pos += k
                name = f"{rng.choice(['General', 'Broad', 'Shared', 'Recurring'])} {rng.choice(topic)} issues {j:05d}"
                par = NodeIn(
                    name=name,
                    description=f"A broader {t} covering {k} related ones, such as "
                    f"{names[kids[0]].lower()} and {names[kids[1]].lower()}.",
                )
                out.append(ParentIn(type=t, parent=par, level=1, children=sorted(set(kids))))  # type: ignore[arg-type]
                level1.append(node_key(t, name))
            for j in range(n2):
                kids = rng.sample(level1, min(len(level1), rng.randint(2, 8)))
                name = f"{rng.choice(topic).capitalize()} at large {j:04d}"
                par = NodeIn(name=name, description=f"A top-level {t} theme grouping {len(kids)} broader {t}s.")
                out.append(ParentIn(type=t, parent=par, level=2, children=sorted(kids)))  # type: ignore[arg-type]
        return out

    def summary(self) -> dict[str, int]:
        return {
            "problem": len(self.nodes["problem"]),
            "challenge": len(self.nodes["challenge"]),
            "solution": len(self.nodes["solution"]),
            "parent": len(self.parents),
            "triple": len(self.triples),
            "paper": len(self.papers),
        }
