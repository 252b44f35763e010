"""Dry-run call counts follow the settings; per-run overrides keep bounds and cross-field rules."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from motivgraph.agents.ideagent.config import IdeagentConfig
from motivgraph.agents.ideagent.cost import baseline_tally, ideagent_tally
from motivgraph.agents.ideagent.method import IdeagentMethodConfig


def _cfg(**kw):  # type: ignore[no-untyped-def]
    return IdeagentConfig(_env_file=None, **kw)  # type: ignore[call-arg]


@pytest.mark.parametrize("kw", [{}, {"seeds": 4, "panel_size": 3, "invalid_votes": 2, "ideator_tool_calls": 2}])
def test_upper_bound_calls_follow_settings(kw):
    cfg = _cfg(**kw)
    rows = ideagent_tally(cfg, capacity=3, topic="t", background_tokens=1000, scenario="upper").rounded()
    b, m, t, x = cfg.seeds, cfg.panel_size, cfg.ideator_tool_calls, cfg.extra_drafts_per_seed
    drafts = b * (1 + x)
    assert rows["ideator"][0] == drafts * (t + 1)
    assert rows["soundness"][0] == drafts * m
    assert rows["stenographer"][0] == drafts and rows["diversity"][0] == drafts
    assert rows["critic"][0] == b * x
    assert rows["quality"][0] == drafts + b * min(cfg.max_refinements, x) * 2  # + blind comparisons
    typical = ideagent_tally(cfg, capacity=3, topic="t", background_tokens=1000, scenario="typical").rounded()
    assert sum(r[0] for r in typical.values()) < sum(r[0] for r in rows.values())
    assert all(r[1] > 0 and r[2] > 0 for r in rows.values())


def test_bigger_background_costs_more_input():
    cfg = _cfg()
    small = ideagent_tally(cfg, capacity=3, topic="t", background_tokens=200, scenario="typical").rounded()
    big = ideagent_tally(cfg, capacity=3, topic="t", background_tokens=2500, scenario="typical").rounded()
    assert big["quality"][1] > small["quality"][1]


def test_baseline_counts():
    cfg = _cfg(ideator_tool_calls=0)
    assert baseline_tally("stateless", cfg, n=4, topic="t", background_tokens=0, scenario="upper").rounded()[
        "ideator"][0] == 4
    assert baseline_tally("one_shot", cfg, n=4, topic="t", background_tokens=0, scenario="upper").rounded()[
        "ideator"][0] == 1
    seq = baseline_tally("sequential_memory", cfg, n=4, topic="t", background_tokens=0, scenario="upper").rounded()
    assert seq["ideator"][0] == 4 and seq["stenographer"][0] == 4
    nova = baseline_tally("nova", cfg, n=4, topic="t", background_tokens=0, scenario="upper").rounded()
    assert nova["ideator"][0] == 4 * cfg.nova_rounds and nova["judge"][0] == cfg.nova_rounds
    with pytest.raises(ValueError, match="unknown baseline"):
        baseline_tally("nope", cfg, n=1, topic="t", background_tokens=0, scenario="upper")


def test_method_config_overrides_bounds_and_cross_field_rules():
    c = IdeagentMethodConfig(seeds=3, min_diversity=70, family_rule="reason")
    sc = c.search_config()
    assert (sc.seeds, sc.min_diversity, sc.family_rule, sc.panel_size) == (3, 70, "reason", 5)
    for bad in ({"panel_size": 0}, {"min_clarity": 101}, {"panel_size": 2}, {"family_rule": "vote"},
                {"unknown_knob": 1}):
        with pytest.raises(ValidationError):
            IdeagentMethodConfig(**bad)


def test_env_settings_are_the_defaults(monkeypatch):
    monkeypatch.setenv("MOTIVGRAPH_IDEAGENT_SEEDS", "7")
    monkeypatch.setenv("MOTIVGRAPH_IDEAGENT_REPAIR_MARGIN", "10")
    assert IdeagentMethodConfig().search_config().seeds == 7
    assert IdeagentMethodConfig(seeds=2).search_config().seeds == 2  # the run's flag wins
    assert IdeagentConfig().repair_margin == 10
