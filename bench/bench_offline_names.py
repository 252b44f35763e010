"""Offline node names: how many of the offline extractor's names are fragments, before and after the whole-phrase
rules of issue #40 item 6, on the gold set (in-sample: the shared corpus the extractor was developed on) and on
papers outside it (the journals corpus, which nobody tuned the naming on).

    .venv/bin/python bench/bench_offline_names.py                  # gold set + journals, before and after
    .venv/bin/python bench/bench_offline_names.py --set journals --json out.json

For every paper (parsed with the offline parser) the offline extractor runs twice in the same process:
- "after": the extractor as it is (names cut only at phrase ends, problem candidates checked, offline triples
  validated with `check_form`);
- "before": the same code with those changes switched off (names cut at a word count, no candidate check, no
  form check, the old difficulty-word list with its fitted 'spam'/'privacy'), i.e. the naming as it was.
Each stored name is then checked with `miner.validation.name_form_violations` against the paper's title and
text, rule by rule: ends in a function word, ends in a verb of the text, cut from a longer phrase of the title,
a challenge whose context is a piece of the title or problem, a problem that is the paper's own method.
Figures: papers, papers with a stored triple, stored triples, stored names with a violation (per rule), and on
the gold set the triple recall/precision of bench_extraction_quality's matcher. Figures only; nothing fails.
The checker is the rule the "after" extractor applies, so "after" is 0 violations by construction; what the rule
costs is in the coverage and recall columns.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from bench_extraction_quality import GOLD, score  # noqa: E402

from motivgraph.embeddings import get_embedder  # noqa: E402
from motivgraph.ingest.pdf import parse_pdf  # noqa: E402
from motivgraph.miner import heuristic as H  # noqa: E402
from motivgraph.miner import validation as V  # noqa: E402
from motivgraph.miner.text import select_input  # noqa: E402
from motivgraph.settings import Settings  # noqa: E402

TYPES = ("problem", "challenge", "solution")
# the difficulty words as they were (with the corpus-fitted "spam" and "privacy"), for the "before" run
_OLD_DIFFICULTY = re.compile(
    r"\b(cost|costs|expense|complexity|scalab\w*|noise|noisy|sparsity|sparse|bias\w*|variance|overfitting|error\w*"
    r"|ambigu\w*|uncertain\w*|inefficien\w*|intractab\w*|difficult\w*|lack|limited|limitation\w*|bottleneck\w*"
    r"|incoheren\w*|uninformative|scarc\w*|imbalance\w*|instabilit\w*|unstable|latency|overhead|redundan\w*"
    r"|inconsisten\w*|vulnerab\w*|degradation|drift|shift|gap|failure\w*|spam|heterogene\w*|privacy)\b",
    re.I,
)
# violation text -> rule, the specific ones first ("ends in a piece of ..." and "ends in the verb" before "ends in")
_RULES = {"piece of a longer phrase": "challenge context cut", "ends in the verb": "ends in a verb",
          "cut from a longer phrase": "cut from title", "own method": "problem is own method",
          "ends in": "ends in a function word"}


@contextlib.contextmanager
def legacy_naming() -> Iterator[None]:
    """The item-6 changes switched off (see module doc)."""
    saved = (H._phrase, H.name_form_violations, H.verbs_in, H.DIFFICULTY_WORDS, H.validate)
    real_validate = V.validate
    H._phrase = H._trim_words  # type: ignore[assignment]
    H.name_form_violations = lambda *a, **k: []  # type: ignore[assignment]
    H.verbs_in = lambda _t: set()  # type: ignore[assignment]
    H.DIFFICULTY_WORDS = _OLD_DIFFICULTY  # type: ignore[misc]
    H.validate = lambda *a, check_form=False, **k: real_validate(*a, **k)  # type: ignore[assignment]
    try:
        yield
    finally:
        H._phrase, H.name_form_violations, H.verbs_in, H.DIFFICULTY_WORDS, H.validate = saved  # type: ignore[misc]


def _rule(violation: str) -> str:
    for key, name in _RULES.items():
        if key in violation:
            return name
    return "other"


def measure(extractor: Any, papers: dict[str, Any]) -> dict[str, Any]:
    stored: dict[str, list[Any]] = {}
    rules: Counter[str] = Counter()
    bad_names = total_names = 0
    examples: list[str] = []
    for key, paper in papers.items():
        res = extractor.extract_sync(paper)
        stored[key] = list(res.triples)
        text = select_input(paper, extractor.cfg).full_text()
        verbs, own = V.verbs_in(text), V.own_method_phrases(text)
        for t in res.triples:
            for kind in TYPES:
                name = getattr(t, kind).name
                total_names += 1
                vs = V.name_form_violations(kind, name, title=paper.title, text=text, verbs=verbs, own=own,
                                            problem=t.problem.name)
                if vs:
                    bad_names += 1
                    rules.update({_rule(v) for v in vs})
                    if len(examples) < 12:
                        examples.append(f"{key}: {kind} {name!r}")
    return {"papers": len(papers), "papers_with_triples": sum(1 for v in stored.values() if v),
            "stored_triples": sum(len(v) for v in stored.values()), "names": total_names,
            "names_with_violation": bad_names, "by_rule": dict(rules), "examples": examples, "stored": stored}


def load_set(name: str, shared: Path) -> dict[str, Any]:
    if name == "gold":
        gold = json.loads(GOLD.read_text())
        return {k: parse_pdf(shared / "corpus" / p["source"]) for k, p in gold["papers"].items()
                if (shared / "corpus" / p["source"]).exists()}
    folder = shared / "corpus" / "journals"
    return {p.stem: parse_pdf(p) for p in sorted(folder.glob("*.pdf"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=["gold", "journals"], action="append", help="default: both")
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    settings = Settings()
    embedder = get_embedder(settings.embedding)
    extractor = H.HeuristicExtractor(embedder, settings.miner)
    out: dict[str, Any] = {"load": os.getloadavg(), "sets": {}}
    for name in args.set or ["gold", "journals"]:
        papers = load_set(name, args.shared)
        row: dict[str, Any] = {}
        for mode in ("before", "after"):
            t0 = time.perf_counter()
            with legacy_naming() if mode == "before" else contextlib.nullcontext():
                m = measure(extractor, papers)
            stored = m.pop("stored")
            if name == "gold":
                gold = json.loads(GOLD.read_text())
                gold = dict(gold, papers={k: v for k, v in gold["papers"].items() if k in papers})
                s = score(gold, stored, embedder, 0.6, settings.miner.merge_auto_threshold,
                          settings.miner.merge_llm_threshold)
                m.update(triple_recall=round(s["triple_recall"], 3), triple_precision=round(s["triple_precision"], 3),
                         matched=s["matched"], gold_triples=s["gold_triples"])
            m["seconds"] = round(time.perf_counter() - t0, 1)
            row[mode] = m
        out["sets"][name] = row
        print(f"\n{name} ({len(papers)} papers; {'in-sample' if name == 'gold' else 'outside the gold set'})")
        print(f"  {'':32}{'before':>12}{'after':>12}")
        keys = ["papers_with_triples", "stored_triples", "names", "names_with_violation"]
        if name == "gold":
            keys += ["matched", "triple_recall", "triple_precision"]
        for k in keys:
            print(f"  {k:32}{row['before'][k]!s:>12}{row['after'][k]!s:>12}")
        for rule in sorted(set(row["before"]["by_rule"]) | set(row["after"]["by_rule"])):
            print(f"  {'  ' + rule:32}{row['before']['by_rule'].get(rule, 0)!s:>12}"
                  f"{row['after']['by_rule'].get(rule, 0)!s:>12}")
        for ex in row["before"]["examples"][:8]:
            print(f"    before: {ex}")
    print(f"\nload average at start: {out['load']}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
