"""Deleting papers with everything they contributed (`motivgraph papers delete`): the papers stored after them that
shared nodes are replayed, so the graph equals a fresh ingest without them. A job of the re-processing engine
(miner/reprocess.py), resumable like every job."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from motivgraph.errors import GraphError
from motivgraph.graph.runtime import Runtime
from motivgraph.ingest.identity import resolve_paper_id
from motivgraph.ingest.transient import store_step
from motivgraph.miner.extractor_choice import decide_extractor
from motivgraph.miner.reprocess import Job, Note, ReprocessReport, plan_job, with_job

if TYPE_CHECKING:
    from motivgraph.settings import Settings


def match_pending(ident: str, pending: Sequence[str]) -> str | None:
    """A typed id that names a paper an unfinished delete job already took out of the graph."""
    text = ident.strip()
    forms = {text, f"doi:{text.lower()}", f"arxiv:{text}", f"sha256:{text.lower()}"}
    hits = [p for p in pending if p in forms or (len(text) >= 8 and p.startswith("sha256:" + text.lower()))]
    return hits[0] if len(hits) == 1 else None


async def delete_papers(settings: Settings, ids: Sequence[str], *, note: Note | None = None) -> ReprocessReport:
    """Delete papers with everything they contributed (see the module doc); the papers stored after
    them that shared nodes are replayed, so the graph equals a fresh ingest without them."""

    pending = Job.load(settings)
    resumable = pending.delete if pending is not None and pending.kind == "delete" else []
    rt = Runtime(settings)

    def resolve() -> list[str]:
        found: set[str] = set()
        for ident in ids:  # unknown ids fail before anything changes
            try:
                found.add(resolve_paper_id(rt.store, ident))
            except GraphError:
                match = match_pending(ident, resumable)  # already taken out by the interrupted run
                if match is None:
                    raise
                found.add(match)
        return sorted(found)

    try:
        targets = await store_step(resolve, settings, note)
    finally:
        await asyncio.to_thread(rt.close)
    mode, client = decide_extractor(settings)  # the resolver's LLM, when configured, for replays

    def plan(rt: Runtime) -> Job:
        return plan_job(rt, "delete", delete=targets)

    return await with_job(settings, "delete", plan, same=lambda j: j.kind == "delete" and j.delete == targets,
                           client=client, mode=mode, note=note)
