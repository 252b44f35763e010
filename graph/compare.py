"""Two graphs compared, store against store: the check that a copy (`graph push`, an import) lost nothing.

`compare_stores(a, b, sample=200, seed=0)` reads both stores through the GraphStore API (and, for the
relationships' own properties, one read per label of the Cypher backends) and reports every difference:

- counts: nodes per label, relationships per type, parents per label, stated triples;
- every node record (name, description, aliases, level, created_at, sources) and every paper record,
  field by field, and the key / paper-id sets (what is missing on one side, what is extra);
- a seeded sample of nodes (`sample`) with everything `get_node` shows -- parents, children, typed
  neighbours, source papers, stated triples and their papers, uncapped -- and every relationship touching
  them, in and out, with all its properties;
- a seeded sample of papers: the triples each states, as the export writes them (section, extractor, the
  mention of each node and the node it resolved to).

Lists that are sets by meaning (aliases, sources, a relationship's sources / problems / stated pairs) are
compared as sets: a copy rebuilds them in the order it replays the papers, not the order they were first
written. Everything else must be equal as read.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from motivgraph.graph.base import GraphStore
from motivgraph.graph.identity import LABELS
from motivgraph.graph.models import GraphStats, NodeRecord
from motivgraph.graph.queries import NODE_LABELS

# Every relationship touching one of $keys, both directions, with all its properties. Labels come from
# the fixed schema table (NODE_LABELS), never from a caller.
_EDGES = """
UNWIND $keys AS k
MATCH (n:{label} {{key: k}})-[e]->(m)
RETURN k AS key, 'out' AS dir, type(e) AS type, coalesce(m.key, m.paper_id) AS other, properties(e) AS props
UNION ALL
UNWIND $keys AS k
MATCH (m)-[e]->(n:{label} {{key: k}})
RETURN k AS key, 'in' AS dir, type(e) AS type, coalesce(m.key, m.paper_id) AS other, properties(e) AS props
"""

# get_node caps each list; the comparison must see all of it, or a hub node's cut would differ by storage order
_UNCAPPED = 1_000_000
MAX_REPORTED = 50


def edges_statement(label: str) -> str:
    if label not in NODE_LABELS:
        raise ValueError(f"not a node label: {label!r}")
    return _EDGES.format(label=label)


def count_figures(st: GraphStats) -> dict[str, int]:
    """The counts a copy must keep, flat: nodes:<Label>, relationships:<TYPE>, parents:<Label>, triples."""
    out = {f"nodes:{k}": int(v) for k, v in st.nodes.items()}
    out.update({f"relationships:{k}": int(v) for k, v in st.relationships.items()})
    out.update({f"parents:{k}": int(v) for k, v in st.parents.items()})
    out["triples"] = int(st.triples)
    return out


def _setlike(values: Iterable[Any]) -> list[Any]:
    return sorted(set(values), key=str)


def node_fields(rec: NodeRecord) -> dict[str, Any]:
    """A node record as compared: aliases and sources as sets."""
    d = rec.model_dump()
    d["aliases"] = _setlike(d["aliases"])
    d["sources"] = _setlike(d["sources"])
    return d


def _edge_props(props: dict[str, Any]) -> str:
    return json.dumps({k: _setlike(v) if isinstance(v, list) else v for k, v in sorted(props.items())},
                      sort_keys=True, ensure_ascii=False)


@dataclass
class GraphComparison:
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (a, b)
    nodes_compared: int = 0
    papers_compared: int = 0
    nodes_sampled: int = 0
    relationships_compared: int = 0
    papers_sampled: int = 0
    triples_compared: int = 0
    n_differences: int = 0
    differences: list[str] = field(default_factory=list)  # the first MAX_REPORTED, readable

    @property
    def ok(self) -> bool:
        return self.n_differences == 0

    @property
    def counts_equal(self) -> bool:
        return all(a == b for a, b in self.counts.values())

    def differ(self, what: str) -> None:
        self.n_differences += 1
        if len(self.differences) < MAX_REPORTED:
            self.differences.append(what)

    def summary(self) -> str:
        head = (f"{self.nodes_compared} nodes and {self.papers_compared} papers field by field, "
                f"{self.nodes_sampled} sampled nodes with {self.relationships_compared} relationships, "
                f"{self.papers_sampled} sampled papers with {self.triples_compared} triples")
        if self.ok:
            return f"identical: {head}"
        return f"{self.n_differences} differences ({head}); first: {'; '.join(self.differences[:5])}"


def _compare_maps(out: GraphComparison, what: str, a: dict[str, Any], b: dict[str, Any],
                  fields: Callable[[Any], dict[str, Any]]) -> int:
    for k in sorted(a.keys() - b.keys()):
        out.differ(f"{what} {k!r} missing from the copy")
    for k in sorted(b.keys() - a.keys()):
        out.differ(f"{what} {k!r} only in the copy")
    for k in sorted(a.keys() & b.keys()):
        fa, fb = fields(a[k]), fields(b[k])
        for f in fa:
            if fa[f] != fb.get(f):
                out.differ(f"{what} {k!r} field {f}: {fa[f]!r} != {fb.get(f)!r}")
    return len(a.keys() & b.keys())


def _edges(store: GraphStore, keys: list[str]) -> dict[str, list[tuple[str, str, str, str]]]:
    read = getattr(store, "_read", None)
    if read is None:  # not a Cypher store: its relationships are compared through get_node only
        return {}
    by_label: dict[str, list[str]] = {}
    for k in keys:
        by_label.setdefault(LABELS[k.split(":", 1)[0]], []).append(k)
    out: dict[str, list[tuple[str, str, str, str]]] = {k: [] for k in keys}
    for label, lkeys in by_label.items():
        for r in read(edges_statement(label), {"keys": lkeys}):
            out[r["key"]].append((r["dir"], r["type"], str(r["other"]), _edge_props(r["props"] or {})))
    return {k: sorted(v) for k, v in out.items()}


def _detail(store: GraphStore, key: str) -> dict[str, Any] | None:
    d = store.get_node(key, cap=_UNCAPPED, triples=_UNCAPPED)
    if d is None:
        return None
    out = d.model_dump()
    out["node"] = node_fields(d.node)
    return out


def compare_stores(a: GraphStore, b: GraphStore, *, sample: int = 200, seed: int = 0,
                   progress: Callable[[str], None] | None = None) -> GraphComparison:
    """Every difference between graph `a` (the source) and `b` (its copy); see the module docstring."""
    out = GraphComparison()
    say = progress or (lambda _msg: None)
    ca, cb = count_figures(a.stats()), count_figures(b.stats())
    for name in sorted(ca.keys() | cb.keys()):
        out.counts[name] = (ca.get(name, 0), cb.get(name, 0))
        if ca.get(name, 0) != cb.get(name, 0):
            out.differ(f"count {name}: {ca.get(name, 0)} != {cb.get(name, 0)}")
    say("counts compared")

    nodes_a = {n.key: n for n in a.iter_nodes()}
    nodes_b = {n.key: n for n in b.iter_nodes()}
    out.nodes_compared = _compare_maps(out, "node", nodes_a, nodes_b, node_fields)
    papers_a = {p.paper_id: p for p in a.iter_papers()}
    papers_b = {p.paper_id: p for p in b.iter_papers()}
    out.papers_compared = _compare_maps(out, "paper", papers_a, papers_b, lambda p: p.model_dump())
    say(f"{out.nodes_compared} nodes and {out.papers_compared} papers compared")

    rng = random.Random(seed)
    keys = rng.sample(sorted(nodes_a), min(sample, len(nodes_a)))
    out.nodes_sampled = len(keys)
    for key in keys:
        da, db = _detail(a, key), _detail(b, key)
        if db is None:
            out.differ(f"get_node {key!r} missing from the copy")
            continue
        assert da is not None
        for f in da:
            if da[f] != db.get(f):
                out.differ(f"get_node {key!r} {f} differ: {len(da[f]) if isinstance(da[f], list) else da[f]!r} "
                           f"vs {len(db[f]) if isinstance(db.get(f), list) else db.get(f)!r}")
    edges_a, edges_b = _edges(a, keys), _edges(b, keys)
    for key in keys if edges_a and edges_b else []:
        ea, eb = edges_a[key], edges_b[key]
        out.relationships_compared += len(ea)
        if ea != eb:
            gone, extra = sorted(set(ea) - set(eb)), sorted(set(eb) - set(ea))
            out.differ(f"relationships of {key!r}: {len(ea)} vs {len(eb)}; missing from the copy "
                       f"{gone[:2]}, only in the copy {extra[:2]}")
    say(f"{out.nodes_sampled} sampled nodes compared with {out.relationships_compared} relationships")

    pids = rng.sample(sorted(papers_a), min(sample, len(papers_a)))
    out.papers_sampled = len(pids)
    for pid in pids:
        ta = [t.model_dump() for t in a.paper_triples(pid)]
        tb = [t.model_dump() for t in b.paper_triples(pid)]
        out.triples_compared += len(ta)
        if ta != tb:
            first = next((x for x in zip(ta, tb, strict=False) if x[0] != x[1]), None)
            out.differ(f"triples of paper {pid!r}: {len(ta)} vs {len(tb)}; first differing {first}")
    say(f"{out.papers_sampled} sampled papers compared with {out.triples_compared} triples")
    return out
