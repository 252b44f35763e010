"""The GraphStore logic both backends share: row shaping, batching, sampling, paging, model mapping.

A backend implements the abstract primitives — `_read`, `_write_tx`, `ensure_schema`, `_drop_all`,
`ping`, `close` — and its connection handling; everything else (which statement, which parameters, how results become
models) lives here so the two backends cannot drift apart. Statements come from graph.queries.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from motivgraph.choices import NODE_TYPES, NodeType
from motivgraph.graph import queries as Q
from motivgraph.graph.identity import LABELS, TYPE_OF_LABEL, normalize_name, split_key, stable_random
from motivgraph.graph.models import (
    Evidence,
    GraphStats,
    NodeDetail,
    NodeEvidence,
    NodeIn,
    NodePage,
    NodeRecord,
    NodeRef,
    PaperPage,
    PaperRecord,
    PaperRef,
    ParentIn,
    Quote,
    RemovalResult,
    TripleEvidence,
    TripleFilter,
    TripleIn,
    TriplePage,
    TripleView,
    UpsertResult,
)
from motivgraph.limits import MAX_QUOTE_CHARS, MAX_QUOTES_PER_ELEMENT

log = logging.getLogger(__name__)

Row = dict[str, Any]
Statement = tuple[str, dict[str, Any]]

NEIGHBOUR_CAP = 100
NODE_TRIPLES_CAP = 50
SOURCES_CAP = 500
# How long a node count may size random_nodes' first window. The count only picks that window's width, which
# is doubled until it holds n nodes, and the n nodes returned do not depend on the width (see random_node_keys),
# so a count a few seconds old changes how many range scans a call takes, never its answer. Counting on every
# call was three of random_nodes' five round trips. A zero is never reused: a graph just filled is seen at once.
COUNT_HINT_TTL_S = 5.0
MAX_PAGE = 1000


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _labels(types: Sequence[str] | None) -> tuple[str, ...]:
    if not types:
        return Q.NODE_LABELS
    out: list[str] = []
    for t in types:
        lb = LABELS.get(str(t).strip().lower())
        if lb is None:
            raise ValueError(f"unknown node type {t!r}; expected problem, challenge or solution")
        if lb not in out:
            out.append(lb)
    return tuple(out)


def _type_of(key: str) -> str:
    return key.partition(":")[0]


def _norm_or_none(name: str) -> str | None:
    try:
        return normalize_name(name)
    except ValueError:
        return None


def to_ref(d: Row) -> NodeRef:
    return NodeRef(
        key=d["key"],
        type=_type_of(d["key"]),
        name=d.get("name") or "",
        description=d.get("description") or "",
        level=int(d.get("level") or 0),
    )


def to_record(d: Row) -> NodeRecord:
    return NodeRecord(
        key=d["key"],
        type=_type_of(d["key"]),
        name=d.get("name") or "",
        description=d.get("description") or "",
        level=int(d.get("level") or 0),
        aliases=list(d.get("aliases") or []),
        sources=list(d.get("sources") or []),
        created_at=d.get("created_at"),
    )


def to_paper(d: Row) -> PaperRecord:
    return PaperRecord(
        paper_id=d["paper_id"],
        title=d.get("title") or "",
        abstract=d.get("abstract") or "",
        year=int(d["year"]) if d.get("year") is not None else None,
        venue=d.get("venue"),
        authors=list(d.get("authors") or []),
        source_path=d.get("source_path"),
        sha256=d.get("sha256"),
        provenance=d.get("provenance"),  # a JSON string as stored (PaperRecord reads it)
    )


def _papers_of(stated: Iterable[str], problem_key: str) -> list[str]:
    prefix = problem_key + Q.STATED_SEP
    return sorted({x[len(prefix) :] for x in stated or [] if x.startswith(prefix)})


def to_triple(row: Row) -> TripleView:
    p = to_ref(row["p"])
    return TripleView(problem=p, challenge=to_ref(row["c"]), solution=to_ref(row["s"]),
                      papers=_papers_of(row.get("stated") or [], p.key))


def _dedupe_refs(items: Iterable[Row]) -> list[NodeRef]:
    seen: dict[str, NodeRef] = {}
    for d in items or []:
        if d and d.get("key") and d["key"] not in seen:
            seen[d["key"]] = to_ref(d)
    return sorted(seen.values(), key=lambda r: r.key)


def evidence_row(quotes: Sequence[Quote]) -> Row:
    """The STATES edge's evidence properties for these quotes (queries.py: parallel lists, no nulls)."""
    return {
        "verified": any(q.verified for q in quotes),
        "quotes": [q.text for q in quotes],
        "quote_verified": [bool(q.verified) for q in quotes],
        "quote_sections": [q.section or "" for q in quotes],
        "quote_pages": [q.page or 0 for q in quotes],
        "quote_starts": [-1 if q.start is None else q.start for q in quotes],
        "quote_ends": [-1 if q.end is None else q.end for q in quotes],
        "quote_reasons": [q.reason or "" for q in quotes],
    }


def quotes_of(ev: Row | None) -> list[Quote]:
    """The quotes stored on a STATES edge (`evidence_row` read back); [] for an edge written before
    evidence was stored. A list cut short by a hand edit in the database is read as far as it goes."""
    if not ev or not ev.get("quotes"):
        return []
    texts = list(ev["quotes"])[:MAX_QUOTES_PER_ELEMENT]
    n = len(texts)

    def col(name: str, default: Any) -> list[Any]:
        vals = list(ev.get(name) or [])
        return vals + [default] * (n - len(vals))

    ver, sec, page = col("quote_verified", False), col("quote_sections", ""), col("quote_pages", 0)
    start, end, why = col("quote_starts", -1), col("quote_ends", -1), col("quote_reasons", "")
    out: list[Quote] = []
    for i, text in enumerate(texts):
        if not text or not str(text).strip():
            continue
        out.append(Quote(
            text=str(text)[:MAX_QUOTE_CHARS], verified=bool(ver[i]), section=sec[i] or None,
            page=int(page[i]) if page[i] and int(page[i]) > 0 else None,
            start=int(start[i]) if start[i] is not None and int(start[i]) >= 0 else None,
            end=int(end[i]) if end[i] is not None and int(end[i]) >= 0 else None,
            reason=why[i] or None,
        ))
    return out


def encode_cursor(*keys: str) -> str:
    """An opaque page cursor: the sort keys of the last item of a page."""
    return base64.urlsafe_b64encode(json.dumps(list(keys)).encode()).decode().rstrip("=")


def decode_cursor(cursor: str, n: int = 3) -> tuple[str, ...]:
    """The n sort keys in a cursor of `encode_cursor`; ValueError for anything else."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        keys = json.loads(raw)
        if not (isinstance(keys, list) and len(keys) == n and all(isinstance(x, str) for x in keys)):
            raise TypeError
        return tuple(keys)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError) as e:
        raise ValueError(f"invalid cursor {cursor[:40]!r}: pass back a next_cursor from a previous page") from e


class CypherGraphStore(ABC):
    """Everything of the GraphStore protocol, on top of `_read` and `_write_tx`."""

    backend: str = "cypher"
    # A full-text index over norm_aliases that find_nodes looks aliases up in (Q.find_nodes), for a backend
    # whose property indexes do not index list elements; None: `$norm IN n.norm_aliases` is indexed.
    alias_index: str | None = None

    def __init__(self, *, batch_size: int = 500) -> None:
        self.batch_size = batch_size
        self._count_hints: dict[tuple[str, ...], tuple[int, float]] = {}

    # ---------------------------------------------------------------------- backend primitives
    @abstractmethod
    def _read(self, query: str, params: dict[str, Any] | None = None) -> list[Row]:
        raise NotImplementedError

    @abstractmethod
    def _write_tx(self, statements: Sequence[Statement]) -> list[list[Row]]:
        """Run the statements in order (in one transaction where the backend has them)."""
        raise NotImplementedError

    def _write(self, query: str, params: dict[str, Any] | None = None) -> list[Row]:
        return self._write_tx([(query, params or {})])[0]

    @abstractmethod
    def ensure_schema(self) -> None:
        raise NotImplementedError

    @abstractmethod
    def _drop_all(self) -> None:
        """Delete every node and relationship of this graph (schema may go too)."""
        raise NotImplementedError

    def clear(self) -> None:
        """Delete every node and relationship, keep the schema, and move node_version past its old
        value so a vector index built before the clear can never look current afterwards."""
        version = self.node_version()
        self._drop_all()
        self.ensure_schema()
        self._write(Q.SET_NODE_VERSION, {"version": version + 1, **self._meta()})

    @abstractmethod
    def close(self) -> None:
        raise NotImplementedError

    @abstractmethod
    def ping(self) -> None:
        raise NotImplementedError

    # ---------------------------------------------------------------------- helpers
    @staticmethod
    def _first(rows: list[Row], col: str, default: Any = 0) -> Any:
        if not rows or rows[0].get(col) is None:
            return default
        return rows[0][col]

    def _meta(self) -> dict[str, Any]:
        return {"meta_id": Q.META_ID}

    # ---------------------------------------------------------------------- writes
    def upsert_papers(self, papers: Sequence[PaperRecord]) -> int:
        """MERGE papers by paper_id and set their metadata. Returns the number of new Paper nodes."""
        created = 0
        for chunk in _chunks(list({p.paper_id: p for p in papers}.values()), self.batch_size):
            # provenance as a JSON string: a property cannot be a map (Neo4j)
            rows = [{**p.model_dump(), "provenance": json.dumps(p.provenance, sort_keys=True)} for p in chunk]
            res = self._write(Q.UPSERT_PAPERS, {"rows": rows})
            created += int(self._first(res, "created"))
        return created

    def upsert_triples(self, triples: Sequence[TripleIn]) -> UpsertResult:
        # Shape (and so validate) every batch before the first write: bad input writes nothing.
        batches = [self._triple_statements(chunk) for chunk in _chunks(list(triples), self.batch_size)]
        total = UpsertResult()
        for stmts in batches:
            total = self._add_counts(total, self._write_tx(stmts))
        return total

    def _triple_statements(self, chunk: Sequence[TripleIn]) -> list[Statement]:
        """Shape one batch: nodes (one row per key), edges, provenance — validated before any write."""
        nodes: dict[str, dict[str, Row]] = {lb: {} for lb in Q.NODE_LABELS}
        has_challenge: dict[tuple[str, str], Row] = {}
        solved_by: dict[tuple[str, str], Row] = {}
        states: dict[str, dict[tuple[str, int, str], Row]] = {lb: {} for lb in Q.NODE_LABELS}
        papers: list[str] = []
        for t in chunk:
            keys: dict[str, str] = {}
            for role in NODE_TYPES:
                node: NodeIn = getattr(t, role)
                key = self._key_for(node, role)
                keys[role] = key
                lb = LABELS[role]
                row = nodes[lb].get(key)
                if row is None:
                    row = nodes[lb][key] = {
                        "key": key, "name": node.name, "names": [], "norms": [], "description": "",
                        "papers": [], "level": 0, "rnd": stable_random(key),
                    }
                if node.name not in row["names"]:
                    row["names"].append(node.name)
                norm = _norm_or_none(node.name)
                if norm and norm not in row["norms"]:
                    row["norms"].append(norm)
                if not row["description"] and node.description:
                    row["description"] = node.description
                if t.paper_id not in row["papers"]:
                    row["papers"].append(t.paper_id)
                states[lb][(t.paper_id, t.index, role)] = {
                    "paper_id": t.paper_id, "key": key, "triple_index": t.index, "role": role,
                    "section": t.section, "extractor": t.extractor, "mention": node.name,
                    "ev": evidence_row(t.evidence.of(role)),
                }
            if t.paper_id not in papers:
                papers.append(t.paper_id)
            hc = has_challenge.setdefault((keys["problem"], keys["challenge"]),
                                          {"pk": keys["problem"], "ck": keys["challenge"], "papers": []})
            if t.paper_id not in hc["papers"]:
                hc["papers"].append(t.paper_id)
            sb = solved_by.setdefault((keys["challenge"], keys["solution"]),
                                      {"ck": keys["challenge"], "sk": keys["solution"], "papers": [],
                                       "problems": [], "stated": []})
            for field, value in (("papers", t.paper_id), ("problems", keys["problem"]),
                                 ("stated", keys["problem"] + Q.STATED_SEP + t.paper_id)):
                if value not in sb[field]:
                    sb[field].append(value)

        now = _now()
        stmts: list[Statement] = [(Q.ENSURE_PAPERS, {"ids": papers})]
        for lb in Q.NODE_LABELS:
            if nodes[lb]:
                stmts.append((Q.upsert_nodes(lb), {"rows": list(nodes[lb].values()), "now": now, **self._meta()}))
        stmts.append((Q.UPSERT_HAS_CHALLENGE, {"rows": list(has_challenge.values())}))
        stmts.append((Q.UPSERT_SOLVED_BY, {"rows": list(solved_by.values()), **self._meta()}))
        for lb in Q.NODE_LABELS:
            if states[lb]:
                stmts.append((Q.upsert_states(lb), {"rows": list(states[lb].values())}))
        return stmts

    @staticmethod
    def _key_for(node: NodeIn, node_type: str) -> str:
        if node.key is None:
            return node.key_for(node_type)  # ValueError for a name with no letters/digits
        kt, _ = split_key(node.key)
        if kt != node_type:
            raise ValueError(f"node key {node.key!r} given for a {node_type}")
        return node.key

    @staticmethod
    def _add_counts(total: UpsertResult, results: list[list[Row]]) -> UpsertResult:
        nodes = rels = aliases = 0
        for rows in results:
            if not rows:
                continue
            r = rows[0]
            if "aliases_added" in r:  # a node statement
                nodes += int(r.get("created") or 0)
                aliases += int(r.get("aliases_added") or 0)
            elif "created" in r:
                rels += int(r.get("created") or 0)
        return UpsertResult(
            nodes_created=total.nodes_created + nodes,
            relationships_created=total.relationships_created + rels,
            aliases_added=total.aliases_added + aliases,
        )

    def add_parents(self, parents: Sequence[ParentIn]) -> UpsertResult:
        """MERGE parent nodes (level >= 1) and PARENT_OF edges to existing children of the same type.
        Children that do not exist are skipped with a warning."""
        total = UpsertResult()
        for chunk in _chunks(list(parents), self.batch_size):
            by_label: dict[str, tuple[dict[str, Row], list[Row]]] = {}
            for par in chunk:
                lb = LABELS[par.type]
                key = self._key_for(par.parent, par.type)
                node_rows, edge_rows = by_label.setdefault(lb, ({}, []))
                row = node_rows.setdefault(key, {
                    "key": key, "name": par.parent.name, "names": [], "norms": [],
                    "description": par.parent.description, "papers": [], "level": par.level,
                    "rnd": stable_random(key),
                })
                if par.parent.name not in row["names"]:
                    row["names"].append(par.parent.name)
                norm = _norm_or_none(par.parent.name)
                if norm and norm not in row["norms"]:
                    row["norms"].append(norm)
                for child in dict.fromkeys(par.children):
                    ct, _ = split_key(child)
                    if ct != par.type:
                        raise ValueError(f"parent {key!r} cannot have child {child!r} of another type")
                    if child != key:
                        edge_rows.append({"parent": key, "child": child})
            stmts: list[Statement] = []
            now = _now()
            for lb, (node_rows, _) in by_label.items():
                stmts.append((Q.upsert_nodes(lb), {"rows": list(node_rows.values()), "now": now, **self._meta()}))
            for lb, (_, edge_rows) in by_label.items():
                stmts.append((Q.upsert_parent_edges(lb), {"rows": edge_rows}))
            results = self._write_tx(stmts)
            total = self._add_counts(total, results)
            n_edges = sum(len(e) for _, e in by_label.values())
            matched = sum(int(self._first(r, "matched")) for r in results[len(by_label):])
            if matched < n_edges:
                log.warning("add_parents: %d of %d child keys do not exist; their edges were skipped",
                            n_edges - matched, n_edges)
        return total

    def restore_nodes(self, nodes: Sequence[NodeRecord]) -> int:
        """Write nodes exactly as given (import). Returns the number of nodes created."""
        created = 0
        now = _now()
        for chunk in _chunks(list({n.key: n for n in nodes}.values()), self.batch_size):
            by_label: dict[str, list[Row]] = {}
            for n in chunk:
                node_type, _ = split_key(n.key)
                norms: list[str] = []
                for name in (n.name, *n.aliases):
                    norm = _norm_or_none(name)
                    if norm and norm not in norms:
                        norms.append(norm)
                by_label.setdefault(LABELS[node_type], []).append({
                    "key": n.key, "name": n.name, "description": n.description, "aliases": list(n.aliases),
                    "norms": norms, "level": n.level, "created_at": n.created_at, "sources": list(n.sources),
                    "rnd": stable_random(n.key),
                })
            stmts = [(Q.restore_nodes(lb), {"rows": rows, "now": now, **self._meta()})
                     for lb, rows in by_label.items()]
            for res in self._write_tx(stmts):
                created += int(self._first(res, "created"))
        return created

    # ---------------------------------------------------------------------- removal
    def remove_paper(self, paper_id: str, *, drop_paper: bool = True) -> RemovalResult:
        """Take one paper's contribution out of the graph: its STATES edges; its id from the `sources`
        of the nodes and edges it stated; the aliases only its mentions gave a node; the triples only
        it stated; the nodes no paper states any more (with their PARENT_OF edges) and parents left
        with no child, level by level. `drop_paper` also deletes the Paper node (`papers delete`);
        without it the Paper node stays for a re-extraction. Idempotent (a second call finds nothing
        stated and changes nothing), so a removal cut short by a crash converges when run again."""
        rows = self._read(Q.PAPER_STATES, {"paper_id": paper_id})
        res = self._take_out(paper_id, rows, [])
        if drop_paper:
            res.paper_removed = int(self._first(self._write(Q.DELETE_PAPER, {"paper_id": paper_id}), "deleted")) > 0
        return res

    def retain_paper_triples(self, paper_id: str, triples: Sequence[TripleIn]) -> RemovalResult:
        """Take out every statement of the paper that `triples` (its triples as just written) do not make:
        STATES edges at other indexes or to other nodes, with their quotes, and then, as `remove_paper`
        does, the paper's part in the nodes and edges only those statements gave, and the nodes and
        parents left stated by no paper. The Paper node and the kept statements stay untouched."""
        keep = {(t.index, role, self._key_for(getattr(t, role), role)) for t in triples if t.paper_id == paper_id
                for role in NODE_TYPES}
        rows = self._read(Q.PAPER_STATES, {"paper_id": paper_id})
        gone = [r for r in rows if (int(r["triple_index"]), r["role"], r["key"]) not in keep]
        if not gone:
            return RemovalResult(paper_id=paper_id)
        kept = [r for r in rows if (int(r["triple_index"]), r["role"], r["key"]) in keep]
        return self._take_out(paper_id, gone, kept)

    def _take_out(self, paper_id: str, gone: list[Row], kept: list[Row]) -> RemovalResult:
        """Delete the `gone` STATES rows of a paper (PAPER_STATES rows) and what only they gave the graph;
        `kept` are the paper's statements that stay (none: the whole contribution goes)."""
        res = RemovalResult(paper_id=paper_id)

        def roles_by_index(rs: list[Row]) -> dict[int, dict[str, set[str]]]:
            out: dict[int, dict[str, set[str]]] = {}
            for r in rs:
                out.setdefault(int(r["triple_index"]), {}).setdefault(r["role"], set()).add(r["key"])
            return out

        Pairs = set[tuple[str, str]]

        def stated(rs: list[Row]) -> tuple[Pairs, Pairs, set[tuple[str, str, str]]]:
            """The (problem, challenge) and (challenge, solution) pairs and the (problem, challenge, solution)
            triples these rows state (an index written twice with other nodes states each combination, as
            the edges recorded it)."""
            hc: Pairs = set()
            cs: Pairs = set()
            pcs: set[tuple[str, str, str]] = set()
            for t in roles_by_index(rs).values():
                for ck in t.get("challenge", ()):
                    hc.update((pk, ck) for pk in t.get("problem", ()))
                    cs.update((ck, sk) for sk in t.get("solution", ()))
                    pcs.update((pk, ck, sk) for pk in t.get("problem", ()) for sk in t.get("solution", ()))
            return hc, cs, pcs

        mentions: dict[str, set[str]] = {}
        for r in gone:
            mentions.setdefault(r["key"], set()).add(r.get("mention") or r["name"])
        kept_mentions: dict[str, set[str]] = {}
        for r in kept:
            kept_mentions.setdefault(r["key"], set()).add(r.get("mention") or r["name"])
        keys = sorted(mentions)
        res.nodes_touched = keys
        by_label: dict[str, list[str]] = {lb: [] for lb in Q.NODE_LABELS}
        for k in keys:
            by_label[LABELS[_type_of(k)]].append(k)
        rows: dict[str, list[Row]] = {}
        orphans: dict[str, list[str]] = {}
        for lb, lkeys in by_label.items():
            if not lkeys:
                continue
            for n in self._read(Q.node_provenance(lb), {"keys": lkeys, "paper_id": paper_id}):
                others = {m for m in n.get("mentions") or [] if m} | kept_mentions.get(n["key"], set())
                gone_names = mentions.get(n["key"], set()) - others
                aliases = [a for a in n.get("aliases") or [] if a not in gone_names]
                res.aliases_removed += len(n.get("aliases") or []) - len(aliases)
                norms: list[str] = []
                for name in (n.get("name") or "", *aliases):
                    norm = _norm_or_none(name)
                    if norm and norm not in norms:
                        norms.append(norm)
                sources = list(n.get("sources") or [])
                if n["key"] not in kept_mentions:  # the paper states the node no more
                    sources = [x for x in sources if x != paper_id]
                rows.setdefault(lb, []).append({"key": n["key"], "sources": sources, "aliases": aliases,
                                                "norms": norms})
                if not sources:
                    orphans.setdefault(lb, []).append(n["key"])
        all_hc, all_cs, all_pcs = stated(gone + kept)
        kept_hc, kept_cs, kept_pcs = stated(kept)
        hc_rows = [{"pk": pk, "ck": ck} for pk, ck in sorted(all_hc - kept_hc)]
        edge = {"paper_id": paper_id, "sep": Q.STATED_SEP, "suffix": Q.STATED_SEP + paper_id, **self._meta()}
        stmts: list[Statement]
        sb_stmt: list[Statement]
        if not kept:
            sb = sorted(all_cs)
            stmts = [(Q.DELETE_PAPER_STATES, {"paper_id": paper_id})]
            sb_stmt = [(Q.UNSTATE_SOLVED_BY, {"rows": [{"ck": ck, "sk": sk} for ck, sk in sb], **edge})] if sb else []
        else:
            states = [{"triple_index": int(r["triple_index"]), "role": r["role"], "key": r["key"]} for r in gone]
            stmts = [(Q.DELETE_STATES_AT, {"rows": states, "paper_id": paper_id})]
            drop: dict[tuple[str, str], list[str]] = {pair: [] for pair in sorted(all_cs - kept_cs)}
            for pk, ck, sk in sorted(all_pcs - kept_pcs):
                drop.setdefault((ck, sk), []).append(pk + Q.STATED_SEP + paper_id)
            pair_rows = [{"ck": ck, "sk": sk, "drop": d, "unsource": (ck, sk) not in kept_cs}
                         for (ck, sk), d in sorted(drop.items())]
            sb_stmt = [(Q.UNSTATE_SOLVED_BY_PAIRS, {"rows": pair_rows, **edge})] if pair_rows else []
        sb_rows = [{"ck": r["ck"], "sk": r["sk"]} for r in (sb_stmt[0][1]["rows"] if sb_stmt else [])]
        stmts += [(Q.set_provenance(lb), {"rows": lrows}) for lb, lrows in rows.items()]
        if hc_rows:
            stmts += [(Q.UNSTATE_HAS_CHALLENGE, {"rows": hc_rows, "paper_id": paper_id}),
                      (Q.DELETE_UNSTATED_HAS_CHALLENGE, {"rows": hc_rows})]
        if sb_stmt:
            stmts += [*sb_stmt, (Q.DELETE_UNSTATED_SOLVED_BY, {"rows": sb_rows})]
        first_orphan = len(stmts)
        stmts += [(Q.delete_orphans(lb), {"keys": okeys}) for lb, okeys in orphans.items()]
        results = self._write_tx(stmts)
        res.states_removed = int(self._first(results[0], "deleted"))
        if sb_stmt:
            res.triples_removed = int(self._first(results[first_orphan - 2], "removed"))
        removed = [r["key"] for rs in results[first_orphan:] for r in rs]
        removed += self._delete_childless_parents()
        if removed:
            # deleted nodes make an index built before this look stale, never silently current
            self._write(Q.BUMP_NODE_VERSION, self._meta())
        res.nodes_removed = sorted(removed)
        return res

    def papers_stating(self, keys: Sequence[str]) -> set[str]:
        """Ids of the papers that state any of these node keys (one read per label)."""
        by_label: dict[str, list[str]] = {}
        for k in dict.fromkeys(keys):
            by_label.setdefault(LABELS[_type_of(k)], []).append(k)
        return {r["paper_id"] for lb, lkeys in by_label.items()
                for r in self._read(Q.papers_stating(lb), {"keys": lkeys})}

    def _delete_childless_parents(self) -> list[str]:
        """Parents left with no child, repeated upwards until a level loses none."""
        removed: list[str] = []
        while True:
            batch = [r["key"] for lb in Q.PARENT_LABELS for r in self._write(Q.delete_childless_parents(lb))]
            if not batch:
                return removed
            removed += batch

    # ---------------------------------------------------------------------- reads: nodes
    def get_node(self, key: str, *, cap: int = NEIGHBOUR_CAP, triples: int = NODE_TRIPLES_CAP) -> NodeDetail | None:
        """The node with typed neighbours (each list sorted by key, capped at `cap`), source papers
        and up to `triples` stated triples through it, in one round trip. None when the key does
        not exist. `node.sources` is capped at SOURCES_CAP here (iter_nodes has them all)."""
        try:
            node_type, _ = split_key(key)
        except ValueError:
            return None
        params = {"key": key, "cap": cap, "limit": triples, "src_cap": SOURCES_CAP, "sep": Q.STATED_SEP}
        parts: dict[str, list[Any]] = {}
        for r in self._read(Q.node_detail(LABELS[node_type]), params):
            parts.setdefault(r["kind"], []).append(r["item"])
        if not parts.get("node"):
            return None
        papers: dict[str, PaperRef] = {}
        for p in parts.get("papers", []):
            if p and p.get("paper_id") and p["paper_id"] not in papers:
                papers[p["paper_id"]] = PaperRef(
                    paper_id=p["paper_id"], title=p.get("title") or "",
                    year=int(p["year"]) if p.get("year") is not None else None,
                )
        views = sorted((to_triple(t) for t in parts.get("triples", [])),
                       key=lambda t: (t.challenge.key, t.solution.key, t.problem.key))
        return NodeDetail(
            node=to_record(parts["node"][0]),
            parents=_dedupe_refs(parts.get("parents", [])),
            children=_dedupe_refs(parts.get("children", [])),
            problems=_dedupe_refs(parts.get("problems", [])),
            challenges=_dedupe_refs(parts.get("challenges", [])),
            solutions=_dedupe_refs(parts.get("solutions", [])),
            papers=sorted(papers.values(), key=lambda p: p.paper_id),
            triples=views,
        )

    def find_nodes(self, name_or_key: str, types: Sequence[NodeType] | None = None) -> list[NodeRecord]:
        """Exact key, or nodes whose name or an alias equals `name_or_key` after normalisation.
        Exact-name matches come before alias matches."""
        labels = _labels(types)
        text = " ".join(str(name_or_key).split())
        if not text:
            return []
        try:
            kt, _ = split_key(text)
        except ValueError:
            kt = None
        if kt is not None and LABELS[kt] in labels:
            rows = self._read(Q.get_node_by_key(LABELS[kt]), {"key": text})
            if rows:
                return [to_record(rows[0]["node"])]
        norm = _norm_or_none(text)
        if norm is None:
            return []
        params: dict[str, Any] = {"norm": norm}
        if self.alias_index is not None:
            params["norm_query"] = Q.lucene_term(norm)
        for lb in labels:
            params[f"key_{lb}"] = f"{TYPE_OF_LABEL[lb]}:{norm}"
        query = Q.find_nodes(labels, self.alias_index)
        recs = {r.key: r for r in (to_record(row["node"]) for row in self._read(query, params))}
        exact = {f"{TYPE_OF_LABEL[lb]}:{norm}" for lb in labels}
        return sorted(recs.values(), key=lambda r: (r.key not in exact, r.level, NODE_TYPES.index(r.type), r.key))

    def _label_counts(self, labels: Sequence[str]) -> dict[str, int]:
        return {lb: int(self._first(self._read(Q.count_label(lb)), "n")) for lb in labels}

    def _count_hint(self, labels: tuple[str, ...]) -> int:
        """The number of nodes with these labels, counted at most COUNT_HINT_TTL_S ago (never a reused 0)."""
        now = time.monotonic()
        hit = self._count_hints.get(labels)
        if hit is not None and hit[0] > 0 and now - hit[1] < COUNT_HINT_TTL_S:
            return hit[0]
        total = sum(self._label_counts(labels).values())
        self._count_hints[labels] = (total, now)
        return total

    def random_nodes(
        self, n: int, types: Sequence[NodeType] | None = None, seed: int | None = None
    ) -> list[NodeRecord]:
        """n distinct nodes (random_node_keys), read in one more round trip."""
        return [r for r in self.get_nodes(self.random_node_keys(n, types, seed)) if r is not None]

    def random_node_keys(self, n: int, types: Sequence[NodeType] | None = None, seed: int | None = None) -> list[str]:
        """Keys of n distinct nodes: the first n in `rnd` order from a start point drawn from Random(seed),
        wrapping around. The same seed on the same graph gives the same nodes, and a larger n extends the
        same sequence. One round trip in the common case (a window of (key, rnd); the count that sizes it
        is a recent one, COUNT_HINT_TTL_S).

        The answer does not depend on the window's width: the window ends with at least n rows (or spans
        everything), each label's first n rows of each part of it are fetched, and every node among the
        first n from the start in cyclic order lies in the window and within its own label's first n there."""
        labels = _labels(types)
        if n <= 0:
            return []
        start = random.Random(seed).random()
        total = self._count_hint(labels)
        if total == 0:
            return []
        query = Q.random_window(labels)
        rows = self._cyclic_window(
            start, n, total, lambda lo, hi, k: self._read(query, {"lo": lo, "hi": hi, "limit": k})
        )
        rows.sort(key=lambda r: ((float(r["rnd"]) - start) % 1.0, r["key"]))
        return [r["key"] for r in rows[:n]]

    def get_nodes(self, keys: Sequence[str]) -> list[NodeRecord | None]:
        """Full records for keys (any types), in the order given; None for a missing key."""
        by_label: dict[str, list[str]] = {lb: [] for lb in Q.NODE_LABELS}
        for k in keys:
            by_label[LABELS[_type_of(k)]].append(k)
        labels = tuple(lb for lb in Q.NODE_LABELS if by_label[lb])
        if not labels:
            return []
        found = {
            r["node"]["key"]: to_record(r["node"])
            for r in self._read(Q.records_by_keys(labels), {f"keys_{lb}": by_label[lb] for lb in labels})
        }
        return [found.get(k) for k in keys]

    @staticmethod
    def _cyclic_window(start: float, n: int, total: int, fetch: Any) -> list[Row]:
        """Rows of the smallest window [start, start + w) (mod 1) holding at least n nodes; w
        starts near the expected size and doubles, so a typical call is one or two range scans."""
        width = min(1.0, 3.0 * n / total + 1e-9)
        while True:
            hi = start + width
            rows = fetch(start, min(hi, 1.0), n)
            if hi > 1.0:
                rows += fetch(0.0, min(hi - 1.0, start), n)
            if len(rows) >= n or width >= 1.0:
                return rows
            width = min(1.0, width * 2)

    def random_triples(self, n: int, seed: int | None = None) -> list[TripleView]:
        """n stated triples, preferring one per challenge: challenges are taken in `rnd` order from a
        seeded start point (wrapping) and one of each challenge's triples is picked with the same
        seeded generator. Reproducible for a seed on the same graph."""
        if n <= 0:
            return []
        rng = random.Random(seed)
        start = rng.random()
        total = self._label_counts(("Challenge",))["Challenge"]
        if total == 0:
            return []
        limit = max(4 * n, 64)

        def fetch(lo: float, hi: float) -> list[Row]:
            return self._read(Q.RANDOM_TRIPLE_WINDOW, {"lo": lo, "hi": hi, "limit": limit})

        # The window must hold n distinct challenges with triples, not n rows: widen until it does.
        width = min(1.0, 3.0 * n / total + 1e-9)
        while True:
            hi = start + width
            rows = fetch(start, min(hi, 1.0))
            if hi > 1.0:
                rows += fetch(0.0, min(hi - 1.0, start))
            if len({r["ck"] for r in rows}) >= n or width >= 1.0 or len(rows) >= limit:
                break
            width = min(1.0, width * 2)
        rows.sort(key=lambda r: ((float(r["rnd"]) - start) % 1.0, r["ck"], r["sk"], r["pk"]))
        groups: dict[str, list[Row]] = {}
        for r in rows:
            groups.setdefault(r["ck"], []).append(r)
        picked: list[Row] = []
        rest: list[Row] = []
        for group in groups.values():
            i = rng.randrange(len(group))
            picked.append(group[i])
            rest.extend(group[:i] + group[i + 1 :])
        chosen = [{"i": i, "ck": r["ck"], "sk": r["sk"], "pk": r["pk"]} for i, r in enumerate((picked + rest)[:n])]
        full = self._read(Q.TRIPLES_BY_KEYS, {"rows": chosen, "sep": Q.STATED_SEP})
        return [to_triple(r) for r in sorted(full, key=lambda r: int(r["i"]))]

    def iter_nodes(self, types: Sequence[NodeType] | None = None, batch: int = 5000) -> Iterator[NodeRecord]:
        """Every node of the given types, label by label in key order, fetched `batch` at a time."""
        for lb in _labels(types):
            after = ""
            while True:
                rows = self._read(Q.iter_nodes(lb), {"after": after, "limit": batch})
                for r in rows:
                    yield to_record(r["node"])
                if len(rows) < batch:
                    break
                after = rows[-1]["node"]["key"]

    def page_nodes(self, types: Sequence[NodeType] | None = None, cursor: str | None = None,
                   limit: int = 50) -> NodePage:
        """Nodes of the given types, label by label in key order (keyset paging: a page costs the same
        wherever it starts); ValueError for a malformed cursor or an unknown type."""
        labels = _labels(types)
        limit = max(1, min(int(limit), 1000))
        label, after = decode_cursor(cursor, 2) if cursor else (labels[0], "")
        if label not in labels:
            raise ValueError(f"invalid cursor {cursor!r}: it belongs to another type filter")
        items: list[NodeRecord] = []
        for lb in labels[labels.index(label):]:
            rows = self._read(Q.iter_nodes(lb), {"after": after if lb == label else "", "limit": limit - len(items)})
            items += [to_record(r["node"]) for r in rows]
            if len(items) == limit:
                last_lb = lb
                break
        else:
            return NodePage(items=items, next_cursor=None)
        return NodePage(items=items, next_cursor=encode_cursor(last_lb, items[-1].key))

    # ---------------------------------------------------------------------- reads: papers
    def page_papers(self, cursor: str | None = None, limit: int = 50) -> PaperPage:
        """Papers in id order, keyset-paged; ValueError for a malformed cursor."""
        limit = max(1, min(int(limit), 1000))
        (after,) = decode_cursor(cursor, 1) if cursor else ("",)
        items = [to_paper(r["paper"]) for r in self._read(Q.ITER_PAPERS, {"after": after, "limit": limit})]
        return PaperPage(items=items, next_cursor=encode_cursor(items[-1].paper_id) if len(items) == limit else None)

    def get_paper(self, paper_id: str) -> PaperRecord | None:
        rows = self._read(Q.GET_PAPER, {"paper_id": paper_id})
        return to_paper(rows[0]["paper"]) if rows else None

    def iter_papers(self, batch: int = 5000) -> Iterator[PaperRecord]:
        after = ""
        while True:
            rows = self._read(Q.ITER_PAPERS, {"after": after, "limit": batch})
            for r in rows:
                yield to_paper(r["paper"])
            if len(rows) < batch:
                break
            after = rows[-1]["paper"]["paper_id"]

    def paper_triples(self, paper_id: str) -> list[TripleIn]:
        """The triples a paper states, rebuilt from its STATES provenance: each node as the paper spelt
        it (`name`), pinned to the node it was merged into (`key`). Incomplete triples are left out."""
        by_index: dict[int, dict[str, Row]] = {}
        for r in self._read(Q.PAPER_STATES, {"paper_id": paper_id}):
            by_index.setdefault(int(r["triple_index"]), {})[r["role"]] = r
        out: list[TripleIn] = []
        for idx in sorted(by_index):
            roles = by_index[idx]
            if set(roles) != set(NODE_TYPES):
                continue
            any_row = roles["problem"]
            out.append(TripleIn(
                paper_id=paper_id, index=idx, section=any_row.get("section"),
                extractor=any_row.get("extractor") or "llm",
                evidence=Evidence(**{role: quotes_of(roles[role].get("ev")) for role in NODE_TYPES}),
                **{role: NodeIn(name=roles[role].get("mention") or roles[role]["name"],
                                description=roles[role].get("description") or "", key=roles[role]["key"])
                   for role in NODE_TYPES},
            ))
        return out

    def node_evidence(self, keys: Sequence[str], *, per_node: int = 5) -> dict[str, list[NodeEvidence]]:
        """Per key, up to `per_node` papers' statements of the node with their quotes, verified
        statements first (one read per label; unknown or malformed keys map to [])."""
        out: dict[str, list[NodeEvidence]] = {}
        by_label: dict[str, list[str]] = {}
        for k in dict.fromkeys(keys):
            out[k] = []
            lb = LABELS.get(_type_of(k))
            if lb is not None:
                by_label.setdefault(lb, []).append(k)
        if per_node <= 0:
            return out
        for lb, lkeys in by_label.items():
            for r in self._read(Q.node_evidence(lb), {"keys": lkeys, "per": int(per_node)}):
                out[r["key"]] = [
                    NodeEvidence(
                        paper_id=i["paper_id"], title=i.get("title") or "",
                        year=int(i["year"]) if i.get("year") is not None else None,
                        triple_index=int(i["triple_index"]), element=i["role"], mention=i.get("mention") or "",
                        section=i.get("section"), quotes=quotes_of(i.get("ev")),
                    )
                    for i in r.get("items") or []
                ]
        return out

    def triple_evidence(self, triples: Sequence[tuple[str, str, str]], *,
                        per_triple: int = 5) -> list[list[TripleEvidence]]:
        """Per (problem, challenge, solution) key triple, in the order given, up to `per_triple` papers'
        statements of it (the three STATES edges of one paper's triple) with their quotes; one read."""
        out: list[list[TripleEvidence]] = [[] for _ in triples]
        if not triples or per_triple <= 0:
            return out
        rows = [{"i": i, "pk": pk, "ck": ck, "sk": sk} for i, (pk, ck, sk) in enumerate(triples)]
        for r in self._read(Q.TRIPLE_EVIDENCE, {"rows": rows, "per": int(per_triple)}):
            out[int(r["i"])] = [
                TripleEvidence(
                    paper_id=i["paper_id"], title=i.get("title") or "",
                    year=int(i["year"]) if i.get("year") is not None else None,
                    triple_index=int(i["triple_index"]), section=i.get("section"),
                    evidence=Evidence(**{role: quotes_of(i.get(role)) for role in NODE_TYPES}),
                )
                for i in r.get("items") or []
            ]
        return out

    def iter_parents(self) -> Iterator[ParentIn]:
        for lb in Q.PARENT_LABELS:
            after = ""
            while True:
                rows = self._read(Q.iter_parents(lb), {"after": after, "limit": 1000})
                for r in rows:
                    yield ParentIn(
                        type=TYPE_OF_LABEL[lb],
                        parent=NodeIn(name=r["name"], description=r.get("description") or "", key=r["key"]),
                        level=max(1, int(r.get("level") or 1)),
                        children=sorted(r["children"]),
                    )
                if len(rows) < 1000:
                    break
                after = rows[-1]["key"]

    # ---------------------------------------------------------------------- reads: triples
    def page_triples(
        self, flt: TripleFilter | None = None, cursor: str | None = None, limit: int = 50
    ) -> TriplePage:
        """Stated triples in a stable order (by the challenge's `rnd`, then keys). `next_cursor`
        continues after the last item; None means this was the last page. ValueError on a malformed
        cursor or parent key. Without a filter
        a page reads a window of the rnd index, widened until the page is full; with one, the
        matches are found through it (index lookup or one scan of one label's names)."""
        flt = flt or TripleFilter()
        limit = max(1, min(int(limit), MAX_PAGE))
        ck, sk, pk = decode_cursor(cursor) if cursor else ("", "", "")
        # rnd is a pure function of the key, so the cursor carries no float: it is recomputed exactly.
        cr = stable_random(ck) if ck else -1.0
        params: dict[str, Any] = {"cr": cr, "ck": ck, "sk": sk, "pk": pk, "limit": limit + 1, "sep": Q.STATED_SEP}
        modes: dict[str, str | None] = {}
        for field in NODE_TYPES:
            value = getattr(flt, field)
            value = " ".join(value.split()) if value else None
            if not value:
                modes[field] = None
            elif _type_of(value) == field and self._is_key(value):
                modes[field] = "key"
                params[field] = value
            else:
                modes[field] = "name"
                params[f"{field}_lc"] = value.lower()
        parent_label = None
        if flt.parent:
            pt, _ = split_key(flt.parent)  # ValueError names the expected form
            if pt not in ("problem", "challenge"):
                return TriplePage(items=[], next_cursor=None)
            parent_label = LABELS[pt]
            params["parent"] = flt.parent
        if flt.paper_id:
            params["paper_id"] = flt.paper_id
        query = Q.page_triples(paper=bool(flt.paper_id), parent=parent_label, problem=modes["problem"],
                               challenge=modes["challenge"], solution=modes["solution"])
        anchored = bool(flt.paper_id or parent_label or any(modes.values()))
        if anchored:
            rows = self._read(query, params)
        else:
            total = max(1, self._label_counts(("Challenge",))["Challenge"])
            lo = max(cr, 0.0)
            width = 3.0 * (limit + 1) / total
            while True:
                hi = lo + width
                rows = self._read(query, {**params, "lo": lo, "hi": hi if hi < 1.0 else 2.0})
                if len(rows) > limit or hi >= 1.0:
                    break
                width *= 4
        items = [to_triple(r) for r in rows[:limit]]
        nxt = None
        if len(rows) > limit and items:
            last = items[-1]
            nxt = encode_cursor(last.challenge.key, last.solution.key, last.problem.key)
        return TriplePage(items=items, next_cursor=nxt)

    @staticmethod
    def _is_key(value: str) -> bool:
        try:
            split_key(value)
            return True
        except ValueError:
            return False

    # ---------------------------------------------------------------------- stats
    def stats(self) -> GraphStats:
        nodes = self._label_counts((*Q.NODE_LABELS, "Paper"))
        rels = {rt: int(self._first(self._read(Q.count_rel(rt)), "n")) for rt in Q.REL_TYPES}
        parents = {lb: int(self._first(self._read(Q.count_parents(lb)), "n")) for lb in Q.PARENT_LABELS}
        return GraphStats(
            nodes=nodes,
            relationships=rels,
            triples=self._triple_count(),
            node_version=self.node_version(),
            parents=parents,
        )

    def _triple_count(self) -> int:
        rows = self._read(Q.TRIPLE_COUNT, self._meta())
        if not rows:
            return 0  # no Meta node: nothing was ever written
        if rows[0].get("n") is None:
            return int(self._first(self._write(Q.TRIPLES_INIT, self._meta()), "n"))
        return int(rows[0]["n"])

    def node_version(self) -> int:
        return int(self._first(self._read(Q.NODE_VERSION, self._meta()), "node_version"))
