"""Hierarchical Parent Node Addition (seed appendix B.4), run separately for problems and challenges.

One pass over a working set S of same-type nodes at level L-1 creates parents at level L:
  - every node is embedded (the index's stored vectors when present, else MiniLM);
  - each node's k nearest neighbours (cosine, `parent_k`; a floor `parent_min_similarity`, 0 = none as
    in B.4) are computed once, up front;
  - focal nodes are taken in a deterministic order (sorted keys shuffled with `seed`, type, level);
    a focal node's candidates (V_filtered) are its neighbours still in S; with none it is just removed;
  - `parent_rule="paper"` (the default, B.4): the LLM judge answers one question, whether the focal
    node and all of V_filtered form a more general concept; yes makes a parent with PARENT_OF edges to
    the focal node and every candidate, and all of them leave S.
    `parent_rule="members"` (ours): the judge also picks which candidates the parent covers; only
    those leave S with the focal node. The offline clustering judge always picks (by similarity): it
    cannot judge the coherence of a whole group;
  - the pass ends when every focal node is processed. Passes repeat on the new parents up to
    `parent_levels` levels.

Concurrency without changing the result: focal nodes are dispatched ahead of their turn only when
their node set (focal + current candidates) is disjoint from the sets of every in-flight task and
every earlier, not yet dispatched focal node in the look-ahead window. Sets only shrink as S
shrinks, so such a node would have seen exactly the same candidates in the sequential algorithm:
the parents are identical to a one-at-a-time run, just produced with up to `concurrency` judge
calls in flight. Parents are written (and reported) in focal order. (Only by default: the `relaxed`
option gives up that identity for throughput, and its result depends on reply timing; see run_pass.)

Incremental: a pass works on the nodes of level L-1 that have no parent yet; those new since the last
completed pass are its focal nodes, and older parentless nodes take part as candidates only. With
`parent_join` (ours, off by default) new nodes first try to join an existing level-L parent (nearest
parent above `parent_join_min_similarity`, confirmed by the judge) before the pass.

Resume: the working set of an unfinished pass is kept in the decision log, and every verdict is
cached there by (type, level, focal, candidates), so an interrupted run replays to the same point
without asking again and continues.

Offline (no LLM): the judge adopts the candidates at least `offline_cluster_similarity` similar to
the focal node — a threshold clustering on the same kNN graph — and names the parent after the
member most central to the group ("<name> and related problems").
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import faiss
import numpy as np

from motivgraph.errors import BudgetExceeded, LLMError
from motivgraph.graph.identity import node_key
from motivgraph.graph.models import NodeIn, NodeRecord, NodeRef, ParentIn
from motivgraph.miner.decisions import DecisionLog, qhash
from motivgraph.miner.prompts import group_parent_messages, join_messages, parent_messages
from motivgraph.miner.schemas import JoinVerdict, NodeText, ParentVerdict

if TYPE_CHECKING:
    from motivgraph.choices import ParentKind
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.base import GraphStore
    from motivgraph.graph.vector_index import NodeIndex
    from motivgraph.llm import LLMClient
    from motivgraph.settings import MinerSettings

log = logging.getLogger(__name__)

ROLE = "parent_judge"
PLURAL = {"problem": "problems", "challenge": "challenges"}


# -- judges ------------------------------------------------------------------------------------------
class ParentJudge(Protocol):
    name: str
    # True: the verdict's `members` choose the children. False: a yes covers every candidate (B.4).
    picks_members: bool

    async def judge(
        self, kind: str, focal: NodeText, cands: Sequence[NodeText], sims: Sequence[float], fvec: np.ndarray,
        cvecs: np.ndarray,
    ) -> ParentVerdict: ...

    async def join(self, kind: str, parent: NodeText, node: NodeText, sim: float) -> bool: ...


class LLMParentJudge:
    """The `parent_judge` model. rule="paper" asks B.4's single question; "members" lets it pick."""

    def __init__(self, client: LLMClient, rule: str = "paper") -> None:
        if rule not in ("paper", "members"):
            raise ValueError(f"unknown parent rule {rule!r}; use 'paper' (B.4) or 'members'")
        self.client = client
        self.calls = 0
        self.picks_members = rule == "members"
        # Part of every cached verdict's key, so the two rules never answer for each other.
        self.name = "llm" if self.picks_members else "llm-group"

    async def judge(self, kind, focal, cands, sims, fvec, cvecs) -> ParentVerdict:
        # B.4: "It evaluates the semantic coherence and potential for forming a higher-level concept when
        # considering the focal node N and the nodes in V_filtered."
        self.calls += 1
        messages = parent_messages(kind, focal, cands) if self.picks_members else group_parent_messages(
            kind, focal, cands)
        return await self.client.structured(ROLE, messages, ParentVerdict)

    async def join(self, kind: str, parent: NodeText, node: NodeText, sim: float) -> bool:
        self.calls += 1
        v = await self.client.structured(ROLE, join_messages(kind, parent, node), JoinVerdict)
        return v.covers


class OfflineJudge:
    """Threshold clustering on the kNN graph; the parent is named after the most central member."""

    name = "offline"
    picks_members = True

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self.calls = 0

    async def judge(self, kind, focal, cands, sims, fvec, cvecs) -> ParentVerdict:
        members = [i + 1 for i, s in enumerate(sims) if s >= self.threshold]
        if not members:
            return ParentVerdict(create=False, reason=f"no candidate at similarity >= {self.threshold}")
        group = np.vstack([fvec[None, :], cvecs[[m - 1 for m in members]]])
        texts = [focal, *[cands[m - 1] for m in members]]
        centre = int(np.argmax((group @ group.T).mean(axis=1)))
        central = texts[centre]
        names = ", ".join(t.name for t in texts[:6])
        return ParentVerdict(
            create=True,
            members=members,
            name=f"{central.name} and related {PLURAL.get(kind, kind + 's')}",
            description=f"Group of {len(texts)} similar {PLURAL.get(kind, kind + 's')} around "
            f"'{central.name}': {names}.",
            reason=f"offline clustering: {len(members)} candidates at similarity >= {self.threshold}",
        )

    async def join(self, kind: str, parent: NodeText, node: NodeText, sim: float) -> bool:
        return sim >= self.threshold


# -- the algorithm ---------------------------------------------------------------------------------------
@dataclass
class Item:
    key: str
    node: NodeText


@dataclass
class PassResult:
    kind: str
    level: int
    parents: list[ParentIn] = field(default_factory=list)
    focal_processed: int = 0
    judge_calls: int = 0
    cache_hits: int = 0
    joined: int = 0
    adopted: int = 0
    failures: int = 0

    def as_dict(self) -> dict[str, int | str]:
        return {
            "type": self.kind, "level": self.level, "parents": len(self.parents), "focal": self.focal_processed,
            "judge_calls": self.judge_calls, "cache_hits": self.cache_hits, "joined": self.joined,
            "children": self.adopted, "failures": self.failures,
        }


def knn(vectors: np.ndarray, k: int, min_sim: float) -> list[list[tuple[int, float]]]:
    """Each row's k nearest other rows (cosine on unit vectors) at or above min_sim, best first."""

    n = vectors.shape[0]
    if n < 2:
        return [[] for _ in range(n)]
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    index = faiss.IndexFlatIP(x.shape[1])
    index.add(x)
    sims, ids = index.search(x, min(k + 1, n))
    out: list[list[tuple[int, float]]] = []
    for i in range(n):
        row = [(int(j), float(s)) for j, s in zip(ids[i], sims[i], strict=True) if j >= 0 and j != i and s >= min_sim]
        out.append(row[:k])
    return out


def focal_order(keys: Sequence[str], seed: int, kind: str, level: int) -> list[int]:
    idx = sorted(range(len(keys)), key=lambda i: keys[i])
    random.Random(f"{seed}:{kind}:{level}").shuffle(idx)
    return idx


async def run_pass(
    kind: str,
    level: int,
    items: Sequence[Item],
    vectors: np.ndarray,
    judge: ParentJudge,
    cfg: MinerSettings,
    decisions: DecisionLog | None,
    *,
    focal: set[int] | None = None,
    concurrency: int = 1,
    window: int | None = None,
    relaxed: bool = False,
    on_parent: Callable[[ParentIn], None] | None = None,
) -> PassResult:
    """One B.4 pass (see module doc). `focal`: indices allowed as focal nodes (default: all).
    `on_parent` is called for each parent as soon as it is known (in completion order).

    `relaxed=True` trades the order-exact result for throughput: any focal node not reserved by an
    in-flight task is dispatched, with the reserved nodes left out of its candidates (B.4 allows
    any selection order; the result then depends on reply timing, and a resumed run may ask some
    questions again because candidate lists differ)."""
    res = PassResult(kind=kind, level=level)
    keys = [it.key for it in items]
    nbrs = knn(vectors, cfg.parent_k, cfg.parent_min_similarity)
    order = [i for i in focal_order(keys, cfg.seed, kind, level) if focal is None or i in focal]
    working = set(range(len(items)))
    queue: deque[int] = deque(order)
    window = window or min(1024, max(64, 16 * concurrency))
    inflight: dict[asyncio.Task[tuple[int, list[int], ParentIn | None]], set[int]] = {}
    done_by_focal: dict[int, ParentIn] = {}
    position = {i: p for p, i in enumerate(order)}

    def candidates(i: int) -> list[tuple[int, float]]:
        return [(j, s) for j, s in nbrs[i] if j in working]

    async def process(i: int, cands: list[tuple[int, float]]) -> tuple[int, list[int], ParentIn | None]:
        cidx = [j for j, _ in cands]
        qkey = qhash("parent", kind, level, keys[i], [keys[j] for j in cidx], judge.name)
        cached = decisions.get_verdict(ROLE, qkey) if decisions else None
        if cached is not None:
            verdict = ParentVerdict(**cached)
            res.cache_hits += 1
        else:
            try:
                verdict = await judge.judge(
                    kind, items[i].node, [items[j].node for j in cidx], [s for _, s in cands], vectors[i],
                    vectors[cidx],
                )
            except BudgetExceeded:
                raise
            except LLMError as e:
                # Not cached: the pass is left unfinished, so a re-run asks this focal node again.
                log.warning("parent judge failed for %s (%s); no parent for it in this run", keys[i], e)
                res.failures += 1
                return i, [], None
            res.judge_calls += 1
            if decisions:
                decisions.put_verdict(ROLE, qkey, verdict.model_dump())
        if judge.picks_members:
            members = sorted({m for m in verdict.members if 1 <= m <= len(cidx)})
        else:
            # B.4: "Directed edges, labelled parent-of, are added from this new parent node to N and to every
            # node v in V_filtered" (any `members` a model adds anyway are ignored).
            members = list(range(1, len(cidx) + 1))
        if not (verdict.create and members and verdict.name.strip()):
            return i, [], None
        children = [i, *[cidx[m - 1] for m in members]]
        parent = ParentIn(
            type=kind,
            parent=NodeIn(name=verdict.name, description=verdict.description),
            level=level,
            children=[keys[c] for c in children],
        )
        return i, children, parent

    while queue or inflight:
        reserved: set[int] = set().union(*inflight.values()) if inflight else set()
        blocked: set[int] = set()
        scanned = 0
        for i in list(queue):
            if len(inflight) >= concurrency or scanned >= window:
                break
            scanned += 1
            if i not in working:
                queue.remove(i)
                continue
            if relaxed:
                if i in reserved:
                    continue
                cands = [(j, s) for j, s in candidates(i) if j not in reserved]
                span = {i, *(j for j, _ in cands)}
            else:
                cands = candidates(i)
                span = {i, *(j for j, _ in cands)}
                if span & reserved or span & blocked:
                    blocked |= span
                    continue
            queue.remove(i)
            res.focal_processed += 1
            if not cands:
                working.discard(i)
                continue
            task = asyncio.ensure_future(process(i, cands))
            inflight[task] = span
            reserved |= span
        if not inflight:
            continue
        finished, _ = await asyncio.wait(list(inflight), return_when=asyncio.FIRST_COMPLETED)
        for task in finished:
            inflight.pop(task)
            if task.exception() is not None:  # BudgetExceeded or a bug: stop the pass, resumable
                for other in inflight:
                    other.cancel()
                raise task.exception()  # type: ignore[misc]
            i, children, parent = task.result()
            working.discard(i)
            if parent is not None:
                working.difference_update(children)
                res.adopted += len(children)
                done_by_focal[i] = parent
                if on_parent:
                    on_parent(parent)
    res.parents = [done_by_focal[i] for i in sorted(done_by_focal, key=lambda i: position[i])]
    return res


# -- the graph-facing builder -------------------------------------------------------------------------------
class ParentBuilder:
    """Runs the passes against a GraphStore, writes parents as they are decided and indexes them."""

    def __init__(
        self,
        store: GraphStore,
        embedder: Embedder,
        cfg: MinerSettings,
        decisions: DecisionLog,
        *,
        client: LLMClient | None = None,
        index: NodeIndex | None = None,
        concurrency: int = 1,
        relaxed: bool = False,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.cfg = cfg
        self.decisions = decisions
        self.index = index
        self.concurrency = concurrency
        self.relaxed = relaxed
        self.judge: ParentJudge
        if client is not None and client.is_configured(ROLE):
            self.judge = LLMParentJudge(client, cfg.parent_rule)
        else:
            self.judge = OfflineJudge(cfg.offline_cluster_similarity)

    @property
    def offline(self) -> bool:
        return isinstance(self.judge, OfflineJudge)

    def _vectors(self, nodes: Sequence[NodeRecord]) -> np.ndarray:
        have = self.index.vectors_for([n.key for n in nodes]) if self.index is not None else {}
        missing = [n for n in nodes if n.key not in have]
        if missing:
            vecs = self.embedder.embed([NodeText(name=n.name, description=n.description).text() for n in missing])
            have = {**have, **{n.key: vecs[i] for i, n in enumerate(missing)}}
        if not nodes:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.vstack([have[n.key] for n in nodes]).astype(np.float32)

    def _unique_parent_name(self, kind: str, name: str, level: int, children: set[str]) -> str:
        """A parent must not take the key of a node at another level (or one of its own children)."""
        for candidate in (name, f"{name} (general)", f"{name} (level {level})"):
            key = node_key(kind, candidate)
            found = [n for n in self.store.find_nodes(key, [kind]) if n.key == key]  # type: ignore[list-item]
            if key not in children and (not found or found[0].level == level):
                return candidate
        return f"{name} ({qhash(kind, name, level)[:6]})"

    def _write(self, parent: ParentIn) -> ParentIn:
        name = self._unique_parent_name(parent.type, parent.parent.name, parent.level, set(parent.children))
        if name != parent.parent.name:
            parent = parent.model_copy(update={"parent": NodeIn(name=name, description=parent.parent.description)})
        self.store.add_parents([parent])
        return parent

    async def build(
        self, kinds: Sequence[ParentKind] = ("problem", "challenge"), levels: int | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> list[PassResult]:
        levels = levels or self.cfg.parent_levels
        out: list[PassResult] = []
        for kind in kinds:
            for level in range(1, levels + 1):
                r = await self.build_level(kind, level)
                out.append(r)
                if progress:
                    progress(f"{kind} level {level}: {len(r.parents)} parents, {r.joined} joined, "
                             f"{r.judge_calls} judge calls ({r.cache_hits} cached)")
                if not r.parents and not r.joined and level > 1:
                    break
        return out

    async def build_level(self, kind: ParentKind, level: int) -> PassResult:
        nodes_all = list(self.store.iter_nodes(types=[kind]))
        has_parent: set[str] = set()
        parents_here: list[NodeRecord] = []
        for p in self.store.iter_parents():
            if p.type == kind and p.level == level:
                has_parent.update(p.children)
        by_key = {n.key: n for n in nodes_all}
        parents_here = [n for n in nodes_all if n.level == level]
        orphans = sorted((n for n in nodes_all if n.level == level - 1 and n.key not in has_parent),
                         key=lambda n: n.key)
        version_before = self.store.node_version()
        run_key, members, resumed = self.decisions.open_parent_run(kind, level, [n.key for n in orphans])
        if resumed:
            orphans = [by_key[k] for k in members if k in by_key]
            log.info("resuming parent pass %s with %d nodes", run_key, len(orphans))
        seen_before = self.decisions.processed_members(kind, level)
        new_nodes = [n for n in orphans if n.key not in seen_before]
        res = PassResult(kind=kind, level=level)

        # Incremental: new nodes first try to join an existing parent of this level.
        joined: set[str] = set()
        if self.cfg.parent_join and parents_here and new_nodes and not resumed:
            joined = await self._join(kind, level, new_nodes, parents_here, res)
        work = [n for n in orphans if n.key not in joined]
        focal = {i for i, n in enumerate(work) if n.key not in seen_before and n.key not in joined}
        if len(work) >= 2 and focal:
            items = [Item(n.key, NodeText(name=n.name, description=n.description)) for n in work]
            vecs = self._vectors(work)
            written: list[ParentIn] = []
            r = await run_pass(
                kind, level, items, vecs, self.judge, self.cfg, self.decisions,
                focal=focal, concurrency=self.concurrency, relaxed=self.relaxed,
                on_parent=lambda p: written.append(self._write(p)),
            )
            r.joined = res.joined
            r.judge_calls += res.judge_calls
            res = r
            res.parents = written  # as written (names may have been disambiguated)
        if res.failures == 0:
            self.decisions.finish_parent_run(run_key)
        else:
            log.warning("%d judge calls failed in pass %s; re-run to retry them (the rest is cached)",
                        res.failures, run_key)
        self._index(kind, level, res.parents, version_before)
        return res

    async def _join(
        self, kind: str, level: int, nodes: list[NodeRecord], parents: list[NodeRecord], res: PassResult
    ) -> set[str]:
        pv = self._vectors(parents)
        nv = self._vectors(nodes)
        sims = nv @ pv.T
        joined: set[str] = set()
        for i, n in enumerate(nodes):
            j = int(np.argmax(sims[i]))
            s = float(sims[i, j])
            if s < self.cfg.parent_join_min_similarity:
                continue
            p = parents[j]
            qkey = qhash("join", kind, level, p.key, n.key, self.judge.name)
            cached = self.decisions.get_verdict("parent_join", qkey)
            if cached is not None:
                ok = bool(cached["covers"])
                res.cache_hits += 1
            else:
                try:
                    ok = await self.judge.join(
                        kind, NodeText(name=p.name, description=p.description),
                        NodeText(name=n.name, description=n.description), s,
                    )
                except BudgetExceeded:
                    raise
                except LLMError as e:
                    log.warning("parent join check failed for %s (%s); leaving it to the pass", n.key, e)
                    continue
                res.judge_calls += 1 if not self.offline else 0
                self.decisions.put_verdict("parent_join", qkey, {"covers": ok})
            if ok:
                self.store.add_parents([ParentIn(
                    type=kind, parent=NodeIn(name=p.name, description=p.description, key=p.key),
                    level=level, children=[n.key],
                )])
                joined.add(n.key)
        res.joined = len(joined)
        return joined

    def _index(self, kind: str, level: int, parents: Sequence[ParentIn], version_before: int) -> None:
        if self.index is None or not parents:
            return
        refs = {}
        for p in parents:
            key = p.parent.key_for(kind)
            refs[key] = NodeRef(key=key, type=kind, name=p.parent.name, description=p.parent.description,
                                level=level)
        try:
            self.index.add(list(refs.values()), from_version=version_before)
        except Exception as e:  # the graph holds the parents; `motivgraph reindex` can always rebuild
            log.warning("could not add %d parents to the node index (%s); run `motivgraph reindex`", len(refs), e)
