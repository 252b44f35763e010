"""Scores of one draft and the pure arithmetic on them: soundness aggregation, flags and Q.

Kept free of LLM calls so every threshold rule can be unit-tested with plain numbers.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from motivgraph.agents.ideagent.config import IdeagentConfig


class SoundnessPanel(BaseModel):
    """M independent 0-9 judgments and what they add up to."""

    judgments: list[int] = Field(default_factory=list)
    rationales: list[str] = Field(default_factory=list)
    score: float = 0.0  # S = 100 / (9 M) * sum
    low_votes: int = 0  # judgments at or below the dispute level
    disputed: bool = False
    invalid: bool = False


def aggregate_soundness(
    judgments: list[int], cfg: IdeagentConfig, rationales: list[str] | None = None
) -> SoundnessPanel:
    """S = 100/(9M) * sum of the M judgments; any judgment <= the dispute level marks the draft
    disputed, `invalid_votes` or more such judgments mark it invalid (invalid implies disputed)."""
    if len(judgments) != cfg.panel_size:
        raise ValueError(f"the soundness panel gave {len(judgments)} judgments, expected M={cfg.panel_size}")
    if any(not 0 <= j <= 9 for j in judgments):
        raise ValueError(f"soundness judgments must lie in 0..9, got {judgments}")
    low = sum(1 for j in judgments if j <= cfg.disputed_at_or_below)
    return SoundnessPanel(
        judgments=list(judgments),
        rationales=list(rationales or []),
        score=100.0 / (9 * cfg.panel_size) * sum(judgments),
        low_votes=low,
        disputed=low >= 1,
        invalid=low >= cfg.invalid_votes,
    )


class Scores(BaseModel):
    """Everything the judges said about one draft (0-100 unless noted)."""

    non_obviousness: float = Field(ge=0, le=100)
    clarity: float = Field(ge=0, le=100)
    feasibility: float = Field(ge=0, le=100)
    soundness: SoundnessPanel
    diversity: float = Field(ge=0, le=100)
    quality_rationale: str = ""
    diversity_rationale: str = ""

    @property
    def S(self) -> float:  # the paper's symbol
        return self.soundness.score

    def q(self, cfg: IdeagentConfig) -> float:
        """Q = 0.7 N + 0.2 S + 0.1 C (weights from settings)."""
        return (cfg.weight_non_obviousness * self.non_obviousness + cfg.weight_soundness * self.S
                + cfg.weight_clarity * self.clarity)

    def rank(self, cfg: IdeagentConfig) -> tuple[float, float]:
        """Ordering key: Q, ties by feasibility F. Rounded so float noise cannot break a tie."""
        return (round(self.q(cfg), 6), round(self.feasibility, 6))

    def summary(self, cfg: IdeagentConfig) -> dict[str, float | bool | list[int]]:
        return {"N": self.non_obviousness, "C": self.clarity, "F": self.feasibility, "S": round(self.S, 2),
                "D": self.diversity, "Q": round(self.q(cfg), 2), "panel": self.soundness.judgments,
                "disputed": self.soundness.disputed, "invalid": self.soundness.invalid}
