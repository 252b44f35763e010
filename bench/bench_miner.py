"""Miner benchmark: prints figures, never passes/fails on time.

    .venv/bin/python -m bench.bench_miner            # full: 200 papers, 1 s per LLM call, 12k+31k nodes
    .venv/bin/python -m bench.bench_miner --quick    # minutes: 40 papers, 0.1 s, scale 0.1

Part 1 — ingest (extract → resolve → store → index) of synthetic papers through the real MinerSink,
the embedded FalkorDB and the FAISS index, with the scripted chat model answering after a fixed
latency: concurrency 1 vs 16 (speedup), non-LLM overhead per paper (latency 0), and a re-run that
is answered from the LLM cache.
Part 2 — hierarchical parent addition over the paper-scale synthetic node set (bench/synthetic.py:
~12k problems, ~31k challenges) with a zero-latency scripted judge: LLM calls per node, parents
made, wall time without LLM latency (embedding, kNN, the pass itself), and the concurrency the
pass sustains with a small latency.
Part 3 — projection of LLM calls and hours for an 8,625-paper corpus at concurrency 32.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench.synthetic import SyntheticGraph
from motivgraph.graph.embedded import EmbeddedFalkorDB
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.models import Paper, Section
from motivgraph.llm.tokens import content_text
from motivgraph.miner.schemas import NodeText
from motivgraph.settings import GraphSettings, Settings

TASKS = ["machine translation", "image segmentation", "speech recognition", "relation extraction",
         "graph classification", "code generation", "question answering", "time-series forecasting",
         "object detection", "text summarization", "recommendation", "protein structure prediction"]
DIFFICULTIES = ["scarce labelled data", "noisy annotations", "distribution shift", "quadratic attention cost",
                "long input sequences", "class imbalance", "catastrophic forgetting", "privacy constraints"]
METHODS = ["contrastive pretraining", "data augmentation", "knowledge distillation", "sparse attention",
           "curriculum learning", "retrieval augmentation", "low-rank adaptation", "uncertainty calibration"]


def synthetic_papers(n: int) -> list[Paper]:
    """n papers over 12 tasks x 8 difficulties x 8 methods: repeated problems exercise merging."""
    out = []
    for i in range(n):
        task, diff, meth = TASKS[i % 12], DIFFICULTIES[(i // 12) % 8], METHODS[(i * 7) % 8]
        intro = "\n\n".join([
            f"{task.capitalize()} is a core task with many applications in science and industry. "
            f"Systems for {task} are trained on large datasets and deployed widely. " * 2,
            f"However, {diff} remains a major challenge for {task}, because models trained under it generalise "
            f"poorly and their accuracy drops on realistic inputs. Existing remedies are costly. " * 2,
            f"In this paper we propose a method based on {meth} that addresses {diff} in {task}. "
            f"Our contributions are the method, an analysis and experiments on benchmark {i}. " * 2,
        ])
        out.append(Paper(
            paper_id=f"bench:{i}", title=f"{meth.capitalize()} against {diff} in {task} (study {i})",
            abstract=f"We study {task} under {diff} and propose {meth}. Experiments on benchmark {i} show gains.",
            sections=[Section(heading="Introduction", number="1", text=intro, role="introduction")],
            parser="bench",
        ))
    return out


def extractor_reply(messages: list[Any]) -> str:
    """A valid B.3 triple for the paper in the prompt (the title carries task, difficulty, method)."""
    text = "\n".join(content_text(m.content) for m in messages)
    m = re.search(r"TITLE: (.+?) against (.+?) in (.+?) \(study", text)
    meth, diff, task = (m.group(1), m.group(2), m.group(3)) if m else ("Data augmentation", "noise", "translation")
    triple = {
        "problem": {"name": f"{task.capitalize()} with neural models",
                    "description": f"The task of {task}, solved with learned neural models."},
        "challenge": {"name": f"{diff.capitalize()} in {task} training",
                      "description": f"{diff.capitalize()} lowers the accuracy of {task} models in practice."},
        "solution": {"name": f"{meth.capitalize()} tailored to {task} under {diff}",
                     "description": f"Applies {meth} during training so that {task} models cope with {diff}."},
        "section": "introduction",
    }
    return json.dumps({"triples": [triple], "no_triples_reason": None})


def resolver_reply(_messages: list[Any]) -> str:
    return json.dumps({"same": True, "reason": "bench"})


def reply_router(messages: list[Any]) -> str:
    system = content_text(messages[0].content)
    return resolver_reply(messages) if "same concept" in system else extractor_reply(messages)


def fresh_settings(root: Path, fdb_url: str) -> Settings:
    s = Settings(data_dir=root, graph=GraphSettings(), _env_file=None)  # type: ignore[call-arg]
    s.graph.falkordb_url = fdb_url
    s.graph.name = f"bench_{uuid.uuid4().hex[:10]}"
    return s


async def ingest_run(settings: Settings, papers: list[Paper], latency: float, concurrency: int) -> dict[str, Any]:
    from motivgraph.llm import LLMClient, ScriptedChatModel  # local: the LLM stack, off the bench's --help path
    from motivgraph.miner.sink import MinerSink  # local: pdfium, off the bench's --help path

    model = ScriptedChatModel(default=reply_router, latency_s=latency, model_name="gpt-4o-mini")
    settings.llm.concurrency = max(concurrency, 1)
    settings.llm.requests_per_minute = 1e9
    client = LLMClient(settings, model=model)
    rt = Runtime(settings)
    sink = MinerSink(rt, client=client, mode="llm")
    sem = asyncio.Semaphore(concurrency)

    async def one(p: Paper) -> None:
        async with sem:
            r = await sink.process(p)
            assert r.status == "stored", r.error

    t0 = time.perf_counter()
    await asyncio.gather(*(one(p) for p in papers))
    sink.close()  # flushes the index
    wall = time.perf_counter() - t0
    tot = client.usage.total()
    out = {"wall_s": wall, "per_paper_ms": 1000 * wall / len(papers), "llm_calls": tot.calls,
           "cache_hits": tot.cache_hits, "triples": sink.stats.triples, "merges": sink.stats.merges,
           "write_s": sink.stats.write_s, "max_in_flight": model.max_in_flight}
    client.close()
    rt.close()
    return out


def part_ingest(args: argparse.Namespace, fdb_url: str, tmp: Path) -> dict[str, Any]:
    papers = synthetic_papers(args.papers)
    res: dict[str, Any] = {}
    # warm the embedder once so model loading is not billed to the first run
    from motivgraph.embeddings import get_embedder  # local: onnxruntime, off the bench's --help path

    get_embedder(Settings(_env_file=None).embedding).embed(["warm up"])  # type: ignore[call-arg]
    for label, latency, conc in (("overhead", 0.0, 1), ("c1", args.latency, 1), ("c16", args.latency, 16)):
        s = fresh_settings(tmp / label, fdb_url)
        r = asyncio.run(ingest_run(s, papers, latency, conc))
        res[label] = r
        print(f"  ingest {label:8s} latency={latency:.2f}s conc={conc:2d}: {r['wall_s']:7.1f}s "
              f"({r['per_paper_ms']:.0f} ms/paper), LLM calls {r['llm_calls']}, triples {r['triples']}, "
              f"merges {r['merges']}, max in flight {r['max_in_flight']}", flush=True)
        if label == "c16":
            s.llm.concurrency = 16
            again = asyncio.run(ingest_run(s, papers, latency, 16))  # same data dir: LLM cache, same graph
            res["cache_rerun"] = again
            print(f"  ingest re-run (cache): {again['wall_s']:7.1f}s, LLM calls {again['llm_calls']}, "
                  f"cache hits {again['cache_hits']}", flush=True)
    res["speedup_16_vs_1"] = res["c1"]["wall_s"] / res["c16"]["wall_s"]
    res["overhead_ms_per_paper"] = res["overhead"]["per_paper_ms"]
    res["serial_ms_per_paper"] = 1000 * res["overhead"]["write_s"] / args.papers
    return res


def _bench_judge(messages: list[Any]) -> str:
    """Adopt candidates sharing at least two name words with the focal node (a plausible merge rate)."""
    text = content_text(messages[-1].content)
    m = re.search(r"Focal \w+:\n(.+?):", text)
    focal = set((m.group(1) if m else "").lower().split())
    members = [int(i) for i, name in re.findall(r"^(\d+)\. (.+?):", text, re.M)
               if len(focal & set(name.lower().split())) >= 2]
    if not members:
        return json.dumps({"create": False, "members": [], "name": "", "description": "", "reason": "no"})
    return json.dumps({"create": True, "members": members, "name": "General " + " ".join(sorted(focal))[:60],
                       "description": "A broader concept.", "reason": "shared terms"})


def part_parents(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    from motivgraph.embeddings import get_embedder  # local: onnxruntime, off the bench's --help path
    from motivgraph.llm import LLMClient, ScriptedChatModel  # local: the LLM stack, off the bench's --help path
    from motivgraph.miner.parents import (  # local: faiss, off the bench's --help path
        Item,
        LLMParentJudge,
        knn,
        run_pass,
    )

    g = SyntheticGraph(scale=args.scale, seed=7)
    settings = Settings(data_dir=tmp / "parents", _env_file=None)  # type: ignore[call-arg]
    settings.llm.requests_per_minute = 1e9
    emb = get_embedder(settings.embedding)
    out: dict[str, Any] = {}
    for kind in ("problem", "challenge"):
        nodes = g.nodes[kind]
        items = [Item(n.key_for(kind), NodeText(name=n.name, description=n.description)) for n in nodes]
        t0 = time.perf_counter()
        vecs = emb.embed([it.node.text() for it in items])
        t_embed = time.perf_counter() - t0
        t0 = time.perf_counter()
        knn(vecs, settings.miner.parent_k, settings.miner.parent_min_similarity)
        t_knn = time.perf_counter() - t0
        settings.llm.concurrency = 32
        model = ScriptedChatModel(default=_bench_judge, model_name="scripted")
        client = LLMClient(settings, model=model, use_cache=False)
        t0 = time.perf_counter()
        res = asyncio.run(run_pass(kind, 1, items, vecs, LLMParentJudge(client), settings.miner, None, concurrency=32))
        t_pass = time.perf_counter() - t0  # includes its own kNN
        client.close()
        # sustained concurrency with a per-call latency, on a slice: order-exact and relaxed dispatch
        lat = args.parent_latency
        sl = min(len(items), 1500)
        effs = {}
        for mode in ("exact", "relaxed"):
            model2 = ScriptedChatModel(default=_bench_judge, model_name="scripted", latency_s=lat)
            client2 = LLMClient(settings, model=model2, use_cache=False)
            t0 = time.perf_counter()
            r2 = asyncio.run(run_pass(kind, 1, items[:sl], vecs[:sl], LLMParentJudge(client2), settings.miner, None,
                                      concurrency=32, relaxed=mode == "relaxed"))
            t_lat = time.perf_counter() - t0
            client2.close()
            effs[mode] = (r2.judge_calls * lat) / max(t_lat, 1e-9)
        eff = effs["exact"]
        n = len(items)
        out[kind] = {
            "nodes": n, "parents": len(res.parents), "children": res.adopted, "judge_calls": res.judge_calls,
            "calls_per_node": res.judge_calls / n, "embed_s": t_embed, "knn_s": t_knn, "pass_s": t_pass,
            "overhead_ms_per_call": 1000 * t_pass / max(res.judge_calls, 1), "effective_parallelism": eff,
            "effective_parallelism_relaxed": effs["relaxed"],
        }
        o = out[kind]
        print(f"  parents {kind:9s}: {n} nodes -> {o['parents']} parents ({o['children']} children), "
              f"{o['judge_calls']} judge calls ({o['calls_per_node']:.2f}/node); embed {t_embed:.1f}s, "
              f"kNN {t_knn:.1f}s, pass {t_pass:.1f}s ({o['overhead_ms_per_call']:.2f} ms/call without latency); "
              f"with {lat}s latency on {sl} nodes: effective parallelism {eff:.1f} of 32 "
              f"(relaxed dispatch {effs['relaxed']:.1f})", flush=True)
    return out


def projection(ing: dict[str, Any], par: dict[str, Any], latency_s: float, reask_rate: float,
               resolver_rate: float, parallel: int = 32, papers: int = 8625) -> dict[str, Any]:
    nodes = {"problem": 12_137, "challenge": 31_158}
    extract_calls = papers * (1 + reask_rate + resolver_rate)
    parent_calls = sum(par[k]["calls_per_node"] * n for k, n in nodes.items())
    overhead_s = ing["overhead_ms_per_paper"] / 1000
    serial_s = ing["serial_ms_per_paper"] / 1000
    # Extraction: LLM-bound at `parallel` calls in flight, or bound by the serialised write section.
    t_extract = max(extract_calls * latency_s / parallel, papers * serial_s, papers * overhead_s / 2)
    eff = min(par["challenge"]["effective_parallelism"], parallel)
    t_parents = parent_calls * latency_s / max(eff, 1) + sum(
        par[k]["pass_s"] / max(par[k]["nodes"], 1) * n for k, n in nodes.items())
    return {"latency_s": latency_s, "extract_calls": round(extract_calls), "parent_calls": round(parent_calls),
            "total_calls": round(extract_calls + parent_calls), "extract_h": t_extract / 3600,
            "parents_h": t_parents / 3600, "total_h": (t_extract + t_parents) / 3600}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="40 papers, 0.1 s latency, node scale 0.1")
    ap.add_argument("--papers", type=int, default=None, help="papers per ingest run (default 200; quick 40)")
    ap.add_argument("--latency", type=float, default=None, help="scripted LLM latency per call in s (default 1.0)")
    ap.add_argument("--scale", type=float, default=None, help="synthetic node-set scale (1.0 = 12k P / 31k C)")
    ap.add_argument("--parent-latency", type=float, default=0.5,
                    help="judge latency (s) for the parent-pass parallelism measurement")
    ap.add_argument("--skip-ingest", action="store_true")
    ap.add_argument("--skip-parents", action="store_true")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    args = ap.parse_args()
    args.papers = args.papers or (40 if args.quick else 200)
    args.latency = args.latency if args.latency is not None else (0.1 if args.quick else 1.0)
    args.scale = args.scale or (0.1 if args.quick else 1.0)


    tmp = Path(tempfile.mkdtemp(prefix="bench_miner_"))
    figures: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    server = EmbeddedFalkorDB(tmp / "fdb")
    try:
        if not args.skip_ingest:
            server.start()
            print(f"Part 1: ingest of {args.papers} synthetic papers (scripted LLM, {args.latency}s per call)")
            figures["ingest"] = part_ingest(args, server.url, tmp)
            i = figures["ingest"]
            print(f"  => speedup 16 vs 1: {i['speedup_16_vs_1']:.1f}x; "
                  f"non-LLM overhead {i['overhead_ms_per_paper']:.0f}"
                  f" ms/paper (of which serialised resolve+write {i['serial_ms_per_paper']:.0f} ms); cache re-run "
                  f"{i['cache_rerun']['wall_s']:.1f}s for {args.papers} papers")
        if not args.skip_parents:
            print(f"Part 2: parent addition, synthetic node set at scale {args.scale}")
            figures["parents"] = part_parents(args, tmp)
        if "ingest" in figures and "parents" in figures:
            print("Part 3: projection for 8,625 papers (12,137 problems, 31,158 challenges) at concurrency 32")
            figures["projection"] = []
            for lat in (args.latency, 10.0):
                p = projection(figures["ingest"], figures["parents"], lat, reask_rate=0.15, resolver_rate=0.3)
                figures["projection"].append(p)
                print(f"  at {lat:.1f}s per call: {p['total_calls']:,} LLM calls ({p['extract_calls']:,} extraction "
                      f"incl. 15% re-asks + 0.3 resolver/paper, {p['parent_calls']:,} parent judge) -> "
                      f"{p['extract_h']:.2f} h extraction + {p['parents_h']:.2f} h parents = {p['total_h']:.2f} h")
    finally:
        if server.status().running:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
