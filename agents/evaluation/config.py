"""What an evaluation run is asked to do (stored in the evaluation's status.json for resume)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from motivgraph.agents.evaluation.cutoff import parse_cutoff

METRICS = ("diversity", "novelty", "scores", "elo", "reference", "gates", "yield", "cu", "grounding")


class EvalConfig(BaseModel):
    methods: list[str] = Field(min_length=1, description="Registered ideation methods to compare.")
    method_configs: dict[str, dict[str, Any]] = Field(default_factory=dict,
                                                      description="Per-method config (JSON), as for ideate.")
    n_ideas: int = Field(10, ge=1, le=50, description="Ideas every method must deliver per topic. 10: IDEAgent's "
                         "set per topic (B = 10 seeds, 45 judged pairs; IDEAgent review, Stage I / cost), so Yield can "
                         "reach the table's >= 2 / >= 3 rows and Creative Utility is taken over a set larger than the "
                         "set-level paper's K = 3 (set-level-ideation, Section 4). Below 3, Yield and CU say little "
                         "(the report says so).")
    ideas_field: str = Field("ideas", description="The method config field that sets how many ideas to write.")
    max_runs: int = Field(5, ge=1, le=20, description="Runs per method and topic to reach n_ideas accepted ideas "
                          "(each later run asks only for the ideas still missing; 5 lets a method that keeps about "
                          "half of what it writes reach the default 10).")
    graph: Literal["corpus", "per-topic", "current", "file"] = Field(
        "corpus", description="Methods ground on: one shared corpus graph built from every topic's background "
        "papers (every topic's target papers left out; paper-JSON ingest + the miner, cached), a graph built per "
        "topic from its own background papers, the user's current graph, or the background papers given as a "
        "file. Tool-using methods get the graph, the others the topic's background papers as a file.")
    graph_cache: str | None = Field(None, description="Where evaluation graphs (corpus and per-topic) are cached "
                                    "(default <data_dir>/cache/eval-graphs); shared by evaluations, keyed by content.")
    cutoff: str | None = Field(None, description="YYYY-MM[-DD]: nothing published after it reaches a method, for "
                               "every topic. Default: per topic, the latest date among its background papers "
                               "(date/year field, else its arXiv id's month).")
    literature_s2: bool = Field(False, description="literature_search on an evaluation graph asks Semantic Scholar "
                                "first (when enabled in settings); off: only the graph's own papers. Results "
                                "dated after the topic's cutoff, or undated, are dropped either way.")
    mindflow_train_fraction: float = Field(
        0.7, ge=0, lt=1, description="MindFlow's protocol (mindflow_split.py): the share of topics its controller is "
        "trained on (a seeded split by topic id; at least one topic on each side); every method is then compared on "
        "the held-out topics only. 0.7: the paper's 70-30 split (mindflow, Section 5.1). 0: no split, MindFlow runs "
        "on every topic with the newest controller stored for its model, else the untrained prior.")
    mindflow_train_topics: list[str] = Field(default_factory=list, description="Explicit topic ids to train "
                                             "MindFlow's controller on (instead of the fraction); the rest are held "
                                             "out.")
    mindflow_train: dict[str, Any] = Field(default_factory=dict, description="Settings of that training (MindFlow's "
                                           "TrainConfig fields, e.g. {\"steps\": 30, \"group\": 4}); the seed "
                                           "defaults to the evaluation's.")
    allow_target_leak: bool = Field(False, description="Warn instead of refusing when a target paper is visible "
                                    "to the methods.")
    judges: list[str] = Field(default_factory=list, description="Panel models (provider:model); empty: the judge "
                              "role's model (MOTIVGRAPH_LLM_ROLES.judge, else the default model).")
    panel_size: int = Field(3, ge=1, le=9, description="Judges on the panel, each voting in both presentation "
                            "orders: MindFlow uses three judges x two orders = six votes per dimension (mindflow, "
                            "Section 5.2). With fewer distinct models in `judges`, the panel is filled with "
                            "independent seeded samples of the named judge(s), and the report says so.")
    order_bias_share: float = Field(0.9, gt=0.5, le=1, description="A judge is flagged order-biased on a judged "
                                    "dimension when at least this share of its decisive verdicts name the same "
                                    "slot (A or B); a judge free of position bias names each slot half the time, "
                                    "since every pair is asked in both orders.")
    order_bias_min: int = Field(6, ge=2, description="Decisive verdicts needed before a judge can be flagged "
                                "order-biased on a dimension (fewer: too little to tell).")
    metrics: list[str] = Field(default_factory=lambda: list(METRICS), description=f"Any of {', '.join(METRICS)}.")
    elo_rounds: int = Field(5, ge=0, le=50, description="Swiss rounds per dimension, at least ceil(log2 N) (the "
                            "SoIQ seed names no count): 5 gives every idea five matches, each judged in both "
                            "orders by every panel judge, so the bootstrap over matches behind the ELO interval "
                            "has material (ceil(log2 N) alone is 1-3 matches per idea at small N).")
    elo_k: float = Field(32.0, gt=0, le=400, description="ELO K-factor.")
    elo_start: float = Field(1000.0, description="ELO start rating.")
    n_boot: int = Field(1000, ge=10, le=100000, description="Bootstrap resamples for confidence intervals.")
    w_pd: tuple[float, float, float] = Field((1.0, 1.0, 1.0), description="MOScore_PD weights (novelty, "
                                             "significance, timeliness).")
    w_ps: tuple[float, float, float] = Field((1.0, 1.0, 1.0), description="MOScore_PS weights (technical "
                                             "novelty, effectiveness, feasibility).")
    gate_k: float = Field(7, ge=0, le=9, description="Yield: non-obviousness gate NB (IDEAgent main table: NB >= 7, "
                          "its headline rows; see gate_k_alt).")
    gate_k_alt: float | None = Field(6, ge=0, le=9, description="Yield: a second non-obviousness gate reported "
                                     "beside gate_k with the same S/C/D gates (IDEAgent's main table also gives "
                                     "Yield at NB >= 6); none: not reported.")
    gate_l: float = Field(7, ge=0, le=9, description="Yield: soundness gate S (IDEAgent main table: S >= 7).")
    gate_m: float = Field(6, ge=0, le=9, description="Yield: clarity gate C (IDEAgent main table: C >= 6).")
    tau: float = Field(7, ge=0, le=9, description="Yield: pairwise diversity threshold D (IDEAgent main table and "
                       "Yield surfaces: D >= 7).")
    surface_m: float = Field(0, ge=0, le=9, description="Clarity gate held fixed on the Yield surfaces.")
    cu_gamma: float = Field(0.9, gt=0, le=1, description="Creative Utility patience discount.")
    cu_quality: Literal["impact", "reference_share"] = Field(
        "impact", description="Creative Utility quality: impact (the set-level paper's: an impact judgment "
        "against each gold/target idea in both orders, a strict win only when the idea wins both, "
        "length-controlled over the pool) or reference_share (share of the six MindFlow reference dimensions "
        "won in both orders).")
    cu_distance: Literal["fields", "judge", "embedding"] = Field(
        "fields", description="Creative Utility distance: fields (the set-level paper's: per-field 1..5 "
        "similarity of problem gap, core claim and method, each (5 - s) / 4, averaged), judge (the 8-axis "
        "diversity judge / 9) or embedding (1 - cosine, clipped to [0, 1]).")
    novelty_k: int = Field(1, ge=1, le=20, description="Computable novelty: nearest background papers averaged.")
    budget_usd: float | None = Field(None, ge=0, description="Whole evaluation (generation + judging) budget.")
    seed: int = 13
    run_ids: dict[str, list[str]] = Field(default_factory=dict, description="Existing runs per method to evaluate "
                                          "instead of generating (run ids under the runs directory).")
    imported: dict[str, dict[str, list[dict[str, str]]]] = Field(
        default_factory=dict, description="Other systems' ideas read by --ideas-from (system -> topic_id -> idea "
        "fields), scored exactly as generated ideas, never generated (agents/evaluation/imported.py).")
    ideas_from: str | None = Field(None, description="The --ideas-from file the imported ideas came from.")

    def generated(self, method: str) -> bool:
        """True for a method the evaluation runs (not existing runs, not imported ideas)."""
        return method not in self.run_ids and method not in self.imported

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, v: list[str]) -> list[str]:
        bad = sorted(set(v) - set(METRICS))
        if bad:
            raise ValueError(f"unknown metric(s) {', '.join(bad)}; metrics: {', '.join(METRICS)}")
        return v

    @field_validator("cutoff")
    @classmethod
    def _cutoff(cls, v: str | None) -> str | None:
        if v:
            parse_cutoff(v)  # a cutoff that is no date fails here, naming the accepted forms
        return v or None

    @field_validator("methods")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("each method may be named once")
        return v

    def on(self, metric: str) -> bool:
        return metric in self.metrics
