"""Builders for IDEAgent unit tests: scores and drafts from plain numbers."""

from __future__ import annotations

from motivgraph.agents.ideagent.archive import Archive, Draft
from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.scores import Scores, aggregate_soundness
from motivgraph.agents.ideagent.signature import Signature

CFG = IdeagentConfig(_env_file=None)  # type: ignore[call-arg]


def panel(s100: float | None = None, judgments: list[int] | None = None) -> list[int]:
    """Five judgments averaging to about `s100` (no judgment <= 3 unless given explicitly)."""
    if judgments is not None:
        return judgments
    total = round((s100 or 0) * 45 / 100)
    base, extra = divmod(total, 5)
    return [base + (1 if i < extra else 0) for i in range(5)]


def scores(n: float = 75, c: float = 75, f: float = 50, s: float = 75, d: float = 80,
           judgments: list[int] | None = None, cfg: IdeagentConfig = CFG) -> Scores:
    return Scores(non_obviousness=n, clarity=c, feasibility=f, soundness=aggregate_soundness(panel(s, judgments), cfg),
                  diversity=d)


def sig(tag: str) -> Signature:
    return Signature(problem=f"problem {tag}", mechanism=f"mechanism {tag}", novelty=f"novelty {tag}",
                     assumptions=f"assumptions {tag}", effect=f"effect {tag}")


def draft(did: str, lineage: str, sc: Scores | None = None, seed: int = 0) -> Draft:
    return Draft(id=did, seed=seed, lineage=lineage, signature=sig(did), scores=sc or scores(),
                 idea={"title": f"idea {did}"})


def archive_with(*drafts: Draft, capacity: int = 3) -> Archive:
    a = Archive(capacity=capacity)
    for d in drafts:
        a.accept(d)
    a.check()
    return a
