"""Identity resolution at ingest: decide, for every node a paper mentions, whether it is a node the
graph already has, across papers and runs.

Tiers, per mention of type T with name N and description D:
1. **Name.** Nodes of type T whose key or any alias normalises like N (`store.find_nodes`). If one
   exists, its description is compared with D (MiniLM cosine of the descriptions): at or above
   `homonym_min_desc_similarity` — or when either description is empty — the mention merges into
   the best-matching one (`exact` via the key, `alias` via an alias). Below it the two are
   homonyms: the mention becomes a new node named "N (qualifier)" — the qualifier is a keyphrase
   of D — and the decision is logged as `homonym`.
2. **Embedding.** Otherwise "N: D" is searched among existing nodes of type T in the NodeIndex (and
   among nodes this same paper just introduced). Score ≥ `merge_auto_threshold`: `auto_merge`.
   Score in [`merge_llm_threshold`, auto): the resolver LLM answers same/different with a reason
   (`llm_merge` / `llm_apart`; cached in the decision log, so a re-run asks nothing); with no
   resolver LLM the mention is kept apart (`band_no_llm`). Below: `new`.

A merged mention is written with the existing node's key, so the store adds N as an alias and keeps
the first description. Every decision — with both scores and the reason — goes to the decision log
(`miner.decisions`), which is how a merge is audited; `motivgraph merges undo` reverses one (`miner.merges`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from cachetools import LRUCache

from motivgraph.choices import NODE_TYPES
from motivgraph.errors import BudgetExceeded, LLMError
from motivgraph.graph.identity import node_key, normalize_name
from motivgraph.graph.models import NodeIn, NodeRecord
from motivgraph.graph.vector_index import node_text
from motivgraph.miner import decisions as D
from motivgraph.miner.decisions import DecisionLog, MergeDecision, qhash
from motivgraph.miner.heuristic import candidate_phrases
from motivgraph.miner.merges import is_undone
from motivgraph.miner.prompts import resolver_messages
from motivgraph.miner.schemas import ExtractedTriple, NodeText, SameConceptVerdict

if TYPE_CHECKING:
    from motivgraph.embeddings.base import Embedder
    from motivgraph.graph.base import GraphStore
    from motivgraph.graph.vector_index import NodeIndex
    from motivgraph.llm import LLMClient
    from motivgraph.settings import MinerSettings

log = logging.getLogger(__name__)

ROLE = "resolver"


@dataclass
class Resolved:
    """The node each slot of each triple resolved to, and the decisions taken."""

    nodes: list[dict[str, NodeIn]]  # per triple: kind -> NodeIn (key set when merging into an existing node)
    decisions: list[MergeDecision]
    new_nodes: list[NodeRecord]  # nodes this paper creates (to index after the upsert)
    # their embeddings of node_text(name, description), row-aligned: the index reuses them (no second pass)
    new_vectors: list[np.ndarray] = field(default_factory=list)

    @property
    def merges(self) -> int:
        return sum(1 for d in self.decisions if d.merged)


def _qualifier(name: str, description: str, embed: Callable[[Sequence[str]], np.ndarray]) -> str:
    """A short keyphrase of the description that the name does not already say (for homonyms)."""

    name_words = {w.casefold() for w in name.split()}
    cands = [
        p for p in candidate_phrases(description, 3)
        if not {w.casefold() for w in p.split()} <= name_words and len(p) <= 40
    ]
    if not cands:
        words = [w for w in description.split() if w.casefold() not in name_words and len(w) > 3][:2]
        return " ".join(words).strip(".,;:") or "variant"
    vecs = embed([description, *cands])
    best = int(np.argmax(vecs[1:] @ vecs[0]))
    return cands[best].lower()


class Resolver:
    def __init__(
        self,
        store: GraphStore,
        index: NodeIndex | None,
        embedder: Embedder,
        cfg: MinerSettings,
        decisions: DecisionLog,
        client: LLMClient | None = None,
    ) -> None:
        self.store = store
        self.index = index
        self.embedder = embedder
        self.cfg = cfg
        self.log = decisions
        self.client = client if client is not None and client.is_configured(ROLE) else None
        self.llm_calls = 0
        # Nodes created since the index last received them (the sink adds them in batches, because
        # every index write is a new generation on disk); searched alongside the index.
        self.recent: dict[str, list[tuple[str, np.ndarray]]] = {k: [] for k in NODE_TYPES}
        self._vec_memo: LRUCache[str, np.ndarray] = LRUCache(maxsize=50_000)
        self._memo_lock = threading.Lock()
        # texts asked for by in-flight papers, embedded together in one call by `_drain`
        self._queue: list[str] = []
        self._inflight: dict[str, asyncio.Future[None]] = {}
        self._drainer: asyncio.Future[None] | None = None

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings through a bounded memo (one model call for the texts it lacks): `prefetch` fills
        it outside the sink's lock, so the serialised `resolve` mostly looks vectors up."""
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        with self._memo_lock:  # the drainer runs in a worker thread
            todo = list(dict.fromkeys(t for t in texts if t not in self._vec_memo))
            if todo:
                for t, v in zip(todo, self.embedder.embed(todo), strict=True):
                    self._vec_memo[t] = v
            return np.vstack([self._vec_memo[t] for t in texts])

    async def _embed_async(self, texts: Sequence[str]) -> None:
        """Have these texts in the memo. Texts asked for while a model call runs are queued and go
        into the next call together, so the papers in flight share batches instead of embedding one
        text per call each."""
        with self._memo_lock:
            want = [t for t in dict.fromkeys(texts) if t not in self._vec_memo]
        if not want:
            return
        loop = asyncio.get_running_loop()
        waits = []
        for t in want:
            fut = self._inflight.get(t)
            if fut is None or fut.get_loop() is not loop:
                fut = self._inflight[t] = loop.create_future()
                self._queue.append(t)
            waits.append(fut)
        if self._drainer is None or self._drainer.done() or self._drainer.get_loop() is not loop:
            self._drainer = asyncio.ensure_future(self._drain())
        await asyncio.gather(*waits)

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            error: BaseException | None = None
            try:
                await asyncio.to_thread(self._embed, batch)
            except Exception as e:  # every waiter of this batch sees it; later batches still run
                error = e
            for t in batch:
                fut = self._inflight.pop(t, None)
                if fut is not None and not fut.done():
                    if error is None:
                        fut.set_result(None)
                    else:
                        fut.set_exception(error)

    async def prefetch(self, triples: Sequence[ExtractedTriple]) -> None:
        """Outside the lock: embed the mentions and the descriptions of same-name nodes (two batched
        model calls per paper, shared with the other papers in flight), and ask the resolver LLM
        about mentions in the band, caching the verdicts. `resolve` then decides with (almost) no
        model or LLM latency while it holds the lock; if the graph changed meanwhile it simply asks
        what is still missing."""
        mentions: dict[tuple[str, str], NodeText] = {}
        for t in triples:
            for part in NODE_TYPES:
                node: NodeText = getattr(t, part)
                mentions.setdefault((part, normalize_name(node.name)), node)
        if not mentions:
            return
        order = list(mentions)
        await self._embed_async([mentions[m].text() for m in order])

        def same_names() -> list[list[NodeRecord]]:
            return [self.store.find_nodes(mentions[m].name, [m[0]]) for m in order]  # type: ignore[list-item]

        found = await asyncio.to_thread(same_names)
        descs = [d for m, same in zip(order, found, strict=True) if same
                 for d in [mentions[m].description, *[n.description for n in same]] if d]
        if descs:
            await self._embed_async(descs)
        for m, same in zip(order, found, strict=True):
            if same:
                continue
            kind, node = m[0], mentions[m]
            vec = self._embed([node.text()])
            cand_key, score = await asyncio.to_thread(self._search, kind, vec[0])
            recent = list(self.recent[kind])  # nodes written since the last index flush
            if recent:
                sims = np.vstack([v for _, v in recent]) @ vec[0]
                j = int(np.argmax(sims))
                if float(sims[j]) > score:
                    cand_key, score = recent[j][0], float(sims[j])
            if cand_key and self.cfg.merge_llm_threshold <= score < self.cfg.merge_auto_threshold:
                existing = await asyncio.to_thread(self._record, kind, cand_key)
                if existing is not None:
                    await self._ask(kind, existing, node)

    def forget_recent(self) -> None:
        """The index now holds every node created so far."""
        self.recent = {k: [] for k in NODE_TYPES}

    # -- helpers --------------------------------------------------------------------------------
    def _search(self, kind: str, vec: np.ndarray) -> tuple[str | None, float]:
        if self.index is None:
            return None, 0.0
        try:
            hits = self.index.search_vectors(vec[None, :], k=1, types=[kind], check=False)[0]  # type: ignore[list-item]
        except Exception as e:  # an empty/missing index has nothing to match; say why once per call
            log.debug("node index search failed (%s); treating as no match", e)
            return None, 0.0
        if not hits:
            return None, 0.0
        return hits[0].key, float(hits[0].score)

    def _record(self, kind: str, key: str) -> NodeRecord | None:
        found = [n for n in self.store.find_nodes(key, [kind]) if n.key == key]  # type: ignore[list-item]
        return found[0] if found else None

    async def _ask(self, kind: str, existing: NodeRecord, new: NodeText) -> SameConceptVerdict | None:
        if self.client is None:
            return None
        qkey = qhash(kind, existing.key, new.name, new.description)
        cached = self.log.get_verdict(ROLE, qkey)
        if cached is not None:
            return SameConceptVerdict(**cached)
        msgs = resolver_messages(kind, NodeText(name=existing.name, description=existing.description), new)
        try:
            verdict = await self.client.structured(ROLE, msgs, SameConceptVerdict)
        except BudgetExceeded:
            raise
        except LLMError as e:
            # A failed resolver call must not fail the paper: keeping apart is the safe default.
            log.warning("resolver LLM failed for %r vs %s (%s); keeping apart", new.name, existing.key, e)
            return SameConceptVerdict(same=False, reason=f"resolver call failed: {e}")
        self.llm_calls += 1
        self.log.put_verdict(ROLE, qkey, verdict.model_dump())
        return verdict

    # -- main ---------------------------------------------------------------------------------------
    async def resolve(self, paper_id: str, triples: Sequence[ExtractedTriple]) -> Resolved:
        """Resolve every node of one paper's triples. Not safe to run for two papers at once on the
        same graph (the sink serialises it): each paper must see the nodes the previous one wrote."""
        mentions: dict[tuple[str, str], NodeText] = {}
        for t in triples:
            for part in NODE_TYPES:
                node: NodeText = getattr(t, part)
                mentions.setdefault((part, normalize_name(node.name)), node)
        order = list(mentions)
        vecs = self._embed([mentions[m].text() for m in order])
        vec_of = {m: vecs[i] for i, m in enumerate(order)}

        final: dict[tuple[str, str], NodeIn] = {}
        decisions: list[MergeDecision] = []
        new_nodes: list[NodeRecord] = []
        new_vectors: list[np.ndarray] = []
        pending = self.recent  # new keys of this paper and of papers not yet flushed to the index

        for m in order:
            kind, _norm = m
            node = mentions[m]
            mkey = node_key(kind, node.name)
            d = await self._decide(kind, node, mkey, vec_of[m], pending[kind])
            if d.merged and d.final_key != mkey and is_undone(self.log, kind, mkey, d.final_key):
                # a reviewer reversed this merge (`motivgraph merges undo`): it stays reversed
                d = MergeDecision(node_type=kind, mention_name=node.name, mention_key=mkey, decision=D.APART,
                                  final_key=mkey, candidate_key=d.final_key, score=d.score,
                                  reason=f"merge into {d.final_key} was undone by a reviewer; kept apart")
            d.paper_id = paper_id
            decisions.append(d)
            if d.merged:
                final[m] = NodeIn(name=node.name, description=node.description, key=d.final_key)
            else:
                name = d.final_name or node.name
                nin = NodeIn(name=name, description=node.description)
                final[m] = nin
                pending[kind].append((d.final_key, vec_of[m]))
                new_nodes.append(NodeRecord(key=d.final_key, type=kind, name=name, description=node.description))
                # a homonym is indexed under its disambiguated name: that text is embedded here, once
                same_text = name == node.name
                new_vectors.append(vec_of[m] if same_text else self._embed([node_text(name, node.description)])[0])

        nodes = [{str(p): final[(p, normalize_name(getattr(t, p).name))] for p in NODE_TYPES} for t in triples]
        return Resolved(nodes=nodes, decisions=decisions, new_nodes=new_nodes, new_vectors=new_vectors)

    async def _decide(
        self, kind: str, node: NodeText, mkey: str, vec: np.ndarray, pending: list[tuple[str, np.ndarray]]
    ) -> MergeDecision:
        base: dict[str, Any] = {"node_type": kind, "mention_name": node.name, "mention_key": mkey}
        # Tier 1: the name (key or alias) already exists.
        same_name = [n for n in self.store.find_nodes(node.name, [kind])]  # type: ignore[list-item]
        same_name = [n for n in same_name if n.key == mkey or mkey.split(":", 1)[1] in
                     {normalize_name(a) for a in [n.name, *n.aliases]}]
        if same_name:
            with_desc = [n for n in same_name if n.description]
            if not node.description or not with_desc:
                best = next((n for n in same_name if n.key == mkey), same_name[0])
                how = D.EXACT if best.key == mkey else D.ALIAS
                return MergeDecision(**base, decision=how, final_key=best.key, candidate_key=best.key,
                                     reason="same normalised name; no description to compare")
            dv = self._embed([node.description, *[n.description for n in with_desc]])
            sims = dv[1:] @ dv[0]
            i = int(np.argmax(sims))
            best, ds = with_desc[i], float(sims[i])
            if ds >= self.cfg.homonym_min_desc_similarity:
                how = D.EXACT if best.key == mkey else D.ALIAS
                return MergeDecision(**base, decision=how, final_key=best.key, candidate_key=best.key, score=1.0,
                                     desc_score=ds, reason=f"same normalised name; descriptions agree ({ds:.2f})")
            # Homonym: same words, different concept. Join an earlier disambiguation of this name whose
            # description agrees, else create one.
            earlier = {r["final_key"] for r in self.log.merges(decision=D.HOMONYM, mention_key=mkey)}
            records = [r for r in (self._record(kind, k) for k in sorted(earlier)) if r is not None and r.description]
            if records:
                hv = self._embed([node.description, *[r.description for r in records]])
                hs = hv[1:] @ hv[0]
                j = int(np.argmax(hs))
                if float(hs[j]) >= self.cfg.homonym_min_desc_similarity:
                    return MergeDecision(**base, decision=D.ALIAS, final_key=records[j].key,
                                         candidate_key=records[j].key, desc_score=float(hs[j]),
                                         reason=f"homonym of {best.key}; descriptions agree with earlier "
                                         f"disambiguation {records[j].key} ({float(hs[j]):.2f})")
            qual = _qualifier(node.name, node.description, self._embed)
            disamb = f"{node.name} ({qual})"
            dkey = node_key(kind, disamb)
            return MergeDecision(
                **base, decision=D.HOMONYM, final_key=dkey, candidate_key=best.key, score=1.0, desc_score=ds,
                final_name=disamb,
                reason=f"same name as {best.key} but descriptions disagree ({ds:.2f} < "
                f"{self.cfg.homonym_min_desc_similarity}); kept apart as '{disamb}'",
            )

        # Tier 2: embedding similarity against the index and the nodes created since it was updated.
        cand_key, score = self._search(kind, vec)
        if pending:
            pv = np.vstack([v for _, v in pending])
            sims = pv @ vec
            j = int(np.argmax(sims))
            if float(sims[j]) > score:
                cand_key, score = pending[j][0], float(sims[j])
        if cand_key is None or score < self.cfg.merge_llm_threshold:
            return MergeDecision(**base, decision=D.NEW, final_key=mkey, candidate_key=cand_key,
                                 score=score if cand_key else None, reason="no similar node")
        if score >= self.cfg.merge_auto_threshold:
            return MergeDecision(**base, decision=D.AUTO_MERGE, final_key=cand_key, candidate_key=cand_key,
                                 score=score, reason=f"similarity {score:.3f} >= auto-merge threshold")
        existing = self._record(kind, cand_key)
        if existing is None:  # a node of this same paper, not yet written: judge by name+description
            existing = NodeRecord(key=cand_key, type=kind, name=cand_key.split(":", 1)[1], description="")
        verdict = await self._ask(kind, existing, node)
        if verdict is None:
            return MergeDecision(**base, decision=D.BAND_NO_LLM, final_key=mkey, candidate_key=cand_key, score=score,
                                 reason="similarity in the LLM band but no resolver LLM configured; kept apart")
        if verdict.same:
            return MergeDecision(**base, decision=D.LLM_MERGE, final_key=cand_key, candidate_key=cand_key,
                                 score=score, reason=verdict.reason or "resolver: same concept")
        return MergeDecision(**base, decision=D.LLM_APART, final_key=mkey, candidate_key=cand_key, score=score,
                             reason=verdict.reason or "resolver: different concepts")
