"""Parent rules side by side on a real graph (#43): SoIQ B.4's rule (the default, `parent_rule=paper`: one
yes/no for the focal node with ALL of its filtered neighbours) against the member-picking variant
(`parent_rule=members`), with the configured `parent_judge` model.

    MOTIVGRAPH_DATA_DIR=<a graph> python -m bench.bench_parents_rules [--kinds problem,challenge] [--levels 2]
        [--limit N] [--json]

The graph's extracted problem/challenge nodes (level 0) are embedded and the B.4 passes run IN MEMORY (nothing
is written to the graph), once per rule, level by level: the parents one level forms are the working set of
the next, up to --levels or until a level forms none. Per rule and node type it reports the nodes, the parents
formed, children per parent (mean and max), the depth reached (levels that formed a parent), the judge
questions asked (cached replies included: the count of the algorithm, not of the server) and the time.

Judges: `--judge llm` (default) asks the configured `parent_judge` model; `--judge similarity` is a scripted
stand-in that needs no model: it answers B.4's question yes when every candidate is at least --tau similar
to the focal node (paper rule) and picks the candidates that are (members rule), naming the parent after
the focal node. It shows what the two rules do with one consistent notion of coherence, not what a model
judges. The figures depend on the graph and the judge: say which (the docs give the model and the corpus).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

import numpy as np

from motivgraph.graph.identity import node_key
from motivgraph.graph.runtime import Runtime
from motivgraph.llm import LLMClient
from motivgraph.miner.parents import Item, LLMParentJudge, OfflineJudge, run_pass
from motivgraph.miner.schemas import NodeText, ParentVerdict
from motivgraph.settings import Settings

RULES = ("paper", "members")


class SimilarityJudge:
    """The scripted stand-in judge (see module doc): cosine similarity to the focal node against `tau`."""

    def __init__(self, rule: str, tau: float) -> None:
        self.picks_members = rule == "members"
        self.name = f"similarity-{rule}-{tau}"
        self.tau = tau

    async def judge(self, kind, focal, cands, sims, fvec, cvecs) -> ParentVerdict:  # type: ignore[no-untyped-def]
        close = [i + 1 for i, s in enumerate(sims) if s >= self.tau]
        yes = bool(close) if self.picks_members else len(close) == len(sims)
        return ParentVerdict(create=yes, members=close, name=f"{focal.name} (general)",
                             description=f"A more general {kind} around {focal.name}.", reason="similarity")

    async def join(self, kind, parent, node, sim) -> bool:  # type: ignore[no-untyped-def]
        return sim >= self.tau


async def one_rule(rule: str, kind: str, items: list[Item], vectors: np.ndarray, settings: Settings,
                   client: LLMClient | None, levels: int, embed: Any, judge_kind: str = "llm",
                   tau: float = 0.5) -> dict[str, Any]:
    cfg = settings.miner.model_copy(update={"parent_rule": rule})
    judge: Any
    if judge_kind == "similarity":
        judge = SimilarityJudge(rule, tau)
    elif client is not None:
        judge = LLMParentJudge(client, rule)
    else:
        judge = OfflineJudge(cfg.offline_cluster_similarity)
    started = time.perf_counter()
    sizes: list[int] = []
    per_level = []
    depth = 0
    for level in range(1, levels + 1):
        if len(items) < 2:
            break
        res = await run_pass(kind, level, items, vectors, judge, cfg, None,
                             concurrency=settings.llm.concurrency)
        per_level.append({"level": level, "nodes": len(items), "parents": len(res.parents),
                          "judge_calls": res.judge_calls, "failures": res.failures})
        if not res.parents:
            break
        depth = level
        sizes += [len(p.children) for p in res.parents]
        items = [Item(node_key(kind, p.parent.name) + f"@{level}", NodeText(name=p.parent.name,
                                                                            description=p.parent.description))
                 for p in res.parents]
        vectors = embed([it.node.text() for it in items])
    return {"rule": rule, "type": kind, "judge": judge.name,
            "levels": per_level, "parents": len(sizes), "children_mean": round(float(np.mean(sizes)), 2) if sizes
            else 0.0, "children_max": max(sizes, default=0), "depth": depth,
            "judge_calls": sum(x["judge_calls"] for x in per_level), "seconds": round(time.perf_counter() - started, 1)}


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    settings = Settings()
    rt = Runtime(settings)
    client = LLMClient(settings) if args.judge == "llm" else None
    if client is not None and not client.is_configured("parent_judge"):
        raise SystemExit("no parent_judge model configured (set MOTIVGRAPH_LLM_MODEL, or use --judge similarity)")
    out = []
    try:
        for kind in args.kinds.split(","):
            nodes = sorted((n for n in rt.store.iter_nodes(types=[kind]) if n.level == 0), key=lambda n: n.key)
            if args.limit:
                nodes = nodes[: args.limit]
            items = [Item(n.key, NodeText(name=n.name, description=n.description)) for n in nodes]
            vectors = rt.embedder.embed([it.node.text() for it in items])
            for rule in RULES:
                row = await one_rule(rule, kind, items, vectors, settings, client, args.levels, rt.embedder.embed,
                                     args.judge, args.tau)
                row["nodes"] = len(items)
                out.append(row)
    finally:
        if client is not None:
            client.close()
        rt.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kinds", default="problem,challenge")
    ap.add_argument("--levels", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="Use only the first N nodes of each type (by key).")
    ap.add_argument("--judge", choices=("llm", "similarity"), default="llm",
                    help="llm: the parent_judge model; similarity: the scripted stand-in (no model).")
    ap.add_argument("--tau", type=float, default=0.5, help="The similarity judge's threshold.")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"judge: {rows[0]['judge'] if rows else '-'}")
    print(f"{'type':10} {'rule':8} {'nodes':>5} {'parents':>7} {'children/parent':>15} {'max':>4} {'depth':>5} "
          f"{'judge calls':>11} {'s':>7}")
    for r in rows:
        print(f"{r['type']:10} {r['rule']:8} {r['nodes']:5d} {r['parents']:7d} {r['children_mean']:15.2f} "
              f"{r['children_max']:4d} {r['depth']:5d} {r['judge_calls']:11d} {r['seconds']:7.1f}")


if __name__ == "__main__":
    main()
