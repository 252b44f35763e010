"""Extraction-quality benchmark: score a triple extractor against the hand-written gold set
(tests/fixtures/miner/gold.json: 20 triples from 15 shared-corpus papers, 13 merge decisions).

    .venv/bin/python bench/bench_extraction_quality.py                       # the configured extractor
    .venv/bin/python bench/bench_extraction_quality.py --extractor heuristic # the offline extractor
    MOTIVGRAPH_LLM_MODEL=local:smollm2 .venv/bin/python bench/bench_extraction_quality.py --extractor llm
    # offline heuristic and a slow local model side by side, same parsed papers, one run:
    MOTIVGRAPH_LLM_MODEL=local:smollm2 .venv/bin/python bench/bench_extraction_quality.py \
        --extractor heuristic --extractor llm --timeout 420 --input-tokens 500 --max-tokens 400 \
        --max-triples 2 --no-reask
    .venv/bin/python bench/bench_extraction_quality.py --extractor scripted --replies replies.json
    .venv/bin/python bench/bench_extraction_quality.py --extractor scripted   # oracle: replays the gold

Each gold paper is parsed with the offline parser and given to the extractor. Scores:
- triples: a gold triple is matched by the extracted triple of the same paper with the highest mean
  cosine similarity (all-MiniLM) of "name: description" over problem, challenge and solution, when
  that mean is at least --match (default 0.6); recall = matched gold / gold, precision = extracted
  triples matched to some gold triple / extracted triples (one extracted triple matches one gold);
- node similarity: mean cosine per type over matched pairs; exact-name agreement: matched pairs
  whose normalised names are identical (the graph's exact merge key);
- merges: for each gold decision (a, b), the extracted nodes matched to a and b are predicted to be
  one node when their normalised names are equal or their cosine similarity reaches the resolver's
  auto-merge threshold (settings.miner.merge_auto_threshold); precision and recall over the gold
  'same' decisions (a decision whose nodes were not both extracted counts as 'not merged'). The
  resolver's LLM band (between merge_llm_threshold and the auto threshold) is reported separately.
A paper whose LLM call timed out (--timeout per call, --timeout-retries) or failed after the client's
retries is reported as a figure (papers answered, timed out) and scores no triples. Every finished call
is in the LLM disk cache (<data dir>/cache), so after an interruption the same command resumes: answered
papers come back from the cache at once. A progress line is printed per paper.
Figures only; nothing passes or fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import numpy as np

from motivgraph.embeddings import get_embedder
from motivgraph.errors import BudgetExceeded, LLMError, LLMTimeout
from motivgraph.graph.identity import normalize_name
from motivgraph.ingest.pdf import parse_pdf
from motivgraph.miner.extract import LLMExtractor
from motivgraph.miner.heuristic import HeuristicExtractor
from motivgraph.miner.schemas import ExtractedTriple, ExtractionResult
from motivgraph.settings import Settings

REPO = Path(__file__).resolve().parents[1]
GOLD = REPO / "tests" / "fixtures" / "miner" / "gold.json"
TYPES = ("problem", "challenge", "solution")


def _text(node: dict[str, str]) -> str:
    return f"{node['name']}: {node['description']}"


def _norm(name: str) -> str:
    try:
        return normalize_name(name)
    except ValueError:
        return ""


def build_extractor(kind: str, settings: Settings, replies: dict[str, Any] | None) -> Any:
    embedder = get_embedder(settings.embedding)
    if kind == "heuristic":
        return HeuristicExtractor(embedder, settings.miner)
    from motivgraph.llm import LLMClient  # local: the LLM stack, off the bench's --help path

    if kind == "scripted":
        from motivgraph.llm import ScriptedChatModel  # local: the LLM stack, off the bench's --help path

        assert replies is not None
        # one rule per paper: the prompt carries the paper's title
        rules = [(_title_pattern(title), json.dumps(reply)) for title, reply in replies.items()]
        model = ScriptedChatModel(rules=rules, default=json.dumps({"triples": [], "no_triples_reason": "unscripted"}))
        client = LLMClient(settings, model=model)
    else:
        client = LLMClient(settings)
        client.require("extractor")
    return LLMExtractor(client, settings.miner, embedder)


def _title_pattern(title: str) -> str:
    words = re.findall(r"\w+", title)[:6]
    return r"\W+".join(map(re.escape, words))


def oracle_replies(gold: dict[str, Any], titles: dict[str, str]) -> dict[str, Any]:
    return {titles[k]: {"triples": [dict(t, section="introduction") for t in p["triples"]], "no_triples_reason": None}
            for k, p in gold["papers"].items() if titles.get(k)}


def score(gold: dict[str, Any], extracted: dict[str, list[ExtractedTriple]], embedder: Any, match: float,
          auto: float, llm_band: float) -> dict[str, Any]:
    gold_nodes: dict[str, dict[str, str]] = {}
    matched: dict[str, dict[str, str]] = {}  # gold node id -> extracted node
    n_gold = n_ext = n_match = 0
    sims: dict[str, list[float]] = {t: [] for t in TYPES}
    exact: dict[str, int] = dict.fromkeys(TYPES, 0)
    for key, paper in gold["papers"].items():
        ext = [t.model_dump() for t in extracted.get(key, [])]
        n_gold += len(paper["triples"])
        n_ext += len(ext)
        for i, t in enumerate(paper["triples"]):
            for typ in TYPES:
                gold_nodes[f"{key}.{i}.{typ}"] = t[typ]
        if not ext:
            continue
        # similarity of every gold triple to every extracted triple, per type
        g_vec = {typ: embedder.embed([_text(t[typ]) for t in paper["triples"]]) for typ in TYPES}
        e_vec = {typ: embedder.embed([_text(t[typ]) for t in ext]) for typ in TYPES}
        per_type = {typ: g_vec[typ] @ e_vec[typ].T for typ in TYPES}
        mean = sum(per_type.values()) / 3
        used: set[int] = set()
        # greedy one-to-one assignment, best pairs first
        pairs = sorted(((mean[g, e], g, e) for g in range(mean.shape[0]) for e in range(mean.shape[1])), reverse=True)
        taken_g: set[int] = set()
        for m, g, e in pairs:
            if m < match or g in taken_g or e in used:
                continue
            taken_g.add(g)
            used.add(e)
            n_match += 1
            for typ in TYPES:
                sims[typ].append(float(per_type[typ][g, e]))
                exact[typ] += int(_norm(paper["triples"][g][typ]["name"]) == _norm(ext[e][typ]["name"]))
                matched[f"{key}.{g}.{typ}"] = ext[e][typ]
    # merge decisions
    tp = fp = fn = tn = band = 0
    detail = []
    for d in gold["merges"]:
        a, b = matched.get(d["a"]), matched.get(d["b"])
        pred = False
        if a is not None and b is not None:
            va, vb = embedder.embed([_text(a), _text(b)])
            cos = float(np.dot(va, vb))
            pred = _norm(a["name"]) == _norm(b["name"]) or cos >= auto
            band += int(not pred and cos >= llm_band)
        if d["same"] and pred:
            tp += 1
        elif d["same"]:
            fn += 1
        elif pred:
            fp += 1
        else:
            tn += 1
        detail.append({**d, "predicted_same": pred, "both_extracted": a is not None and b is not None})
    return {
        "gold_triples": n_gold, "extracted_triples": n_ext, "matched": n_match,
        "triple_recall": n_match / n_gold if n_gold else 0.0,
        "triple_precision": n_match / n_ext if n_ext else 0.0,
        "node_similarity": {t: (sum(v) / len(v) if v else 0.0) for t, v in sims.items()},
        "exact_name_agreement": exact,
        "merges": {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "llm_band_pairs": band,
                   "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else 0.0,
                   "detail": detail},
    }


def apply_overrides(settings: Settings, args: argparse.Namespace) -> Settings:
    """The bench's knobs for slow models, on top of MOTIVGRAPH_* settings (the same fields a user sets)."""
    llm = settings.llm.model_copy(update={k: v for k, v in {
        "timeout_s": args.timeout, "timeout_retries": args.timeout_retries, "max_retries": args.retries,
        "max_tokens": args.max_tokens, "cache": not args.no_cache}.items() if v is not None})
    miner = settings.miner.model_copy(update={k: v for k, v in {
        "input_token_budget": args.input_tokens, "max_triples": args.max_triples,
        "reask": False if args.no_reask else None}.items() if v is not None})
    return settings.model_copy(update={"llm": llm, "miner": miner})


async def extract_all(kind: str, extractor: Any, papers: dict[str, Any]) -> dict[str, Any]:
    """Run one extractor over the papers, one at a time with a progress line each. A paper whose call
    timed out (or failed after the client's retries) counts as a figure, not a crash; finished calls
    sit in the LLM disk cache, so running the bench again resumes where it stopped."""
    extracted: dict[str, list[ExtractedTriple]] = {}
    reasons: dict[str, str] = {}
    rejected: dict[str, list[str]] = {}
    timeouts: list[str] = []
    failures: dict[str, str] = {}
    seconds: dict[str, float] = {}
    for i, (key, paper) in enumerate(papers.items(), 1):
        t0 = time.perf_counter()
        try:
            res: ExtractionResult = await extractor.extract(paper)
        except LLMTimeout as e:
            timeouts.append(key)
            failures[key] = f"timeout: {e}"[:200]
            res = None
        except BudgetExceeded:
            raise
        except LLMError as e:
            failures[key] = f"{type(e).__name__}: {e}"[:200]
            res = None
        seconds[key] = round(time.perf_counter() - t0, 2)
        if res is not None:
            extracted[key] = list(res.triples)
            if not res.triples:
                reasons[key] = res.reason or "no triples"
            if res.rejected:
                rejected[key] = [f"{r.triple.challenge.name}: " + "; ".join(r.violations)[:160] for r in res.rejected]
        state = failures.get(key) or f"{len(extracted.get(key, []))} triples"
        print(f"  [{kind} {i}/{len(papers)}] {key}: {state[:90]} ({seconds[key]:.1f}s)", flush=True)
    return {"extracted": extracted, "no_triples": reasons, "rejected": rejected, "timeouts": timeouts,
            "failures": failures, "seconds": seconds}


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    settings = apply_overrides(Settings(), args)
    gold = json.loads(GOLD.read_text())
    papers = {}
    keys = list(gold["papers"])[: args.papers] if args.papers else list(gold["papers"])
    gold = dict(gold, papers={k: gold["papers"][k] for k in keys},
                merges=[m for m in gold["merges"] if m["a"].split(".")[0] in keys and m["b"].split(".")[0] in keys])
    for key, p in gold["papers"].items():
        path = args.shared / "corpus" / p["source"]
        if not path.exists():
            print(f"  {key}: {path} missing, skipped")
            continue
        papers[key] = parse_pdf(path)
    embedder = get_embedder(settings.embedding)
    results = []
    for kind in args.extractor or ["auto"]:
        if kind == "auto":
            kind = "llm" if os.environ.get("MOTIVGRAPH_LLM_MODEL") else "heuristic"
        replies = None
        if kind == "scripted":
            if args.replies:
                by_key = json.loads(args.replies.read_text())
                replies = {papers[k].title: v for k, v in by_key.items() if k in papers}
            else:
                replies = oracle_replies(gold, {k: p.title for k, p in papers.items()})
        extractor = build_extractor(kind, settings, replies)
        t0 = time.perf_counter()
        got = await extract_all(kind, extractor, papers)
        out = score(gold, got["extracted"], embedder, args.match, settings.miner.merge_auto_threshold,
                    settings.miner.merge_llm_threshold)
        label = kind
        if kind == "llm":
            label += f" ({os.environ.get('MOTIVGRAPH_LLM_MODEL')})"
        out.update(extractor=label, papers=len(papers), seconds=round(time.perf_counter() - t0, 1),
                   paper_seconds=got["seconds"],
                   **{k: got[k] for k in ("no_triples", "rejected", "timeouts", "failures")})
        out["papers_with_output"] = len(got["extracted"])
        client = getattr(extractor, "client", None)
        if client is not None:
            out["llm_usage"] = client.usage.to_dict().get("total")
            out["llm_settings"] = {"timeout_s": settings.llm.timeout_s, "timeout_retries": settings.llm.timeout_retries,
                                   "max_tokens": settings.llm.max_tokens,
                                   "input_token_budget": settings.miner.input_token_budget,
                                   "max_triples": settings.miner.max_triples, "reask": settings.miner.reask,
                                   "cache": settings.llm.cache}
        if args.dump:
            out["extracted"] = {k: [t.model_dump() for t in v] for k, v in got["extracted"].items()}
        results.append(out)
        print_result(out)
    if len(results) > 1:
        print(table(results))
    return results


def print_result(out: dict[str, Any]) -> None:
    m = out["merges"]
    print(f"extractor: {out['extractor']} on {out['papers']} papers ({out['seconds']}s)")
    print(f"  triples: gold {out['gold_triples']}, extracted {out['extracted_triples']}, matched {out['matched']} "
          f"-> recall {out['matched']}/{out['gold_triples']} = {out['triple_recall']:.2f}, "
          f"precision {out['matched']}/{out['extracted_triples']} = {out['triple_precision']:.2f}")
    print(f"  papers answered {out['papers_with_output']}/{out['papers']}, timed out {len(out['timeouts'])}, "
          f"failed otherwise {len(out['failures']) - len(out['timeouts'])}")
    sim = out["node_similarity"]
    ex = out["exact_name_agreement"]
    print("  matched node similarity: " + ", ".join(f"{t} {sim[t]:.2f}" for t in TYPES))
    print("  exact-name agreement: " + ", ".join(f"{t} {ex[t]}/{out['matched']}" for t in TYPES))
    prec = f"{m['precision']:.2f}" if m["precision"] is not None else "n/a (no merges predicted)"
    print(f"  merges: tp {m['tp']} fp {m['fp']} fn {m['fn']} tn {m['tn']} -> precision {prec}, "
          f"recall {m['tp']}/{m['tp'] + m['fn']} = {m['recall']:.2f}; "
          f"{m['llm_band_pairs']} pairs in the resolver's LLM band")
    if "llm_usage" in out:
        u = out["llm_usage"]
        print(f"  LLM calls {u['calls']}, cache hits {u['cache_hits']}, failures {u['failures']}, "
              f"tokens in {u['input_tokens']} out {u['output_tokens']}; settings {out['llm_settings']}")
    for k, r in out["failures"].items():
        print(f"  failed {k}: {r[:120]}")
    for k, r in out["no_triples"].items():
        print(f"  no triples for {k}: {r[:100]}")
    for k, rs in out["rejected"].items():
        for r in rs:
            print(f"  rejected by the naming rules in {k}: {r}")


def table(results: list[dict[str, Any]]) -> str:
    """Markdown table, one column per extractor (same papers, same run)."""
    def merges(o: dict[str, Any]) -> str:
        m = o["merges"]
        p = f"{m['precision']:.2f}" if m["precision"] is not None else "n/a"
        return f"P {p}, R {m['tp']}/{m['tp'] + m['fn']}"
    rows = [
        ("papers answered", lambda o: f"{o['papers_with_output']}/{o['papers']}"),
        ("timed out", lambda o: f"{len(o['timeouts'])}/{o['papers']}"),
        ("triple recall", lambda o: f"{o['matched']}/{o['gold_triples']} = {o['triple_recall']:.2f}"),
        ("triple precision", lambda o: f"{o['matched']}/{o['extracted_triples']} = {o['triple_precision']:.2f}"),
        ("node similarity P/C/S", lambda o: "/".join(f"{o['node_similarity'][t]:.2f}" for t in TYPES)),
        ("exact names P/C/S", lambda o: "/".join(str(o['exact_name_agreement'][t]) for t in TYPES)),
        ("merges", merges),
        ("wall time", lambda o: f"{o['seconds']}s"),
    ]
    lines = ["| figure | " + " | ".join(o["extractor"] for o in results) + " |",
             "|---|" + "---|" * len(results)]
    lines += [f"| {name} | " + " | ".join(f(o) for o in results) + " |" for name, f in rows]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--extractor", choices=["auto", "heuristic", "llm", "scripted"], action="append",
                    help="repeat to compare extractors on the same parsed papers in one run (default: auto)")
    ap.add_argument("--replies", type=Path,
                    help="scripted: JSON {paper key: extractor reply}; default replays the gold")
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--match", type=float, default=0.6, help="least mean cosine for a triple match")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--papers", type=int, help="score only the first N gold papers (slow local models)")
    ap.add_argument("--timeout", type=float, help="per-call time limit in seconds (MOTIVGRAPH_LLM_TIMEOUT_S)")
    ap.add_argument("--timeout-retries", type=int, help="retries after a timeout, each with twice the limit")
    ap.add_argument("--retries", type=int, help="retries on 429/5xx (MOTIVGRAPH_LLM_MAX_RETRIES)")
    ap.add_argument("--max-tokens", type=int, help="reply token cap (MOTIVGRAPH_LLM_MAX_TOKENS)")
    ap.add_argument("--input-tokens", type=int,
                    help="paper text tokens sent per paper, >= 500 (MOTIVGRAPH_MINER_INPUT_TOKEN_BUDGET)")
    ap.add_argument("--max-triples", type=int, help="most triples asked per paper (MOTIVGRAPH_MINER_MAX_TRIPLES)")
    ap.add_argument("--no-reask", action="store_true", help="one call per paper (no corrective re-ask)")
    ap.add_argument("--no-cache", action="store_true",
                    help="do not use the LLM disk cache (by default a second run resumes from it)")
    ap.add_argument("--dump", action="store_true", help="include the extracted triples in --json")
    args = ap.parse_args()
    results = asyncio.run(run(args))
    if args.json:
        args.json.write_text(json.dumps(results if len(results) > 1 else results[0], indent=1))


if __name__ == "__main__":
    main()
