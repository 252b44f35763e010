"""Reviewing identity decisions from the decision log, and the record of merges a reviewer undid.

`list_merges` reads the merge decisions (a mention joined an existing node: exact / alias /
auto_merge / llm_merge) with their scores and reasons. Undoing one (`miner.merge_undo.undo_merge`)
records the reversal here — the resolver then keeps that mention apart from that node in every
later run, replays included — and replays the papers involved so the graph splits the node back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from motivgraph.miner import decisions as D
from motivgraph.miner.decisions import DecisionLog, now, qhash

UNDO_KIND = "merge_undo"


def _undo_key(node_type: str, mention_key: str, final_key: str) -> str:
    return qhash("merge_undo", node_type, mention_key, final_key)


def is_undone(log: DecisionLog, node_type: str, mention_key: str, final_key: str) -> bool:
    """True when a reviewer reversed merging this mention into this node."""
    return log.get_verdict(UNDO_KIND, _undo_key(node_type, mention_key, final_key)) is not None


def record_undo(log: DecisionLog, row: dict[str, Any]) -> None:
    log.put_verdict(UNDO_KIND, _undo_key(row["node_type"], row["mention_key"], row["final_key"]),
                    {"decision_id": row["id"], "paper_id": row["paper_id"], "ts": now()})


@dataclass
class MergeRow:
    id: int
    ts: str
    paper_id: str | None
    node_type: str
    mention_name: str
    mention_key: str
    final_key: str
    decision: str
    score: float | None
    desc_score: float | None
    reason: str
    undone: bool

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _row(log: DecisionLog, r: dict[str, Any]) -> MergeRow:
    return MergeRow(
        id=int(r["id"]), ts=r["ts"], paper_id=r["paper_id"], node_type=r["node_type"],
        mention_name=r["mention_name"], mention_key=r["mention_key"], final_key=r["final_key"],
        decision=r["decision"], score=r["score"], desc_score=r["desc_score"], reason=r["reason"] or "",
        undone=is_undone(log, r["node_type"], r["mention_key"], r["final_key"]),
    )


def list_merges(
    log: DecisionLog, *, paper_id: str | None = None, key: str | None = None, include_exact: bool = False,
    limit: int | None = None,
) -> list[MergeRow]:
    """Merge decisions, newest first: a mention joined another node (`exact` — the same normalised
    name — only with include_exact). `key` matches the node merged into or the mention's own key."""
    rows = [r for r in log.merges(paper_id=paper_id) if r["decision"] in D.MERGING]
    if not include_exact:
        rows = [r for r in rows if r["decision"] != D.EXACT]
    if key is not None:
        rows = [r for r in rows if key in (r["final_key"], r["mention_key"])]
    rows.reverse()
    if limit is not None:
        rows = rows[: max(0, limit)]
    return [_row(log, r) for r in rows]


def get_merge(log: DecisionLog, decision_id: int) -> MergeRow | None:
    for r in log.merges():
        if int(r["id"]) == decision_id:
            return _row(log, r)
    return None
