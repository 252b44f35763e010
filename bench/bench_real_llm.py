"""Real-model benchmark: the miner's structured calls against the local llama.cpp model.

    .venv/bin/python -m bench.bench_real_llm                 # 50 calls per mode (after setup --with-local-llm)
    .venv/bin/python -m bench.bench_real_llm --calls 10      # a quick look

Prints figures, never passes/fails. In ONE run, with the same prompts, the same server and the
cache off, each structured call is sent
  - constrained: the dialect's schema-constrained request (llama-cpp-python: json_object + schema),
  - unconstrained: the schema in the prompt only (method `text`), and, with --json-mode, also the
    generic JSON mode (any JSON, schema not enforced),
and its single reply is checked against the schema (no repair re-ask; a reply cut off at the
token limit counts as invalid even when json_repair could close it). Call kinds are the miner's:
resolver verdict, parent-judge verdict, join verdict (short replies) and paper extraction (long
reply); inputs come from real papers of the shared corpus (nodes from their titles and abstract
sentences, never hand-written here). Reported: schema-valid share per mode, latency per call
kind, output tokens per second (server-reported completion tokens / wall time), and for the
extraction replies the share of triples passing the B.3 naming checks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from motivgraph.errors import ParseError, ReplyProblem
from motivgraph.ingest.walker import sha256_file
from motivgraph.miner.text import select_input

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

CORPUS_PDF = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "pdf"
VERDICT_MAX_TOKENS = 128
ROLE_OF = {"extraction": "extractor", "resolver": "resolver", "parent_judge": "parent_judge", "join": "parent_judge"}
EXTRACTION_MAX_TOKENS = 600


def _sentences(text: str, n: int) -> list[str]:
    parts = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if 40 <= len(s.strip()) <= 300]
    return parts[:n]


async def _papers(limit: int) -> list[Any]:
    from motivgraph.ingest.parsers import make_parser  # local: pdfium, off the bench's --help path
    from motivgraph.settings import IngestSettings  # local: the settings tree, off the bench's --help path

    pdfs = sorted(CORPUS_PDF.glob("*.pdf"), key=lambda p: (p.stat().st_size, p.name))
    parser = await make_parser(IngestSettings(), "pdf", workers=1)
    papers: list[Any] = []
    try:
        for p in pdfs:  # the smallest papers that parse (a scanned PDF has no text layer)
            try:
                papers.append(await parser.parse(p, sha256_file(p)))
            except ParseError:
                continue
            if len(papers) == limit:
                break
    finally:
        await parser.aclose()
    return papers


def _calls(papers: list[Any], n: int, extraction_every: int, max_triples: int) -> list[tuple[str, Any, Any]]:
    """(kind, messages, schema) for n calls, built from the papers' titles and abstract sentences."""
    from motivgraph.miner.prompts import (  # local: pydantic, off the bench's --help path
        extraction_messages,
        join_messages,
        parent_messages,
        resolver_messages,
    )
    from motivgraph.miner.schemas import (  # local: pydantic, off the bench's --help path
        ExtractionReply,
        JoinVerdict,
        NodeText,
        ParentVerdict,
        SameConceptVerdict,
    )
    from motivgraph.settings import MinerSettings  # local: the settings tree, off the bench's --help path

    cfg = MinerSettings(input_token_budget=500, max_triples=max_triples)
    nodes: list[Any] = []
    for p in papers:
        sents = _sentences(p.abstract or " ".join(s.text for s in p.sections[:1]), 6)
        for s in sents:
            words = s.split()
            nodes.append(NodeText(name=" ".join(words[:6]).strip(",.;:"), description=s))
    if len(nodes) < 4:
        raise SystemExit("not enough abstract sentences in the corpus papers to build verdict prompts")
    inputs = [select_input(p, cfg) for p in papers]
    inputs = [i for i in inputs if not i.unusable_reason]
    out: list[tuple[str, Any, Any]] = []
    kinds = ["resolver", "parent_judge", "join"]
    for i in range(n):
        if extraction_every and i % extraction_every == 0 and inputs:
            inp = inputs[(i // extraction_every) % len(inputs)]
            out.append(("extraction", (extraction_messages(inp.render(), max_triples), inp), ExtractionReply))
            continue
        a, b = nodes[i % len(nodes)], nodes[(i * 7 + 3) % len(nodes)]
        kind = kinds[i % len(kinds)]
        if kind == "resolver":
            out.append((kind, (resolver_messages("challenge", a, b), None), SameConceptVerdict))
        elif kind == "parent_judge":
            cands = [nodes[(i + k) % len(nodes)] for k in range(1, 4)]
            out.append((kind, (parent_messages("problem", a, cands), None), ParentVerdict))
        else:
            out.append((kind, (join_messages("challenge", a, b), None), JoinVerdict))
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from motivgraph.embeddings import get_embedder  # local: onnxruntime, off the bench's --help path
    from motivgraph.llm import LLMClient  # local: the LLM stack, off the bench's --help path
    from motivgraph.llm import structured as so  # local: the LLM stack, off the bench's --help path
    from motivgraph.miner.validation import validate  # local: pydantic, off the bench's --help path
    from motivgraph.settings import EmbeddingSettings, Settings  # local: the settings tree, off the bench's --help path

    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="bench-real-llm-"))
    os.environ.setdefault("MOTIVGRAPH_LLM_MODEL", "local:smollm2")
    settings = Settings(data_dir=data_dir, _env_file=None)
    client = LLMClient(settings, use_cache=False)
    spec = client.require("resolver")
    started_here = spec.local is not None and spec.local.running() is None  # stopped again at the end
    t_start = time.perf_counter()
    client.chat_model("resolver")  # start (or reuse) the server before timing anything
    server_start_s = time.perf_counter() - t_start
    clients = {"constrained": client, "text": client, "json_mode": client}
    upstream = None
    if args.compare_upstream:
        # The same model on a second server running llama-cpp-python's own sampler (grammar over the whole
        # vocabulary for every token): the constrained figures before and after, in one run.
        from motivgraph.llm.local import LocalServer  # local: httpx, off the bench's --help path

        up_dir = data_dir / "llm-upstream"
        upstream = LocalServer(spec.local.model, up_dir, port=0, threads=spec.local.threads,
                               module="llama_cpp.server")
        upstream.start()
        up_settings = Settings(data_dir=data_dir, _env_file=None)
        up_settings.llm.local_dir = up_dir
        clients["constrained_upstream"] = LLMClient(up_settings, use_cache=False)
        clients["constrained_upstream"].chat_model("resolver")
    papers = await _papers(args.papers)
    calls = _calls(papers, args.calls, args.extraction_every, args.max_triples)
    embedder = get_embedder(EmbeddingSettings())
    from motivgraph.settings import MinerSettings  # local: the settings tree, off the bench's --help path

    mcfg = MinerSettings(max_triples=args.max_triples)
    modes = ["constrained", "text"] + (["json_mode"] if args.json_mode else []) + (
        ["constrained_upstream"] if upstream else [])
    stats: dict[str, Any] = {m: {"calls": 0, "valid": 0, "truncated": 0, "invalid_examples": []} for m in modes}
    latency: dict[tuple[str, str], list[float]] = defaultdict(list)
    out_tokens: dict[str, int] = defaultdict(int)
    gen_time: dict[str, float] = defaultdict(float)
    triples_total: dict[str, int] = defaultdict(int)
    triples_ok: dict[str, int] = defaultdict(int)
    prompt_s: dict[str, float] = defaultdict(float)
    for i, (kind, (messages, inp), schema) in enumerate(calls):
        role = ROLE_OF[kind]
        if args.warm_prompt:
            # Each server reads the prompt once, untimed (a 1-token reply): every mode's time is then its
            # generation, whichever mode a server saw first (its KV prefix cache would favour the second).
            prompt = client._structured_call(role, messages, schema, "text")[0]
            for c in {id(c): c for c in clients.values()}.values():
                t0 = time.perf_counter()
                await c.chat(role, prompt, cache=False, max_tokens=1)
                prompt_s[str(id(c))] += time.perf_counter() - t0
        order = modes if i % 2 == 0 else modes[::-1]  # interleaved, alternating: the same load for each mode
        for mode in order:
            mc = clients[mode]
            msgs, kwargs = mc._structured_call(role, messages, schema, mode.replace("_upstream", ""))
            cap = EXTRACTION_MAX_TOKENS if kind == "extraction" else VERDICT_MAX_TOKENS
            t0 = time.perf_counter()
            reply = await mc.chat(role, msgs, cache=False, max_tokens=cap, **kwargs)
            dt = time.perf_counter() - t0
            latency[(mode, kind)].append(dt)
            meta: dict[str, Any] = dict(reply.usage_metadata or {})
            out_tokens[mode] += int(meta.get("output_tokens", 0))
            gen_time[mode] += dt
            s = stats[mode]
            s["calls"] += 1
            truncated = reply.response_metadata.get("finish_reason") == "length"
            s["truncated"] += int(truncated)
            try:
                obj = so.parse_reply(reply, schema)
                ok = not truncated
            except ReplyProblem as p:
                ok, obj = False, None
                if len(s["invalid_examples"]) < 3:
                    s["invalid_examples"].append(f"{kind}: {str(p)[:160]}")
            s["valid"] += int(ok)
            if ok and kind == "extraction" and obj is not None:
                viol = validate(obj.triples, mcfg, title=inp.title, text=inp.full_text(), embedder=embedder)
                triples_total[mode] += len(viol)
                triples_ok[mode] += sum(1 for v in viol if not v)
        if args.progress:
            print(f"  call {i + 1}/{len(calls)} ({kind}) done", flush=True)
        if args.out:  # a partial result after every call: a time-boxed run still leaves figures
            partial = _result(spec, server_start_s, calls[: i + 1], modes, stats, latency, out_tokens, gen_time,
                              triples_ok, triples_total)
            Path(args.out).write_text(json.dumps({**partial, "partial": i + 1 < len(calls)}, indent=2))
    for c in {id(c): c for c in clients.values()}.values():
        c.close()
    if upstream is not None:
        upstream.stop()
    if started_here:
        spec.local.stop()
    out = _result(spec, server_start_s, calls, modes, stats, latency, out_tokens, gen_time, triples_ok,
                  triples_total)
    out["prompt_warmed"] = bool(args.warm_prompt)
    out["prompt_read_s_per_server"] = [round(v, 1) for v in prompt_s.values()]
    out["load_avg"] = os.getloadavg()
    return out


def _result(spec: Any, server_start_s: float, calls: list[Any], modes: list[str], stats: dict[str, Any],
            latency: dict[tuple[str, str], list[float]], out_tokens: dict[str, int], gen_time: dict[str, float],
            triples_ok: dict[str, int], triples_total: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "model": spec.model_id, "dialect": spec.dialect, "threads": getattr(spec.local, "threads", None),
        "server_start_s": round(server_start_s, 1), "structured_calls_per_mode": len(calls),
        "kinds": dict(sorted({k: sum(1 for c in calls if c[0] == k) for k, _, _ in calls}.items())),
        "modes": {},
    }
    for mode in modes:
        s = stats[mode]
        result["modes"][mode] = {
            "schema_valid_share": round(s["valid"] / s["calls"], 4) if s["calls"] else None,
            "valid": s["valid"], "calls": s["calls"], "truncated": s["truncated"],
            "output_tokens_per_s": round(out_tokens[mode] / gen_time[mode], 1) if gen_time[mode] else None,
            "latency_s": {k: {"mean": round(statistics.mean(v), 2), "p50": round(statistics.median(v), 2),
                              "n": len(v)} for (m, k), v in sorted(latency.items()) if m == mode},
            "b3_pass_share": round(triples_ok[mode] / triples_total[mode], 3) if triples_total[mode] else None,
            "b3_triples": triples_total[mode],
            "invalid_examples": s["invalid_examples"],
        }
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=50, help="structured calls per mode (default 50)")
    ap.add_argument("--papers", type=int, default=2, help="corpus papers used for inputs (smallest first)")
    ap.add_argument("--extraction-every", type=int, default=10, help="every Nth call is a paper extraction")
    ap.add_argument("--max-triples", type=int, default=2)
    ap.add_argument("--json-mode", action="store_true", help="also measure generic JSON mode")
    ap.add_argument("--compare-upstream", action="store_true",
                    help="also constrained on a second server with llama-cpp-python's own sampler (before/after)")
    ap.add_argument("--no-warm-prompt", dest="warm_prompt", action="store_false",
                    help="time prompt reading too (by default each server reads each prompt once, untimed)")
    ap.add_argument("--data-dir", default=None, help="data dir (default: a fresh temp dir; the cache is off)")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--out", default=None, help="also write the JSON result here")
    args = ap.parse_args()
    result = asyncio.run(run(args))
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
