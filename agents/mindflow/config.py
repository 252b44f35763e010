"""Every open choice of MindFlow as an explicit setting (docs/ideation.md, "MindFlow", explains the defaults).

`FlowConfig` shapes the supernet, the sampling rule and the operators; `TrainConfig` the anchor
tournament, the reward and the policy-gradient loop. Both are pydantic models so they validate,
round-trip through JSON (checkpoints store them) and come back with clear errors.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DIMENSIONS: tuple[str, ...] = (
    "problem_novelty",
    "significance",
    "timeliness",
    "technical_novelty",
    "effectiveness",
    "feasibility",
)

DEFAULT_CONSTRAINTS: tuple[str, ...] = (
    "Runs on at most 8 GPUs within two weeks of compute.",
    "Uses public datasets or data that can be collected within a month.",
    "The main claim can be tested with one clearly defined experiment and a baseline.",
)


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class FlowConfig(_Cfg):
    """The mind supernet and how flows are drawn from it and executed."""

    layers: int = Field(4, ge=1, le=12, description="L: layers of the supernet.")
    operators: tuple[str, ...] | None = Field(
        None, description="Operator names the supernet offers (None: every registered operator, in registry order)."
    )
    threshold: float = Field(
        0.25, gt=0.0, le=1.0,
        description="Per layer, operators are taken (by sampling or by descending probability) until their cumulative "
        "probability passes this. 0.25 gives two operators per layer under the uniform prior and one once a layer is "
        "confident.",
    )
    max_ops_per_layer: int = Field(3, ge=1, le=20, description="Hard cap on operators per layer (bounds cost).")
    hidden: int = Field(0, ge=0, le=512, description="Controller hidden units (0: linear policy).")
    init_scale: float = Field(0.05, ge=0.0, description="Std of the hidden layer's initial weights.")
    working_set_max: int = Field(3, ge=1, le=10, description="Most candidate ideas kept in the working set.")
    alternatives: int = Field(2, ge=1, le=5, description="Alternatives the divergent operator proposes.")
    critical_rounds: int = Field(1, ge=1, le=3, description="Critique-and-fix rounds of the critical operator.")
    constraints: tuple[str, ...] = Field(DEFAULT_CONSTRAINTS,
                                         description="The constraint-driven operator's constraints.")
    analogical_k: int = Field(4, ge=1, le=10,
                              description="Transfer candidates / far nodes the analogical operator reads.")
    far_similarity: float = Field(0.3, ge=-1.0, le=1.0, description="random_nodes(far_from=topic) max similarity.")
    context_nodes: int = Field(8, ge=0, le=30, description="Graph nodes near the topic shown to every operator.")
    background_papers: int = Field(6, ge=0, le=20, description="Background papers (title + abstract) in prompts.")
    abstract_chars: int = Field(600, ge=0, le=4000, description="Characters of each background abstract in prompts.")
    finalize: Literal["converge", "first"] = Field(
        "converge",
        description="When more than one candidate is left after the last layer: 'converge' runs the convergent "
        "operator once more (a finalize step outside the sampled flow), 'first' keeps the top candidate.",
    )
    proposal_tokens: int = Field(700, ge=50, le=8000, description="Tokens of one proposal (dry-run estimates).")
    critique_tokens: int = Field(300, ge=20, le=4000, description="Tokens of one critique (dry-run estimates).")
    judge_tokens: int = Field(150, ge=20, le=2000, description="Tokens of one judge verdict (dry-run estimates).")

    @model_validator(mode="after")
    def _ops_unique(self) -> FlowConfig:
        if self.operators is not None:
            if len(self.operators) < 2:
                raise ValueError("operators: the supernet needs at least two operators")
            if len(set(self.operators)) != len(self.operators):
                raise ValueError("operators: names must be unique")
        return self


class TrainConfig(_Cfg):
    """Anchor tournament, reward and policy-gradient training."""

    steps: int = Field(60, ge=1, le=100_000, description="Policy-gradient steps.")
    group: int = Field(4, ge=2, le=16, description="K: flows per topic and step (anchor included).")
    topics_per_step: int = Field(1, ge=1, le=64, description="Training topics per step (gradients averaged).")
    lr: float = Field(0.05, gt=0.0, le=10.0, description="Learning rate.")
    optimizer: Literal["adam", "sgd"] = Field("adam", description="Update rule for the controller's parameters.")
    cost_lambda: float = Field(0.1, ge=0.0, le=10.0, description="λ in r = 1 − Rank/(K−1) − λ·C(G).")
    cost_mode: Literal["tokens", "ops"] = Field(
        "tokens", description="C(G): 'tokens' = flow tokens / group mean; 'ops' = operators run / (L·|operators|).",
    )
    normalize_advantage: bool = Field(
        False, description="Divide advantages by the group's std (the seed does not say; off: A_k = r_k - mean(r)).",
    )
    entropy_bonus: float = Field(0.0, ge=0.0, le=1.0, description="Entropy regulariser weight (0: none).")
    val_fraction: float = Field(
        0.0, ge=0.0, lt=1.0,
        description="Share of the training topics held out again for validation (an option, ours). 0 (the default, "
        "as the seed's 70-30 split): gradients come from every training topic and the validation reward is "
        "measured on those same topics.",
    )
    val_every: int = Field(10, ge=0, description="Validate every N steps (0: only before and after training).")
    val_mode: Literal["greedy", "sample"] = Field("greedy", description="Flows used for validation.")
    val_both_orders: bool = Field(
        True, description="Judge each validation pair in both presentation orders (12 votes) instead of one coin.",
    )
    seed: int = Field(0, ge=0, description="Seeds the split, sampling, presentation order and tie coins.")
    parallel_flows: int = Field(4, ge=1, le=32, description="Flows of a group executed at once.")
    judge_swap: Literal["random", "fixed"] = Field(
        "random", description="Presentation order of each comparison: seeded coin (random) or candidate first.",
    )

    @model_validator(mode="after")
    def _val_needs_topics(self) -> TrainConfig:
        if self.val_every and self.val_every > self.steps:
            self.__dict__["val_every"] = 0
        return self
