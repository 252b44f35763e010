"""Undoing one merge decision (`motivgraph merges undo`): the resolver keeps that mention apart from that node from
now on, and the paper (with the papers after it that shared nodes) is replayed, splitting the node back. A job of
the re-processing engine (miner/reprocess.py), resumable like every job."""

from __future__ import annotations

from typing import TYPE_CHECKING

from motivgraph.errors import GraphError
from motivgraph.miner import decisions as D
from motivgraph.miner.decisions import DecisionLog
from motivgraph.miner.extractor_choice import decide_extractor
from motivgraph.miner.merges import get_merge, record_undo
from motivgraph.miner.reprocess import Job, Note, ReprocessReport, plan_job, with_job

if TYPE_CHECKING:
    from motivgraph.graph.runtime import Runtime
    from motivgraph.settings import Settings


async def undo_merge(settings: Settings, decision_id: int, *, note: Note | None = None) -> ReprocessReport:
    """Reverse one merge decision: the resolver keeps that mention apart from that node from now on,
    and the paper (with the papers after it that shared nodes) is replayed, splitting the node back."""
    decisions = DecisionLog.for_data_dir(settings.data_dir)
    try:
        row = get_merge(decisions, decision_id)
        if row is None:
            raise GraphError(f"no decision #{decision_id} in {decisions.path}; `motivgraph merges list` shows them")
        if row.decision not in D.MERGING:
            raise GraphError(f"decision #{decision_id} is {row.decision!r}, not a merge: nothing to undo")
        if row.mention_key == row.final_key:
            raise GraphError(f"decision #{decision_id} joined {row.mention_name!r} to the node of the same "
                             "normalised name; an exact match cannot be split")
        if not row.paper_id:
            raise GraphError(f"decision #{decision_id} names no paper; nothing to replay")
        record_undo(decisions, {"id": row.id, "paper_id": row.paper_id, "node_type": row.node_type,
                                "mention_key": row.mention_key, "final_key": row.final_key})
    finally:
        decisions.close()
    mode, client = decide_extractor(settings)
    pid = row.paper_id

    def plan(rt: Runtime) -> Job | None:
        if rt.store.get_paper(pid) is None:
            return None  # the paper is gone: the recorded reversal applies to future ingests
        job = plan_job(rt, "undo", replay_seed=[pid])
        job.decision_id = decision_id
        return job

    return await with_job(settings, "undo", plan, same=lambda j: j.kind == "undo" and j.decision_id == decision_id,
                           client=client, mode=mode, note=note)
