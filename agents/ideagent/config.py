"""IDEAgent settings: every threshold, weight, panel size and budget of the search, in one place.

Environment: MOTIVGRAPH_IDEAGENT_<FIELD> (e.g. MOTIVGRAPH_IDEAGENT_SEEDS=6). The defaults are the
seed paper's (B=10 seeds, M=5 soundness judgments, gates at 60, a 20-point repair margin, soft
targets N 90 / S 80 / C 80, Q = 0.7 N + 0.2 S + 0.1 C).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

Score = float  # every judge score lives on 0-100 (soundness is rescaled from the panel's 0-9)


class IdeagentConfig(BaseSettings):
    """Settings of the IDEAgent search (and the knobs the baselines share)."""

    model_config = SettingsConfigDict(env_prefix="MOTIVGRAPH_IDEAGENT_", extra="ignore")

    # -- budget ------------------------------------------------------------------------------
    seeds: int = Field(10, ge=1, le=200, description="B: fresh seed ideas the search drafts (one lineage each).")
    extra_drafts_per_seed: int = Field(
        2, ge=0, le=4, description="Most repair + refinement drafts one seed may add on top of its first draft."
    )
    max_repairs: int = Field(1, ge=0, le=2, description="Repair attempts per seed (critic directive -> revision).")
    max_refinements: int = Field(
        2, ge=0, le=4, description="Refinements of an accepted idea; each repair used takes one of them away."
    )
    # -- gates -------------------------------------------------------------------------------
    min_non_obviousness: Score = Field(60, ge=0, le=100, description="tau_N: gate on non-obviousness N.")
    min_soundness: Score = Field(60, ge=0, le=100, description="tau_S: gate on panel soundness S.")
    min_clarity: Score = Field(60, ge=0, le=100, description="tau_C: gate on mechanism clarity C.")
    min_diversity: Score = Field(60, ge=0, le=100, description="tau_D: gate on the diversity judge's D.")
    repair_margin: Score = Field(
        20, ge=0, le=100,
        description="A draft failing N/S/C by at most this many points (and not invalid) gets one repair.",
    )
    # -- soundness panel ---------------------------------------------------------------------
    panel_size: int = Field(5, ge=1, le=15, description="M: independent 0-9 soundness judgments per draft.")
    disputed_at_or_below: int = Field(
        3, ge=0, le=9, description="A soundness judgment at or below this marks the draft disputed."
    )
    invalid_votes: int = Field(
        3, ge=1, le=15, description="This many judgments at or below `disputed_at_or_below` mark the draft invalid."
    )
    # -- quality score -----------------------------------------------------------------------
    weight_non_obviousness: float = Field(0.7, ge=0, le=1, description="Weight of N in Q.")
    weight_soundness: float = Field(0.2, ge=0, le=1, description="Weight of S in Q.")
    weight_clarity: float = Field(0.1, ge=0, le=1, description="Weight of C in Q (ties in Q go to feasibility).")
    # -- refinement --------------------------------------------------------------------------
    soft_non_obviousness: Score = Field(90, ge=0, le=100, description="Refine an accepted idea while N is below.")
    soft_soundness: Score = Field(80, ge=0, le=100, description="Refine an accepted idea while S is below.")
    soft_clarity: Score = Field(80, ge=0, le=100, description="Refine an accepted idea while C is below.")
    # -- rejection families ------------------------------------------------------------------
    family_rule: Literal["judge", "reason"] = Field(
        "judge",
        description="How a rejected draft finds its failure family: 'judge' asks the diversity judge whether its "
        "failure pattern is one already known (else it starts a family); 'reason' groups by the failure "
        "reason alone (no LLM call).",
    )
    # -- prompts and tools -------------------------------------------------------------------
    ideator_tool_calls: int = Field(
        4, ge=0, le=30, description="Most tool calls the ideator may make before writing one draft."
    )
    background_tokens: int = Field(
        3000, ge=200, le=60_000, description="Topic background tokens put into ideator and judge prompts."
    )
    signature_chars: int = Field(
        240, ge=40, le=2000, description="Characters of each signature field shown when archives are listed."
    )
    # -- baselines ---------------------------------------------------------------------------
    nova_rounds: int = Field(3, ge=1, le=10, description="NOVA baseline: generate-select-germinate rounds.")
    nova_seeds: int = Field(3, ge=1, le=20, description="NOVA baseline: K seeds the judge picks per round.")

    @model_validator(mode="after")
    def _consistent(self) -> IdeagentConfig:
        if self.invalid_votes > self.panel_size:
            raise ValueError(
                f"invalid_votes ({self.invalid_votes}) cannot exceed panel_size ({self.panel_size}): no draft "
                "could ever be marked invalid"
            )
        if self.weight_non_obviousness + self.weight_soundness + self.weight_clarity <= 0:
            raise ValueError("the Q weights must not all be zero")
        return self

    def refinements_allowed(self, repairs_used: int) -> int:
        """Refinements left for a seed: two, one less per repair, within the extra-draft cap."""
        return max(0, min(self.max_refinements - repairs_used, self.extra_drafts_per_seed - repairs_used))
