"""The validity gate's off-topic measure (agents/core/validity.py) on real topics: the cosine similarity of
a topic's name to papers of that topic (its background and target papers: what on-topic research reads like)
against papers of the other topics (off-topic research), under the configured embedder. Prints both
distributions and, for candidate thresholds, the share of on-topic papers the gate would wrongly reject
and of off-topic papers it would catch. A paper's title + abstract stands in for an idea's title +
motivation + method.

    .venv/bin/python -m bench.bench_offtopic                          # ../shared/eval/topics.jsonl
    .venv/bin/python -m bench.bench_offtopic --topics FILE --thresholds 0.1,0.15,0.2

The default threshold was chosen on these figures: they are in-sample for the topics file measured.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT_TOPICS = Path(__file__).resolve().parents[2] / "shared" / "eval" / "topics.jsonl"


# Ideas from other fields, written for this bench (not from the corpus): what "about something else" means.
OFF_DOMAIN = (
    "Reduce household plastic waste with a deposit-return scheme and smart bins that pay per returned bottle.",
    "Urban beekeeping: measure how rooftop hives change pollination of city allotments over three summers.",
    "A close reading of rhyme and meter in medieval French love poetry and its influence on later ballads.",
    "Terracing and cover crops to cut soil erosion on steep smallholder farms during the monsoon.",
    "A marathon training plan that alternates tempo runs and long slow runs to lower injury rates.",
    "Cutting bread waste in bakery supply chains by forecasting daily demand per shop.",
    "Shading coral reefs with floating cloth during heat waves to reduce bleaching.",
    "A progressive property tax with exemptions for first homes and its effect on rents.",
)


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topics", type=Path, default=DEFAULT_TOPICS)
    ap.add_argument("--thresholds", default="0.04,0.06,0.08,0.1,0.12,0.15,0.2")
    args = ap.parse_args(argv)
    from motivgraph.agents.core.validity import embedder_similarity  # local: pydantic, off the bench's --help path
    from motivgraph.embeddings import get_embedder  # local: onnxruntime, off the bench's --help path
    from motivgraph.settings import EmbeddingSettings  # local: the settings tree, off the bench's --help path

    rows = [json.loads(line) for line in args.topics.read_text(encoding="utf-8").splitlines() if line.strip()]
    topics = [(str(r.get("topic_name") or r.get("topic")),
               [f"{p.get('title', '')}\n{p.get('abstract', '')}" for k in ("background_papers", "target_papers")
                for p in r.get(k) or []]) for r in rows]
    cfg = EmbeddingSettings()
    sim = embedder_similarity(get_embedder(cfg))
    on: list[float] = []
    off: list[float] = []
    for i, (name, _) in enumerate(topics):
        for j, (_, papers) in enumerate(topics):
            (on if i == j else off).extend(sim(name, p) for p in papers)
    far = [sim(name, idea) for name, _ in topics for idea in OFF_DOMAIN]
    print(f"{len(topics)} topics from {args.topics}; embedder {cfg.model} ({cfg.backend})")
    print("on-topic: the topic's own papers; off-topic: the other topics' papers (all computer science); "
          f"off-domain: {len(OFF_DOMAIN)} ideas from other fields against every topic")
    for label, xs in (("on-topic", on), ("off-topic", off), ("off-domain", far)):
        print(f"{label:10} n={len(xs):4}  min {min(xs):.3f}  p5 {_pct(xs, 0.05):.3f}  median "
              f"{statistics.median(xs):.3f}  p95 {_pct(xs, 0.95):.3f}  max {max(xs):.3f}")
    print("threshold  on-topic wrongly rejected  off-topic caught  off-domain caught")
    for t in (float(x) for x in args.thresholds.split(",")):
        fr = sum(1 for x in on if x < t) / len(on)
        caught = sum(1 for x in off if x < t) / len(off)
        far_caught = sum(1 for x in far if x < t) / len(far)
        print(f"{t:9.2f}  {fr:24.1%}  {caught:15.1%}  {far_caught:17.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
