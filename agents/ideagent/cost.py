"""Dry-run cost of IDEAgent and its baselines: calls, tokens and dollars per role, without calling
any model. `python -m motivgraph.agents.ideagent.cost` prints the tables for docs/ideation.md.

Token counts come from the real prompt builders filled with synthetic text of the sizes the
prompts ask for (an idea ~650 tokens, a signature ~120, judge answers 60-150), counted by the LLM
layer's tokenizer. Two scenarios per method:

- upper: every seed uses both extra drafts as refinements that reach the blind comparison (the
  most calls a seed can make), the ideator spends its whole tool budget on every draft with
  results at the render cap, the archives are full;
- typical: per seed 0.5 refinement drafts with a comparison, 0.2 repairs, 0.4 rejection-family
  calls; the ideator uses half its tool budget with mid-sized results; archives half full.
Corrective re-asks after unusable JSON are not counted (rare with structured output).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from motivgraph.agents.ideagent import prompts as P
from motivgraph.agents.ideagent.archive import Archive, Draft, Family, Retirement
from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.scores import Scores, aggregate_soundness
from motivgraph.agents.ideagent.signature import Signature
from motivgraph.llm.tokens import count_tokens
from motivgraph.llm.usage import cost_usd
from motivgraph.settings import LLMSettings

_WORDS = ("model", "graph", "signal", "noise", "robust", "label", "transfer", "sparse", "bias", "objective",
          "causal", "benchmark", "attention", "retrieval", "calibration", "curriculum", "token", "memory")

IDEA_OUT = 650
SIG_OUT = 120
QUALITY_OUT = 120
SOUND_OUT = 80
DIV_OUT = 120
CRITIC_OUT = 150
FAMILY_OUT = 60
PAIR_OUT = 60
SELECT_OUT = 40
TOOL_RESULT = {"upper": 1500, "typical": 600}


def _words(n: int, seed: int) -> str:
    return " ".join(_WORDS[(seed * 7 + i * 3) % len(_WORDS)] for i in range(n))


def _idea(seed: int) -> dict[str, str]:
    return {"title": _words(12, seed), "problem": _words(60, seed + 1), "motivation": _words(90, seed + 2),
            "method": _words(150, seed + 3), "novelty": _words(50, seed + 4), "experiment_plan": _words(90, seed + 5),
            "expected_effect": _words(40, seed + 6), "risks": _words(40, seed + 7)}


def _sig(seed: int) -> Signature:
    return Signature(problem=_words(20, seed), mechanism=_words(25, seed + 1), novelty=_words(20, seed + 2),
                     assumptions=_words(20, seed + 3), effect=_words(15, seed + 4))


def _draft(i: int, lineage: str | None = None) -> Draft:
    sc = Scores(non_obviousness=70, clarity=70, feasibility=60, diversity=80,
                soundness=aggregate_soundness([7] * 5, IdeagentConfig(_env_file=None)),
                quality_rationale=_words(40, i))
    sc.soundness.rationales = [_words(30, i + j) for j in range(5)]
    return Draft(id=f"s{i:02d}.d0", seed=i, lineage=lineage or f"L{i:02d}", idea=_idea(i), signature=_sig(i),
                 scores=sc)


def _archive(capacity: int, history: int, families: int) -> Archive:
    a = Archive(capacity=capacity)
    for i in range(capacity):
        a.accept(_draft(i))
    for i in range(history):
        d = _draft(100 + i)
        d.retired = Retirement(why="superseded", against=f"s{i:02d}.d0", reason="a better version of its lineage")
        a.history.append(d)
        a.ever_active.append(d.id)
    for i in range(families):
        a.families.append(Family(id=f"F{i + 1}", pattern=_words(20, 200 + i), reason="reject_gate",
                                 members=[f"s9{i}.d0"], examples=[_words(25, 300 + i)]))
    return a


@dataclass
class RoleTally:
    rows: dict[str, list[float]] = field(default_factory=dict)  # role -> [calls, input, output]

    def add(self, role: str, calls: float, t_in: float, t_out: float) -> None:
        r = self.rows.setdefault(role, [0.0, 0.0, 0.0])
        r[0] += calls
        r[1] += calls * t_in
        r[2] += calls * t_out

    def rounded(self) -> dict[str, tuple[int, int, int]]:
        return {k: (round(v[0]), round(v[1]), round(v[2])) for k, v in self.rows.items()}


def _ideator_cost(t: RoleTally, role: str, prompt_tokens: int, tool_calls: float, result_tokens: int,
                  drafts: float) -> None:
    """A draft with k tool steps: step j re-sends the prompt and j tool results (and the short call
    messages); the last step writes the idea."""
    k = tool_calls
    steps = k + 1
    resent = prompt_tokens * steps + result_tokens * k * (k + 1) / 2 + 40 * k * (k + 1) / 2
    t.add(role, drafts * steps, resent / steps, (IDEA_OUT + 40 * k) / steps)


def ideagent_tally(cfg: IdeagentConfig, *, capacity: int, topic: str, background_tokens: int,
                   scenario: str, tools: bool = True) -> RoleTally:
    upper = scenario == "upper"
    background = _words(min(background_tokens, cfg.background_tokens), 1) if background_tokens else ""
    a = _archive(capacity, cfg.seeds if upper else cfg.seeds // 3, cfg.seeds // 2 if upper else 2)
    if not upper:
        a = _archive(max(1, capacity // 2), cfg.seeds // 3, 2)
    system = P.ideator_system(topic, background, "TOOLS: " + _words(150, 9) if tools else "")
    seed_in = count_tokens(system) + count_tokens(P.seed_prompt("s00.d0", a, cfg.signature_chars, None)) + 60
    parent = _draft(50)
    rev_in = count_tokens(system) + count_tokens(P.revision_prompt("s00.d1", "refine", parent, _words(60, 3))) + 60
    idea_msg = count_tokens(P.idea_message(parent.idea, background))
    tool_calls = (cfg.ideator_tool_calls if upper else cfg.ideator_tool_calls / 2) if tools else 0
    extra = (float(cfg.extra_drafts_per_seed) if upper else 0.7)
    refine_pairs = (float(min(cfg.max_refinements, cfg.extra_drafts_per_seed)) if upper else 0.5)
    families = 0.0 if upper else 0.4
    if cfg.family_rule == "reason":
        families = 0.0
    b = cfg.seeds
    drafts = b * (1 + extra)
    t = RoleTally()
    _ideator_cost(t, "ideator", seed_in, tool_calls, TOOL_RESULT[scenario], b)
    _ideator_cost(t, "ideator", rev_in, tool_calls, TOOL_RESULT[scenario], b * extra)
    t.add("stenographer", drafts, count_tokens(P.STENOGRAPHER) + count_tokens(P.render_idea(parent.idea)), SIG_OUT)
    t.add("quality", drafts, count_tokens(P.QUALITY) + idea_msg, QUALITY_OUT)
    t.add("soundness", drafts * cfg.panel_size, count_tokens(P.SOUNDNESS) + idea_msg,
          SOUND_OUT)
    t.add("diversity", drafts, count_tokens(P.DIVERSITY) + count_tokens(P.diversity_message(
        _sig(7), a, cfg.signature_chars, None)), DIV_OUT)
    t.add("critic", b * extra, count_tokens(P.CRITIC) + count_tokens(P.critic_message(parent, "refine", ["x"] * 3,
                                                                                     background)), CRITIC_OUT)
    if families:
        t.add("diversity", b * families, count_tokens(P.FAMILY) + count_tokens(P.family_message(
            parent, _words(30, 4), a.families, cfg.signature_chars)), FAMILY_OUT)
    t.add("quality", b * refine_pairs * 2, count_tokens(P.PAIRWISE) + count_tokens(P.pairwise_message(
        parent.idea, _idea(51))), PAIR_OUT)
    return t


def baseline_tally(method: str, cfg: IdeagentConfig, *, n: int, topic: str, background_tokens: int,
                   scenario: str, tools: bool = True) -> RoleTally:
    upper = scenario == "upper"
    background = _words(min(background_tokens, cfg.background_tokens), 1) if background_tokens else ""
    system = count_tokens(P.ideator_system(topic, background, "TOOLS: " + _words(150, 9) if tools else ""))
    tool_calls = (cfg.ideator_tool_calls if upper else cfg.ideator_tool_calls / 2) if tools else 0
    result = TOOL_RESULT[scenario]
    t = RoleTally()
    steno_in = count_tokens(P.STENOGRAPHER) + count_tokens(P.render_idea(_idea(1)))
    memory = [(f"s{i}", _sig(i)) for i in range(n)]
    if method == "stateless":
        _ideator_cost(t, "ideator", system + count_tokens(P.stateless_prompt(1, n)) + 60, tool_calls, result, n)
    elif method == "one_shot":
        k = tool_calls
        t.add("ideator", k + 1, system + count_tokens(P.one_shot_prompt(n)) + 60 + result * k / 2,
              (IDEA_OUT * n + 40 * k) / (k + 1))
    elif method == "sequential_memory":
        mem = count_tokens(P.memory_prompt(n, n, memory[: n // 2], cfg.signature_chars))
        _ideator_cost(t, "ideator", system + mem + 60, tool_calls, result, n)
        t.add("stenographer", n, steno_in, SIG_OUT)
    elif method == "nova":
        r = cfg.nova_rounds
        mem = count_tokens(P.memory_prompt(n, n, memory[: n // 2], cfg.signature_chars, _draft(3)))
        _ideator_cost(t, "ideator", system + mem + 60, tool_calls, result, n * r)
        t.add("stenographer", n * r, steno_in, SIG_OUT)
        pool = [_draft(i) for i in range(n)]
        t.add("judge", r - 1, count_tokens(P.NOVA_SELECT) + count_tokens(P.numbered(pool, cfg.signature_chars)),
              SELECT_OUT)
        allp = [_draft(i) for i in range(n * r)]
        t.add("judge", 1, count_tokens(P.NOVA_DIVERSE) + count_tokens(P.numbered(allp, cfg.signature_chars)),
              SELECT_OUT)
    else:
        raise ValueError(f"unknown baseline {method!r}")
    return t


def add_to_plan(plan: Any, upper: RoleTally, typical: RoleTally, label: str) -> None:
    """Upper bound into the plan's table (what --dry-run prints per role); the typical case as notes."""
    for role, (calls, t_in, t_out) in upper.rounded().items():
        plan.add(role, calls=calls, input_tokens=t_in, output_tokens=t_out)
    total_calls = total_cost = 0.0
    total_in = total_out = 0
    parts = []
    for role, (calls, t_in, t_out) in typical.rounded().items():
        full = plan.qualify(role) if plan.qualify is not None else role
        _, cost = plan.price(full, t_in, t_out)
        total_calls += calls
        total_in += t_in
        total_out += t_out
        total_cost += cost
        parts.append(f"{role} {calls} calls/{t_in} in/{t_out} out/${cost:.4f}")
    plan.notes.append(f"{label}: table = upper bound; typical case: {int(total_calls)} calls, {total_in} in / "
                      f"{total_out} out tokens, ${total_cost:.4f} ({'; '.join(parts)})")


def estimate_ideagent(plan: Any, cfg: IdeagentConfig, *, capacity: int, topic: str, background_tokens: int) -> None:
    def tally(scenario: str) -> RoleTally:
        return ideagent_tally(cfg, capacity=capacity, topic=topic, background_tokens=background_tokens,
                              scenario=scenario)

    add_to_plan(plan, tally("upper"), tally("typical"),
                f"ideagent B={cfg.seeds}, capacity {capacity}, M={cfg.panel_size}")


def estimate_baseline(plan: Any, method: str, cfg: IdeagentConfig, *, n: int, topic: str,
                      background_tokens: int) -> None:
    def tally(scenario: str) -> RoleTally:
        return baseline_tally(method, cfg, n=n, topic=topic, background_tokens=background_tokens, scenario=scenario)

    add_to_plan(plan, tally("upper"), tally("typical"), f"{method} N={n}")


def main() -> None:
    prices = LLMSettings().prices
    cfg = IdeagentConfig(_env_file=None)
    topic = "efficient long-context retrieval for language models"
    bg = 3000
    n = 3
    print(f"defaults: B={cfg.seeds}, M={cfg.panel_size}, capacity/N={n}, background {bg} tokens, "
          f"{cfg.ideator_tool_calls} ideator tool calls")
    print(f"{'method':18} {'case':8} {'calls':>6} {'in tok':>9} {'out tok':>8} "
          f"{'deepseek-chat':>14} {'gpt-4o-mini':>12}")
    for method in ("ideagent", "stateless", "one_shot", "sequential_memory", "nova"):
        for scenario in ("upper", "typical"):
            if method == "ideagent":
                t = ideagent_tally(cfg, capacity=n, topic=topic, background_tokens=bg, scenario=scenario)
            else:
                t = baseline_tally(method, cfg, n=n, topic=topic, background_tokens=bg, scenario=scenario)
            rows = t.rounded()
            c = sum(r[0] for r in rows.values())
            i = sum(r[1] for r in rows.values())
            o = sum(r[2] for r in rows.values())
            print(f"{method:18} {scenario:8} {c:6d} {i:9d} {o:8d} {cost_usd('deepseek-chat', prices, i, o):14.4f} "
                  f"{cost_usd('gpt-4o-mini', prices, i, o):12.4f}")
            if method == "ideagent":
                for role, (rc, ri, ro) in rows.items():
                    print(f"{'':18} {role:>18}: {rc} calls, {ri} in, {ro} out")


if __name__ == "__main__":
    main()
