"""What showing the evidence costs the tools (#39): the extra store reads behind node_relation, /nodes/{key}
and /triples, on the synthetic graph with every triple quoted (one quote per element, as the offline extractor
stores them), on the embedded FalkorDB.

    .venv/bin/python -m bench.bench_evidence_reads                 # scale 0.05 of the paper-scale graph
    .venv/bin/python -m bench.bench_evidence_reads --scale 0.2 --n 400

Each figure stands beside its baseline from the same run, in alternating rounds: get_node (what node_relation
reads per node) beside get_node + node_evidence (what it reads now), and a page of 50 triples (page_triples)
beside the page + triple_evidence for its 50 triples. Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.synthetic import SyntheticGraph
from motivgraph.graph import open_store
from motivgraph.graph.embedded import EmbeddedFalkorDB
from motivgraph.graph.models import Evidence, Quote


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


def quoted(g: SyntheticGraph) -> list[Any]:
    """The graph's triples, each element quoted by a located sentence built from its description."""
    out = []
    for t in g.triples:
        def q(text: str, page: int) -> list[Quote]:
            text = (text or "The paper states it in one sentence.")[:300]
            return [Quote(text=text, verified=True, section="Introduction", page=page, start=0, end=len(text))]
        ev = Evidence(problem=q(t.problem.description, 1), challenge=q(t.challenge.description, 2),
                      solution=q(t.solution.description, 3))
        out.append(t.model_copy(update={"evidence": ev}))
    return out


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=0.05, help="Fraction of the paper-scale graph (default 0.05).")
    ap.add_argument("--n", type=int, default=300, help="Calls per figure and round.")
    ap.add_argument("--rounds", type=int, default=3, help="Alternating rounds (baseline, with evidence).")
    args = ap.parse_args(argv)

    from motivgraph.settings import GraphSettings, Settings  # local: the settings tree, off the bench's --help path

    data = Path(tempfile.mkdtemp(prefix="bench-evidence-"))
    server = EmbeddedFalkorDB(data)
    server.start()
    try:
        settings = Settings(data_dir=data, graph=GraphSettings(falkordb_url=server.url, name="bench_evidence"),
                            _env_file=None)  # type: ignore[call-arg]
        store = open_store(settings)
        g = SyntheticGraph(scale=args.scale, seed=13)
        triples = quoted(g)
        t0 = time.perf_counter()
        store.upsert_papers(g.papers)
        for i in range(0, len(triples), 500):
            store.upsert_triples(triples[i : i + 500])
        st = store.stats()
        print(f"graph: {sum(st.nodes.values())} nodes, {st.triples} triples, {st.relationships['STATES']} STATES "
              f"edges with quotes (built in {time.perf_counter() - t0:.0f}s)")
        rng = random.Random(5)
        keys = [n.key for n in store.iter_nodes()]
        sample = [rng.choice(keys) for _ in range(args.n)]
        page = store.page_triples(limit=50).items
        tkeys = [(t.problem.key, t.challenge.key, t.solution.key) for t in page]
        figures: dict[str, list[float]] = {k: [] for k in ("get_node", "get_node+node_evidence", "page_triples(50)",
                                                            "page_triples(50)+triple_evidence")}
        for _ in range(args.rounds):
            figures["get_node"] += [timed(lambda k=k: store.get_node(k, cap=31, triples=21)) for k in sample]
            figures["get_node+node_evidence"] += [
                timed(lambda k=k: (store.get_node(k, cap=31, triples=21), store.node_evidence([k], per_node=3)))
                for k in sample]
            figures["page_triples(50)"] += [timed(lambda: store.page_triples(limit=50)) for _ in range(args.n // 10)]
            figures["page_triples(50)+triple_evidence"] += [
                timed(lambda: (store.page_triples(limit=50), store.triple_evidence(tkeys, per_triple=3)))
                for _ in range(args.n // 10)]
        for name, ms in figures.items():
            print(f"{name:36s} n={len(ms):5d}  p50 {pct(ms, 50):6.2f} ms  p99 {pct(ms, 99):6.2f} ms  "
                  f"mean {statistics.fmean(ms):6.2f} ms")
        store.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
